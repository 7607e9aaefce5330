"""Rummy engine speed: env steps per second of random legal play, as a markdown table.

    python benchmarks/bench_rummy.py [--seconds S] [--players 2 4 6] [--batch 1 64 1024 4096]
                                     [--observe]

A step is one action in one game: ``rummy.step`` on B games with actions from
``rummyrl.random_play.random_actions``, then ``rummy.reset_done`` (whole games to 200, a
finished lane starts its next game at once, so every lane acts in every step). With
``--observe`` the loop also builds the observation of the player to act each step.
Compilation happens in a warm-up before the clock starts.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from rummyrl import rummy
from rummyrl.random_play import random_actions


def steps_per_second(num_players: int, batch: int, seconds: float, observe: bool, seed: int = 0) -> float:
    config = rummy.RummyConfig(num_players=num_players)
    state = rummy.init(batch, seed=seed, config=config)
    rng = np.random.default_rng(seed)
    out = np.empty((batch, rummy.OBS_DIM), np.float32)
    for _ in range(20):  # warm-up: compiled code, caches
        state = rummy.step(state, random_actions(state.mask, rng), inplace=True)
        rummy.reset_done(state)
        if observe:
            rummy.observe(state, out=out)
    n = 0
    t0 = time.perf_counter()
    while True:
        for _ in range(10):
            state = rummy.step(state, random_actions(state.mask, rng), inplace=True)
            rummy.reset_done(state)
            if observe:
                rummy.observe(state, out=out)
        n += 10
        dt = time.perf_counter() - t0
        if dt >= seconds:
            return n * batch / dt


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=2.0, help="timed seconds per cell (default 2)")
    ap.add_argument("--players", type=int, nargs="+", default=[2, 4, 6])
    ap.add_argument("--batch", type=int, nargs="+", default=[1, 64, 1024, 4096])
    ap.add_argument("--observe", action="store_true", help="also build observations each step")
    args = ap.parse_args(argv)
    for p in args.players:
        rummy.RummyConfig(num_players=p)  # rejects a bad count with a clear message
    if min(args.batch) < 1:
        ap.error(f"--batch sizes must be >= 1, got {args.batch}")

    what = "step + random legal actions" + (" + observe" if args.observe else "")
    print(f"Rummy env steps/s ({what}; {platform.processor() or platform.machine()}, "
          f"{args.seconds:g} s per cell)\n")
    print("| players | " + " | ".join(f"B = {b}" for b in args.batch) + " |")
    print("| --- | " + " | ".join("---:" for _ in args.batch) + " |")
    for p in args.players:
        cells = [f"{steps_per_second(p, b, args.seconds, args.observe):,.0f}" for b in args.batch]
        print(f"| {p} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
