"""The rule agents' tables (docs/research/baselines.md)."""

from __future__ import annotations

from _gen.tables.cells import BOLD, CAT, ENDS, GAMES, PTS, WR
from _gen.tables.pages import Table
from _gen.tables.refs import pairing
from _gen.tables.shared import RACE, table


table("baselines", Table(
    ["game", "agent", "against", "games", "games won"],
    [
        ["Gin Rummy", "simple", "random", GAMES(pairing("gin_simple_random/results.json", "simple", "random")),
         WR(pairing("gin_simple_random/results.json", "simple", "random"))],
        ["Gin Rummy", "expert", "simple", GAMES(pairing("gin_expert_simple/results.json", "expert", "simple")),
         WR(pairing("gin_expert_simple/results.json", "expert", "simple"))],
        ["Rummy, 4 players", "simple", "three random",
         GAMES(pairing("rummy_simple_random/results.json", "simple", "random")),
         WR(pairing("rummy_simple_random/results.json", "simple", "random"))],
        ["Rummy, 4 players", "expert", "three simple",
         GAMES(pairing("rummy_expert_simple/results.json", "expert", "simple")),
         CAT(WR(pairing("rummy_expert_simple/results.json", "expert", "simple")), " (chance: 25%)")],
        ["Rummy, 4 players", "planner", "three simple",
         GAMES(pairing("rummy_plan/planner_4000/results.json", "planner", "simple")),
         WR(pairing("rummy_plan/planner_4000/results.json", "planner", "simple"))],
    ], align="lllrl"))

_GR = "gin_expert_gin_race/results.json"
_GT = "gin_expert_tuned/results.json"
table("gin_expert_race", Table(
    ["Gin agent", "against", "games", "games won", "points / hand"],
    [
        [f"`{RACE}`", "expert", GAMES(pairing(_GR, RACE, "expert")), BOLD(WR(pairing(_GR, RACE, "expert"))),
         PTS(pairing(_GR, RACE, "expert"))],
        [f"`{RACE}`", "simple", GAMES(pairing(_GR, RACE, "simple")), WR(pairing(_GR, RACE, "simple")),
         PTS(pairing(_GR, RACE, "simple"))],
        ["`expert:lookahead=4,w_danger=3` (look-ahead for 4 discards, not 2)", "expert",
         GAMES(pairing(_GT, "expert:lookahead=4,w_danger=3", "expert")),
         WR(pairing(_GT, "expert:lookahead=4,w_danger=3", "expert")),
         PTS(pairing(_GT, "expert:lookahead=4,w_danger=3", "expert"))],
        ["`expert:lookahead=4,w_danger=3`", "simple", GAMES(pairing(_GT, "expert:lookahead=4,w_danger=3", "simple")),
         WR(pairing(_GT, "expert:lookahead=4,w_danger=3", "simple")),
         PTS(pairing(_GT, "expert:lookahead=4,w_danger=3", "simple"))],
        ["expert", "simple", GAMES(pairing(_GR, "expert", "simple")), WR(pairing(_GR, "expert", "simple")),
         PTS(pairing(_GR, "expert", "simple"))],
    ], align="llrll"))


def _ends_rows(path, pairs):
    rows = []
    for a, b in pairs:
        p = pairing(path, a, b)
        for side, who in (("a", a), ("b", b)):
            label = f"`{who}`" if ":" in who else who
            rows.append([label, b if side == "a" else a, ENDS(p, side, "knock"), ENDS(p, side, "gin"),
                         ENDS(p, side, "undercut")])
    return rows


table("gin_expert_hand_ends", Table(
    ["agent", "against", "hands won by knocking", "by gin", "by undercutting the knocker"],
    _ends_rows(_GR, [(RACE, "expert"), (RACE, "simple"), ("expert", "simple")]),
    align="llrrr"))
