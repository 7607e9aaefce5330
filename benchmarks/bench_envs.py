"""Speed of the Gin Rummy and Rummy environments under random legal play; prints a markdown table.

    python benchmarks/bench_envs.py [--seconds 3] [--repeat 1] [--games gin rummy] [--peer PYTHON]

Rows, for each game: the PettingZoo AEC env (``env()`` with its wrappers, and ``raw_env()``),
the Gymnasium env against random opponents, the batched self-play interface at B = 1, 64,
1024, and the raw core at B = 1024 (``step`` + ``reset_done``, with and without ``observe``),
with the batched interface's share of it (those three runs alternate, best of each). Rummy
rows are 4-player games to 200. A step is one player action, in every game of a batch.
Random legal actions: one uniform pick among the mask's legal actions (the AEC and Gymnasium
loops pick in Python as a user's loop would; the batched rows use ``random_play.random_actions``
for the whole batch). Each row is the best of ``--repeat`` runs of ``--seconds``.

``--peer PYTHON`` also runs ``benchmarks/peers/pettingzoo_gin_speed.py`` (PettingZoo 1.26.1's
``gin_rummy_v4`` on RLCard, one-hand episodes) with that interpreter, in this same run, and
adds its line and the AEC env's speed relative to it. The peer's runs and the one-hand AEC
runs alternate (``--repeat`` of each, best of each), so a slow spell of a shared machine
falls on both. Numba loads its compiled kernels on first use (about a second per process);
that happens before the timings. Make the interpreter with
``PY=$(bash benchmarks/peers/setup.sh)``.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from rummyrl import gin, rummy
from rummyrl.envs import gin_rummy_v0, rummy_v0
from rummyrl.envs.gym_gin import GinRummyEnv
from rummyrl.envs.gym_rummy import RummyEnv
from rummyrl.envs.rummy_vector import RummySelfPlay
from rummyrl.envs.gin_vector import GinSelfPlay
from rummyrl.random_play import random_actions

PEER_SCRIPT = Path(__file__).resolve().parent / "peers" / "pettingzoo_gin_speed.py"


def _timed(run, seconds: float) -> float:
    """``run(deadline)`` returns the steps it took; steps per second."""
    t0 = time.perf_counter()
    steps = run(t0 + seconds)
    return steps / (time.perf_counter() - t0)


def aec(make, seconds: float) -> float:
    env = make()
    env.reset(seed=0)
    rng = np.random.default_rng(0)

    def run(deadline):
        steps = 0
        while time.perf_counter() < deadline:
            for _agent in env.agent_iter():
                obs, _reward, term, trunc, _info = env.last()
                if term or trunc:
                    action = None
                else:
                    legal = np.flatnonzero(obs["action_mask"])
                    action = int(legal[int(rng.random() * legal.size)])
                    steps += 1
                env.step(action)
            env.reset()
        return steps

    return _timed(run, seconds)


def gym_env(env_cls, seconds: float, **kwargs) -> tuple[float, float]:
    """(learner steps/s, all actions/s: the learner's and the random opponents')."""
    from rummyrl.agents import load_agent

    agent = load_agent("random", game=env_cls.game.name, seed=0)
    opponent_moves = [0]

    def opponent(observation, action_mask):
        opponent_moves[0] += 1
        return agent(observation, action_mask)

    env = env_cls(opponent=opponent, **kwargs)
    rng = np.random.default_rng(0)

    def run(deadline):
        steps = 0
        obs, _ = env.reset(seed=0)
        while time.perf_counter() < deadline:
            legal = np.flatnonzero(obs["action_mask"])
            obs, _r, term, trunc, _info = env.step(int(legal[int(rng.random() * legal.size)]))
            steps += 1
            if term or trunc:
                obs, _ = env.reset()
        return steps

    t0 = time.perf_counter()
    learner = run(t0 + seconds)
    dt = time.perf_counter() - t0
    return learner / dt, (learner + opponent_moves[0]) / dt


def selfplay(selfplay_cls, B: int, seconds: float, **kwargs) -> float:
    env = selfplay_cls(B, **kwargs)
    batch = env.reset(seed=0)
    rng = np.random.default_rng(0)

    def run(deadline):
        calls = 0
        while time.perf_counter() < deadline:
            batch_ = env.step(random_actions(batch.mask, rng))
            calls += 1
            del batch_
        return calls * B

    return _timed(run, seconds)


def core(engine, config, B: int, seconds: float, observe: bool) -> float:
    state = engine.init(B, seed=0, config=config)
    rng = np.random.default_rng(0)
    out = np.empty((B, engine.OBS_DIM), np.float32)

    def run(deadline):
        calls = 0
        while time.perf_counter() < deadline:
            engine.step(state, random_actions(state.mask, rng), inplace=True)
            engine.reset_done(state)
            if observe:
                engine.observe(state, out=out)
            calls += 1
        return calls * B

    return _timed(run, seconds)


def alternate(repeat: int, *measures) -> list[float]:
    """Run the measurements in turn, ``repeat`` rounds; the best of each."""
    results = [[m() for m in measures] for _ in range(repeat)]
    return [max(r[i] for r in results) for i in range(len(measures))]


def peer(python: str, seconds: float, script: Path) -> dict:
    out = subprocess.run([python, str(script), "--seconds", str(seconds)], capture_output=True,
                         text=True, check=True).stdout
    m = re.search(r"steps_per_s=([\d.]+) hands_per_s=([\d.]+)", out)
    if not m:
        raise RuntimeError(f"unexpected peer output: {out!r}")
    return {"steps": float(m.group(1)), "hands": float(m.group(2)), "line": out.strip()}


def game_rows(best, s: float, title: str, aec_module, env_cls, selfplay_cls, engine, config, **rules):
    """The rows of one game: AEC, Gymnasium, batched B = 1, 64, 1024, raw core."""
    name = aec_module.__name__.rsplit(".", 1)[-1]
    what = "games to 100" if engine is gin else "4 players, games to 200"
    rows = [
        (f"{title}: PettingZoo AEC `{name}.env()`, {what}", best(aec, lambda: aec_module.env(**rules), s), ""),
        (f"{title}: PettingZoo AEC `{name}.raw_env()`, {what}",
         best(aec, lambda: aec_module.raw_env(**rules), s), ""),
    ]
    learner, actions = max(gym_env(env_cls, s, **rules) for _ in range(best.repeat))
    rows.append((f"{title}: Gymnasium `{env_cls.__name__}` vs random, learner steps", learner,
                 f"{actions:,.0f} actions/s with the opponents'"))
    for B in (1, 64):
        rows.append((f"{title}: batched self-play `{selfplay_cls.__name__}`, B = {B}",
                     best(selfplay, selfplay_cls, B, s, **rules), ""))
    # the batched interface and the raw core at B = 1024 take turns (best of each), so their
    # ratio is not skewed by a slow spell of a shared machine
    batched, raw, raw_obs = alternate(best.repeat, lambda: selfplay(selfplay_cls, 1024, s, **rules),
                                      lambda: core(engine, config, 1024, s, False),
                                      lambda: core(engine, config, 1024, s, True))
    rows.append((f"{title}: batched self-play `{selfplay_cls.__name__}`, B = 1024", batched, ""))
    rows.append((f"{title}: raw core, B = 1024: `step` + `reset_done`", raw,
                 f"batched B = 1024 is {batched / raw:.0%} of it"))
    rows.append((f"{title}: raw core, B = 1024: `step` + `reset_done` + `observe`", raw_obs,
                 f"batched B = 1024 is {batched / raw_obs:.0%} of it"))
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds per measurement (default 3)")
    ap.add_argument("--repeat", type=int, default=1, help="best of this many runs per row (default 1)")
    ap.add_argument("--games", nargs="+", choices=("gin", "rummy"), default=["gin", "rummy"],
                    help="which games' rows (default both)")
    ap.add_argument("--peer", metavar="PYTHON", help="interpreter with PettingZoo 1.26.1 + RLCard (setup.sh)")
    ap.add_argument("--peer-script", type=Path, default=PEER_SCRIPT, help=f"default {PEER_SCRIPT}")
    ap.add_argument("--peer-seconds", type=float, default=10.0, help="seconds for the peer (default 10)")
    args = ap.parse_args(argv)
    if args.seconds <= 0 or args.repeat < 1:
        ap.error("--seconds must be > 0 and --repeat >= 1")

    def best(f, *a, **k):
        return max(f(*a, **k) for _ in range(args.repeat))

    best.repeat = args.repeat
    s = args.seconds
    rows = []
    if "gin" in args.games:
        core(gin, gin.GinConfig(), 64, 0.2, True)  # compile / warm the kernels outside the timings
        aec(lambda: gin_rummy_v0.env(episode="hand"), 0.5)
        if args.peer:  # side by side: ours and the peer's one-hand loops take turns, best of each
            aec_env_hand, peer_steps = alternate(
                args.repeat, lambda: aec(lambda: gin_rummy_v0.env(episode="hand"), s),
                lambda: peer(args.peer, args.peer_seconds, args.peer_script)["steps"])
        else:
            aec_env_hand = best(aec, lambda: gin_rummy_v0.env(episode="hand"), s)
        rows.append(("Gin: PettingZoo AEC `gin_rummy_v0.env()`, one-hand episodes", aec_env_hand, ""))
        if args.peer:
            rows.append(("peer: PettingZoo 1.26.1 `gin_rummy_v4` `env()` (RLCard), one-hand episodes",
                         peer_steps, f"AEC `env()` one-hand is {aec_env_hand / peer_steps:.1f}x the peer "
                         f"(runs alternated, best of {args.repeat} each)"))
        rows += game_rows(best, s, "Gin", gin_rummy_v0, GinRummyEnv, GinSelfPlay, gin, gin.GinConfig())
    if "rummy" in args.games:
        config = rummy.RummyConfig(num_players=4)
        core(rummy, config, 64, 0.2, True)
        rows += game_rows(best, s, "Rummy", rummy_v0, RummyEnv, RummySelfPlay, rummy, config, num_players=4)

    print("| environment | steps/s | note |")
    print("| --- | ---: | --- |")
    for name, sps, note in rows:
        print(f"| {name} | {sps:,.0f} | {note} |")


if __name__ == "__main__":
    main()
