"""Learning curves as JSON, and their figure: the periodic evaluations a training run logged.

    python docs/research/scripts/curves.py json RUN_DIR OUT.json [--label TEXT]
    python docs/research/scripts/curves.py plot OUT.png CURVE.json [CURVE.json ...] [--title TEXT]

``json`` reads the run's TensorBoard logs (``eval/win_rate_vs_<opponent>`` and
``eval/minutes`` at each evaluation step; ``charts/steps_per_second``) and writes the curve:
each evaluation's env step, minutes of training and win rate against each opponent, with the
number of games behind each point (``eval.games`` of the run's config) and its 95% interval;
and, averaged over the run's last fifth of updates, the PPO statistics (approximate KL,
clipped fraction, entropy, explained variance) and how the learner's hands ended.
``plot`` draws one or more curves on one figure: win rate over minutes of training, one panel
per opponent, a line per run. The research pages' tables and figures are made from these files.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml
from matplotlib.figure import Figure
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

from rummyrl.stats import wilson_interval as wilson


def curve_of(run_dir: Path, label: str | None = None) -> dict:
    acc = EventAccumulator(str(run_dir), size_guidance={"scalars": 0})
    acc.Reload()
    tags = acc.Tags().get("scalars", [])
    if "eval/minutes" not in tags:
        raise SystemExit(f"curves.py: {run_dir} has no evaluations in its TensorBoard logs")
    cfg = yaml.safe_load((run_dir / "config.yaml").read_text())
    games = int(cfg["eval"]["games"])
    minutes = {e.step: e.value for e in acc.Scalars("eval/minutes")}
    rates = {t[len("eval/win_rate_vs_"):]: {e.step: e.value for e in acc.Scalars(t)}
             for t in tags if t.startswith("eval/win_rate_vs_")}
    points = []
    for step in sorted(minutes):
        point = {"step": int(step), "minutes": round(minutes[step], 2), "win_rate": {}, "ci95": {}}
        for opp, by_step in rates.items():
            if step in by_step:
                r = by_step[step]
                point["win_rate"][opp] = r
                point["ci95"][opp] = list(wilson(round(r * games), games))
        points.append(point)
    sps = [e.value for e in acc.Scalars("charts/steps_per_second")] if "charts/steps_per_second" in tags else []
    # how the updates looked over the run's last fifth: how far each moved the policy, how much
    # of the returns the value explained, how the learner's own hands ended
    late = {}
    for tag in ("losses/approx_kl", "losses/clipfrac", "losses/entropy", "losses/explained_variance",
                "hands/knock_rate", "hands/gin_rate", "hands/undercut_rate"):
        if tag in tags:
            vals = [e.value for e in acc.Scalars(tag)]
            tail = vals[len(vals) - max(1, len(vals) // 5):]
            late[tag.split("/", 1)[1]] = sum(tail) / len(tail)
    return {"run": cfg["name"], "label": label or cfg["name"], "game": cfg["game"],
            "num_players": cfg["num_players"], "games_per_point": games,
            "mean_steps_per_second": sum(sps) / len(sps) if sps else None,
            "opponents": {k: v for k, v in cfg["opponents"].items() if v}, "late_updates": late, "points": points}


def plot(curves: list[dict], out: Path, title: str = "") -> None:
    opponents = sorted({o for c in curves for p in c["points"] for o in p["win_rate"]},
                       key=lambda o: (o != "simple", o))
    # the legend goes below the panels, where it hides no curve: two labels a row
    legend_rows = (len(curves) + 1) // 2
    height = 3.8 + 0.25 * legend_rows
    fig = Figure(figsize=(5 * len(opponents), height))
    axes = fig.subplots(1, len(opponents), squeeze=False)[0]
    for ax, opp in zip(axes, opponents):
        for c in curves:
            pts = [p for p in c["points"] if opp in p["win_rate"]]
            ax.plot([p["minutes"] for p in pts], [100 * p["win_rate"][opp] for p in pts], marker="o",
                    markersize=3, label=c["label"])
            ax.fill_between([p["minutes"] for p in pts], [100 * p["ci95"][opp][0] for p in pts],
                            [100 * p["ci95"][opp][1] for p in pts], alpha=0.15)
        chance = 100 / curves[0]["num_players"]
        ax.axhline(chance, color="grey", linestyle="--", linewidth=0.8)
        ax.set_title(f"against {opp}" + ("" if curves[0]["num_players"] == 2 else " (one seat of the table)"))
        ax.set_xlabel("minutes of training")
        ax.set_ylabel("games won, %")
        ax.grid(alpha=0.3)
    fig.legend(*axes[0].get_legend_handles_labels(), fontsize=8, loc="lower center", ncol=2, frameon=False)
    if title:
        fig.suptitle(title)
    fig.tight_layout(rect=(0, (0.25 * legend_rows + 0.1) / height, 1, 1))
    fig.savefig(out, dpi=110)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    j = sub.add_parser("json", help="a run's curve as JSON")
    j.add_argument("run_dir", type=Path)
    j.add_argument("out", type=Path)
    j.add_argument("--label")
    p = sub.add_parser("plot", help="curves on one figure")
    p.add_argument("out", type=Path)
    p.add_argument("curves", type=Path, nargs="+")
    p.add_argument("--title", default="")
    args = ap.parse_args(argv)
    if args.cmd == "json":
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(curve_of(args.run_dir, args.label), indent=1) + "\n")
    else:
        plot([json.loads(c.read_text()) for c in args.curves], args.out, args.title)
    print(args.out, file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
