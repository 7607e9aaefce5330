"""The peer's side of bench_envs.py: PettingZoo 1.26.1's ``gin_rummy_v4`` (RLCard inside)
under random legal play, one-hand episodes, run with the side environment's python:

    $(bash benchmarks/peers/setup.sh) benchmarks/peers/pettingzoo_gin_speed.py --seconds 10

Prints one line, ``pettingzoo_gin_rummy_v4 steps_per_s=N hands_per_s=M steps=S seconds=T``,
where a step is one agent action (what bench_envs.py counts for rummyrl's envs too).
"""
import argparse
import time

import numpy as np
from pettingzoo.classic import gin_rummy_v4


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=10.0, help="how long to play")
    ap.add_argument("--seed", type=int, default=0, help="seed of the env and of the random picks")
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    env = gin_rummy_v4.env()
    # Seeded once: a reset with a seed rebuilds the RLCard game, which would be timed too.
    env.reset(seed=args.seed)
    steps = hands = 0
    start = time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        if hands:
            env.reset()
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            steps += 1
        hands += 1
    elapsed = time.perf_counter() - start
    print(f"pettingzoo_gin_rummy_v4 steps_per_s={steps / elapsed:.0f} hands_per_s={hands / elapsed:.2f} "
          f"steps={steps} seconds={elapsed:.1f}")


if __name__ == "__main__":
    main()
