"""Learning from the rules alone (docs/research/plain_network.md)."""

from __future__ import annotations

import re

from _gen.tables.cells import Cell, ENDS, GAMES, GAMES_HANDS, PTS, VALUE, WR
from _gen.tables.formats import fmt_ci, fmt_int, fmt_minutes
from _gen.tables.pages import DynTable, Table
from _gen.tables.refs import pairing, pool
from _gen.tables.shared import table


table("gin_plain", Table(
    ["network", "against", "games", "games won", "points / hand"],
    [["plain network, best checkpoint (55 minutes)", o, GAMES(pairing("gin_plain/results.json", "policy", o)),
      WR(pairing("gin_plain/results.json", "policy", o)), PTS(pairing("gin_plain/results.json", "policy", o))]
     for o in ("simple", "expert")],
    align="llrll"))

# --- learning from the rules alone (docs/research/plain_network.md) ----------------------
_PL = "plain/"


def _curve_rows(path: str, every: float = 5.0):
    """A DynTable of a curves.py curve: one row per evaluation about ``every`` minutes apart."""
    def fn(ctx):
        data = ctx.load(path)
        opps = sorted({o for p in data["points"] for o in p["win_rate"]}, key=lambda o: (o != "simple", o))
        rows, next_at = [], 0.0
        for p in data["points"]:
            if p["minutes"] + 0.5 < next_at and p is not data["points"][-1]:
                continue
            next_at = p["minutes"] + every
            rows.append([fmt_minutes(round(p["minutes"])), f"{p['step'] / 1e6:.0f}M"]
                        + [fmt_ci(p["win_rate"][o], p["ci95"][o]) for o in opps])
        games = fmt_int(data["games_per_point"])
        return (["minutes", "env steps"] + [f"against {o} ({games} games)" for o in opps],
                "rr" + "l" * len(opps), rows)
    return fn


table("plain_gin_curves", DynTable(
    lambda ctx: _merge_curves(ctx, [("with a curriculum", _PL + "gin_curriculum_curve.json"),
                                    ("pure self-play", _PL + "gin_selfplay_curve.json")]),
    note="Each point: the greedy network on the same fixed evaluation deals, games to 100."))


def _merge_curves(ctx, runs):
    """Curves of several runs in one table, a column naming the run; where the runs' points
    were measured on different numbers of games, each run's label says its number. A run is
    ``(label, path)``, one row about every 5 minutes, or ``(label, path, every)``."""
    parts = [(label, path, *_curve_rows(path, *every)(ctx)) for label, path, *every in runs]
    if len({tuple(h) for _, _, h, _, _ in parts}) == 1:
        return ["run"] + parts[0][2], "l" + parts[0][3], [[label] + r for label, _, _, _, rs in parts for r in rs]
    header = [re.sub(r" \([\d,]+ games\)$", "", c) for c in parts[0][2]]
    rows = [[f"{label} ({fmt_int(ctx.load(path)['games_per_point'])} games a point)"] + r
            for label, path, _, _, rs in parts for r in rs]
    return ["run"] + header, "l" + parts[0][3], rows


table("plain_gin_final", Table(
    ["network", "against", "games", "games won", "points / hand"],
    [[label, o, GAMES(pairing(path, a, o)), WR(pairing(path, a, o)), PTS(pairing(path, a, o))]
     for label, path, a in (("with a curriculum, best checkpoint (distilled into `pretrained-plain`)",
                             _PL + "gin_curriculum/results.json", "policy"),
                            ("pure self-play, best checkpoint", _PL + "gin_selfplay/results.json", "selfplay/best"))
     for o in ("simple", "expert")],
    align="llrll"))

table("plain_gin_ends", Table(
    ["pairing", "hands", "the network won by knock", "by gin", "by undercut", "the opponent won by knock", "by gin",
     "by undercut"],
    [[f"`pretrained-plain` against {o}", GAMES_HANDS(pairing(_PL + "gin_curriculum/results.json", "policy", o))]
     + [ENDS(pairing(_PL + "gin_curriculum/results.json", "policy", o), side, k)
        for side in ("a", "b") for k in ("knock", "gin", "undercut")] for o in ("simple", "expert")],
    align="lrrrrrrr",
    note="How the hands of the 2,000 games above ended: who won each hand, and how."))


table("plain_gin_budgets", DynTable(
    lambda ctx: (["training budget", "env steps", "against simple", "against expert"], "lrll",
                 [[f"{fmt_minutes(b['minutes'])} minutes", f"{b['step'] / 1e6:.0f}M",
                   WR(pairing(_PL + b["results"], b["agent"], "simple")),
                   WR(pairing(_PL + b["results"], b["agent"], "expert"))]
                  for b in ctx.load(_PL + "gin_budgets.json")["budgets"]]),
    note="The curriculum run's network at each budget (its checkpoint at that time; the learning rate is "
         "constant, so a shorter run is this run stopped there), 2,000 duplicate games to 100 on fresh deals."))

