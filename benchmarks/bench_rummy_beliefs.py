"""Rummy belief sampling speed: worlds per second of ``rummy_beliefs.sample_worlds``, as a
markdown table.

    python benchmarks/bench_rummy_beliefs.py [--seconds S] [--players 2 4 6] [--batch 64] [--worlds 256]

The observations are those of the player to act at ``B`` decision points of games between
``expert`` players (one per game, taken when at least a third of the round's stock was
drawn). A cell is full worlds built per second (states with their legal masks) for one
call on ``B`` observations with ``n`` worlds each; ``weighted`` draws ``oversample = 4``
times as many uniform worlds, scores them with the opponent model and resamples ``n``.
Compilation happens in a warm-up before the clock starts.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from rummyrl import rummy
from rummyrl import rummy_beliefs as RB
from rummyrl.agents import load_agent


def expert_observations(num_players: int, batch: int, seed: int = 0) -> np.ndarray:
    """One observation per game, of the player to act, a third of the way into the stock."""
    config = rummy.RummyConfig(num_players=num_players, episode="round")
    state = rummy.init(batch, seed=seed, config=config)
    agent = load_agent("expert", game="rummy")
    taken = np.zeros((batch, rummy.OBS_DIM), np.float32)
    have = np.zeros(batch, bool)
    while not have.all() and (state.phase != rummy.PHASE_DONE).any():
        obs = rummy.observe(state)
        ready = ~have & (state.phase == rummy.PHASE_DRAW) & (state.stock_size <= 2 * config.stock_start // 3)
        taken[ready] = obs[ready]
        have |= ready
        live = state.phase != rummy.PHASE_DONE
        state = rummy.step(state, np.where(live, agent.act(obs, state.mask), 0), inplace=True)
    return taken[have]


def worlds_per_second(obs: np.ndarray, n: int, model: str, seconds: float) -> float:
    rng = np.random.default_rng(0)
    RB.sample_worlds(obs[:2], 4, rng, model=model)  # warm-up: compiled code
    calls = 0
    t0 = time.perf_counter()
    while True:
        RB.sample_worlds(obs, n, rng, model=model)
        calls += 1
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return calls * obs.shape[0] * n / dt


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="timed seconds per cell (default 2)")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4, 6])
    ap.add_argument("--batch", type=int, default=64, help="observations per call (default 64)")
    ap.add_argument("--worlds", type=int, default=256, help="worlds per observation (default 256)")
    args = ap.parse_args(argv)
    for p in args.players:
        rummy.RummyConfig(num_players=p)  # rejects a bad count with a clear message
    print(f"Rummy belief worlds/s (B = {args.batch} observations x n = {args.worlds} worlds; "
          f"{platform.processor() or platform.machine()}, {args.seconds:g} s per cell)\n")
    print("| players | uniform | weighted (oversample 4) |")
    print("| --- | ---: | ---: |")
    for p in args.players:
        obs = expert_observations(p, args.batch)
        cells = [f"{worlds_per_second(obs, args.worlds, m, args.seconds):,.0f}" for m in RB.MODELS]
        print(f"| {p} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
