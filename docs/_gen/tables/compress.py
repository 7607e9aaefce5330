"""The shipped networks distilled into fast ones (docs/research/pretrained.md, "Fast networks")."""

from __future__ import annotations

from _gen.tables.cells import Cell, VALUE, WR
from _gen.tables.exit_gin import _PS
from _gen.tables.formats import fmt_int, fmt_pct
from _gen.tables.pages import DynTable, Table
from _gen.tables.plain import _PL
from _gen.tables.refs import pairing, pool
from _gen.tables.rummy import _TR
from _gen.tables.search import _RUMMY_SEARCH_GAMES
from _gen.tables.shared import _SHIP_GIN, _SHIP_PLAIN, _SHIP_RUMMY, _SHIP_RUMMY_EXPERT, table


_CO = "compress/"
#: per shipped network: its file, its game, the opponents' words, the teacher's evaluation
#: (file, label), the student's (file, label), the compression's metrics file
COMPRESSED = [
    ("gin.pt", "gin", ("simple", "expert"), (_PS + "best_seed20011.json", "gin_ppo_simple/best"),
     (_CO + "gin_eval.json", "gin_h192/student"), _CO + "gin_fit.json"),
    ("gin-plain.pt", "gin", ("simple", "expert"), (_PL + "gin_curriculum/results.json", "policy"),
     (_CO + "plain_eval.json", "plain_h192/student"), _CO + "plain_fit.json"),
    ("rummy.pt", "rummy", ("three simple", "three expert"), (_TR + "final_20011_results.json", "rummy_read/final"),
     (_CO + "rummy_eval.json", "compress/student"), _CO + "rummy_fit.json"),
]


def _kept(ctx, fit: str) -> dict:
    """The epoch a compression kept (the first of the highest held-out agreement)."""
    return max(ctx.load(fit)["rows"], key=lambda r: r["valid_agreement"])


def _compressed_rows(ctx):
    rows = []
    for name, game, against, (t_path, t_label), (s_path, s_label), fit in COMPRESSED:
        net = ctx.load(fit)["config"]["net"]
        arch = ", ".join(f"{k}: {str(v).lower()}" for k, v in net.items())
        kept, start = _kept(ctx, fit), ctx.load(fit)["rows"][0]
        for who, path, label, speed, agree in (
                ("the network it was (the teacher)", t_path, t_label, f"{name} before compression", ""),
                (f"the student (`{arch}`), shipped", s_path, s_label,
                 "pretrained-plain" if name == "gin-plain.pt" else "pretrained",
                 f"{fmt_pct(kept['valid_agreement'])} (untrained: {fmt_pct(start['valid_agreement'])})")):
            opp = [o.split()[-1] for o in against]
            rows.append([f"`{name}`: {who}", _speed(game, speed)]
                        + [WR(pairing(path, label, o)) for o in opp] + [agree])
    return (["network", "decisions / s", "against simple (Rummy: three)", "against expert (Rummy: three)",
             "its move is the teacher's (held-out positions)"], "lrllr", rows)


table("compressed", DynTable(
    _compressed_rows,
    note="Win rates: 2,000 duplicate games to the target on the deals of seed 20011 (Gin to 100, Rummy four players "
         "to 200), teacher and student on the same deals. Decisions per second: benchmarks/bench_agents.py, batches "
         "of 1,024, 5 in a row, one torch thread, teacher and student in the same run (the teachers as `--agent` rows). "
         "Agreement: the share of the held-out games' positions where the student's greedy move is the teacher's "
         "(the epoch kept; untrained, the student plays the argmax of its features)."))


# =======================================================================================
# ---------------------------------------------------------------------------------------
# README: results at a glance
# ---------------------------------------------------------------------------------------
def _speed(game: str, agent: str) -> Cell:
    """Decisions per second of ``agent`` (benchmarks/bench_agents.py --json)."""
    return VALUE(f"bench_agents/{game}.json", lambda d: d["decisions_per_second"][agent],
                 lambda x: fmt_int(round(x)))


_BASE = "docs/research/baselines.md"
_SEARCH = "docs/research/search.md"
_CARDS = "docs/models/"
table("glance", Table(
    ["game", "agent", "against simple", "against expert", "decisions / s", "evidence"],
    [
        ["Gin Rummy", "`expert`", WR(pairing("gin_expert_simple/results.json", "expert", "simple")), "",
         _speed("gin", "expert"), f"[baselines]({_BASE})"],
        ["Gin Rummy", "`search`", WR(pairing("search_simple/results.json", "search", "simple")),
         WR(pairing("search_expert/results.json", "search", "expert")), _speed("gin", "search"),
         f"[search]({_SEARCH})"],
        ["Gin Rummy", "`pretrained`", WR(_SHIP_GIN["simple"]), WR(_SHIP_GIN["expert"]), _speed("gin", "pretrained"),
         f"[model card]({_CARDS}gin.md)"],
        ["Gin Rummy", "`pretrained-plain`",
         WR(_SHIP_PLAIN["simple"]), WR(_SHIP_PLAIN["expert"]), _speed("gin", "pretrained-plain"), f"[model card]({_CARDS}gin-plain.md)"],
        ["Rummy, 4 players", "`expert`", WR(pairing("rummy_expert_simple/results.json", "expert", "simple")), "",
         _speed("rummy", "expert"), f"[baselines]({_BASE})"],
        ["Rummy, 4 players", "`planner`", WR(pairing("rummy_plan/planner_4000/results.json", "planner", "simple")),
         "", _speed("rummy", "planner"), f"[baselines]({_BASE})"],
        ["Rummy, 4 players", "`search`", "", WR(pool(*_RUMMY_SEARCH_GAMES)), _speed("rummy", "search"),
         f"[search]({_SEARCH})"],
        ["Rummy, 4 players", "`pretrained`",
         WR(_SHIP_RUMMY["simple"]), WR(_SHIP_RUMMY_EXPERT), _speed("rummy", "pretrained"), f"[model card]({_CARDS}rummy.md)"],
    ], align="llllrl",
    note="Gin: the agent against one opponent; Rummy: against three copies of it (chance 25%). "
         "An empty cell was not measured."))
