"""Expert iteration in Gin (docs/research/expert_iteration_gin.md)."""

from __future__ import annotations

from _gen.tables.baselines import _GR
from _gen.tables.cells import BOLD, CAT, CURVE, GAMES, PTS, VALUE, WR, entry_rows
from _gen.tables.formats import SpecError, fmt_ci, fmt_num, fmt_pct
from _gen.tables.pages import DynTable, Table
from _gen.tables.ppo import _RR, _parallel_curve
from _gen.tables.refs import entry, pairing, pool
from _gen.tables.shared import RACE, table


_K50 = "gin_exit_knock/final50_vs_"
_K95 = "gin_exit_knock/final95_vs_"
table("gin_exit_runs", Table(
    ["run", "trained", "vs expert", "vs simple", "curve vs expert"],
    [
        ["`gin_rummy_exit.yaml` (`z=2` teacher, search's choice as target)", "best.pt, 10 of 52 min",
         WR(pairing("gin_exit/vs_expert.json", "gin_rummy_exit/best", "expert")),
         WR(pairing("gin_exit/vs_simple.json", "gin_rummy_exit/best", "simple")), "(not kept)"],
        ["+ `exit.depart_weight=10`, 8 minibatches, data against expert and itself only", "26 min",
         CAT(VALUE("gin_exit_departs/curve.json", lambda d: d["points"][-1]["vs_expert"]), " (400)"),
         CAT(VALUE("gin_exit_departs/curve.json", lambda d: d["points"][-1]["vs_simple"]), " (400)"),
         CURVE("gin_exit_departs/curve.json", "vs_expert")],
        ["`exit.target=softmax`, temperature 8", "32 min",
         CAT(VALUE("gin_exit_soft/curve.json", lambda d: d["points"][-1]["vs_expert"]), " (400)"),
         CAT(VALUE("gin_exit_soft/curve.json", lambda d: d["points"][-1]["vs_simple"]), " (400)"),
         CURVE("gin_exit_soft/curve.json", "vs_expert")],
        ["`gin_rummy_exit_knock.yaml` (`exit.phase: knock`, card head), final.pt", "50 min",
         WR(pairing(_K50 + "expert.json", "k1/final50", "expert")),
         WR(pairing(_K50 + "simple.json", "k1/final50", "simple")),
         CURVE("gin_exit_knock/curve.json", "vs_expert", "range", 0, 6)],
        ["+ resumed to 95 min with 64 worlds, data against expert and itself only", "95 min",
         WR(pairing(_K95 + "expert.json", "k1/final95", "expert")),
         WR(pairing(_K95 + "simple.json", "k1/final95", "simple")),
         CURVE("gin_exit_knock/curve.json", "vs_expert", "range", 6)],
        ["PPO fine-tuning of the first row's best.pt (hand episodes, lr 1e-4, simple/expert pool)", "30 min",
         CAT(VALUE("gin_exit_ppo/curve.json", lambda d: d["points"][-1]["vs_expert"]), " (400)"),
         CAT(VALUE("gin_exit_ppo/curve.json", lambda d: d["points"][-1]["vs_simple"]), " (400)"),
         CURVE("gin_exit_ppo/curve.json", "vs_expert", suffix=" of the run's clock")],
    ]))

_WH = "gin_exit/search_where_hands.json"
table("gin_where_hands", Table(
    ["who decides", "hands won of 400 against the expert"],
    entry_rows(_WH, [
        ("the expert everywhere", "base"),
        ("search at the draw only", "teacher at the draw"),
        ("search everywhere but the draw", "teacher but the draw"),
        ("search everywhere", "teacher"),
    ])))

_WK = "gin_exit_knock/search_where_games.json"
table("gin_where_knock_games", Table(
    ["who decides", "games won of 200", "points per hand (vs the expert)"],
    entry_rows(_WK, [
        ("the expert everywhere", "base"),
        ("search everywhere", "teacher"),
        ("search at the knock decisions only", "teacher at the knock"),
        ("search everywhere but the knock", "teacher but the knock"),
    ], points=True)))

table("gin_race_rollout", Table(
    ["agent", "against", "seed", "games", "games won"],
    [
        ["`search:rollout=(expert:w_gin=30)`", "expert", "4242",
         GAMES(pairing("gin_race/search_race_rollout/results.json", "search:rollout=expert:w_gin=30", "expert")),
         WR(pairing("gin_race/search_race_rollout/results.json", "search:rollout=expert:w_gin=30", "expert"))],
        [f"`{RACE}` (the rule alone)", "expert", "20011", GAMES(pairing(_GR, RACE, "expert")),
         WR(pairing(_GR, RACE, "expert"))],
    ], align="lllrl"))

_WS = "gin_race/search_where_simple/"
table("gin_where_simple", Table(
    ["who decides", "games won of 400 against simple", "points per hand (vs simple)"],
    [
        ["the racing expert everywhere", WR(entry(_WS + "knock.json", agent="base")),
         PTS(entry(_WS + "knock.json", agent="base"))],
        ["search at the draw", WR(entry(_WS + "draw.json", agent="teacher at the draw")),
         PTS(entry(_WS + "draw.json", agent="teacher at the draw"))],
        ["search at the knock decisions", WR(entry(_WS + "knock.json", agent="teacher at the knock")),
         PTS(entry(_WS + "knock.json", agent="teacher at the knock"))],
        ["search at every decision but the draw (discards and knocks)",
         WR(entry(_WS + "play.json", agent="teacher at the play")),
         PTS(entry(_WS + "play.json", agent="teacher at the play"))],
        ["the same at 128 worlds (17 minutes)", BOLD(WR(entry(_WS + "play_128_worlds.json", agent="teacher at the play"))),
         PTS(entry(_WS + "play_128_worlds.json", agent="teacher at the play"))],
        ["seed 32: the racing expert everywhere", WR(entry(_WS + "play_seed32.json", agent="base")),
         PTS(entry(_WS + "play_seed32.json", agent="base"))],
        ["seed 32: search at every decision but the draw, 64 worlds",
         WR(entry(_WS + "play_seed32.json", agent="teacher at the play")),
         PTS(entry(_WS + "play_seed32.json", agent="teacher at the play"))],
    ]))


