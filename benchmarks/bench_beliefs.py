"""Belief samplers: worlds per second, and how well the opponent model finds the
opponent's hidden cards; prints markdown tables.

    python benchmarks/bench_beliefs.py [--observations 64] [--worlds 256] [--repeat 3]

Speed: ``sample_worlds`` on ``--observations`` observations from expert-vs-expert games,
``--worlds`` worlds each (full states built), best of ``--repeat``. Quality: over positions
from expert-vs-expert games, the mean log-probability each mode gives the opponent's true
hidden cards (uniform: the share of unknown cards it holds; weighted: the opponent model
with weights beta and gamma); higher is better, the difference is the gain in nats per card.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from rummyrl import gin
from rummyrl import gin_beliefs as GB
from rummyrl.agents import load_agent


def gin_positions(games: int, steps: int, every: int, seed: int = 0):
    expert = load_agent("expert", game="gin")
    st = gin.init(games, seed=seed)
    obs_all, truth = [], []
    for t in range(steps):
        obs = gin.observe(st)
        live = ~st.game_over
        if t % every == 0:
            rows = np.flatnonzero(live & (st.phase != gin.PHASE_DONE))
            opp = 1 - st.current[rows]
            obs_all.append(obs[rows])
            truth.append(st.hands[rows, opp] & ~st.known[rows, opp])
        actions = np.zeros(games, np.int64)
        actions[live] = expert.act(obs[live], st.mask[live])
        gin.step(st, actions, inplace=True)
    return np.concatenate(obs_all), np.concatenate(truth)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--observations", type=int, default=64)
    ap.add_argument("--worlds", type=int, default=256)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--models", nargs="+", default=["0.1,0", "0,0.04", "0.1,0.02", "0.1,0.04", "0.1,0.08"],
                    help="weighted models to compare, each BETA,GAMMA")
    args = ap.parse_args()
    obs, truth = gin_positions(200, 120, 4)
    rng = np.random.default_rng(0)
    batch = obs[rng.choice(len(obs), args.observations, replace=False)]
    GB.sample_worlds(batch[:2], 2, rng, model="weighted")  # compile
    print(f"| Gin beliefs, {args.observations} observations x {args.worlds} worlds | worlds/s |")
    print("| --- | ---: |")
    for model in ("uniform", "weighted"):
        best = 0.0
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            GB.sample_worlds(batch, args.worlds, rng, model=model)
            best = max(best, args.observations * args.worlds / (time.perf_counter() - t0))
        note = f" ({GB.DEFAULT_STEPS} Metropolis steps)" if model == "weighted" else ""
        print(f"| `sample_worlds`, {model}{note} | {best:,.0f} |")
    print()
    print(f"| model ({len(obs):,} positions, {truth.sum():,} hidden cards) | mean log P(true card) | gain |")
    print("| --- | ---: | ---: |")
    k = GB._parse(obs, gin.GinConfig())
    share = k.hidden / k.unknown.sum(1)
    base = np.log(np.broadcast_to(share[:, None], truth.shape)[truth]).mean()
    print(f"| uniform (exact share) | {base:.4f} | |")
    for spec in args.models:
        beta, gamma = (float(x) for x in spec.split(","))
        p = GB.opponent_card_probabilities(obs, 64, rng, model="weighted", beta=beta, gamma=gamma)
        lp = np.log(np.clip(p[truth], 1e-3, 1)).mean()
        print(f"| weighted, beta = {beta:g}, gamma = {gamma:g} | {lp:.4f} | {lp - base:+.4f} |")


if __name__ == "__main__":
    main()
