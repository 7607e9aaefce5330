"""Evaluation tournaments between agents, in Gin Rummy or Rummy, on the batched engines.

    python evaluate.py simple random                     # Gin Rummy, 2,000 duplicate games to 100
    python evaluate.py expert simple random --games 1000 # round-robin over three agents
    python evaluate.py runs/gin/final.pt expert simple   # a trained checkpoint against baselines
    python evaluate.py --game rummy expert simple        # Rummy: one expert against three simple

An agent is a baseline name (random, simple, expert) or a checkpoint path.

Matches
-------
Two agents form a pairing; with more, every pair plays (round-robin). In Gin Rummy the
deals are duplicated by default: each deal is played twice with the seats swapped, so
the luck of the cards cancels. In Rummy (``--players`` seats, default 4) a pairing is
one agent A against ``players - 1`` copies of agent B, and the seats rotate over the
same deals: A sits once in every seat of each deal. ``--unit game`` plays whole games to
the target; ``--unit hand`` single hands (rounds).

Chunks and workers
------------------
A pairing's games are cut into chunks of ``--chunk`` games (default 1000, whole duplicate
sets), each played as one batch with its agents reset from seeds drawn per chunk. The
chunks are played one after another in this process, or spread over ``--workers N`` Ray
actors (``pip install -e ".[ray]"``; ``--ray-address auto`` joins a cluster): every chunk
plays the same games either way, so the results (wins, points, hand counts) are exactly
those of the in-process run with the same seed and chunk size, for any agent.

Report
------
Per pairing: games, wins, the win rate with its 95% Wilson interval, draws (games cut off
by a cap), mean points per hand and per game of each side, and how hands ended per
agent (knock, gin, undercut, dead; in Rummy out, draw). Across agents: Bradley-Terry
ratings on the Elo scale (400 points = 10:1 odds) with their standard errors; in Rummy the
lone agent's chance against P - 1 copies is s_A / (s_A + (P - 1) s_B) (Luce's choice
model), so two equal agents get equal ratings at a 1/P win rate. The table
goes to the terminal, every figure to ``OUT/results.json``, a chart to ``OUT/results.png``.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from rummyrl.agents import Agent, load_agent
from rummyrl.agents.base import tell_rules
from rummyrl.distributed import RayMissingError, RayUnavailableError
from rummyrl.envs.options import parse_key_values
from rummyrl import gin

# --------------------------------------------------------------------------------------
# Statistics
# --------------------------------------------------------------------------------------
Z95 = 1.959963984540054


def wilson_interval(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion ``wins / n`` (95% by default)."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def bradley_terry(wins: np.ndarray, iters: int = 200, offset: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Bradley-Terry ratings from a matrix ``wins[i, j]`` (times i beat j; draws may be
    entered as halves). Returns Elo-scale ratings (mean 0) and their standard errors
    (from the inverse Fisher information under the mean-zero constraint).

    ``offset[i, j]`` (antisymmetric, default 0) is a known log-odds term of those games:
    P(i beats j) = 1 / (1 + exp(theta_j - theta_i - offset[i, j])). A lone agent against
    ``m`` copies of another (Rummy) has ``offset = -log(m)``: Luce's choice model, where
    it wins with probability s_i / (s_i + m s_j), so equal strengths win 1 game in m + 1.

    A weak prior (one draw against a virtual average player) keeps ratings finite when an
    agent won or lost every game.
    """
    w = np.asarray(wins, dtype=float)
    k = w.shape[0]
    o = np.zeros((k, k)) if offset is None else np.asarray(offset, dtype=float)
    if o.shape != (k, k) or not np.allclose(o, -o.T):
        raise ValueError(f"offset must be an antisymmetric ({k}, {k}) matrix")
    n = w + w.T
    theta = np.zeros(k)
    prior = 1.0

    def probabilities(theta):
        p = 1 / (1 + np.exp(theta[None, :] - theta[:, None] - o))  # P(i beats j)
        p0 = 1 / (1 + np.exp(-theta))  # against the virtual player at 0
        info = np.diag((n * p * (1 - p)).sum(1) + 2 * prior * p0 * (1 - p0)) - n * p * (1 - p)
        return p, p0, info

    for _ in range(iters):  # Newton steps on the log-likelihood with the prior
        p, p0, info = probabilities(theta)
        grad = (w - n * p).sum(1) + prior * (0.5 - p0) * 2
        step = np.linalg.solve(info, grad)
        theta += step
        if np.abs(step).max() < 1e-10:
            break
    theta -= theta.mean()
    _, _, info = probabilities(theta)
    proj = np.eye(k) - 1.0 / k  # the mean-zero constraint removes the common shift
    cov = proj @ np.linalg.inv(info) @ proj
    scale = 400 / math.log(10)
    return theta * scale, np.sqrt(np.clip(np.diag(cov), 0, None)) * scale


