"""Rummy's tables (docs/research/rummy.md)."""

from __future__ import annotations

from _gen.tables.cells import BOLD, CAT, ENDS, GAMES, PCT, PTS, VALUE, WR, entry_rows
from _gen.tables.formats import SpecError, fmt_ci, fmt_int, fmt_num, fmt_pct
from _gen.tables.pages import DynTable, Table
from _gen.tables.ppo import _M24F, _M24U, _m24_net, _m24_rule
from _gen.tables.refs import Pairing, entry, pairing, pool
from _gen.tables.shared import READ, RULE24, table


def _epoch_at_best_loss(rows):
    trained = [r for r in rows if r["epoch"] > 0]
    return min(trained, key=lambda r: r["valid_loss"])


def _offline_fits(ctx):
    rows = []
    for label, path in [("`prior_scale` 2", "rummy_exit/offline_fit_prior2.json"),
                        ("`prior_scale` 0.5", "rummy_exit/offline_fit_prior05.json"),
                        ("card head, `prior_scale` 2, 8 epochs", "rummy_exit/offline_fit_card_head_8ep.json"),
                        ("card head, `prior_scale` 2, 16 epochs", "rummy_exit/offline_fit_card_head_16ep.json")]:
        ep = ctx.load(path)
        best = _epoch_at_best_loss(ep)
        start = [r for r in ep if r["epoch"] == 0][0]
        rows.append([label, str(best["epoch"]), fmt_pct(best["valid_accuracy"]), fmt_pct(best["valid_departs"]),
                     fmt_pct(start["valid_accuracy"]), fmt_pct(start["valid_depart_share"])])
    header = ["offline fit on the `search:z=2` records", "epoch of lowest validation loss",
              "agreement with search (held out)", "search's departures matched",
              "the expert's agreement (epoch 0)", "departures among the decisions"]
    return header, "lrrrrr", rows


table("rummy_exit_offline_fits", DynTable(_offline_fits))

table("rummy_exit_played", Table(
    ["network", "deals", "games", "against three simple", "against three experts"],
    [
        ["the `prior_scale` 2 fit on the `z=2` data", "seed 20011",
         GAMES(pairing("rummy_exit/offline_fit_vs_simple.json", "rummy_fit/fit", "simple")),
         WR(pairing("rummy_exit/offline_fit_vs_simple.json", "rummy_fit/fit", "simple")),
         WR(pairing("rummy_exit/offline_fit_vs_expert.json", "rummy_fit/fit", "expert"))],
        ["the card head, 8 epochs", "seed 0",
         GAMES(pairing("rummy_exit/card_head_8ep_vs_simple.json", "fits/cardw_p2_e8", "simple")),
         WR(pairing("rummy_exit/card_head_8ep_vs_simple.json", "fits/cardw_p2_e8", "simple")),
         WR(pairing("rummy_exit/card_head_8ep_vs_expert.json", "fits/cardw_p2_e8", "expert"))],
        ["the card head, 16 epochs", "seed 0",
         GAMES(pairing("rummy_exit/card_head_16ep_vs_simple.json", "fits/cardw_p2_e16", "simple")),
         WR(pairing("rummy_exit/card_head_16ep_vs_simple.json", "fits/cardw_p2_e16", "simple")),
         WR(pairing("rummy_exit/card_head_16ep_vs_expert.json", "fits/cardw_p2_e16", "expert"))],
        ["the expert (where the networks start)", "seed 0",
         GAMES(pairing("rummy_exit/expert_vs_simple_games.json", "expert", "simple")),
         WR(pairing("rummy_exit/expert_vs_simple_games.json", "expert", "simple")), "(not kept)"],
    ], align="llrll"))

_WR_R = "rummy_exit/search_where_rounds.json"
table("rummy_where_rounds", Table(
    ["who decides", "rounds won of 400 against three simple"],
    entry_rows(_WR_R, [
        ("the expert everywhere", "base"),
        ("search at the draw, the expert for the rest of the turn", "teacher at the draw"),
        ("the expert at the draw, search for the rest of the turn", "teacher but the draw"),
        ("search everywhere", "teacher"),
    ])))

_ST = "rummy_stock/"