_BOTH = ("simple", "expert")
_READ = (_PL + "rummy_read/results.json", "policy")
_READ_OTHER = (_PL + "rummy_read/results_seed20013.json", "rummy_read/best")

table("plain_rummy", Table(
    ["network", "against", "games", "games won (chance 25%)"],
    [[label, f"three {o}", GAMES(ref(o)), WR(ref(o))]
     for label, ref, against in (
         ("a card readout and the facts weighed by the position, 120 minutes: best checkpoint",
          lambda o: pairing(*_READ, o), _BOTH),
         ("the same checkpoint on 2,000 other fresh deals (seed 20013)", lambda o: pairing(*_READ_OTHER, o),
          ("simple",)),
         ("the same checkpoint, both sets of deals", lambda o: pool(pairing(*_READ, o), pairing(*_READ_OTHER, o)),
          ("simple",)),
         *((label, lambda o, path=path, agent=agent: pairing(path, agent, o), _BOTH) for label, path, agent in (
             ("each round's margin over the mean of the others as reward, 120 minutes: best checkpoint",
              _PL + "rummy_margin/results.json", "policy"),
             ("the take after its best discard, table cards not loose, 120 minutes: best checkpoint",
              _PL + "rummy_take/results.json", "policy"),
             ("loose cards and outs, the trunk reading the observation: best checkpoint",
              _PL + "rummy_facts/results.json", "policy"),
             ("3 epochs at 0.001, overlap, bf16: best checkpoint", _PL + "rummy_ep3/results.json", "policy"),
             ("1 epoch at 0.0005: best checkpoint", _PL + "rummy/results.json", "rummy/best"))))
     for o in against],
    align="llrl", note="Duplicate games to 200 on fresh deals, one seat of four."))

table("plain_rummy_curve", DynTable(
    lambda ctx: _merge_curves(ctx, [("a card readout, the facts weighed by the position", _PL + "rummy_read_curve.json"),
                                    ("each round's margin as reward", _PL + "rummy_margin_curve.json"),
                                    ("the take after its best discard, table cards not loose",
                                     _PL + "rummy_take_curve.json", 15),
                                    ("loose cards and outs, the trunk reading the observation",
                                     _PL + "rummy_facts_curve.json", 15),
                                    ("loose cards and outs, the trunk reading them (died)",
                                     _PL + "rummy_facts_trunk_curve.json", 15),
                                    ("3 epochs at 0.001, overlap, bf16", _PL + "rummy_ep3_curve.json", 15),
                                    ("1 epoch at 0.0005", _PL + "rummy_curve.json", 15)]),
    note="The network alone, greedy, in one seat against three copies of each baseline, on the same fixed "
         "evaluation deals at every point: the last two runs every 5 minutes, the earlier ones every 15 "
         "(every point is in their JSON)."))

table("plain_rummy_fact_rules", DynTable(
    lambda ctx: (["rule", "weights (per kind of column)", "rounds", "rounds won (chance 25%, less the drawn)"], "llrl",
                 [[r["rule"] if r["weights"] is None else f"`{r['rule']}`",
                   r.get("kind") or ", ".join(f"{k} {v:g}" for k, v in r["weights"].items()),
                   fmt_int(r["rounds"]), fmt_ci(r["win_rate"], r["ci95"])]
                  for r in ctx.load(_PL + "rummy_fact_rules.json")["rules"]]),
    note="One seat against three `simple`, single rounds on duplicate deals; each rule plays every meld and "
         "lay-off first, then the argmax of its weighted engine features (`docs/research/scripts/fact_rules.py`). "
         "The weights are set by hand: what a few learned weights could express, not an agent."))


#: the columns of benchmarks/bench_train.py's table, as compare.py numbers them
_TRAIN_COLUMNS = {1: "env steps / s", 3: "s / update: inference", 4: "s / update: engine features",
                  5: "s / update: rest of the rollout", 6: "s / update: GAE", 7: "s / update: the learner's minibatches"}


def _speedup_rows(ctx, name: str = "bench_train_compare.json"):
    data = ctx.load(_PL + name)
    rows = []
    for r in data["rows"]:
        if r["column"] not in _TRAIN_COLUMNS:
            continue
        fmt = (lambda x: fmt_int(round(x))) if r["column"] == 1 else (lambda x: f"{x:.3f}")
        rows.append([f"{r['row']}: {_TRAIN_COLUMNS[r['column']]}", fmt(r["before"]), fmt(r["after"]),
                     f"{r['after'] / r['before']:.2f}" if r["before"] else "n/a"])
    return ["config: measure", "before", "after", "after / before"], "lrrr", rows


