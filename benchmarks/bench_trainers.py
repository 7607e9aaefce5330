"""Our trainer beside RLlib's, TorchRL's, Tianshou's and Stable-Baselines3's: each trains a
Gin network against `simple` for the same wall time on this machine, one after another, and
each result plays 2,000 duplicate games against `simple` and against `expert`.

    python benchmarks/bench_trainers.py                               # 30 minutes each
    python benchmarks/bench_trainers.py --minutes 15 --out docs/results/trainers/gin.json
    python benchmarks/bench_trainers.py --minutes 0.5 --games 100 --only sb3 rummyrl   # a quick look
    python benchmarks/bench_trainers.py --python rllib=/path/to/venv/bin/python       # RLlib in another env

Each library trains through its example in ``examples/`` (its own tutorial's algorithm and
settings, the mask respected, the learner in one seat and `simple` in the other), stopped
by ``--minutes``; ours is ``train.py`` on ``configs/gin_rummy_plain.yaml`` with the opponents
set to `simple` alone (the best response's settings, ``rummyrl.exploit``) and no evaluation
during the run, so that every trainer spends its minutes on training. Every trained network
then enters ``evaluate.py`` as an agent (the libraries' as exported ``.pt2`` policies) on
the same deals.

Speed is the learner's moves per second: the moves of the learning seat that went into its
updates, over the whole run (playing and learning together). A library counts env steps its
own way (RLlib, TorchRL and Tianshou count every seat's move, SB3 and the vector env only the
learner's), so each example reports the learner's moves itself. Run it on an otherwise idle
machine: the rows are run one after another and compared as they come.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import io
import json
import os
import platform
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from rummyrl import evaluate as evaluate_cli  # noqa: E402
from rummyrl.exploit import best_response_overrides, shown_path, write_json  # noqa: E402

#: the format of the JSON this script writes
FORMAT = "rummyrl-bench-trainers/1"
BIG = str(10**12)  # a step budget that the minutes always end first

#: each trainer: its package (for the version), what it runs, and its arguments for an
#: unbounded run against simple (the minutes, the output and the summary are added)
TRAINERS = {
    "rummyrl": ("rummyrl", "train.py", []),
    "cleanrl-style": ("rummyrl", "examples/cleanrl_ppo.py", ["--total-steps", BIG, "--self-play-from", "1"]),
    "sb3": ("sb3-contrib", "examples/sb3_maskable_ppo.py", ["--steps", BIG, "--no-self-play"]),
    "torchrl": ("torchrl", "examples/torchrl_ppo.py", ["--frames", BIG, "--no-self-play"]),
    "tianshou": ("tianshou", "examples/tianshou_dqn.py",
                 # epochs of 5,000 env steps: the wall-time budget is checked after each
                 ["--steps", str(5000 * 10**6), "--epochs", str(10**6), "--no-self-play"]),
    "rllib": ("ray", "examples/rllib_ppo.py", ["--iterations", str(10**9), "--no-self-play"]),
}
#: the trainers a run compares unless told (--only)
BASES = list(TRAINERS)
#: the same trainers with more envs or env processes, as a user on a 2-core machine would try
#: them (``--only sb3 sb3-8envs sb3-2procs ...``, base and variant one after another)
VARIANTS = {
    "sb3-8envs": ("sb3", ["--envs", "8"], "8 envs in one process (DummyVecEnv)"),
    "sb3-2procs": ("sb3", ["--envs", "2", "--subproc"], "2 env processes (SubprocVecEnv)"),
    "tianshou-2procs": ("tianshou", ["--envs", "2", "--subproc"], "2 env processes (SubprocVectorEnv)"),
    "torchrl-2procs": ("torchrl", ["--envs", "2"], "2 env processes (ParallelEnv)"),
    "rllib-2runners": ("rllib", ["--env-runners", "2"], "2 env runner processes"),
}
for _name, (_base, _extra, _what) in VARIANTS.items():
    _package, _script, _args = TRAINERS[_base]
    TRAINERS[_name] = (_package, _script, _args + _extra)
#: what each row's algorithm is, for the table
ALGORITHMS = {"rummyrl": "PPO (train.py, plain config)", "cleanrl-style": "PPO (one file, our vector env)",
              "sb3": "MaskablePPO", "torchrl": "PPO (ClipPPOLoss, MaskedCategorical)",
              "tianshou": "DQN (its PettingZoo tutorial's)", "rllib": "PPO (action-masking RLModule)"}
ALGORITHMS.update({name: f"{ALGORITHMS[base]}, {what}" for name, (base, _, what) in VARIANTS.items()})


def version(python: str, package: str) -> str:
    """The installed version of ``package`` in the interpreter ``python``."""
    out = subprocess.run([python, "-c", f"import importlib.metadata as m; print(m.version({package!r}))"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def train_ours(python: str, minutes: float, run_dir: Path, log) -> tuple[Path, dict]:
    """train.py against simple alone for ``minutes``, in a fresh ``run_dir`` (a run's log is read
    back whole: an older run's must not be in it); the network and its learner moves and seconds."""
    shutil.rmtree(run_dir, ignore_errors=True)
    overrides = best_response_overrides("simple", "gin", None, minutes, 2, "bench_trainers_rummyrl")
    overrides += ["total_steps=1e12", "eval.every_minutes=0", "eval.every_steps=0"]
    cmd = [python, "train.py", "--config", "configs/gin_rummy_plain.yaml", "--run-dir", str(run_dir), "--no-eval",
           *overrides]
    subprocess.run(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, check=True)
    return run_dir / "final.pt", learner_moves_logged(run_dir)


def learner_moves_logged(run_dir: Path) -> dict:
    """The learner's moves (every update's ``charts/learner_samples``) and the minutes, from the run's TensorBoard log."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    ev = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    ev.Reload()
    samples = sum(int(e.value) for e in ev.Scalars("charts/learner_samples"))
    minutes = ev.Scalars("charts/minutes")[-1].value
    steps = ev.Scalars("charts/minutes")[-1].step
    return {"learner_moves": samples, "seconds": minutes * 60, "env_steps_all_seats": steps}


def train_example(python: str, script: str, args: list[str], minutes: float, out: Path, log) -> tuple[Path, dict]:
    """One library's example, stopped by ``minutes``; its exported policy and its summary."""
    summary = out.with_name("summary.json")
    cmd = [python, script, *args, "--minutes", str(minutes), "--out", str(out), "--summary", str(summary)]
    subprocess.run(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, check=True)
    return out, json.loads(summary.read_text())


def evaluate(agent: Path, opponent: str, games: int, seed: int, out: Path) -> dict:
    """``evaluate.py AGENT OPPONENT`` over ``games`` duplicate games (in this process); its pairing."""
    with contextlib.redirect_stdout(io.StringIO()):
        rc = evaluate_cli.main([str(agent), opponent, "--games", str(games), "--seed", str(seed), "--quiet",
                                "--out", str(out), "--overwrite"])  # a --rerun evaluates again
    if rc != 0:
        raise RuntimeError(f"evaluate.py {agent} {opponent} failed ({rc})")
    (pairing,) = json.loads((out / "results.json").read_text())["pairings"]
    return {k: pairing[k] for k in ("games", "wins_a", "wins_b", "draws", "win_rate_a", "win_rate_a_ci95")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=30.0, help="wall time each trainer trains (default 30)")
    ap.add_argument("--games", type=int, default=2000,
                    help="duplicate games against each baseline (default 2000; 0: none, the speed alone)")
    ap.add_argument("--seed", type=int, default=20011, help="the evaluation deals' seed (the same for every row)")
    ap.add_argument("--only", nargs="+", choices=list(TRAINERS), default=BASES,
                    help=f"these trainers only (default: {' '.join(BASES)}; variants: {' '.join(VARIANTS)})")
    ap.add_argument("--rerun", action="store_true", help="run the --only trainers again where the JSON has them")
    ap.add_argument("--python", action="append", default=[], metavar="TRAINER=PATH",
                    help="run TRAINER's example with another interpreter (one that has its library)")
    ap.add_argument("--work", default="runs/bench_trainers", help="folder for the runs, policies and logs")
    ap.add_argument("--out", default=None, help="the JSON to write (default WORK/gin.json)")
    args = ap.parse_args(argv)
    if args.minutes <= 0 or not (args.games == 0 or args.games >= 2):
        ap.error(f"--minutes must be > 0 and --games 0 or >= 2 (got {args.minutes}, {args.games})")
    pythons = {}
    for item in args.python:
        name, sep, path = item.partition("=")
        if not sep or name not in TRAINERS:
            ap.error(f"--python {item!r}: give TRAINER=PATH with TRAINER one of {', '.join(TRAINERS)}")
        pythons[name] = path
    work = ROOT / args.work
    out = Path(args.out) if args.out else work / "gin.json"
    rows = {}
    if out.is_file():  # a stopped benchmark goes on: the rows it has are kept, the others are run
        old = json.loads(out.read_text())
        if (old.get("format"), old.get("minutes"), old.get("games"), old.get("seed")) != (
                FORMAT, args.minutes, args.games, args.seed):
            ap.error(f"{out} holds a benchmark of other settings (minutes, games, seed); give another --out")
        rows = {r["trainer"]: r for r in old["rows"] if not (args.rerun and r["trainer"] in args.only)}
    print("| trainer | algorithm | learner moves/s | vs simple | vs expert |")
    print("| --- | --- | ---: | --- | --- |")
    for name in args.only:
        if name in rows:
            continue
        package, script, extra = TRAINERS[name]
        python = pythons.get(name, sys.executable)
        folder = work / name
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / "train.log", "w") as log:
            t0 = time.time()
            if name == "rummyrl":
                policy, summary = train_ours(python, args.minutes, folder / "run", log)
            else:
                policy, summary = train_example(python, script, extra, args.minutes, folder / "policy.pt2", log)
            wall = time.time() - t0
        row = {"trainer": name, "package": package, "version": version(python, package),
               "algorithm": ALGORITHMS[name], "script": script, **summary, "wall_seconds": round(wall, 1),
               "moves_per_second": summary["learner_moves"] / summary["seconds"], "policy": shown_path(policy)}
        for opponent in ("simple", "expert") if args.games else ():
            row[f"vs_{opponent}"] = evaluate(policy, opponent, args.games, args.seed, folder / f"eval_{opponent}")
        rows[name] = row
        write_json(out, result(args, rows))  # after every row: a stopped benchmark loses at most the one running
        print(f"| {name} | {row['algorithm']} | {row['moves_per_second']:,.0f} | {wr(row.get('vs_simple'))} | "
              f"{wr(row.get('vs_expert'))} |", flush=True)
    write_json(out, result(args, rows))
    print(f"wrote {shown_path(out)}")
    return 0


def wr(p: dict | None) -> str:
    if p is None:
        return "-"
    lo, hi = p["win_rate_a_ci95"]
    return f"{100 * p['win_rate_a']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def result(args, rows: dict[str, dict]) -> dict:
    return {"format": FORMAT, "game": "gin", "opponent": "simple", "minutes": args.minutes, "games": args.games,
            "seed": args.seed, "cores": os.cpu_count(), "machine": platform.machine(),
            "python": platform.python_version(), "torch": importlib.metadata.version("torch"),
            "rows": [rows[name] for name in TRAINERS if name in rows],
            "command": f"python benchmarks/bench_trainers.py --minutes {args.minutes:g} --games {args.games} "
                       f"--seed {args.seed}" + ("" if args.only == BASES else f" --only {' '.join(args.only)}")
                       + "".join(f" --python {p.split('=')[0]}=PYTHON" for p in args.python)}


if __name__ == "__main__":
    sys.exit(main())