def _exit_simple_curve(ctx):
    d = ctx.load("gin_exit_simple/curve.json")
    marks = []
    for p in d["points"]:
        if p["minutes_data"] not in marks:
            marks.append(p["minutes_data"])

    def at(m, against):
        got = [p for p in d["points"] if p["minutes_data"] == m and p["against"] == against]
        if len(got) != 1:
            raise SpecError(f"gin_exit_simple/curve.json: {len(got)} points at {m} against {against}")
        return got[0]

    header = ["training minutes (data + fit)", *[fmt_num(at(m, "simple")["train_minutes"]) for m in marks]]
    rows = [[f"vs {a}", *[fmt_pct(at(m, a)["win_rate"]) for m in marks]] for a in ("simple", "expert")]
    return header, "l" + "r" * len(marks), rows


table("gin_exit_simple_curve", DynTable(_exit_simple_curve))

_FE = "gin_exit_simple/final_eval/results.json"
_V7 = "gin_exit_simple/variants_seed7.json"
_fit_simple = [pairing(_FE, "gin_exit_simple/fit70", "simple"), entry(_V7, network="fit70", against="simple")]
_fit_expert = [pairing(_FE, "gin_exit_simple/fit70", "expert"), entry(_V7, network="fit70", against="expert")]
table("gin_exit_simple_fit", Table(
    ["network", "deals", "games", "against simple", "against expert"],
    [
        ["the 72-minute fit (`fit70.pt`)", "seed 20011", GAMES(_fit_simple[0]), BOLD(WR(_fit_simple[0])),
         WR(_fit_expert[0])],
        ["the racing rule it starts from", "seed 20011", GAMES(pairing(_RR, RACE, "simple")),
         WR(pairing(_RR, RACE, "simple")), WR(pairing(_RR, RACE, "expert"))],
        ["the 72-minute fit", "seed 7", GAMES(_fit_simple[1]), WR(_fit_simple[1]), WR(_fit_expert[1])],
        ["its untrained start (the rule with the card head)", "seed 7",
         GAMES(entry(_V7, network="m0", against="simple")), WR(entry(_V7, network="m0", against="simple")),
         WR(entry(_V7, network="m0", against="expert"))],
        ["the 72-minute fit", "both seeds", GAMES(pool(*_fit_simple)), WR(pool(*_fit_simple)),
         WR(pool(*_fit_expert))],
    ], align="llrll"))


def _variants(ctx):
    d = ctx.load(_V7)
    order = []
    for r in d["results"]:
        if r["network"] not in order:
            order.append(r["network"])
    rows = []
    for n in order:
        by = {r["against"]: r for r in d["results"] if r["network"] == n}
        what = by["simple"]["what"]
        rows.append([f"`{n}`", what, fmt_ci(by["simple"]["win_rate"], by["simple"]["ci95"]),
                     fmt_ci(by["expert"]["win_rate"], by["expert"]["ci95"])])
    return ["network", "what", "against simple", "against expert"], "llll", rows


table("gin_exit_simple_variants", DynTable(_variants))

_P = "gin_exit_simple/ppo/"
table("gin_exit_simple_ppo", Table(
    ["checkpoint", "deals", "against simple", "against expert"],
    [
        ["`best.pt` (17.3 minutes)", "seed 20011", BOLD(WR(pairing(_P + "best_seed20011.json", "gin_ppo_fit70/best", "simple"))),
         BOLD(WR(pairing(_P + "best_seed20011.json", "gin_ppo_fit70/best", "expert")))],
        ["`best.pt`", "seed 7", WR(pairing(_P + "best_seed7.json", "gin_ppo_fit70/best", "simple")),
         WR(pairing(_P + "best_seed7.json", "gin_ppo_fit70/best", "expert"))],
        ["`final.pt` (20 minutes)", "seed 20011", WR(pairing(_P + "final_seed20011.json", "gin_ppo_fit70/final", "simple")),
         WR(pairing(_P + "final_seed20011.json", "gin_ppo_fit70/final", "expert"))],
    ]))

table("gin_ppo_simple_curve", _parallel_curve(
    "gin_exit_simple/ppo_simple/curve.json", "minutes",
    [("vs simple", "win_rate_vs_simple"), ("vs expert", "win_rate_vs_expert")]))

_PS = "gin_exit_simple/ppo_simple/"
_ps_simple = [pairing(_PS + "best_seed20011.json", "gin_ppo_simple/best", "simple"),
              pairing(_PS + "best_seed7.json", "gin_ppo_simple/best", "simple")]
_ps_expert = [pairing(_PS + "best_seed20011.json", "gin_ppo_simple/best", "expert"),
              pairing(_PS + "best_seed7.json", "gin_ppo_simple/best", "expert")]
table("gin_ppo_simple_eval", Table(
    ["`best.pt` (27.3 minutes)", "games", "against simple", "against expert"],
    [["seed 20011", GAMES(_ps_simple[0]), BOLD(WR(_ps_simple[0])), BOLD(WR(_ps_expert[0]))],
     ["seed 7", GAMES(_ps_simple[1]), WR(_ps_simple[1]), WR(_ps_expert[1])],
     ["both seeds", GAMES(pool(*_ps_simple)), WR(pool(*_ps_simple)), WR(pool(*_ps_expert))]],
    align="lrll"))
