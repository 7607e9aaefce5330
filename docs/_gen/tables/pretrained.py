"""The shipped networks (docs/research/pretrained.md)."""

from __future__ import annotations

from _gen.tables.cells import BOLD, GAMES, PCT, WR
from _gen.tables.exit_gin import _P, _ps_expert, _ps_simple
from _gen.tables.pages import Table
from _gen.tables.ppo import _M24F, _RB, _RR
from _gen.tables.refs import pairing
from _gen.tables.rummy import _TR, _tr_net
from _gen.tables.shared import RACE, READ, _SHIP_GIN, _SHIP_PLAIN, _SHIP_RUMMY, _SHIP_RUMMY_EXPERT, table


table("pretrained", Table(
    ["network", "against", "deals", "games", "games won [95% CI]"],
    [
        ["`gin.pt`", "expert", "seed 20011", GAMES(_SHIP_GIN["expert"]), WR(_SHIP_GIN["expert"])],
        ["", "simple", "seed 20011", GAMES(_SHIP_GIN["simple"]), WR(_SHIP_GIN["simple"])],
        ["`gin-plain.pt`", "expert", "seed 20011", GAMES(_SHIP_PLAIN["expert"]), WR(_SHIP_PLAIN["expert"])],
        ["", "simple", "seed 20011", GAMES(_SHIP_PLAIN["simple"]), WR(_SHIP_PLAIN["simple"])],
        ["`rummy.pt`", "three simple", "seed 20011", GAMES(_SHIP_RUMMY["simple"]), WR(_SHIP_RUMMY["simple"])],
        ["", "three expert", "seed 20011", GAMES(_SHIP_RUMMY["expert"]), WR(_SHIP_RUMMY["expert"])],
        ["", "three expert", "seeds 20011, 777, 3131", GAMES(_SHIP_RUMMY_EXPERT), WR(_SHIP_RUMMY_EXPERT)],
    ], align="lllrl",
    note="The networks as shipped: each distilled from the network its research run trained (\"Fast networks\" in "
         "docs/research/pretrained.md has both, side by side)."))

table("pretrained_history_gin", Table(
    ["`gin.pt`, as shipped", "how it was made", "against expert", "against simple"],
    [
        ["first", "10 minutes of expert iteration from the baseline expert ([Expert iteration in Gin]"
                  "(expert_iteration_gin.md))",
         PCT(pairing("gin_exit/vs_expert.json", "gin_rummy_exit/best", "expert")),
         PCT(pairing("gin_exit/vs_simple.json", "gin_rummy_exit/best", "simple"))],
        ["second", "10 minutes of PPO from the racing rule ([PPO](ppo.md))",
         PCT(pairing(_RB, "gin_race/best", "expert")), PCT(pairing(_RB, "gin_race/best", "simple"))],
        ["third", "the offline fit of search against simple, then 17 minutes of PPO with the default pool",
         PCT(pairing(_P + "best_seed20011.json", "gin_ppo_fit70/best", "expert")),
         PCT(pairing(_P + "best_seed20011.json", "gin_ppo_fit70/best", "simple"))],
        ["fourth", "the same fit, then 30 minutes of PPO with simple in 60% of the games",
         PCT(_ps_expert[0]), PCT(_ps_simple[0])],
        ["now", "the fourth, distilled into a network without the card head (\"Fast networks\" in Pretrained agents)",
         BOLD(PCT(_SHIP_GIN["expert"])), BOLD(PCT(_SHIP_GIN["simple"]))],
        ["(the rule)", f"`{RACE}`, same deals", PCT(pairing(_RR, RACE, "expert")), PCT(pairing(_RR, RACE, "simple"))],
    ], note="All on the 2,000 duplicate games to 100 of seed 20011."))

table("pretrained_history_rummy", Table(
    ["`rummy.pt`, as shipped", "how it was made", "against three simple", "against three experts"],
    [
        ["first", "30 minutes of PPO from the expert's preference (`configs/rummy.yaml time_limit_minutes=30` of then)",
         PCT(pairing("rummy_pretrained/vs_simple.json", "rummy/final", "simple")),
         PCT(pairing("rummy_pretrained/vs_expert.json", "rummy/final", "expert"))],
        ["second", "PPO on the race's features (margin 12), `best.pt` at 10 minutes",
         PCT(pairing("rummy_plan/ppo_baselines/best_results.json", "policy", "simple")),
         PCT(pairing("rummy_plan/ppo_baselines/best_results.json", "policy", "expert"))],
        ["third", "25 minutes of PPO on the race's features with `swap_margin=24`",
         PCT(pairing(_M24F, "rummy_m24/final", "simple")), PCT(pairing(_M24F, "rummy_m24/final", "expert"))],
        ["fourth", "25 minutes of PPO with the table-reading options as well",
         PCT(pairing(_TR + "final_20011_results.json", "rummy_read/final", "simple")), PCT(_tr_net[0])],
        ["now", "the fourth, distilled into a trunk of 16 that reads the observation alone "
                "(\"Fast networks\" in Pretrained agents)",
         BOLD(PCT(_SHIP_RUMMY["simple"])), BOLD(PCT(_SHIP_RUMMY["expert"]))],
        ["(the rule)", f"`{READ}`, same deals", PCT(pairing(_TR + "rule_20011_results.json", READ, "simple")),
         PCT(pairing(_TR + "rule_20011_results.json", READ, "expert"))],
    ], note="All on 2,000 four-player games to 200 of seed 20011."))
