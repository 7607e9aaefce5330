"""Win rate of ``search`` against the number of worlds, one line per opponent model.

Every point is a duplicate-deal match of ``search:<model>,worlds=N`` against one opponent,
played with ``evaluate.py``'s machinery on the same deals (one seed for every point, so
the points differ only by the search options). Each finished point is written at once to
``OUT/points/``; a rerun skips the points already there, so a killed run loses at most
the point in progress. ``OUT/curve.json`` and ``OUT/curve.png`` gather every point saved
in ``OUT`` against that opponent (a later run may add worlds to one model only).

    python docs/research/scripts/search_curve.py --against simple --worlds 8 16 32 64 \\
        --model "expert=" --model "simple=opponent=simple,knock=10" --games 200 --out docs/results/search_curve

``--model LABEL=OPTIONS``: the search options that make an opponent model (empty for the
defaults, which model the opponent as ``expert``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

from rummyrl.tournament import run_tournament


def parse_model(text: str) -> tuple[str, str]:
    label, eq, options = text.partition("=")
    if not eq or not label:
        raise argparse.ArgumentTypeError(f"--model takes LABEL=OPTIONS (options may be empty), got {text!r}")
    if not re.fullmatch(r"[A-Za-z0-9_-]+", label):
        raise argparse.ArgumentTypeError(f"--model label {label!r} names files: use letters, digits, '_' and '-'")
    return label, options


def search_spec(options: str, worlds: int) -> str:
    return "search:" + ",".join(o for o in (options, f"worlds={worlds}") if o)


def add_match_args(ap: argparse.ArgumentParser, games: int, seed: int) -> None:
    """The options :func:`play_point` reads: the matches' size, deals and workers, and OUT."""
    ap.add_argument("--games", type=int, default=games, help=f"duplicate games per match (default {games})")
    ap.add_argument("--seed", type=int, default=seed, help=f"the deals' seed, the same for every match (default {seed})")
    ap.add_argument("--max-hands", type=int, default=None,
                    help="a game not decided by then is a draw (default: the rules' cap, as in evaluate.py)")
    ap.add_argument("--workers", type=int, default=0, help="Ray workers for the matches (0: this process)")
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--out", type=Path, required=True)


def play_point(out: Path, stem: str, spec: str, against: str, args, **meta) -> dict:
    """The match of ``spec`` against ``against``, read from ``OUT/points/STEM.json`` when a
    run saved it, else played and saved."""
    path = out / "points" / f"{stem}.json"
    if path.exists():
        point = json.loads(path.read_text())
        asked = {"spec": spec, "against": against, "seed": args.seed, "max_hands": args.max_hands}
        if any(point.get(k) != v for k, v in asked.items()) or point["games"] < args.games:
            raise SystemExit(f"{path} holds another match ({ {k: point.get(k) for k in asked} }, "
                             f"{point['games']} games) than asked ({asked}, {args.games} games): "
                             "use another --out or delete it")
        return point
    t0 = time.time()
    rules = None if args.max_hands is None else {"max_hands": args.max_hands}
    t = run_tournament([spec, against], game="gin", games=args.games, seed=args.seed, options=rules,
                       show_progress=not args.quiet, workers=args.workers)
    r = t.pairings[0]
    point = {**meta, "spec": spec, "against": against, "games": r.games, "wins": r.wins_a,
             "win_rate": r.win_rate, "ci95": list(r.interval), "points_hand": r.points_hand,
             "seconds": time.time() - t0, "seed": args.seed, "max_hands": args.max_hands}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(point, indent=2))
    tmp.replace(path)  # a killed run never leaves half a point
    return point