# --------------------------------------------------------------------------------------
# Games: what the match loop needs to know about each engine
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameSpec:
    name: str
    num_players: int
    module: object
    config: object
    #: names of the ways a hand ends, by the engine's code
    end_names: tuple
    #: end codes that have no winner (dead, drawn, truncated)
    no_winner_ends: tuple
    #: the state field that marks games whose hand (round) ended in the last step
    ended_field: str = "hand_ended"


def game_spec(game: str, unit: str, players: int | None = None, options: dict | None = None) -> GameSpec:
    """The engine and rule config of a game; ``players`` defaults to 2 (Gin) or 4 (Rummy)."""
    options = dict(options or {})
    players = players or (2 if game == "gin" else 4)
    if unit not in ("game", "hand"):
        raise ValueError(f"unit must be 'game' or 'hand', got {unit!r}")
    if game == "gin":
        if players != 2:
            raise ValueError(f"Gin Rummy is played by 2 players, not {players}")
        cfg = gin.GinConfig.from_dict({**options, "episode": unit})
        return GameSpec("gin", 2, gin, cfg, gin.END_NAMES, (gin.END_NONE, gin.END_DEAD, gin.END_TRUNCATED))
    if game == "rummy":
        from rummyrl import rummy

        cfg = rummy.RummyConfig.from_dict({**options, "num_players": players,
                                           "episode": "round" if unit == "hand" else "game"})
        return GameSpec("rummy", players, rummy, cfg, rummy.END_NAMES, rummy.NO_WINNER_ENDS, "round_ended")
    raise ValueError(f"unknown game {game!r}; choose 'gin' or 'rummy'")


# --------------------------------------------------------------------------------------
# Playing a pairing
# --------------------------------------------------------------------------------------
@dataclass
class PairingResult:
    """Results of agent A against agent B (B in every other seat in Rummy)."""

    a: str
    b: str
    games: int = 0
    wins_a: int = 0
    wins_b: int = 0
    draws: int = 0
    hands: int = 0
    points_hand: dict = field(default_factory=dict)  # side -> mean points scored per hand
    points_game: dict = field(default_factory=dict)  # side -> mean final total per game
    margin_a: float = 0.0  # A's mean final margin (G-19; Rummy: A's total minus the best other)
    hand_ends: dict = field(default_factory=dict)  # side -> {end name: count of hands it won so}
    dead_hands: int = 0  # hands nobody won (dead, drawn, truncated)
    seconds: float = 0.0

    @property
    def win_rate(self) -> float:
        return self.wins_a / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins_a, self.games)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["win_rate_a"] = self.win_rate
        d["win_rate_a_ci95"] = list(self.interval)
        return d


def _lineups(num_players: int, pairs: int, duplicate: bool, rng) -> tuple[np.ndarray, np.ndarray]:
    """Seat of agent A in each game, and each game's deal seed. With ``duplicate`` the same
    deal is played with A in every seat (2 games in Gin, P in Rummy)."""
    if duplicate:
        deal_seeds = rng.integers(0, 2**62, size=pairs)
        seeds = np.repeat(deal_seeds, num_players)
        a_seat = np.tile(np.arange(num_players), pairs)
    else:
        seeds = rng.integers(0, 2**62, size=pairs * num_players)
        a_seat = np.arange(pairs * num_players) % num_players
    return a_seat, seeds


