"""Scaling out with Ray: training throughput with rollout workers, Ray's cost per update, and
tournaments on workers; prints markdown tables.

    python benchmarks/bench_scale.py [--repeat 3] [--updates 3] [--games 2000] [--config FILE] [key=value ...]

Training: the same config (default ``configs/gin_rummy.yaml``: 512 lanes, 64 steps per
rollout, so 32,768 env steps per update) set up three times side by side: ``workers=0``
(in process), ``workers=1`` and ``workers=2`` (Ray actors on a local Ray). Rounds alternate
between them, ``--updates`` PPO updates per set-up per round, and each row is its best
round of ``--repeat`` (a shared machine's slow spells then fall on all three). Env steps
per second count everything an update does: the rollout, GAE, the PPO update and, with
workers, gathering the rollouts and broadcasting the weights. Ray's overhead per update
is what the learner spends on Ray itself: waiting for the rollouts beyond the slowest
worker's own playing time (serialisation, the object store, scheduling), concatenating
them and putting the new weights into the object store.

Tournament: ``expert`` against ``simple``, ``--games`` duplicate Gin games to 100 in chunks
of 500, in process and on 2 Ray actors (alternating, best of ``--repeat``); the actors are
started for each tournament, so games/s is given with and without their start-up.

Ray is started here once with 4 logical CPUs, so that the 1- and 2-worker set-ups (one CPU
each) live side by side; only one set-up runs at a time. It listens on 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # a local Ray on 127.0.0.1 only

import numpy as np  # noqa: E402
import torch  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def set_up(cfg, workers: int, run_dir: Path):
    from rummyrl.training import Trainer
    from rummyrl.training.workers import make_workers

    # one update after the other in every row (overlap is for workers=0 only): the rows compare
    tr = Trainer(dataclasses.replace(cfg, workers=workers, overlap=False), run_dir)
    tr.setup()
    tr.workers = make_workers(tr)
    return tr


def measure(tr, updates: int, threads: int) -> dict:
    """``updates`` updates of ``tr``: env steps/s and the mean seconds of each part."""
    parts = {"rollout": [], "update": [], "overhead": [], "gather": [], "worker": [], "broadcast": []}
    steps = 0
    t = time.perf_counter()
    for _ in range(updates):
        u = tr.method.update(threads)
        n, (t0, t1, t2) = u.steps, u.times
        steps += n
        parts["rollout"].append(t1 - t0)
        parts["update"].append(t2 - t1)
        w = tr.workers.timings
        if w:
            parts["gather"].append(w["gather"])
            parts["worker"].append(w["worker_rollout"])
            parts["broadcast"].append(w["broadcast"])
            parts["overhead"].append(w["wait_overhead"] + w["concat"] + w["broadcast"])
    out = {k: float(np.mean(v)) if v else 0.0 for k, v in parts.items()}
    out["sps"] = steps / (time.perf_counter() - t)
    return out


def bench_training(cfg, repeat: int, updates: int) -> dict:
    threads = cfg.torch_threads or torch.get_num_threads()
    best: dict = {}
    with tempfile.TemporaryDirectory() as tmp:
        setups = {w: set_up(cfg, w, Path(tmp) / f"w{w}") for w in (0, 1, 2)}
        try:
            for tr in setups.values():  # warm up: kernels loaded, first rollouts
                measure(tr, 1, threads)
            for r in range(repeat):
                for w, tr in setups.items():
                    m = measure(tr, updates, threads)
                    print(f"round {r + 1}: workers={w}: {m['sps']:,.0f} env steps/s", file=sys.stderr)
                    if m["sps"] > best.get(w, {"sps": 0})["sps"]:
                        best[w] = m
        finally:
            for tr in setups.values():
                tr.workers.close()
    return best


def bench_tournament(games: int, repeat: int) -> dict:
    from rummyrl import tournament

    tournament.run_tournament(["expert", "simple"], games=40, show_progress=False)  # kernels loaded
    best: dict = {}
    for r in range(repeat):
        for w in (0, 2):
            t = time.perf_counter()
            res = tournament.run_tournament(["expert", "simple"], games=games, chunk=500, show_progress=False,
                                          workers=w)
            wall = time.perf_counter() - t
            n = res.pairings[0].games
            m = {"games/s": n / wall, "wins": res.pairings[0].wins_a}
            if w:
                m["startup"] = res.settings["ray"]["startup_seconds"]
                m["play games/s"] = n / res.settings["ray"]["play_seconds"]
            print(f"round {r + 1}: tournament, workers={w}: {m['games/s']:,.0f} games/s", file=sys.stderr)
            if m["games/s"] > best.get(w, {"games/s": 0})["games/s"]:
                best[w] = m
    assert best[0]["wins"] == best[2]["wins"], "workers changed a tournament's results"
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="rounds; each row is its best (default 3)")
    ap.add_argument("--updates", type=int, default=3, help="updates per set-up per round (default 3)")
    ap.add_argument("--games", type=int, default=2000, help="games of the tournament (default 2000)")
    ap.add_argument("--config", default=str(ROOT / "configs" / "gin_rummy.yaml"))
    ap.add_argument("overrides", nargs="*", help="config overrides key=value")
    args = ap.parse_args(argv)

    from rummyrl.distributed import import_ray
    from rummyrl.training import load_config

    cfg = load_config(args.config, args.overrides)
    ray = import_ray()
    from rummyrl.distributed import LOCAL_SYSTEM_CONFIG

    ray.init(address="local", num_cpus=4, include_dashboard=False, log_to_driver=False, logging_level="warning",
             _system_config=LOCAL_SYSTEM_CONFIG)  # as train.py's local Ray: workers at normal priority
    try:
        train = bench_training(cfg, args.repeat, args.updates)
        tour = bench_tournament(args.games, args.repeat)
    finally:
        ray.shutdown()

    per_update = cfg.num_envs * cfg.rollout_steps
    print(f"\nTraining, {cfg.game} ({cfg.num_envs} lanes x {cfg.rollout_steps} steps = {per_update:,} env steps "
          f"per update; {os.cpu_count()} CPUs; best of {args.repeat} rounds of {args.updates} updates):\n")
    print("| rollouts | env steps/s | vs in process | rollout s / update | PPO s / update | Ray overhead ms / update |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    base = train[0]["sps"]
    for w, m in train.items():
        name = "in process (`workers=0`)" if w == 0 else f"`workers={w}` (Ray)"
        over = f"{1000 * m['overhead']:,.0f}" if w else "-"
        print(f"| {name} | {m['sps']:,.0f} | {m['sps'] / base:.2f}x | {m['rollout']:.2f} | {m['update']:.2f} | {over} |")
    for w in (1, 2):
        m = train[w]
        print(f"\nworkers={w}: per update, gathering took {1000 * m['gather']:,.0f} ms of which the slowest worker "
              f"played {1000 * m['worker']:,.0f} ms; waiting beyond it, concatenating and broadcasting "
              f"(ray.put {1000 * m['broadcast']:,.1f} ms) cost {1000 * m['overhead']:,.0f} ms "
              f"({m['overhead'] / (m['rollout'] + m['update']):.1%} of the update)")
    print(f"in process, the same rollout took {train[0]['rollout']:.2f} s")
    print(f"\nTournament, expert vs simple, {args.games:,} duplicate Gin games to 100, chunks of 500 "
          f"(best of {args.repeat}):\n")
    print("| tournament | games/s | note |")
    print("| --- | ---: | --- |")
    print(f"| in process | {tour[0]['games/s']:,.0f} | |")
    t2 = tour[2]
    print(f"| `--workers 2` (Ray) | {t2['games/s']:,.0f} | {t2['play games/s']:,.0f} games/s once the actors "
          f"are up ({t2['startup']:.1f} s to start them); same results |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