table("plain_speed", DynTable(_speedup_rows,
      note="benchmarks/compare.py running benchmarks/bench_train.py (10 updates after 3) on the previous commit's plain "
           "config and this one, alternating, 3 rounds; each number is the largest of its rounds (compare.py keeps the "
           "largest: the best rate, but for the seconds the slowest round)."))

table("plain_speed_overlap", DynTable(
    lambda ctx: _speedup_rows(ctx, "bench_train_compare_overlap.json"),
    note="benchmarks/compare.py running benchmarks/bench_train.py (10 updates after 3) on the issue's starting commit "
         "(before) and this one (after: overlap, bf16 learning and playing, the snapshots stacked), alternating, 3 "
         "rounds, each number the largest of its rounds. With overlap the learner's seconds run beside the rollout's, "
         "so the parts add up to more than an update, and the rest of the rollout includes the wait for the learner "
         "and the snapshots' stacked pass."))

table("plain_speed_overlap_pool", DynTable(
    lambda ctx: _speedup_rows(ctx, "bench_train_compare_overlap_pool.json"),
    note="The same, with snapshot_every=1 and 7 updates of warm-up (so the pool holds its six snapshots, as in "
         "most of a real run) then 6 measured updates."))

def _at(path: str, point, key: str) -> Cell:
    """A curve point's or a budget's minutes (rounded) or env steps (millions), from its JSON."""
    fmt = (lambda x: fmt_minutes(round(x))) if key == "minutes" else (lambda x: f"{x / 1e6:.0f}M")
    return VALUE(path, lambda d: point(d)[key], fmt)


table("plain_fast_final", Table(
    ["network", "minutes", "env steps", "against simple", "against expert"],
    [["overlap, bf16 learning and playing: best checkpoint (its last)",
      _at(_PL + "gin_fast_play_curve.json", lambda d: d["points"][-1], "minutes"),
      _at(_PL + "gin_fast_play_curve.json", lambda d: d["points"][-1], "step"),
      WR(pairing(_PL + "gin_fast_play/results.json", "policy", "simple")),
      WR(pairing(_PL + "gin_fast_play/results.json", "policy", "expert"))],
     ["overlap, bf16 learning: best checkpoint (its last)", _at(_PL + "gin_fast_curve.json", lambda d: d["points"][-1], "minutes"),
      _at(_PL + "gin_fast_curve.json", lambda d: d["points"][-1], "step"),
      WR(pairing(_PL + "gin_fast/results.json", "policy", "simple")),
      WR(pairing(_PL + "gin_fast/results.json", "policy", "expert"))],
     ["in turn, float32: its checkpoint at the same env steps",
      _at(_PL + "gin_budgets.json", lambda d: d["budgets"][1], "minutes"),
      _at(_PL + "gin_budgets.json", lambda d: d["budgets"][1], "step"),
      WR(pairing(_PL + "gin_budgets/31min/results.json", "31min/net", "simple")),
      WR(pairing(_PL + "gin_budgets/31min/results.json", "31min/net", "expert"))],
     ["in turn, float32: its checkpoint at about the same minutes",
      _at(_PL + "gin_budgets.json", lambda d: d["budgets"][0], "minutes"),
      _at(_PL + "gin_budgets.json", lambda d: d["budgets"][0], "step"),
      WR(pairing(_PL + "gin_budgets/16min/results.json", "16min/net", "simple")),
      WR(pairing(_PL + "gin_budgets/16min/results.json", "16min/net", "expert"))]],
    align="lrrll", note="2,000 duplicate games to 100 on fresh deals (seed 20011) each."))

table("plain_fast_curve", DynTable(
    lambda ctx: _merge_curves(ctx, [("in turn, float32 (the shipped network's run)", _PL + "gin_curriculum_curve.json"),
                                    ("overlap, bf16 learning", _PL + "gin_fast_curve.json"),
                                    ("overlap, bf16 learning and playing", _PL + "gin_fast_play_curve.json")]),
    note="configs/gin_rummy_plain.yaml as shipped (overlap, bf16 learning and playing, 15 minutes), the same with "
         "playing in float32 (the config before it, 20 minutes), and the run that made pretrained-plain (the same "
         "config played and learned in turn in float32). Each point: the greedy network on the same fixed "
         "evaluation deals, games to 100; compare rows at equal env steps, not only at equal minutes."))