#: games per chunk of a pairing (rounded down to whole duplicate sets): the unit a
#: tournament's work is cut into, in process and on Ray workers alike. A pairing of up to
#: this many games is one batch, played exactly as before tournaments had chunks, so the
#: results measured then (1,000 games of search, 400 of the trainer's evaluations) repeat.
DEFAULT_CHUNK = 1000


def pairing_chunks(spec: GameSpec, games: int, seed: int = 0, duplicate: bool = True,
                   chunk: int = DEFAULT_CHUNK) -> list[dict]:
    """The games of a pairing, cut into chunks: the keyword arguments of :func:`play_chunk`.

    All deals come from ``seed`` first (:func:`_lineups`: A's seat and the deal seed of
    every game, ``games`` rounded up to whole duplicate sets); then each chunk of at most
    ``chunk`` games (whole duplicate sets, at least one; ``chunk <= 0``: one chunk) draws
    the seeds its two agents are reset with. A chunk's games depend only on these, never
    on where or next to what it is played: the engines deal each game from its own seed
    (``rummyrl/gin.py``), and each chunk is its own batch."""
    P = spec.num_players
    sets = max(1, math.ceil(games / P))
    rng = np.random.default_rng(seed)
    a_seat, seeds = _lineups(P, sets, duplicate, rng)
    per = sets if chunk <= 0 else max(1, chunk // P)
    out = []
    for lo in range(0, sets, per):
        hi = min(lo + per, sets)
        agent_seeds = (int(rng.integers(2**31)), int(rng.integers(2**31)))
        out.append({"a_seat": a_seat[lo * P:hi * P], "seeds": seeds[lo * P:hi * P], "agent_seeds": agent_seeds})
    return out


def play_chunk(agent_a: Agent, agent_b: Agent, spec: GameSpec, a_seat: np.ndarray, seeds: np.ndarray,
               agent_seeds: tuple[int, int], progress=None) -> dict:
    """Play one chunk of a pairing (see :func:`pairing_chunks`) as one batch: the games
    with deal ``seeds[i]`` and A in seat ``a_seat[i]``, B in the others, both agents reset
    with ``agent_seeds`` first. Returns the raw outcome (per-game arrays and counts) that
    :func:`pairing_result` adds up."""
    P = spec.num_players
    n = a_seat.size
    eng = spec.module
    tell_rules((agent_a, agent_b), spec.config)
    for ag, s in zip((agent_a, agent_b), agent_seeds):
        ag.reset(seed=int(s))
    state = eng.init(n, seed=seeds, config=spec.config)
    lanes = np.arange(n)
    is_a = np.zeros((n, P), bool)
    is_a[lanes, a_seat] = True

    n_ends = len(spec.end_names)
    ends = np.zeros((2, n_ends), np.int64)  # side (0 = A, 1 = B) x end kind, hands won that way
    points_hand = np.zeros(2)
    dead = hands = 0
    obs = None
    t0 = time.perf_counter()
    finished = 0
    while not state.game_over.all():
        live = ~state.game_over
        cur = state.current.astype(np.int64)
        a_turn = live & is_a[lanes, np.clip(cur, 0, P - 1)]
        b_turn = live & ~a_turn
        obs = eng.observe(state, out=obs)
        actions = np.zeros(n, np.int64)
        for turn, ag in ((a_turn, agent_a), (b_turn, agent_b)):
            rows = np.flatnonzero(turn)
            if rows.size:
                actions[rows] = ag.act(obs[rows], state.mask[rows])
        eng.step(state, actions, inplace=True)
        ended = np.flatnonzero(getattr(state, spec.ended_field))
        if ended.size:
            hands += ended.size
            w = state.last_winner[ended].astype(np.int64)
            kind = state.last_end[ended].astype(np.int64)
            won = w >= 0
            side = np.where(is_a[ended[won], w[won]], 0, 1)
            np.add.at(ends, (side, kind[won]), 1)
            np.add.at(points_hand, side, state.last_points[ended[won]])
            dead += int((~won).sum())
        done_now = int(state.game_over.sum())
        if progress is not None and done_now > finished:
            progress.update(done_now - finished)
        finished = done_now
    seconds = time.perf_counter() - t0

    result = eng.game_result(state)
    winner = result.winner.astype(np.int64)
    has = winner >= 0
    a_won = has & is_a[lanes, np.clip(winner, 0, P - 1)]
    totals = result.total.astype(float)
    a_total = totals[lanes, a_seat]
    b_total = np.where(is_a, np.nan, totals)
    return {"games": n, "has_winner": has, "a_won": a_won, "a_total": a_total, "b_total": b_total,
            "others_best": np.nanmax(b_total, axis=1), "ends": ends, "points_hand": points_hand,
            "hands": int(hands), "dead": int(dead), "seconds": seconds}


def pairing_result(chunks: list[dict], spec: GameSpec, names: tuple[str, str]) -> PairingResult:
    """A pairing's results from the outcomes of its chunks, in chunk order (so the means
    run over the same games in the same order however the chunks were played)."""
    def cat(key):
        return np.concatenate([c[key] for c in chunks])

    P = spec.num_players
    has, a_won, a_total, b_total, others_best = (cat(k) for k in ("has_winner", "a_won", "a_total", "b_total",
                                                                  "others_best"))
    ends = sum(c["ends"] for c in chunks)
    points_hand = sum(c["points_hand"] for c in chunks)
    hands = sum(c["hands"] for c in chunks)
    name_a, name_b = names
    res = PairingResult(a=name_a, b=name_b, games=int(a_won.size), wins_a=int(a_won.sum()),
                        wins_b=int((has & ~a_won).sum()), draws=int((~has).sum()), hands=int(hands),
                        seconds=float(sum(c["seconds"] for c in chunks)),
                        dead_hands=int(sum(c["dead"] for c in chunks)))
    res.points_hand = {name_a: points_hand[0] / max(hands, 1),
                       name_b: points_hand[1] / max(hands, 1) / (P - 1)}
    res.points_game = {name_a: float(a_total.mean()), name_b: float(np.nanmean(b_total))}
    res.margin_a = float((a_total - others_best).mean())
    res.hand_ends = {
        nm: {spec.end_names[k]: int(ends[s, k]) for k in range(len(spec.end_names)) if k not in spec.no_winner_ends}
        for s, nm in ((0, name_a), (1, name_b))
    }
    return res


def play_pairing(agent_a: Agent, agent_b: Agent, spec: GameSpec, games: int, seed: int = 0,
                 duplicate: bool = True, progress=None, names: tuple[str, str] | None = None,
                 chunk: int = DEFAULT_CHUNK) -> PairingResult:
    """Play ``games`` games (rounded up to whole duplicate sets) of A against B, chunk
    after chunk (:func:`pairing_chunks`)."""
    raws = [play_chunk(agent_a, agent_b, spec, **c, progress=progress)
            for c in pairing_chunks(spec, games, seed, duplicate, chunk)]
    return pairing_result(raws, spec, names or (agent_a.name, agent_b.name))


# --------------------------------------------------------------------------------------
# Tournaments
# --------------------------------------------------------------------------------------
@dataclass
class Tournament:
    game: str
    unit: str
    agents: list
    pairings: list
    ratings: dict
    settings: dict

    def to_dict(self) -> dict:
        return {"game": self.game, "unit": self.unit, "agents": self.agents, "settings": self.settings,
                "pairings": [p.to_dict() for p in self.pairings], "ratings": self.ratings}


def run_tournament(specs: list[str], game: str = "gin", games: int = 2000, unit: str = "game",
                   players: int = 4, duplicate: bool = True, seed: int = 0, options: dict | None = None,
                   show_progress: bool = True, agents: dict | None = None,
                   pairs_with: int | None = None, chunk: int = DEFAULT_CHUNK, workers: int = 0,
                   ray_address: str = "") -> Tournament:
    """Every pair of the given agents plays ``games`` games; returns all results and ratings.

    ``specs``: agent names or checkpoint paths; ``agents`` may map a spec to an already
    built :class:`Agent` (the trainer passes its current policy this way). With
    ``pairs_with = i`` only the pairings of agent ``i`` with each other agent are played.

    Each pairing is played in chunks of ``chunk`` games (:func:`pairing_chunks`): one
    after another here (``workers=0``), or spread over ``workers`` Ray actors
    (:class:`rummyrl.distributed.ChunkPlayer`; ``ray_address`` as in
    :class:`~rummyrl.distributed.RaySession`). The results depend on the seed and
    ``chunk``, never on ``workers``: every chunk plays the same games either way.
    """
    if len(specs) < 2:
        raise ValueError(f"a tournament needs at least two agents, got {specs}")
    if len(set(specs)) != len(specs):
        raise ValueError(f"an agent is listed twice: {specs}")
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if workers < 0:
        raise ValueError(f"workers must be >= 0, got {workers}")
    spec = game_spec(game, unit, players if game == "rummy" else 2, options)
    built = {s: (agents or {}).get(s) or load_agent(s, game=game, seed=seed) for s in specs}
    labels = display_names(specs)
    pairs = list(itertools.combinations(range(len(specs)), 2))
    if pairs_with is not None:
        pairs = [p for p in pairs if pairs_with in p]
    total = sum(spec.num_players * math.ceil(games / spec.num_players) for _ in pairs)
    bar = None
    if show_progress:
        from tqdm import tqdm

        bar = tqdm(total=total, unit="game", desc=f"{game} {unit}s", file=sys.stderr, dynamic_ncols=True)
    results, ray_info = [], None
    try:
        if workers:
            game_args = {"game": game, "unit": unit, "players": spec.num_players, "options": options}
            results, ray_info = _play_on_ray(built, specs, labels, pairs, spec, game_args, games, seed, duplicate,
                                             chunk, workers, ray_address, bar)
        else:
            for i, j in pairs:
                if bar is not None:
                    bar.set_postfix_str(f"{specs[i]} vs {specs[j]}")
                results.append(play_pairing(built[specs[i]], built[specs[j]], spec, games,
                                            seed=seed + 1000 * len(results), duplicate=duplicate, progress=bar,
                                            names=(labels[i], labels[j]), chunk=chunk))
    finally:
        if bar is not None:
            bar.close()
    wins = np.zeros((len(specs), len(specs)))
    offset = np.zeros_like(wins)  # the lone agent A against players - 1 copies of B
    for (i, j), r in zip(pairs, results):
        wins[i, j] += r.wins_a + r.draws / 2
        wins[j, i] += r.wins_b + r.draws / 2
        offset[i, j], offset[j, i] = -math.log(spec.num_players - 1), math.log(spec.num_players - 1)
    rating, se = bradley_terry(wins, offset=offset)
    ratings = {s: {"elo": float(rating[k]), "se": float(se[k])} for k, s in enumerate(labels)}
    settings = {"games_per_pairing": games, "players": spec.num_players, "duplicate": duplicate,
                "seed": seed, "chunk": chunk, "options": options or {}, "config": dataclasses.asdict(spec.config)}
    settings["agent_specs"] = dict(zip(labels, specs))
    if ray_info is not None:
        settings["ray"] = ray_info
    return Tournament(game, unit, labels, results, ratings, settings)


def _play_on_ray(built, specs, labels, pairs, spec, game_args, games, seed, duplicate, chunk, workers,
                 ray_address, bar) -> tuple[list[PairingResult], dict]:
    """The pairings' chunks spread over ``workers`` Ray actors, results as chunks return;
    each pairing is then summed up in chunk order, as in process. Also returns the seconds
    spent starting the actors and playing."""
    from rummyrl.distributed import ChunkPlayer, RaySession, local_cpus, pickled

    session = RaySession(ray_address, num_cpus=local_cpus(workers))
    ray = session.ray
    from ray.util import ActorPool

    actors = []
    raws: dict = {}
    try:
        # a chunk is a pure function of its arguments: a restarted actor may simply replay it
        player = ray.remote(ChunkPlayer).options(num_cpus=1, max_restarts=2, max_task_retries=2,
                                                 scheduling_strategy="SPREAD")
        t0 = time.perf_counter()
        actors = [player.remote() for _ in range(workers)]
        ray.get([actor.ready.remote() for actor in actors])
        t1 = time.perf_counter()
        jobs = []
        for p, (i, j) in enumerate(pairs):
            blob = ray.put(pickled((built[specs[i]], built[specs[j]])))  # once per pairing
            for c, kwargs in enumerate(pairing_chunks(spec, games, seed + 1000 * p, duplicate, chunk)):
                jobs.append(((p, c), blob, kwargs))
        if len(jobs) < workers:  # said, not changed: the chunk size decides the games played
            print(f"evaluate: {len(jobs)} chunk(s) for {workers} workers, {workers - len(jobs)} idle: "
                  f"a smaller --chunk (now {chunk}) spreads a pairing over more of them "
                  f"(the results depend on --chunk)", file=sys.stderr)
        if bar is not None:
            bar.set_postfix_str(f"{len(pairs)} pairing(s), {len(jobs)} chunks on {workers} Ray workers")
        for key, raw in ActorPool(actors).map_unordered(
                lambda actor, job: actor.play.remote(job[0], job[1], game_args, job[2]), jobs):
            raws[key] = raw
            if bar is not None:
                bar.update(raw["games"])
        info = {"workers": workers, "chunks": len(jobs), "startup_seconds": t1 - t0,
                "play_seconds": time.perf_counter() - t1}
    finally:
        for actor in actors:
            try:
                ray.kill(actor)
            except Exception:  # noqa: BLE001 - gone already
                pass
        session.close()
    return [pairing_result([raws[(p, c)] for c in range(sum(1 for q, _ in raws if q == p))], spec,
                           (labels[i], labels[j])) for p, (i, j) in enumerate(pairs)], info


def display_names(specs: list[str]) -> list[str]:
    """Short labels: a baseline's name, a checkpoint's ``folder/file`` without ``.pt``."""
    labels = []
    for s in specs:
        p = Path(s)
        label = s if not (s.endswith(".pt") or os.path.sep in s) else f"{p.parent.name}/{p.stem}".lstrip("/")
        labels.append(label if label not in labels else s)
    return labels


# --------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------
def format_table(t: Tournament) -> str:
    lines = [f"{t.game} — {t.unit}s, {'duplicate deals' if t.settings['duplicate'] else 'random deals'}",
             "",
             "| A | B | games | A wins | win rate A [95% CI] | draws | pts/hand A | pts/hand B | pts/game A | pts/game B |",
             "| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |"]
    for r in t.pairings:
        lo, hi = r.interval
        lines.append(
            f"| {r.a} | {r.b} | {r.games} | {r.wins_a} | {r.win_rate:.1%} [{lo:.1%}, {hi:.1%}] | {r.draws} | "
            f"{r.points_hand[r.a]:.2f} | {r.points_hand[r.b]:.2f} | {r.points_game[r.a]:.1f} | {r.points_game[r.b]:.1f} |"
        )
    lines += ["", "| agent | hands won by | " + " | ".join(_end_columns(t)) + " |",
              "| --- | --- | " + " | ".join("---:" for _ in _end_columns(t)) + " |"]
    for r in t.pairings:
        for side in (r.a, r.b):
            counts = r.hand_ends[side]
            lines.append(f"| {side} | vs {r.b if side == r.a else r.a} | "
                         + " | ".join(str(counts.get(c, 0)) for c in _end_columns(t)) + " |")
    lines += ["", "| agent | rating (Elo scale) | ± s.e. |", "| --- | ---: | ---: |"]
    for s, v in sorted(t.ratings.items(), key=lambda kv: -kv[1]["elo"]):
        lines.append(f"| {s} | {v['elo']:+.0f} | {v['se']:.0f} |")
    return "\n".join(lines)


def _end_columns(t: Tournament) -> list[str]:
    cols = []
    for r in t.pairings:
        for counts in r.hand_ends.values():
            cols += [c for c in counts if c not in cols]
    return cols


def save_chart(t: Tournament, path: Path) -> None:
    from matplotlib.figure import Figure

    k = len(t.agents)
    rate = np.full((k, k), np.nan)
    for r in t.pairings:
        i, j = t.agents.index(r.a), t.agents.index(r.b)
        rate[i, j] = r.win_rate
        rate[j, i] = r.wins_b / r.games / (1 if t.game == "gin" else t.settings["players"] - 1) if r.games else np.nan
    fig = Figure(figsize=(11, 4.5))
    ax1, ax2 = fig.subplots(1, 2)
    im = ax1.imshow(rate, vmin=0, vmax=1, cmap="RdYlGn")
    ax1.set_xticks(range(k), t.agents, rotation=30, ha="right")
    ax1.set_yticks(range(k), t.agents)
    for i in range(k):
        for j in range(k):
            if not np.isnan(rate[i, j]):
                ax1.text(j, i, f"{rate[i, j]:.0%}", ha="center", va="center", fontsize=9)
    ax1.set_title("win rate of row agent vs column agent" + ("" if t.game == "gin" else "\n(per seat)"))
    fig.colorbar(im, ax=ax1, fraction=0.046)
    order = sorted(t.agents, key=lambda s: t.ratings[s]["elo"])
    ax2.barh(range(k), [t.ratings[s]["elo"] for s in order], xerr=[Z95 * t.ratings[s]["se"] for s in order],
             color="tab:blue", capsize=4)
    ax2.set_yticks(range(k), order)
    ax2.set_xlabel("Bradley-Terry rating (Elo scale), 95% interval")
    ax2.axvline(0, color="grey", lw=0.8)
    fig.suptitle(f"{t.game}: {t.settings['games_per_pairing']} {t.unit}s per pairing")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def write_outputs(t: Tournament, out: Path, about: dict | None = None) -> tuple[Path, Path]:
    """``results.json`` (with ``about``, if given, beside the results) and ``results.png``."""
    out.mkdir(parents=True, exist_ok=True)
    jpath, ppath = out / "results.json", out / "results.png"
    jpath.write_text(json.dumps({**t.to_dict(), **(about or {})}, indent=2))
    save_chart(t, ppath)
    return jpath, ppath


# --------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Tournaments between rummyrl agents.",
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("agents", nargs="+", help="agent names (random, simple, expert, planner, search, pretrained) or checkpoint paths")
    ap.add_argument("--game", default="gin", choices=["gin", "rummy"])
    ap.add_argument("--games", type=int, default=2000, help="games per pairing (default 2000)")
    ap.add_argument("--unit", default="game", choices=["game", "hand"], help="whole games to the target, or single hands")
    ap.add_argument("--players", type=int, default=4, help="Rummy: players per game (2-6, default 4)")
    ap.add_argument("--no-duplicate", action="store_true", help="fresh deals for every game")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a rule option of the game, e.g. --option knock_limit=5 (repeatable)")
    ap.add_argument("--out", default=None, help="folder for results.json and results.png (default eval_results/<game>-<time>)")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    ap.add_argument("--chunk", type=int, default=DEFAULT_CHUNK,
                    help=f"games per chunk, the unit of work (default {DEFAULT_CHUNK}; results depend on it, "
                         "not on --workers)")
    ap.add_argument("--workers", type=int, default=0,
                    help="Ray actors to spread the chunks over (default 0: in this process); needs "
                         'pip install -e ".[ray]"')
    ap.add_argument("--ray-address", default="",
                    help="with --workers: the Ray cluster to join (auto, or HOST:PORT); default: a local Ray")
    args = ap.parse_args(argv)
    try:
        t = run_tournament(args.agents, game=args.game, games=args.games, unit=args.unit, players=args.players,
                           duplicate=not args.no_duplicate, seed=args.seed, options=parse_key_values(args.option),
                           show_progress=not args.quiet, chunk=args.chunk, workers=args.workers,
                           ray_address=args.ray_address)
    except (ValueError, FileNotFoundError, KeyError, RayMissingError, RayUnavailableError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else e
        print(f"evaluate.py: error: {msg}", file=sys.stderr)
        return 2
    print(format_table(t))
    out = Path(args.out) if args.out else Path("eval_results") / f"{args.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    jpath, ppath = write_outputs(t, out)
    print(f"\nwrote {jpath} and {ppath}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
