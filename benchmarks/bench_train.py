"""Env steps per second of training, and where an update's time goes; prints a markdown table.

    python benchmarks/bench_train.py [--config configs/gin_rummy_plain.yaml] [--updates 12] [--warmup 3]

Runs ``--warmup`` then ``--updates`` PPO updates of each config (in this process, or on the
config's Ray workers; no evaluation, no checkpoints), the way ``train.py`` runs them, and reports the
env steps per second over the measured updates and the seconds per update spent in each
part: the network's inference while playing, the per-action features, the rest of the
rollout (the engine, the opponents, bookkeeping), GAE, and the learner's minibatches (with Ray
workers the rollout's parts happen in the workers, and the rollout is the rest; with
``overlap: true`` the learner's minibatches run beside the rollout, so the parts add up to
more than the wall time, and the rollout's rest includes waiting for the learner). The
parts are timed by wrapping the functions that do them, so the same script measures an
older checkout (``benchmarks/compare.py``: before and after in one run, alternating).
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import torch

from rummyrl.agents.network import PolicyNet
from rummyrl.training import lanes as lanes_module
from rummyrl.training import ppo
from rummyrl.training.config import load_config
from rummyrl.training.trainer import Trainer
from rummyrl.training.workers import make_workers

PARTS = ("inference", "features", "rest of rollout", "GAE", "learner")


class Clock:
    """Seconds spent in each wrapped function, by part."""

    def __init__(self):
        self.seconds = dict.fromkeys(PARTS, 0.0)

    def wrap(self, owner, name: str, part: str, when=None) -> None:
        fn = getattr(owner, name)

        def timed(*args, **kwargs):
            if when is not None and not when():
                return fn(*args, **kwargs)
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.seconds[part] += time.perf_counter() - t

        setattr(owner, name, timed)


def measure(config: str, updates: int, warmup: int, overrides: list[str]) -> dict:
    cfg = load_config(config, ["eval.every_minutes=0", "eval.final_games=0", "checkpoint_every_minutes=0",
                               *overrides])
    clock = Clock()
    clock.wrap(PolicyNet, "__call__", "inference", when=lambda: not torch.is_grad_enabled())
    clock.wrap(lanes_module.Lanes, "features", "features")
    clock.wrap(ppo, "gae", "GAE")
    clock.wrap(ppo, "ppo_update", "learner")
    torch.set_flush_denormal(True)  # as train() runs its updates
    with tempfile.TemporaryDirectory() as tmp:
        tr = Trainer(cfg, Path(tmp))
        tr.setup(fresh=True)
        tr.workers = make_workers(tr)
        threads = cfg.torch_threads or torch.get_num_threads()
        update = tr.method.update
        for _ in range(warmup):
            update(threads)
        clock.seconds = dict.fromkeys(PARTS, 0.0)
        steps, rollout, t0 = 0, 0.0, time.perf_counter()
        for _ in range(updates):
            u = update(threads)
            steps += u.steps
            rollout += u.times[1] - u.times[0]
        wall = time.perf_counter() - t0
        tr.workers.close()
        tr.method.close()
    clock.seconds["rest of rollout"] = rollout - clock.seconds["inference"] - clock.seconds["features"]
    return {"steps_per_second": steps / wall, "seconds": {k: v / updates for k, v in clock.seconds.items()},
            "steps_per_update": steps // updates}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", action="append", help="a training config (repeatable; default the plain Gin one)")
    ap.add_argument("--updates", type=int, default=12, help="measured updates per config (default 12)")
    ap.add_argument("--warmup", type=int, default=3, help="updates before measuring (default 3)")
    ap.add_argument("overrides", nargs="*", help="config overrides key=value, for every config")
    args = ap.parse_args(argv)
    if args.updates < 1 or args.warmup < 0:
        ap.error(f"--updates must be >= 1 and --warmup >= 0, got {args.updates} and {args.warmup}")
    configs = args.config or ["configs/gin_rummy_plain.yaml"]
    print(f"training throughput: {args.updates} updates after {args.warmup}, in process, "
          f"{torch.get_num_threads()} torch threads\n")
    print("| config | env steps/s | steps/update | " + " | ".join(f"{p} s" for p in PARTS) + " |")
    print("| --- | ---: | ---: | " + " | ".join("---:" for _ in PARTS) + " |")
    for config in configs:
        r = measure(config, args.updates, args.warmup, args.overrides)
        cells = " | ".join(f"{r['seconds'][p]:.3f}" for p in PARTS)
        print(f"| {Path(config).stem} | {r['steps_per_second']:,.0f} | {r['steps_per_update']:,} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
