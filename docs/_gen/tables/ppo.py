"""PPO's tables (docs/research/ppo.md)."""

from __future__ import annotations

from _gen.tables.cells import BOLD, GAMES, WR
from _gen.tables.formats import SpecError, fmt_num, fmt_pct
from _gen.tables.pages import DynTable, Table
from _gen.tables.refs import entry, pairing, pool
from _gen.tables.shared import RACE, RULE24, table


_RB = "gin_race/best_seed20011/results.json"
_RB7 = "gin_race/best_seed777/results.json"
_RF = "gin_race/final_seed20011/results.json"
_RR = "gin_race/rule_seed20011/results.json"
_RP = "gin_race/run_report/results.json"
table("gin_race_eval", Table(
    ["network", "deals", "against expert", "against simple"],
    [
        ["untrained (the rule)", "seed 20011", WR(pairing(_RR, RACE, "expert")), WR(pairing(_RR, RACE, "simple"))],
        ["`best.pt`, 10 minutes", "seed 20011", BOLD(WR(pairing(_RB, "gin_race/best", "expert"))),
         BOLD(WR(pairing(_RB, "gin_race/best", "simple")))],
        ["`final.pt`, 26 minutes", "seed 20011", WR(pairing(_RF, "gin_race/final", "expert")),
         WR(pairing(_RF, "gin_race/final", "simple"))],
        ["the run's own report of `best.pt`", "other deals of seed 20011", WR(pairing(_RP, "policy", "expert")),
         WR(pairing(_RP, "policy", "simple"))],
        ["untrained (the rule)", "seed 777", WR(pairing(_RB7, RACE, "expert")), WR(pairing(_RB7, RACE, "simple"))],
        ["`best.pt`, 10 minutes", "seed 777", WR(pairing(_RB7, "gin_race/best", "expert")),
         WR(pairing(_RB7, "gin_race/best", "simple"))],
    ]))


def _parallel_curve(path, xs_key, series, first="minute"):
    """A curve of parallel arrays (``{"minutes": [...], "win_rate_vs_x": [...]}``) as a
    table with one column per point."""
    def fn(ctx):
        d = ctx.load(path)
        xs = d[xs_key]
        rows = [[label, *[fmt_pct(v) for v in d[key]]] for label, key in series]
        if any(len(r) != len(xs) + 1 for r in rows):
            raise SpecError(f"{path}: series of unequal length")
        return [first, *[fmt_num(x, 1) for x in xs]], "l" + "r" * len(xs), rows
    return DynTable(fn)


table("gin_race_curve", _parallel_curve(
    "gin_race/curve.json", "minutes",
    [("vs expert", "win_rate_vs_expert"), ("vs simple", "win_rate_vs_simple")]))

table("gin_ppo_before_race", Table(
    ["network", "against expert", "against simple"],
    [["the default run from the baseline expert's preference, `final.pt`",
      WR(pairing("gin_final_eval.json", "policy", "expert")),
      WR(pairing("gin_final_eval.json", "policy", "simple"))]]))

_M24U = "rummy_plan/ppo_m24/best_untrained_results.json"
_M24F = "rummy_plan/ppo_m24/final_results.json"
_M24S = "rummy_plan/ppo_m24/more_seeds.json"
_M24_NET = "rummy_m24/final (agents/pretrained/rummy.pt)"
_m24_rule = [pairing(_M24U, RULE24, "expert"),
             entry(_M24S, agent=RULE24, against="three expert", seed=777),
             entry(_M24S, agent=RULE24, against="three expert", seed=3131)]
_m24_net = [pairing(_M24F, "rummy_m24/final", "expert"),
            entry(_M24S, agent=_M24_NET, against="three expert", seed=777),
            entry(_M24S, agent=_M24_NET, against="three expert", seed=3131)]
table("rummy_m24_experts", Table(
    ["deals (against three experts)", "games", "untrained (the rule)", "after 25 minutes (`final.pt`)"],
    [["`evaluate.py --seed 20011`", GAMES(_m24_rule[0]), WR(_m24_rule[0]), WR(_m24_net[0])],
     ["seed 777", GAMES(_m24_rule[1]), WR(_m24_rule[1]), WR(_m24_net[1])],
     ["seed 3131", GAMES(_m24_rule[2]), WR(_m24_rule[2]), WR(_m24_net[2])],
     ["all three", GAMES(pool(*_m24_rule)), WR(pool(*_m24_rule)), BOLD(WR(pool(*_m24_net)))]],
    align="lrll",
    note="The per-seed rates of `more_seeds.json` have three decimals; the pooled row counts "
         "`win_rate x games` wins for them."))

table("rummy_m24_simple", Table(
    ["deals", "games", "untrained (the rule)", "`best.pt` (15 minutes)", "after 25 minutes (`final.pt`)"],
    [["`evaluate.py --seed 20011`, three simple", GAMES(pairing(_M24U, RULE24, "simple")),
      WR(pairing(_M24U, RULE24, "simple")), WR(pairing(_M24U, "rummy_m24/best", "simple")),
      BOLD(WR(pairing(_M24F, "rummy_m24/final", "simple")))],
     ["seed 777, three simple", GAMES(entry(_M24S, agent=RULE24, against="three simple", seed=777)),
      WR(entry(_M24S, agent=RULE24, against="three simple", seed=777)), "",
      WR(entry(_M24S, agent=_M24_NET, against="three simple", seed=777))],
     ["`evaluate.py --seed 20011`, three experts", GAMES(pairing(_M24U, RULE24, "expert")),
      WR(pairing(_M24U, RULE24, "expert")), WR(pairing(_M24U, "rummy_m24/best", "expert")),
      WR(pairing(_M24F, "rummy_m24/final", "expert"))]],
    align="lrlll"))

table("rummy_ppo_earlier", Table(
    ["run", "network", "against three simple", "against three experts"],
    [
        ["the race's features, margin 12 (`rummy_plan/ppo_baselines/`)",
         "untrained (the greedy start of both runs; `rummy_plan/ppo/`'s `best.pt`, step 0)",
         WR(pairing("rummy_plan/ppo/best_untrained_results.json", "policy", "simple")),
         WR(pairing("rummy_plan/ppo/best_untrained_results.json", "policy", "expert"))],
        ["", "`best.pt`, 10 minutes", WR(pairing("rummy_plan/ppo_baselines/best_results.json", "policy", "simple")),
         WR(pairing("rummy_plan/ppo_baselines/best_results.json", "policy", "expert"))],
        ["", "`final.pt`", WR(pairing("rummy_plan/ppo_baselines/final_results.json", "rummy_plan_b/final", "simple")),
         WR(pairing("rummy_plan/ppo_baselines/final_results.json", "rummy_plan_b/final", "expert"))],
        ["", "the `planner` rule, same deals",
         WR(pairing("rummy_plan/ppo_baselines/final_results.json", "planner", "simple")),
         WR(pairing("rummy_plan/ppo_baselines/final_results.json", "planner", "expert"))],
        ["self-play and snapshots in the pool, `prior_scale` 2 (`rummy_plan/ppo/`)", "`final.pt`",
         WR(pairing("rummy_plan/ppo/final_results.json", "rummy_plan/final", "simple")),
         WR(pairing("rummy_plan/ppo/final_results.json", "rummy_plan/final", "expert"))],
        ["before the race: the expert's preference, 55 minutes (`rummy_final_eval/`)", "`final.pt`",
         WR(pairing("rummy_final_eval/results.json", "policy", "simple")),
         WR(pairing("rummy_final_eval/results.json", "policy", "expert"))],
    ]))