def _stock_fits(ctx):
    rows = []
    for label, fit, played, name in [
        ("search played and was recorded (its own positions)", "offline_fit_search_played.json",
         "fit_search_played_vs_simple.json", "fitS/fit"),
        ("DAgger (`exit.plays: network`): the network plays, search labels", "offline_fit_dagger.json",
         "fit_dagger_vs_simple.json", "v_dagger/fit"),
        ("both data sets, a 256-wide network", "offline_fit_both_hidden256.json",
         "fit_both_hidden256_vs_simple.json", "v_big/fit"),
    ]:
        share = ctx.load(_ST + fit)[0]["valid_depart_share"]
        p = Pairing(_ST + played, name, "simple").resolve(ctx)
        rows.append([label, fmt_pct(share), fmt_int(p.games), fmt_ci(p.rate, p.ci)])
    e = Pairing(_ST + "expert_vs_simple_seed555.json", "expert", "simple").resolve(ctx)
    rows.append(["the expert, for comparison", "", fmt_int(e.games), fmt_ci(e.rate, e.ci)])
    header = ["data of the fit", "search's departures among its held-out draws", "games (seed 555)",
              "won against three simple"]
    return header, "lrrl", rows


table("rummy_stock_fits", DynTable(_stock_fits))

table("rummy_stock_soft", Table(
    ["fit of search's mean values (`exit.target=softmax`)", "value gain over the expert (held out, points a draw)",
     "agreement with search (held out)", "games (seed 555)", "won against three simple"],
    [["epoch 2 (the best by value gain)",
      VALUE(_ST + "offline_fit_soft_targets.json", lambda d: d[2]["valid_q_gain_expert"], lambda x: fmt_num(x, 1, sign=True)),
      VALUE(_ST + "offline_fit_soft_targets.json", lambda d: d[2]["valid_accuracy"]),
      GAMES(pairing(_ST + "fit_soft_targets_vs_simple_400.json", "fit1/fit", "simple")),
      WR(pairing(_ST + "fit_soft_targets_vs_simple_400.json", "fit1/fit", "simple"))],
     ["the expert (epoch 0)",
      VALUE(_ST + "offline_fit_soft_targets.json", lambda d: d[0]["valid_q_gain_expert"], lambda x: fmt_num(x, 1, sign=True)),
      VALUE(_ST + "offline_fit_soft_targets.json", lambda d: d[0]["valid_accuracy"]), "", "(not kept)"]],
    align="lrrrl"))

table("rummy_stock_where", Table(
    ["who decides", "games won of 1,000 against three simple (seed 555)", "points per hand (vs simple)"],
    entry_rows(_ST + "search_where_stock_games.json", [
        ("the expert everywhere", "base"),
        ("search at the known-stock draws, the expert elsewhere", "teacher at the stock"),
    ], points=True)))

_P4 = "rummy_plan/planner_4000/results.json"
table("rummy_planner", Table(
    ["agent", "against", "games", "games won", "points / round"],
    [["planner", "three simple", GAMES(pairing(_P4, "planner", "simple")), BOLD(WR(pairing(_P4, "planner", "simple"))),
      PTS(pairing(_P4, "planner", "simple"))],
     ["expert", "three simple", GAMES(pairing(_P4, "expert", "simple")), WR(pairing(_P4, "expert", "simple")),
      PTS(pairing(_P4, "expert", "simple"))],
     ["planner", "three experts", GAMES(pairing(_P4, "planner", "expert")), WR(pairing(_P4, "planner", "expert")),
      PTS(pairing(_P4, "planner", "expert"))]],
    align="llrll"))

table("rummy_planner_players", Table(
    ["players", "games", "planner against simple", "expert against simple", "planner against expert"],
    [[str(n), GAMES(pairing(f"rummy_plan/players/p{n}_results.json", "planner", "simple")),
      WR(pairing(f"rummy_plan/players/p{n}_results.json", "planner", "simple")),
      WR(pairing(f"rummy_plan/players/p{n}_results.json", "expert", "simple")),
      WR(pairing(f"rummy_plan/players/p{n}_results.json", "planner", "expert"))] for n in (2, 3, 6)],
    align="rrlll"))

_SM = "rummy_plan/swap_margin/results.json"
table("rummy_swap_margin", Table(
    ["agent", "against", "games", "games won"],
    [[f"`{RULE24}`", "three experts", GAMES(pairing(_SM, RULE24, "expert")), BOLD(WR(pairing(_SM, RULE24, "expert")))],
     ["`planner` (margin 12)", "three experts", GAMES(pairing(_SM, "planner", "expert")),
      WR(pairing(_SM, "planner", "expert"))],
     [f"`{RULE24}`", "three simple", GAMES(pairing(_SM, RULE24, "simple")), WR(pairing(_SM, RULE24, "simple"))],
     ["`planner` (margin 12)", "three simple", GAMES(pairing(_SM, "planner", "simple")),
      WR(pairing(_SM, "planner", "simple"))],
     ["`expert`", "three simple", GAMES(pairing(_SM, "expert", "simple")), WR(pairing(_SM, "expert", "simple"))],
     [f"`{RULE24}`", "three `planner` (25% is even)", GAMES(pairing(_SM, RULE24, "planner")),
      WR(pairing(_SM, RULE24, "planner"))]],
    align="llrl"))

