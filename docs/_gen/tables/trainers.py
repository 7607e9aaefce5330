"""The trainers side by side (docs/integrations.md)."""

from __future__ import annotations

from _gen.tables.formats import fmt_ci, fmt_int
from _gen.tables.pages import DynTable
from _gen.tables.shared import table


_TRAINER_NAMES = {"rummyrl": "**rummyrl** `train.py`", "rummyrl-before": "rummyrl `train.py`, before the GAE fix",
                  "cleanrl-style": "`examples/cleanrl_ppo.py` (our vector env)",
                  "sb3": "SB3-contrib", "torchrl": "TorchRL", "tianshou": "Tianshou", "rllib": "RLlib"}


def _trainers(ctx):
    d = ctx.load("trainers/gin.json")
    before = [dict(r, trainer="rummyrl-before") for r in ctx.load("trainers/gin_before_gae_fix.json")["rows"]]
    ours = next((r["moves_per_second"] for r in d["rows"] if r["trainer"] == "rummyrl"), None)
    rows = []
    for r in d["rows"][:1] + before + d["rows"][1:]:
        mine = r["trainer"].startswith("rummyrl")
        ratio = "" if mine or ours is None else f"{ours / r['moves_per_second']:,.0f}x"
        rows.append([_TRAINER_NAMES.get(r["trainer"], r["trainer"]) + ("" if r["package"] == "rummyrl" else f" {r['version']}"),
                     r["algorithm"],
                     f"{r['seconds'] / 60:.1f}", fmt_int(r["learner_moves"]), fmt_int(r["moves_per_second"]), ratio,
                     fmt_ci(r["vs_simple"]["win_rate_a"], r["vs_simple"]["win_rate_a_ci95"]),
                     fmt_ci(r["vs_expert"]["win_rate_a"], r["vs_expert"]["win_rate_a_ci95"])])
    games = fmt_int(d["games"])
    return (["trainer", "algorithm", "minutes", "learner moves", "learner moves/s", "ours is faster by",
             f"against `simple` ({games} games)", f"against `expert` ({games} games)"], "llrrrrll", rows)


table("trainers", DynTable(
    _trainers,
    note="`python benchmarks/bench_trainers.py --minutes M` on this 2-core machine, the trainers one after another: "
         "each trains a Gin network against `simple` alone for the same wall time (M in the JSON), then its "
         "network plays duplicate games to 100 on the same fresh deals (seed 20011) against `simple` and against "
         "`expert` through `evaluate.py`. A learner move is a move of the learning seat that went into an update; "
         "moves per second are over the whole run, playing and learning together. The row before the GAE fix "
         "is the same command run on the code before it (the benchmark's first run)."))
