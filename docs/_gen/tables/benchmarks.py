"""The agents' speed (docs/research/benchmarks.md)."""

from __future__ import annotations

from _gen.tables.formats import fmt_int
from _gen.tables.pages import DynTable
from _gen.tables.shared import table


def _bench_agents_rows(game: str):
    def fn(ctx):
        d = ctx.load(f"bench_agents/{game}.json")
        return (["agent", "decisions / s"], "lr",
                [[f"`{name}`", fmt_int(round(rate))] for name, rate in d["decisions_per_second"].items()])
    return fn


for _g in ("gin", "rummy"):
    table(f"bench_agents_{_g}", DynTable(
        _bench_agents_rows(_g),
        note="benchmarks/bench_agents.py --json: batches of 1,024 positions, 5 in a row (search: one of 64), the best "
             "of 3 rounds that alternate between the agents, torch on one thread. `pretrained` and `pretrained-plain` are the shipped "
             "networks, a row `... before compression` the network it was distilled from, `network (...)` an "
             "untrained network of that kind and width."))