_WE = "rummy_plan/where_expert/where_expert_500.json"
table("rummy_where_expert", Table(
    ["who decides (against three experts, seed 31)", "games won of 500", "points per hand (vs expert)"],
    [["search at every draw, the planner elsewhere", WR(entry(_WE, agent="teacher at the draw")),
      PTS(entry(_WE, agent="teacher at the draw"))],
     ["the planner at the draw, search everywhere else", WR(entry(_WE, agent="teacher but the draw")),
      PTS(entry(_WE, agent="teacher but the draw"))]]))


def _exit_play(ctx):
    d = ctx.load("rummy_plan/exit_play/curve.json")

    def series(key):
        return [v for _, v in d[key]]

    mins, simple, expert = series("eval/minutes"), series("eval/win_rate_vs_simple"), series("eval/win_rate_vs_expert")
    steps = [s for s, _ in d["eval/minutes"]]
    departs = dict(d["exit/search_departs"])
    buffer = dict(d["exit/buffer"])
    rows = []
    for s, m, a, b in zip(steps, mins, simple, expert):
        first = min(departs)
        rows.append([fmt_num(m), fmt_pct(a), fmt_pct(b), fmt_int(buffer.get(s, 0)),
                     fmt_pct(departs[s] if s in departs else departs[first] if s < first else float("nan"))])
    header = ["minute", "against three simple", "against three experts", "search decisions recorded",
              "network's choice left search's at"]
    return header, "rrrrr", rows


table("rummy_exit_play", DynTable(
    _exit_play, note="The minute-0 row's departures are those of the first update (step 2,048)."))

_EE = "rummy_exit_expert/"
_EE_NET = [
    ("the untrained network (`planner:swap_margin=24`)", pairing(_M24U, RULE24, "simple"), pairing(_M24U, RULE24, "expert")),
    ("`rummy.pt` (shipped then)", pairing(_M24F, "rummy_m24/final", "simple"), pairing(_M24F, "rummy_m24/final", "expert")),
    ("the fit (fresh network, choices as targets, epoch 3 of 6 by `q_gain`)",
     pairing(_EE + "fit/results.json", "rummy_exit_expert_fit/fit", "simple"),
     pairing(_EE + "fit/results.json", "rummy_exit_expert_fit/fit", "expert")),
    ("the same fit started from `rummy.pt` (learning rate 1e-4, epoch 2 of 4)",
     pairing(_EE + "fit_from_pretrained/results.json", "rummy_exit_expert_fit2/fit", "simple"),
     pairing(_EE + "fit_from_pretrained/results.json", "rummy_exit_expert_fit2/fit", "expert")),
    ("the fit taught only the departures worth 20 points or more (`--min-gain 20`; epoch 6 of 6)",
     pairing(_EE + "fit_min_gain_20/results.json", "rfit_g20_lr1e-3/fit", "simple"),
     pairing(_EE + "fit_min_gain_20/results.json", "rfit_g20_lr1e-3/fit", "expert")),
]
table("rummy_exit_expert_played", Table(
    ["network (seed 20011, 2,000 games each)", "three simple", "three experts",
     "rounds gone out against three simple (the network / the three)"],
    [[label, WR(s), WR(e), CAT(ENDS(s, "a", "out"), " / ", ENDS(s, "b", "out"))] for label, s, e in _EE_NET],
    align="lllr"))


def _ee_epochs(ctx):
    choice = ctx.load(_EE + "fit/epochs.json")
    soft = ctx.load(_EE + "fit/epochs_softmax.json")
    g20 = ctx.load(_EE + "fit_min_gain_20/epochs.json")
    if not len(choice) == len(soft) == len(g20):
        raise SpecError("epoch files of unequal length")
    rows = []
    for c, s, g in zip(choice, soft, g20):
        rows.append([str(c["epoch"]), fmt_pct(c["valid_accuracy"]), fmt_pct(c["valid_departs"]),
                     fmt_pct(c["valid_keeps"]), fmt_num(c["valid_q_gain"], 2, sign=True), fmt_num(s["valid_q_gain"], 2, sign=True),
                     fmt_pct(g["valid_departs"]), fmt_num(g["valid_q_gain"], 2, sign=True)])
    header = ["epoch", "choices: agreement with search", "departures learned", "kept choices kept",
              "value gain (points a decision)", "soft-max targets: value gain",
              "`--min-gain 20`: departures learned", "value gain"]
    return header, "r" * 8, rows


