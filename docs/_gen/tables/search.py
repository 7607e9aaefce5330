"""Search's tables (docs/research/search.md)."""

from __future__ import annotations

from _gen.tables.baselines import _ends_rows
from _gen.tables.cells import BOLD, CAT, Cell, GAMES, PCT, PTS, VALUE, WR, entry_rows
from _gen.tables.formats import SpecError, fmt_ci, fmt_int, fmt_pct
from _gen.tables.pages import DynTable, Table
from _gen.tables.refs import pairing, pool
from _gen.tables.shared import table


_RUMMY_SEARCH_GAMES = [pairing(f"search_rummy/games_200_seed{s}.json", "search", "expert")
                       for s in (99, 100, 101, 102, 103)]
_RS = "search:belief=uniform,win_value=100,worlds=64"
table("search_measured", Table(
    ["game", "agent", "against", "games", "games won", "points / hand"],
    [
        ["Gin Rummy", "search", "expert", GAMES(pairing("search_expert/results.json", "search", "expert")),
         WR(pairing("search_expert/results.json", "search", "expert")),
         PTS(pairing("search_expert/results.json", "search", "expert"))],
        ["Gin Rummy", "search", "simple",
         CAT(GAMES(pairing("search_simple/results.json", "search", "simple")), " (`--chunk 500`)"),
         CAT(WR(pairing("search_simple/results.json", "search", "simple")), " (expert: ",
             PCT(pairing("gin_expert_simple/results.json", "expert", "simple")), ")"),
         PTS(pairing("search_simple/results.json", "search", "simple"))],
        ["Rummy, 4 players", f"`{_RS}`", "three expert",
         CAT(GAMES(pairing("search_rummy/rounds_1000.json", _RS, "expert")), " single rounds"),
         CAT(WR(pairing("search_rummy/rounds_1000.json", _RS, "expert")), " (chance 24.5%)"),
         PTS(pairing("search_rummy/rounds_1000.json", _RS, "expert"))],
        ["Rummy, 4 players", "search (the same defaults)", "three expert",
         CAT(GAMES(pool(*_RUMMY_SEARCH_GAMES)), " games to the target (5 seeds)"),
         CAT(WR(pool(*_RUMMY_SEARCH_GAMES)), " (chance 25%)"),
         PTS(pool(*_RUMMY_SEARCH_GAMES))],
    ], align="lllrll"))

table("search_hand_ends", Table(
    ["agent", "against", "hands won by knocking", "by gin", "by undercutting the knocker"],
    _ends_rows("search_expert/results.json", [("search", "expert")])
    + _ends_rows("search_simple/results.json", [("search", "simple")]),
    align="llrrr"))


def _search_worlds(ctx):
    simple = ctx.load("search_curve_simple/curve.json")
    expert = ctx.load("search_curve_expert/curve.json")

    def find(data, model, worlds):
        got = [p for p in data["points"] if p["model"] == model and p["worlds"] == worlds]
        return fmt_ci(got[0]["win_rate"], got[0]["ci95"]) if got else ""

    worlds = sorted({p["worlds"] for d in (simple, expert) for p in d["points"]})
    rows = [[str(w), find(simple, "expert", w), find(simple, "simple", w), find(expert, "expert", w)]
            for w in worlds]
    base = simple["baseline"]
    rows.append(["expert alone", fmt_pct(base["win_rate"]), fmt_pct(base["win_rate"]), "50% (itself)"])
    games = {p["games"] for d in (simple, expert) for p in d["points"]}
    if len(games) != 1:
        raise SpecError(f"search curves with {sorted(games)} games a point")
    header = ["worlds", "against simple, modelled as expert (default)",
              "against simple, `opponent=simple,knock=10`", "against expert (default)"]
    return header, "rlll", rows


table("search_worlds", DynTable(_search_worlds))

_OPT = "search_rummy/options_400_rounds.json"
table("search_rummy_options", Table(
    ["Rummy search options", "rounds won of 400", "points / round (search vs expert)"],
    entry_rows(_OPT, [
        ("the Gin defaults (weighted beliefs, 32 worlds)", "search"),
        ("`z=0` (best mean)", "search:z=0"),
        ("`topk=6`", "search:topk=6"),
        ("`win_value=30`", "search:win_value=30"),
        ("`win_value=100`", "search:win_value=100"),
        ("`belief=uniform`", "search:belief=uniform"),
        ("`belief=uniform,win_value=100`", "search:win_value=100,belief=uniform"),
        ("`belief=uniform,win_value=100,z=2`", "search:belief=uniform,win_value=100,z=2"),
        ("`belief=uniform,win_value=100,topk=6`", "search:belief=uniform,win_value=100,topk=6"),
        ("`belief=uniform,win_value=100,worlds=96`", "search:belief=uniform,win_value=100,worlds=96"),
    ], points=True)))

table("search_rummy_games", Table(
    ["seed", "games", "games won", "rounds", "points / round (search vs expert)"],
    [[str(s), GAMES(r), WR(r), VALUE(f"search_rummy/games_200_seed{s}.json",
                                     lambda d: d["pairings"][0]["hands"], fmt_int), PTS(r)]
     for s, r in zip((99, 100, 101, 102, 103), _RUMMY_SEARCH_GAMES)]
    + [["all five", GAMES(pool(*_RUMMY_SEARCH_GAMES)), BOLD(WR(pool(*_RUMMY_SEARCH_GAMES))),
        Cell(lambda ctx: fmt_int(pool(*_RUMMY_SEARCH_GAMES).resolve(ctx).hands)),
        PTS(pool(*_RUMMY_SEARCH_GAMES))]],
    align="rrlrl"))


def _seconds(path):
    return VALUE(path, lambda d: d["pairings"][0]["seconds"],
                 lambda s: f"{fmt_int(s)} s ({int(s // 60)} min {int(s % 60)} s)")


table("search_cost", Table(
    ["run", "seed", "games", "games won", "seconds of play"],
    [
        ["`evaluate.py search expert --games 1000` (other jobs on the machine)",
         VALUE("search_expert/results.json", lambda d: d["settings"]["seed"], str),
         GAMES(pairing("search_expert/results.json", "search", "expert")),
         WR(pairing("search_expert/results.json", "search", "expert")), _seconds("search_expert/results.json")],
        ["`evaluate.py search expert --games 1000 --seed 4242` (idle machine)",
         VALUE("search_expert_speed/results.json", lambda d: d["settings"]["seed"], str),
         GAMES(pairing("search_expert_speed/results.json", "search", "expert")),
         WR(pairing("search_expert_speed/results.json", "search", "expert")),
         _seconds("search_expert_speed/results.json")],
    ], align="lrrlr"))