def plot(points: list[dict], baseline: dict | None, against: str, path: Path) -> None:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.5, 4.2))
    ax = fig.subplots()
    for label in dict.fromkeys(p["model"] for p in points):
        ps = sorted((p for p in points if p["model"] == label), key=lambda p: p["worlds"])
        errorbars(ax, ps, "worlds", f"opponent model: {label}")
    if baseline is None:
        ax.axhline(50, color="grey", lw=0.8, ls=":")
    else:
        lo, hi = (100 * v for v in baseline["ci95"])
        ax.axhspan(lo, hi, color="grey", alpha=0.15)
        ax.axhline(100 * baseline["win_rate"], color="grey", ls="--", label=f"{baseline['spec']} alone")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("worlds per decision")
    ax.set_ylabel(f"% of games won against {against} (95% CI)")
    finish(fig, ax, points, f"Gin search against {against}", path)


def errorbars(ax, points: list[dict], x: str, label: str) -> None:
    """The points' win rates against their ``x``, in percent, with their 95% intervals."""
    y = [100 * p["win_rate"] for p in points]
    err = [[100 * (p["win_rate"] - p["ci95"][0]) for p in points],
           [100 * (p["ci95"][1] - p["win_rate"]) for p in points]]
    ax.errorbar([p[x] for p in points], y, yerr=err, marker="o", capsize=3, label=label)


def finish(fig, ax, points: list[dict], title: str, path: Path, fontsize=None) -> None:
    """Title (with the games per point), grid and legend; written to ``path``."""
    games = sorted({p["games"] for p in points})
    ax.set_title(f"{title}, {'/'.join(map(str, games))} duplicate games per point", fontsize=fontsize)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--against", default="simple", help="the opponent agent (default simple)")
    ap.add_argument("--worlds", type=int, nargs="+", default=[8, 16, 32, 64])
    ap.add_argument("--model", type=parse_model, action="append",
                    help="LABEL=OPTIONS, repeatable (default: expert= , the search defaults)")
    ap.add_argument("--baseline", default="expert",
                    help="an agent played alone on the same deals, drawn as a line (default expert, "
                         "search's rollout policy; empty for none)")
    add_match_args(ap, games=200, seed=0)
    args = ap.parse_args(argv)
    if any(w < 1 for w in args.worlds):
        ap.error(f"--worlds must be positive integers, got {args.worlds}")
    if args.games < 2:
        ap.error(f"--games must be >= 2 (one duplicate pair), got {args.games}")
    models = args.model or [("expert", "")]
    if len({m for m, _ in models}) != len(models):
        ap.error(f"--model labels must differ, got {[m for m, _ in models]}")
    baseline = None
    if args.baseline == args.against:
        print(f"(--baseline {args.baseline} is the opponent itself: even by symmetry, not played)")
    elif args.baseline:  # the rollout policy alone on the same deals: what search adds to
        baseline = play_point(args.out, "baseline", args.baseline, args.against, args, model=None)
        print(f"{args.baseline:>10} alone      {100 * baseline['win_rate']:5.1f}%", flush=True)
    for label, options in models:
        for w in args.worlds:
            p = play_point(args.out, f"{label}_worlds{w}", search_spec(options, w), args.against, args,
                           model=label, options=options, worlds=w)
            print(f"{label:>10} worlds={w:<4} {100 * p['win_rate']:5.1f}% "
                  f"[{100 * p['ci95'][0]:.1f}, {100 * p['ci95'][1]:.1f}] of {p['games']} games, "
                  f"{p['seconds']:.0f} s", flush=True)
    # the curve is every point saved in OUT, also those of earlier runs with other worlds
    order = {label: i for i, (label, _) in enumerate(models)}
    saved = [json.loads(f.read_text()) for f in (args.out / "points").glob("*.json")]
    points = sorted((p for p in saved if p["against"] == args.against and p["model"] is not None),
                    key=lambda p: (order.get(p["model"], len(order)), p["model"], p["worlds"]))
    curve = {"against": args.against, "baseline": baseline, "points": points}
    (args.out / "curve.json").write_text(json.dumps(curve, indent=2))
    plot(points, baseline, args.against, args.out / "curve.png")
    print(f"wrote {args.out / 'curve.json'} and {args.out / 'curve.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