table("rummy_exit_expert_epochs", DynTable(
    _ee_epochs, note="Held-out decisions (one records file in ten); epoch 0 is the network that made the "
                     "data; the value gain is by search's own values, over the data network's move."))

_MG = _EE + "fit_min_gain_20/more_seeds.json"
_G20 = "runs/rummy_exit_expert_fit/fit_g20.pt (scripts/exit_fit.py --min-gain 20)"
_g20 = [pairing(_EE + "fit_min_gain_20/results.json", "rfit_g20_lr1e-3/fit", "expert"),
        entry(_MG, agent=_G20, seed=777), entry(_MG, agent=_G20, seed=3131)]
table("rummy_min_gain_seeds", Table(
    ["against three experts", "seed 20011 (2,000)", "seed 777 (4,000)", "seed 3131 (4,000)", "all 10,000"],
    [["the `--min-gain 20` fit", *[PCT(r) for r in _g20], WR(pool(*_g20))],
     ["`rummy.pt` (shipped then)", *[PCT(r) for r in _m24_net], WR(pool(*_m24_net))],
     ["the untrained rule (`planner:swap_margin=24`)", *[PCT(r) for r in _m24_rule], WR(pool(*_m24_rule))]],
    note="Seeds 777 and 3131 have three or four decimals in their JSON; the pooled column counts "
         "`win_rate x games` wins for them."))


def _tuning(ctx):
    d = ctx.load("rummy_plan/table_read/tuning.json")
    seeds = sorted({r["seed"] for r in d["results"]})
    agents = []
    for r in d["results"]:
        if r["agent"] not in agents:
            agents.append(r["agent"])
    by = {(r["agent"], r["seed"]): r for r in d["results"]}
    rows = []
    for a in agents:
        rest = a[len(RULE24):].lstrip(",") if a.startswith(RULE24) else a
        rows.append([f"`{rest}`" if rest else "(none)",
                     *[fmt_pct(by[a, s]["win_rate"]) if (a, s) in by else "" for s in seeds]])
    games = {r["games"] for r in d["results"]}
    header = [f"options beside `{RULE24}` ({fmt_int(min(games))} games against three experts)",
              *[f"seed {s}" for s in seeds]]
    return header, "l" + "r" * len(seeds), rows


table("rummy_table_read_tuning", DynTable(_tuning))

_TV = "rummy_plan/table_read/validation.json"
_TR = "rummy_plan/table_read/"
_tr_rule24 = [pairing(_M24U, RULE24, "expert"), entry(_TV, agent=RULE24, seed=777),
              entry(_TV, agent=RULE24, seed=3131)]
_tr_read = [pairing(_TR + "rule_20011_results.json", READ, "expert"), entry(_TV, agent=READ, seed=777),
            entry(_TV, agent=READ, seed=3131)]
_tr_net = [pairing(_TR + "final_20011_results.json", "rummy_read/final", "expert"),
           entry(_TR + "final_more_seeds.json", seed=777), entry(_TR + "final_more_seeds.json", seed=3131)]
table("rummy_table_read_validation", Table(
    ["deals", "games", "`planner:swap_margin=24`", "with the three options (the rule)", "the network trained (teacher of `rummy.pt`)"],
    [[label, GAMES(a), WR(a), WR(b), WR(c)] for label, a, b, c in zip(
        ["`evaluate.py --seed 20011`", "seed 777", "seed 3131"], _tr_rule24, _tr_read, _tr_net)]
    + [["all three", GAMES(pool(*_tr_rule24)), WR(pool(*_tr_rule24)), BOLD(WR(pool(*_tr_read))),
        BOLD(WR(pool(*_tr_net)))]],
    align="lrlll"))

table("rummy_table_read_simple", Table(
    ["against three simple, seed 20011", "games", "games won"],
    [["`planner:swap_margin=24`", GAMES(pairing(_M24U, RULE24, "simple")), WR(pairing(_M24U, RULE24, "simple"))],
     ["the rule with the three options", GAMES(pairing(_TR + "rule_20011_results.json", READ, "simple")),
      WR(pairing(_TR + "rule_20011_results.json", READ, "simple"))],
     ["the network trained (teacher of `rummy.pt`)", GAMES(pairing(_TR + "final_20011_results.json", "rummy_read/final", "simple")),
      BOLD(WR(pairing(_TR + "final_20011_results.json", "rummy_read/final", "simple")))]],
    align="lrl"))
