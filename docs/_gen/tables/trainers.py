"""The trainers side by side (docs/integrations.md): the 30-minute table, the 15-minute one
(with our row before the GAE fix) and the libraries with more env processes (speed alone)."""

from __future__ import annotations

from _gen.tables.formats import fmt_ci, fmt_int
from _gen.tables.pages import DynTable
from _gen.tables.shared import table


_TRAINER_NAMES = {"rummyrl": "**rummyrl** `train.py`", "rummyrl-before": "rummyrl `train.py`, before the GAE fix",
                  "cleanrl-style": "`examples/cleanrl_ppo.py` (our vector env)",
                  "sb3": "SB3-contrib", "torchrl": "TorchRL", "tianshou": "Tianshou", "rllib": "RLlib"}

_BENCH = ("`python benchmarks/bench_trainers.py --minutes M` on this 2-core machine, the trainers one after "
          "another: each trains a Gin network against `simple` alone for the same wall time (M in the JSON)")


def _name(r: dict) -> str:
    base = r["trainer"].split("-")[0] if r["trainer"] not in _TRAINER_NAMES else r["trainer"]
    return _TRAINER_NAMES.get(base, base) + ("" if r["package"] == "rummyrl" else f" {r['version']}")


def _side_by_side(d: dict, before: list[dict] = ()):
    """One row per trainer: its moves, its speed beside ours, its two win rates."""
    ours = next((r["moves_per_second"] for r in d["rows"] if r["trainer"] == "rummyrl"), None)
    rows = []
    for r in d["rows"][:1] + list(before) + d["rows"][1:]:
        mine = r["trainer"].startswith("rummyrl")
        ratio = "" if mine or ours is None else f"{ours / r['moves_per_second']:,.0f}x"
        rows.append([_name(r), r["algorithm"], f"{r['seconds'] / 60:.1f}", fmt_int(r["learner_moves"]),
                     fmt_int(r["moves_per_second"]), ratio,
                     fmt_ci(r["vs_simple"]["win_rate_a"], r["vs_simple"]["win_rate_a_ci95"]),
                     fmt_ci(r["vs_expert"]["win_rate_a"], r["vs_expert"]["win_rate_a_ci95"])])
    games = fmt_int(d["games"])
    return (["trainer", "algorithm", "minutes", "learner moves", "learner moves/s", "ours is faster by",
             f"against `simple` ({games} games)", f"against `expert` ({games} games)"], "llrrrrll", rows)


def _trainers(ctx):
    return _side_by_side(ctx.load("trainers/gin_30min.json"))


def _trainers_15(ctx):
    before = [dict(r, trainer="rummyrl-before") for r in ctx.load("trainers/gin_before_gae_fix.json")["rows"]]
    return _side_by_side(ctx.load("trainers/gin.json"), before)


#: how each library's example runs its envs by default (a variant's row says its own)
_DEFAULT_ENVS = {"sb3": "1 env", "tianshou": "8 envs in one process (DummyVectorEnv)", "torchrl": "1 env",
                 "rllib": "the env in the learner's process"}


def _processes(ctx):
    """Each library as its example runs it and with more envs or env processes, one after the
    other; the variant's speed over its base's, and ours (the 30-minute table) over each."""
    d = ctx.load("trainers/gin_env_procs.json")
    ours = next(r["moves_per_second"] for r in ctx.load("trainers/gin_30min.json")["rows"] if r["trainer"] == "rummyrl")
    by_name = {r["trainer"]: r for r in d["rows"]}
    first = {}
    for i, r in enumerate(d["rows"]):
        first.setdefault(r["trainer"].split("-")[0], i)
    rows = []
    for r in sorted(d["rows"], key=lambda r: (first[r["trainer"].split("-")[0]], "-" in r["trainer"])):
        base_name, _, variant = r["trainer"].partition("-")
        base = by_name.get(base_name)
        # a variant's algorithm is its base's and, after the last comma, how it runs its envs
        algorithm, how = r["algorithm"].rpartition(", ")[::2] if variant else (r["algorithm"],
                                                                               _DEFAULT_ENVS.get(base_name, ""))
        rows.append([_name(r), algorithm, how,
                     fmt_int(r["learner_moves"]), fmt_int(r["moves_per_second"]),
                     f"{r['moves_per_second'] / base['moves_per_second']:.2f}x" if variant and base else "",
                     f"{ours / r['moves_per_second']:,.0f}x"])
    return (["trainer", "algorithm", "envs", "learner moves", "learner moves/s", "over the example's default",
             "ours (30-minute row) is faster by"], "lllrrrr", rows)


table("trainers", DynTable(
    _trainers,
    note=_BENCH + ", then its network plays duplicate games to 100 on the same fresh deals (seed 20011) against "
         "`simple` and against `expert` through `evaluate.py`. A learner move is a move of the learning seat that "
         "went into an update; moves per second are over the whole run, playing and learning together."))

table("trainers_15min", DynTable(
    _trainers_15,
    note=_BENCH + " (here 15 minutes), as in the table above. The row before the GAE fix is the same command run "
         "on the code before it (the benchmark's first run)."))

table("trainer_processes", DynTable(
    _processes,
    note=_BENCH + ", here a few minutes each (the JSON says how many), with `--games 0` (the speed alone): each "
         "library as its example runs by default, then with the envs its own docs offer for a second core, one "
         "after the other on the otherwise idle machine. The last column divides our 30-minute row's speed by "
         "the row's."))
