"""Demo: a batch of Gin Rummy games to 100 played with random legal moves.

    python -m rummyrl.demo [--games N] [--seed S]

Prints how the hands ended (knock, gin, undercut, dead) and the mean final score.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from . import gin
from .random_play import random_actions


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="games to play (default 200)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error(f"--games must be >= 1, got {args.games}")

    rng = np.random.default_rng(args.seed)
    state = gin.init(args.games, seed=args.seed)
    ends = np.zeros(len(gin.END_NAMES), np.int64)
    steps = 0
    t0 = time.perf_counter()
    while not state.game_over.all():
        state = gin.step(state, random_actions(state.mask, rng), inplace=True)
        steps += int((~state.game_over | state.hand_ended).sum())
        ends += np.bincount(state.last_end[state.hand_ended], minlength=len(gin.END_NAMES))
    dt = time.perf_counter() - t0
    result = gin.game_result(state)
    done = result.winner >= 0
    print(f"{args.games} games of Gin Rummy to {state.config.target}, random legal moves "
          f"({steps:,} actions in {dt:.1f}s)")
    total = ends.sum()
    for k in (gin.END_KNOCK, gin.END_GIN, gin.END_BIG_GIN, gin.END_UNDERCUT, gin.END_DEAD, gin.END_TRUNCATED):
        if ends[k] or k != gin.END_BIG_GIN:
            print(f"  hands ended by {gin.END_NAMES[k]:<9} {ends[k]:7d}  ({ends[k] / max(total, 1):6.1%})")
    print(f"  games with a winner: {done.sum()} / {args.games} (the others hit max_hands)")
    if done.any():
        winners = result.total[done, result.winner[done]]
        print(f"  mean final score of the winner: {winners.mean():.1f}; mean margin: {result.margin[done].mean():.1f}")


if __name__ == "__main__":
    main()
