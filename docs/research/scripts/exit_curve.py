"""Learning curve of offline expert iteration: the network distilled from a run's first M minutes of search records.

A run with ``exit.save_records=true`` writes its search records as it goes; the minute a
file was finished is its modification time less the run's start (the earliest TensorBoard
event file's timestamp). For every ``--minutes`` mark this fits a network on the files
finished by then (``scripts/exit_fit.py``'s :func:`~rummyrl.training.offline.fit`) and plays
it alone, greedy, against each ``--against`` agent on the same duplicate deals. The point's
training time is the data's minutes plus the fit's. Mark 0 is the network the fits start
from (``--init``, else a fresh one of the config), validated on the first files.

Each fit (``OUT/fits/``) and match (``OUT/points/``) is saved when finished; a rerun skips
them, so a killed run loses at most the step in progress. ``OUT/curve.json`` and
``OUT/curve.png`` gather the points.

    python docs/research/scripts/exit_curve.py runs/gin_exit_simple --config docs/research/configs/gin_rummy_exit_knock.yaml \\
        --minutes 0 15 30 45 70 --epochs 6 --select q_gain --games 1000 --seed 5 --max-hands 30 \\
        --out docs/results/gin_exit_simple "net.expert_params=lookahead=4,w_danger=3,w_gin=30"
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from search_curve import add_match_args, errorbars, finish, play_point  # noqa: E402  (a sibling script)

from rummyrl.training import ConfigError, load_config  # noqa: E402
from rummyrl.training.exit import record_files  # noqa: E402
from rummyrl.training.offline import SELECT, fit, kept_row  # noqa: E402


def file_minutes(run_dir: Path) -> list[tuple[Path, float]]:
    """The run's records files, each with the minute since the run's start it was finished."""
    events = sorted(run_dir.glob("events.out.tfevents.*"))
    if not events:
        raise FileNotFoundError(f"{run_dir} holds no TensorBoard event file to date the run's start")
    start = min(float(e.name.split(".")[3]) for e in events)
    return [(f, (f.stat().st_mtime - start) / 60) for f in record_files(run_dir / "records")]


def fit_point(out: Path, run_dir: Path, minutes: float, first: int, args) -> dict:
    """The fit on the first ``first`` files (``minutes`` of data), read from ``OUT/fits`` when saved."""
    meta_path = out / "fits" / f"m{minutes:g}.json"
    if meta_path.exists():
        return json.loads(meta_path.read_text())
    ckpt = out / "fits" / f"m{minutes:g}.pt"
    ckpt.parent.mkdir(parents=True, exist_ok=True)
    cfg = load_config(args.config, args.overrides)
    t0 = time.time()
    rows = fit(cfg, run_dir / "records", ckpt, args.epochs if minutes else 0, args.valid_every, args.init,
               select=args.select, first=first)
    best = kept_row(rows, args.select)
    fit_minutes = round((time.time() - t0) / 60, 2) if minutes else 0.0
    meta = {"minutes_data": round(minutes, 2), "files": first, "fit_minutes": fit_minutes,
            "epochs": args.epochs if minutes else 0, "select": args.select, "init": args.init,
            "overrides": args.overrides, "kept_epoch": best["epoch"], "rows": rows}
    tmp = meta_path.with_suffix(".tmp")
    tmp.write_text(json.dumps(meta, indent=1))
    tmp.replace(meta_path)  # written after the checkpoint: a saved meta means a whole fit
    return meta


def plot(points: list[dict], path: Path, title: str) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.5, 4.2))
    ax = fig.subplots()
    for against in dict.fromkeys(p["against"] for p in points):
        ps = sorted((p for p in points if p["against"] == against), key=lambda p: p["train_minutes"])
        errorbars(ax, ps, "train_minutes", f"vs {against}")
    ax.set_xlabel("training minutes (search data + offline fit)")
    ax.set_ylabel("% of games won, network alone (95% CI)")
    finish(fig, ax, points, title, path, fontsize=9)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("run", type=Path, help="the run folder (records/ and its TensorBoard events)")
    ap.add_argument("--config", required=True, help="the fit's YAML config, as for exit_fit.py")
    ap.add_argument("--minutes", type=float, nargs="+", required=True, help="data minutes of each point (0: the start)")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--valid-every", type=int, default=10)
    ap.add_argument("--select", choices=SELECT, default="q_gain")
    ap.add_argument("--init", help="start every fit from this checkpoint instead of a fresh network")
    ap.add_argument("--against", nargs="+", default=["simple", "expert"])
    add_match_args(ap, games=1000, seed=5)
    ap.add_argument("overrides", nargs="*", help="config overrides key=value, as for exit_fit.py")
    args = ap.parse_intermixed_args(argv)
    if args.games < 2:
        ap.error(f"--games must be >= 2 (one duplicate pair), got {args.games}")
    try:
        dated = file_minutes(args.run)
        last = dated[-1][1]
        if any(m < 0 or m > last + 1e-9 for m in args.minutes):
            ap.error(f"--minutes must lie between 0 and the last file's {last:.1f} minutes, got {args.minutes}")
        points = []
        for m in sorted(set(args.minutes)):
            first = max(args.valid_every, sum(t <= m + 1e-9 for _, t in dated))
            meta = fit_point(args.out, args.run, m, first, args)
            spec = str(args.out / "fits" / f"m{m:g}.pt")
            for against in args.against:
                p = play_point(args.out, f"m{m:g}_vs_{against}", spec, against, args,
                               minutes_data=meta["minutes_data"], fit_minutes=meta["fit_minutes"],
                               train_minutes=round(meta["minutes_data"] + meta["fit_minutes"], 2),
                               files=meta["files"], kept_epoch=meta["kept_epoch"])
                points.append(p)
                print(f"{m:5g} data min + {meta['fit_minutes']:4.1f} fit min ({meta['files']} files): "
                      f"{100 * p['win_rate']:5.1f}% [{100 * p['ci95'][0]:.1f}, {100 * p['ci95'][1]:.1f}] "
                      f"vs {against} of {p['games']} games", flush=True)
    except (ConfigError, OSError, ValueError) as e:
        print(f"exit_curve.py: error: {e}", file=sys.stderr)
        return 2
    curve = {"run": str(args.run), "config": args.config, "overrides": args.overrides, "epochs": args.epochs,
             "select": args.select, "init": args.init, "points": points}
    (args.out / "curve.json").write_text(json.dumps(curve, indent=1))
    plot(points, args.out / "curve.png", f"offline expert iteration from {args.run.name}")
    print(f"wrote {args.out / 'curve.json'} and {args.out / 'curve.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
