"""Tournaments between agents on the batched engines: pairings, chunks, ratings.

A *pairing* is agent A against agent B (B in every other seat when there are more than
two players), played on duplicate deals: each deal once with A in every seat, so the luck
of the cards cancels. A pairing's games are cut into *chunks* (:func:`pairing_chunks`),
each played as one batch (:func:`play_chunk`) in this process or on Ray workers
(:mod:`rummyrl.distributed`); a chunk's games depend only on its seeds, so the results
depend on the seed and the chunk size, never on the number of workers.
:func:`run_tournament` plays every pair of a list of agents and rates them
(:mod:`rummyrl.stats`). ``evaluate.py`` is its command line (:mod:`rummyrl.evaluate`).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pickle

import numpy as np
import torch
from tqdm import tqdm

from rummyrl import games as registry
from rummyrl import reasons as why
from rummyrl.agents import Agent, load_agent
from rummyrl.agents.base import tell_rules
from rummyrl.distributed import RaySession, local_cpus, pickled
from rummyrl.records import BatchRecorder
from rummyrl.stats import bradley_terry, wilson_interval


def match_config(game, unit: str = "game", players: int | None = None, options: dict | None = None):
    """The rules config of a tournament's games: ``game``'s rules ``options`` for whole
    games (``unit="game"``) or single deals (``"hand"``), with ``players`` seats (default:
    the game's). Every value is checked by the game's config."""
    if unit not in ("game", "hand"):
        raise ValueError(f"unit must be 'game' or 'hand', got {unit!r}")
    g = registry.get(game)
    options = dict(options or {})
    if "episode" in options:
        raise ValueError("the rule option 'episode' is set by the unit ('game' or 'hand'); leave it out")
    return g.make_config(options, players=g.check_players(players), episode=unit)


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
    records: list = field(default_factory=list, repr=False)  # game records, when recorded (not in to_dict)

    @property
    def win_rate(self) -> float:
        return self.wins_a / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins_a, self.games)

    def to_dict(self) -> dict:
        d = dataclasses.asdict(dataclasses.replace(self, records=[]))
        d.pop("records")
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
#: this many games is one batch: one call of the engine on all its deals.
DEFAULT_CHUNK = 1000


def pairing_chunks(config, games: int, seed: int = 0, duplicate: bool = True,
                   chunk: int = DEFAULT_CHUNK) -> list[dict]:
    """The games of a pairing, cut into chunks: the keyword arguments of :func:`play_chunk`.

    All deals come from ``seed`` first (:func:`_lineups`: A's seat and the deal seed of
    every game, ``games`` rounded up to whole duplicate sets); then each chunk of at most
    ``chunk`` games (whole duplicate sets, at least one; ``chunk <= 0``: one chunk) draws
    the seeds its two agents are reset with. A chunk's games depend only on these, never
    on where or next to what it is played: the engines deal each game from its own seed
    (``rummyrl/gin.py``), and each chunk is its own batch."""
    P = registry.of_config(config).players_of(config)
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


def play_chunk(agent_a: Agent, agent_b: Agent, config, a_seat: np.ndarray, seeds: np.ndarray,
               agent_seeds: tuple[int, int], progress=None, record: dict | None = None) -> dict:
    """Play one chunk of a pairing (see :func:`pairing_chunks`) as one batch: the games
    with deal ``seeds[i]`` and A in seat ``a_seat[i]``, B in the others, both agents reset
    with ``agent_seeds`` first. Returns the raw outcome (per-game arrays and counts) that
    :func:`pairing_result` adds up.

    ``record``: None, or what to record: ``{"a": label, "b": label, "reasons": bool, ...}``;
    the outcome then has ``"records"``, one game record (:mod:`rummyrl.records`) per game,
    each stamped with the other keys. With ``reasons`` each decision's reasons are computed
    beside it (:func:`rummyrl.reasons.act_and_explain`: the same actions)."""
    game = registry.of_config(config)
    P, eng = game.players_of(config), game.engine
    n = a_seat.size
    tell_rules((agent_a, agent_b), config)
    for ag, s in zip((agent_a, agent_b), agent_seeds):
        ag.reset(seed=int(s))
    state = eng.init(n, seed=seeds, config=config)
    lanes = np.arange(n)
    is_a = np.zeros((n, P), bool)
    is_a[lanes, a_seat] = True

    n_ends = len(game.end_names)
    ends = np.zeros((2, n_ends), np.int64)  # side (0 = A, 1 = B) x end kind, hands won that way
    points_hand = np.zeros(2)
    dead = hands = 0
    obs = None
    recorder = None
    if record is not None:
        record = dict(record)
        label_a, label_b, with_reasons = record.pop("a"), record.pop("b"), bool(record.pop("reasons", False))
        recorder = BatchRecorder(state, reasons=with_reasons)
    t0 = time.perf_counter()
    finished = 0
    while not state.game_over.all():
        live = ~state.game_over
        cur = state.current.astype(np.int64)
        a_turn = live & is_a[lanes, np.clip(cur, 0, P - 1)]
        b_turn = live & ~a_turn
        obs = eng.observe(state, out=obs)
        actions = np.zeros(n, np.int64)
        explained = {} if recorder is not None and recorder.reasons else None
        for turn, ag in ((a_turn, agent_a), (b_turn, agent_b)):
            rows = np.flatnonzero(turn)
            if rows.size and explained is not None:
                actions[rows], found = why.act_and_explain(ag, obs[rows], state.mask[rows])
                explained.update(zip(rows.tolist(), found))
            elif rows.size:
                actions[rows] = ag.act(obs[rows], state.mask[rows])
        eng.step(state, actions, inplace=True)
        if recorder is not None:
            recorder.step(state, actions, live, explained)
        ended = np.flatnonzero(game.deal_ended(state))
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
    out = {"games": n, "has_winner": has, "a_won": a_won, "a_total": a_total, "b_total": b_total,
           "others_best": np.nanmax(b_total, axis=1), "ends": ends, "points_hand": points_hand,
           "hands": int(hands), "dead": int(dead), "seconds": seconds}
    if recorder is not None:
        def seats_of(b):
            return [label_a if q == a_seat[b] else label_b for q in range(P)]
        out["records"] = recorder.records(state, seats_of, [int(s) for s in seeds],
                                          {**record, "a": label_a, "b": label_b})
        specs = record.get("specs")
        for b, rec in enumerate(out["records"]):
            rec["a_seat"] = int(a_seat[b])
            if specs:
                rec["seat_specs"] = [specs[0] if q == a_seat[b] else specs[1] for q in range(P)]
    return out


def pairing_result(chunks: list[dict], config, names: tuple[str, str]) -> PairingResult:
    """A pairing's results from the outcomes of its chunks, in chunk order (so the means
    run over the same games in the same order however the chunks were played)."""
    def cat(key):
        return np.concatenate([c[key] for c in chunks])

    game = registry.of_config(config)
    P = game.players_of(config)
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
        nm: {game.end_names[k]: int(ends[s, k]) for k in range(len(game.end_names)) if k not in game.no_winner_ends}
        for s, nm in ((0, name_a), (1, name_b))
    }
    return res


def play_pairing(agent_a: Agent, agent_b: Agent, config, games: int, seed: int = 0,
                 duplicate: bool = True, progress=None, names: tuple[str, str] | None = None,
                 chunk: int = DEFAULT_CHUNK, record: dict | None = None) -> PairingResult:
    """Play ``games`` games (rounded up to whole duplicate sets) of A against B, chunk
    after chunk (:func:`pairing_chunks`). With ``record`` (:func:`play_chunk`'s) the
    result's ``records`` holds every game's record, in the order played."""
    names = names or (agent_a.name, agent_b.name)
    stamp = None if record is None else {**record, "a": names[0], "b": names[1]}
    raws = [play_chunk(agent_a, agent_b, config, **c, progress=progress,
                       record=None if stamp is None else {**stamp, "chunk": i})
            for i, c in enumerate(pairing_chunks(config, games, seed, duplicate, chunk))]
    res = pairing_result(raws, config, names)
    if record is not None:
        res.records = [rec for raw in raws for rec in raw["records"]]
    return res


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
                   players: int | None = None, duplicate: bool = True, seed: int = 0, options: dict | None = None,
                   show_progress: bool = True, agents: dict | None = None,
                   pairs_with: int | None = None, chunk: int = DEFAULT_CHUNK, workers: int = 0,
                   ray_address: str = "", record: bool = False, record_reasons: bool = False) -> Tournament:
    """Every pair of the given agents plays ``games`` games; returns all results and ratings.

    ``players``: seats per game (default: the game's). ``specs``: agent names or checkpoint paths; ``agents`` may map a spec to an already
    built :class:`Agent` (the trainer passes its current policy this way). With
    ``pairs_with = i`` only the pairings of agent ``i`` with each other agent are played.

    Each pairing is played in chunks of ``chunk`` games (:func:`pairing_chunks`): one
    after another here (``workers=0``), or spread over ``workers`` Ray actors
    (:class:`rummyrl.distributed.ChunkPlayer`; ``ray_address`` as in
    :class:`~rummyrl.distributed.RaySession`). The results depend on the seed and
    ``chunk``, never on ``workers``: every chunk plays the same games either way.

    ``record``: keep every game's record (:mod:`rummyrl.records`) in its pairing's
    ``records``; ``record_reasons``: with each decision's reasons (:mod:`rummyrl.reasons`).
    Recording changes no game and no result.
    """
    if len(specs) < 2:
        raise ValueError(f"a tournament needs at least two agents, got {specs}")
    if len(set(specs)) != len(specs):
        raise ValueError(f"an agent is listed twice: {specs}")
    if games < 1:
        raise ValueError(f"games must be >= 1, got {games}")
    if workers < 0:
        raise ValueError(f"workers must be >= 0, got {workers}")
    config = match_config(game, unit, players, options)
    P = registry.get(game).players_of(config)
    built = {s: (agents or {}).get(s) or load_agent(s, game=game, seed=seed) for s in specs}
    labels = display_names(specs)
    pairs = list(itertools.combinations(range(len(specs)), 2))
    if pairs_with is not None:
        pairs = [p for p in pairs if pairs_with in p]
    total = sum(P * math.ceil(games / P) for _ in pairs)
    stamp = None
    if record or record_reasons:
        stamp = {"reasons": bool(record_reasons), "tournament_seed": seed, "unit": unit}
    bar = None
    if show_progress:
        bar = tqdm(total=total, unit="game", desc=f"{game} {unit}s", file=sys.stderr, dynamic_ncols=True)
    results, ray_info = [], None
    try:
        if workers:
            game_args = {"game": game, "unit": unit, "players": P, "options": options}
            results, ray_info = _play_on_ray(built, specs, labels, pairs, config, game_args, games, seed, duplicate,
                                             chunk, workers, ray_address, bar, stamp)
        else:
            for i, j in pairs:
                if bar is not None:
                    bar.set_postfix_str(f"{specs[i]} vs {specs[j]}")
                results.append(play_pairing(built[specs[i]], built[specs[j]], config, games,
                                            seed=seed + 1000 * len(results), duplicate=duplicate, progress=bar,
                                            names=(labels[i], labels[j]), chunk=chunk,
                                            record=None if stamp is None else
                                            {**stamp, "pairing": len(results), "specs": [specs[i], specs[j]]}))
    finally:
        if bar is not None:
            bar.close()
    wins = np.zeros((len(specs), len(specs)))
    offset = np.zeros_like(wins)  # the lone agent A against players - 1 copies of B
    for (i, j), r in zip(pairs, results):
        wins[i, j] += r.wins_a + r.draws / 2
        wins[j, i] += r.wins_b + r.draws / 2
        offset[i, j], offset[j, i] = -math.log(P - 1), math.log(P - 1)
    rating, se = bradley_terry(wins, offset=offset)
    ratings = {s: {"elo": float(rating[k]), "se": float(se[k])} for k, s in enumerate(labels)}
    settings = {"games_per_pairing": games, "players": P, "duplicate": duplicate,
                "seed": seed, "chunk": chunk, "options": options or {}, "config": dataclasses.asdict(config)}
    settings["agent_specs"] = dict(zip(labels, specs))
    if ray_info is not None:
        settings["ray"] = ray_info
    return Tournament(game, unit, labels, results, ratings, settings)


def _play_on_ray(built, specs, labels, pairs, config, game_args, games, seed, duplicate, chunk, workers,
                 ray_address, bar, stamp=None) -> tuple[list[PairingResult], dict]:
    """The pairings' chunks spread over ``workers`` Ray actors, results as chunks return;
    each pairing is then summed up in chunk order, as in process. Also returns the seconds
    spent starting the actors and playing."""
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
            for c, kwargs in enumerate(pairing_chunks(config, games, seed + 1000 * p, duplicate, chunk)):
                if stamp is not None:
                    kwargs["record"] = {**stamp, "pairing": p, "specs": [specs[i], specs[j]], "chunk": c,
                                        "a": labels[i], "b": labels[j]}
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
    results = []
    for p, (i, j) in enumerate(pairs):
        mine = [raws[(p, c)] for c in range(sum(1 for q, _ in raws if q == p))]
        res = pairing_result(mine, config, (labels[i], labels[j]))
        if stamp is not None:
            res.records = [rec for raw in mine for rec in raw["records"]]
        results.append(res)
    return results, info


def display_names(specs: list[str]) -> list[str]:
    """Short labels: a baseline's name, a checkpoint's ``folder/file`` without ``.pt``."""
    labels = []
    for s in specs:
        p = Path(s)
        label = s if not (s.endswith(".pt") or os.path.sep in s) else f"{p.parent.name}/{p.stem}".lstrip("/")
        labels.append(label if label not in labels else s)
    return labels


class ChunkPlayer:
    """A tournament actor: plays chunks of deals (:func:`play_chunk`)."""

    def __init__(self):
        torch.set_num_threads(1)  # one core per actor: the actors are the parallelism

    def ready(self) -> int:
        """Answers once the actor has started (its process id)."""
        return os.getpid()

    def play(self, key, agents: bytes, game: dict, chunk: dict) -> tuple:
        """Play one chunk: ``key`` names it for the caller, ``agents`` is the pickled pair
        (A, B), ``game`` the arguments of :func:`match_config`, ``chunk`` the lanes of
        :func:`pairing_chunks`."""
        agent_a, agent_b = pickle.loads(agents)
        return key, play_chunk(agent_a, agent_b, match_config(**game), **chunk)
