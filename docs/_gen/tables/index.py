"""The front page's table (docs/index.md): the bars the shipped networks meet."""

from __future__ import annotations

from _gen.tables.cells import BOLD, GAMES, WR
from _gen.tables.pages import Table
from _gen.tables.shared import _SHIP_GIN, _SHIP_RUMMY, _SHIP_RUMMY_EXPERT, table


table("bars", Table(
    ["game", "bar", "against", "the shipped network", "deals", "games", "games won"],
    [
        ["Gin Rummy", "58%", "expert", "`gin.pt`", "seed 20011", GAMES(_SHIP_GIN["expert"]),
         BOLD(WR(_SHIP_GIN["expert"]))],
        ["Gin Rummy", "78%", "simple", "`gin.pt`", "seed 20011", GAMES(_SHIP_GIN["simple"]),
         BOLD(WR(_SHIP_GIN["simple"]))],
        ["Rummy, 4 players", "40%", "three simple", "`rummy.pt`", "seed 20011", GAMES(_SHIP_RUMMY["simple"]),
         BOLD(WR(_SHIP_RUMMY["simple"]))],
        ["Rummy, 4 players", "30%", "three experts", "`rummy.pt`", "seeds 20011, 777, 3131",
         GAMES(_SHIP_RUMMY_EXPERT), BOLD(WR(_SHIP_RUMMY_EXPERT))],
    ], align="lllllrl",
    about="The research bars and the shipped networks against them."))
