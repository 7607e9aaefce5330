"""Gin Rummy core speed: random legal play (env steps/s) and the deadwood solver (hands/s).

    python benchmarks/bench_core.py [--seconds S]

A step is one action of one game. The engine computes the full legal-action mask (knock
included) after every step; the random player reads it. Prints a markdown table.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rummyrl import gin, melds
from rummyrl.random_play import random_actions


def play(batch: int, seconds: float, seed: int = 0) -> tuple[float, int]:
    rng = np.random.default_rng(seed)
    state = gin.init(batch, seed=seed, config=gin.GinConfig(episode="game"))
    for _ in range(3):  # warm-up (compilation is cached after the first run)
        gin.step(state, random_actions(state.mask, rng), inplace=True)
        gin.reset_done(state)
    steps = hands = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        gin.step(state, random_actions(state.mask, rng), inplace=True)
        hands += int(state.hand_ended.sum())
        gin.reset_done(state)
        steps += batch
    return steps / (time.perf_counter() - t0), hands


def random_hands(n: int, size: int, rng, rich: bool = False) -> np.ndarray:
    hands = np.zeros((n, melds.NUM_CARDS), bool)
    if rich:  # cards from 4 adjacent ranks and a fifth rank: many overlapping sets and runs
        lo = rng.integers(0, 9, size=n)
        pool = (np.arange(4)[None, :, None] * 13 + lo[:, None, None] + np.arange(4)[None, None, :]).reshape(n, 16)
        extra = (np.arange(4) * 13)[None, :] + rng.integers(0, 13, size=(n, 1))
        pool = np.concatenate([pool, extra], 1)
        pick = np.argsort(rng.random(pool.shape), axis=1)[:, :size]
        hands[np.arange(n)[:, None], np.take_along_axis(pool, pick, 1)] = True
    else:
        pick = np.argsort(rng.random((n, 52)), axis=1)[:, :size]
        hands[np.arange(n)[:, None], pick] = True
    return hands


def rate(fn, arg, reps: int = 3) -> float:
    fn(arg[:1000])
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        fn(arg)
        best = min(best, time.perf_counter() - t0)
    return arg.shape[0] / best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=3.0, help="seconds per batch size")
    ap.add_argument("--hands", type=int, default=200_000, help="hands per solver measurement")
    args = ap.parse_args()

    print("| Gin Rummy core, random legal play | steps/s | hands ended |")
    print("| --- | ---: | ---: |")
    for batch in (1, 64, 1024, 4096):
        sps, hands = play(batch, args.seconds)
        print(f"| B = {batch} | {sps:,.0f} | {hands:,} |")

    rng = np.random.default_rng(0)
    n = args.hands
    print()
    print(f"| deadwood solver, batch of {n:,} | hands/s |")
    print("| --- | ---: |")
    for label, hands in (
        ("melds.deadwood, random 10-card hands", random_hands(n, 10, rng)),
        ("melds.deadwood, meld-rich 10-card hands", random_hands(n, 10, rng, rich=True)),
        ("melds.deadwood, random 11-card hands", random_hands(n, 11, rng)),
    ):
        print(f"| {label} | {rate(melds.deadwood, hands):,.0f} |")
    h11 = random_hands(n, 11, rng)
    print(f"| melds.knock_discards (limit 10), random 11-card hands | {rate(lambda h: melds.knock_discards(h, 10), h11):,.0f} |")
    print(f"| melds.best_melds (arrangement), random 10-card hands | {rate(melds.best_melds, random_hands(n // 4, 10, rng)):,.0f} |")


if __name__ == "__main__":
    main()
