"""What more compute buys: a run's networks at several training budgets, on fresh deals.

    python docs/research/scripts/budgets.py OUT_DIR CHECKPOINT [CHECKPOINT ...] [--minutes 15 30]
        [--games 2000] [--seed 20011] [--against simple expert]

Each CHECKPOINT is a ``last.pt`` (or any checkpoint) of one run, copied as the run wrote it
(``runs/<name>/last.pt`` is rewritten every ``checkpoint_every_minutes``; keep copies while it
trains), or its ``final.pt``. For each of ``--minutes`` the checkpoint whose training time is
nearest is taken, and ``final.pt``'s own time is added as the last budget; each is played
against every opponent of ``--against`` (``evaluate.py``'s tournament: duplicate deals, games to
the target, ``max_hands`` 30) and written to ``OUT_DIR/<minutes>min/results.json``, with
``OUT_DIR.json`` listing the budgets (minutes, env steps, the results file and the agent's
label in it) and ``OUT_DIR.png`` drawing them (the scaling figure). With a constant learning rate a checkpoint at 15 minutes is what a 15-minute run
would have made.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from matplotlib.figure import Figure

from rummyrl import games as registry
from rummyrl.agents.checkpoint import load_checkpoint
from rummyrl.report import write_outputs
from rummyrl.tournament import run_tournament


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("checkpoints", type=Path, nargs="+")
    ap.add_argument("--minutes", type=float, nargs="*", default=[15.0, 30.0])
    ap.add_argument("--final", type=Path, help="the run's final.pt (its time is the last budget)")
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=20011)
    ap.add_argument("--against", nargs="+", default=["simple", "expert"])
    args = ap.parse_args(argv)
    found = []
    for path in [*args.checkpoints, *([args.final] if args.final else [])]:
        c = load_checkpoint(path)
        found.append((c["counters"]["elapsed"] / 60, c["counters"]["global_step"], path, c["game"]))
    picks = [min(found[:len(args.checkpoints)], key=lambda f: abs(f[0] - m)) for m in args.minutes]
    if args.final:
        picks.append(found[-1])
    budgets = []
    for minutes, step, path, game in picks:
        label = f"{round(minutes)}min"
        folder = args.out / label
        folder.mkdir(parents=True, exist_ok=True)
        net = folder / "net.pt"
        shutil.copyfile(path, net)
        key = f"max_{registry.get(game).deal}s"
        t = run_tournament([str(net), *args.against], game=game, games=args.games, seed=args.seed,
                           options={key: 30}, pairs_with=0, show_progress=False)
        write_outputs(t, folder, {"checkpoint": {"minutes": minutes, "step": step}})
        net.unlink()  # the results keep the label; the weights stay with the run
        budgets.append({"minutes": round(minutes, 1), "step": step, "results": f"{args.out.name}/{label}/results.json",
                        "agent": f"{label}/net"})
        print(f"{label}: {step:,} steps, " + ", ".join(f"{p.b} {p.win_rate:.1%}" for p in t.pairings), file=sys.stderr)
    args.out.with_suffix(".json").write_text(json.dumps({"budgets": budgets}, indent=1) + "\n")
    plot(args.out.parent, budgets, args.against, args.out.with_suffix(".png"))
    return 0


def plot(results_dir: Path, budgets: list[dict], against: list[str], out: Path) -> None:
    """The scaling figure: games won against each opponent over the training budget, with
    the 95% intervals."""
    fig = Figure(figsize=(6, 3.8))
    ax = fig.subplots()
    for opp in against:
        pts = []
        for b in budgets:
            data = json.loads((results_dir / b["results"]).read_text())
            p = next(p for p in data["pairings"] if p["a"] == b["agent"] and p["b"] == opp)
            pts.append((b["minutes"], p["win_rate_a"], *p["win_rate_a_ci95"]))
        x = [p[0] for p in pts]
        ax.errorbar(x, [100 * p[1] for p in pts], yerr=[[100 * (p[1] - p[2]) for p in pts],
                                                       [100 * (p[3] - p[1]) for p in pts]],
                    marker="o", capsize=3, label=f"against {opp}")
    ax.axhline(50, color="grey", linestyle="--", linewidth=0.8)
    ax.set_xlabel("training budget, minutes on 2 CPU cores")
    ax.set_ylabel("games won, % (2,000 games, 95% CI)")
    ax.set_ylim(0, 100)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)


if __name__ == "__main__":
    raise SystemExit(main())
