"""What the table families share: the registry of table specs (:func:`table`) and the
shipped networks' evaluations."""

from __future__ import annotations

from _gen.tables.pages import Table
from _gen.tables.refs import pairing, pool


RACE = "expert:lookahead=4,w_danger=3,w_gin=30"
RULE24 = "planner:swap_margin=24"
READ = "planner:swap_margin=24,fit_outs=1,hold_outs=2,w_danger_close=30,close_cards=4"

TABLES: dict[str, Table] = {}

#: the shipped networks (the compressed students of docs/research/pretrained.md, "Fast networks")
#: on the deals of seed 20011, and Rummy's against three experts on two more seeds
_SHIP_GIN = {o: pairing("compress/gin_eval.json", "gin_h192/student", o) for o in ("simple", "expert")}
_SHIP_PLAIN = {o: pairing("compress/plain_eval.json", "plain_h192/student", o) for o in ("simple", "expert")}
_SHIP_RUMMY = {o: pairing("compress/rummy_eval.json", "compress/student", o) for o in ("simple", "expert")}
_SHIP_RUMMY_EXPERT = pool(_SHIP_RUMMY["expert"], pairing("compress/rummy_seed777.json", "pretrained", "expert"),
                          pairing("compress/rummy_seed3131.json", "pretrained", "expert"))


def table(name: str, spec: Table) -> None:
    if name in TABLES:
        raise ValueError(f"table {name!r} defined twice")
    TABLES[name] = spec
