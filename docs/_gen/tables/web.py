"""The web table's tables (docs/web.md)."""

from __future__ import annotations

from _gen.tables.formats import fmt_int, fmt_num
from _gen.tables.pages import DynTable
from _gen.tables.shared import table


_WHAT = {"read": "GET the game's state", "move": "POST a move (and the agent's reply)", "hint": "GET a hint"}
table("bench_web", DynTable(
    lambda ctx: (["game", "request", "clients", "requests / s", "median ms", "95th percentile ms"], "llrrrr",
                 [[r["game"], _WHAT[r["kind"]], str(r["clients"]), fmt_int(round(r["rate"])), fmt_num(r["p50"]),
                   fmt_num(r["p95"])] for r in ctx.load("bench_web.json")["rows"]]),
    note="One uvicorn process on 127.0.0.1, the `expert` opponent; each row at most 400 requests or 20 seconds."))

_WHY_KIND = {"read": "GET the game's state", "frame": "GET a record's frame", "move": "POST a move (and the agent's reply)"}


def _bench_web_why(ctx):
    d = ctx.load("bench_web.json")["beside_why"]
    by = {(r["code"], r["phase"], r["kind"]): r for r in d["rows"]}
    whys = {w["code"]: w for w in d["why"]}
    rows = []
    for c in d["code"]:
        label = c["label"]
        for k, what in _WHY_KIND.items():
            a, b = by[(label, "alone", k)], by[(label, "beside why", k)]
            rows.append([label, what, fmt_num(a["p50"]), fmt_num(a["p99"]), fmt_num(b["p50"]), fmt_num(b["p99"])])
        w = whys[label]
        rows.append([label, f"the explanation itself (`{d['agent']}`, {fmt_int(w['requests'])} asked)", "-", "-",
                     fmt_num(w["p50"]), fmt_num(w["p99"])])
    return (["server", "request", "alone: median ms", "alone: 99th percentile ms", "beside why: median ms",
             "beside why: 99th percentile ms"], "llrrrr", rows)


table("bench_web_why", DynTable(
    _bench_web_why,
    note="One uvicorn process per server on 127.0.0.1; two clients send the three ordinary requests in turn, alone, "
         "then while a third asks `GET /api/records/{n}/why?step=i` over and over; each phase at most 450 requests "
         "or 20 seconds, two rounds. `before` is the server whose explanations held the records' lock while they "
         "were computed (the `--compare` checkout), `after` this one: both in the same run, phase by phase in turn."))
