"""Generate the results tables of the documentation from the JSON under docs/results.

A Markdown page marks each generated table with a pair of HTML comments, each on a line
of its own (outside fenced code)::

    <!-- results: gin_expert_race -->
    ...the table, rewritten by this script...
    <!-- /results -->

The name after ``results:`` is a table spec of ``TABLES`` below: which JSON files under
``docs/results/`` and which of their fields make its rows and columns. Every number in a
generated table comes from those files; the line under the table names and links them.

    python scripts/results_tables.py            # rewrite every marked table
    python scripts/results_tables.py --check    # change nothing; exit 1 naming each stale table
    python scripts/results_tables.py --list     # the table specs, their JSON and their pages

The pages are every ``*.md`` under ``docs/`` and ``README.md``. A marker naming an
unknown table, a marker left open, or a spec whose JSON is missing or does not match is
an error naming the page and the table.

Formats, the same everywhere: a win rate with its 95% Wilson interval as
``65.0% [62.9, 67.1]`` (the rounding of ``evaluate.py``'s own report, ``format(x, ".1%")``),
a win rate alone as ``65.0%``, game counts with thousands separators (``2,000``), points
per hand as ``15.4 vs 12.7`` (the agent's, then its opponent's). A pooled row
(:func:`pool`) adds the wins and games of its parts and recomputes the Wilson interval.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from rummyrl import games as registry
from rummyrl.stats import wilson_interval as wilson

ROOT = Path(__file__).resolve().parents[1]
RESULTS_DIR = Path("docs") / "results"

OPEN_RE = re.compile(r"^\s*<!--\s*results:\s*([A-Za-z0-9_.\-]+)\s*-->\s*$")
CLOSE_RE = re.compile(r"^\s*<!--\s*/results\s*-->\s*$")
FENCE_RE = re.compile(r"^\s*(```|~~~)")


class SpecError(Exception):
    """A table spec that cannot be rendered from its JSON (missing file, no match, ...)."""


# ---------------------------------------------------------------------------------------
# Numbers and their formats
# ---------------------------------------------------------------------------------------
def fmt_pct(x: float) -> str:
    """``0.65`` -> ``65.0%``: the rounding of ``evaluate.py``'s own report,
    ``format(x, ".1%")`` (so ``0.6505`` prints as ``65.0%``, as the tool printed it)."""
    return format(x, ".1%")


def fmt_ci(rate: float, ci) -> str:
    """A win rate with its interval: ``65.0% [62.9, 67.1]``."""
    lo, hi = ci
    return f"{fmt_pct(rate)} [{fmt_pct(lo)[:-1]}, {fmt_pct(hi)[:-1]}]"


def fmt_int(n) -> str:
    """``2000`` -> ``2,000``."""
    return f"{int(round(n)):,}"


def fmt_num(x: float, digits: int = 1, sign: bool = False) -> str:
    """``15.388`` -> ``15.4`` (``sign``: ``+15.4``)."""
    return f"{x:{'+' if sign else ''},.{digits}f}"


def fmt_minutes(x: float) -> str:
    """Minutes of a curve: ``11`` or ``10.4``."""
    return fmt_num(x, 0) if float(x).is_integer() else fmt_num(x, 1)


# ---------------------------------------------------------------------------------------
# Rendering context: where the JSON is, and which files a table used
# ---------------------------------------------------------------------------------------
@dataclass
class Context:
    root: Path
    sources: list = field(default_factory=list)
    _cache: dict = field(default_factory=dict)

    def load(self, path: str) -> Any:
        """The JSON of ``docs/results/<path>`` (recorded as a source of the table)."""
        if path not in self.sources:
            self.sources.append(path)
        if path not in self._cache:
            full = self.root / RESULTS_DIR / path
            if not full.is_file():
                raise SpecError(f"no file {RESULTS_DIR / path}")
            try:
                self._cache[path] = json.loads(full.read_text())
            except json.JSONDecodeError as e:
                raise SpecError(f"{RESULTS_DIR / path} is not JSON: {e}") from None
        return self._cache[path]


# ---------------------------------------------------------------------------------------
# Records: one measured win rate, from any of the shapes under docs/results
# ---------------------------------------------------------------------------------------
@dataclass
class Rec:
    """One measured win rate: wins of games, its interval, and the points per hand of the
    agent and its opponent where the file has them."""
    rate: float
    games: int
    wins: float
    ci: tuple
    pts: tuple | None = None
    hands: int | None = None
    raw: dict | None = None


class Ref:
    """A lazily resolved :class:`Rec`."""

    def resolve(self, ctx: Context) -> Rec:
        raise NotImplementedError


class Pairing(Ref):
    """A pairing of an ``evaluate.py`` results.json (``{"pairings": [{"a", "b", ...}]}``)."""

    def __init__(self, path: str, a: str, b: str | None = None):
        self.path, self.a, self.b = path, a, b

    def resolve(self, ctx: Context) -> Rec:
        data = ctx.load(self.path)
        if not isinstance(data, dict) or "pairings" not in data:
            raise SpecError(f"{self.path} has no pairings")
        found = [p for p in data["pairings"]
                 if p.get("a") == self.a and (self.b is None or p.get("b") == self.b)]
        if len(found) != 1:
            raise SpecError(f"{self.path}: {len(found)} pairings of a={self.a!r} b={self.b!r}, "
                            f"expected 1")
        p = found[0]
        ph = p.get("points_hand") or {}
        pts = (ph[p["a"]], ph[p["b"]]) if p["a"] in ph and p["b"] in ph else None
        return Rec(rate=p["win_rate_a"], games=p["games"], wins=p["wins_a"],
                   ci=tuple(p["win_rate_a_ci95"]), pts=pts, hands=p.get("hands"), raw=p)


def _records(data: Any, key: str | None) -> list:
    if key is not None:
        return data[key]
    if isinstance(data, list):
        return data
    for k in ("results", "rows", "points"):
        if isinstance(data, dict) and isinstance(data.get(k), list):
            return data[k]
    raise SpecError("no list of records (results, rows, points)")


class Entry(Ref):
    """The one record of a list (``results``, ``rows``, ``points`` or the file itself) whose
    fields equal ``match``: search_where.py, search_curve.py, exit_curve.py and the
    hand-collected lists (``{"agent", "against", "win_rate", "ci95", "games", ...}``)."""

    def __init__(self, path: str, key: str | None = None, **match):
        self.path, self.key, self.match = path, key, match

    def resolve(self, ctx: Context) -> Rec:
        data = ctx.load(self.path)
        try:
            rows = _records(data, self.key)
        except (SpecError, KeyError, TypeError):
            raise SpecError(f"{self.path}: no list of records") from None
        found = [r for r in rows if isinstance(r, dict)
                 and all(r.get(k) == v for k, v in self.match.items())]
        if len(found) != 1:
            raise SpecError(f"{self.path}: {len(found)} records with {self.match}, expected 1")
        r = found[0]
        try:
            rate, games = r["win_rate"], r.get("games", r.get("rounds"))
            ci = tuple(r["ci95"])
        except KeyError as e:
            raise SpecError(f"{self.path}: record {self.match} has no {e}") from None
        wins = r.get("wins", r.get("won", rate * games))
        pts = None
        if isinstance(r.get("points_per_hand"), list):
            pts = tuple(r["points_per_hand"][:2])
        else:
            d = r.get("points_hand") or r.get("points_per_round")
            if isinstance(d, dict) and len(d) == 2:
                pts = tuple(d.values())
        return Rec(rate=rate, games=games, wins=wins, ci=ci, pts=pts, raw=r)


class Pool(Ref):
    """Several measurements as one: wins and games added, the Wilson interval of the sum,
    points per hand weighted by hands where every part has them. A part without a count
    of wins counts ``win_rate * games``."""

    def __init__(self, *parts: Ref):
        self.parts = parts

    def resolve(self, ctx: Context) -> Rec:
        recs = [p.resolve(ctx) for p in self.parts]
        games = sum(r.games for r in recs)
        wins = sum(r.wins for r in recs)
        pts = None
        if all(r.pts is not None and r.hands for r in recs):
            hands = sum(r.hands for r in recs)
            pts = tuple(sum(r.pts[i] * r.hands for r in recs) / hands for i in (0, 1))
        return Rec(rate=wins / games, games=games, wins=wins, ci=wilson(wins, games), pts=pts,
                   hands=sum(r.hands or 0 for r in recs) or None)


def pairing(path, a, b=None) -> Pairing:
    return Pairing(path, a, b)


def entry(path, key=None, **match) -> Entry:
    return Entry(path, key, **match)


def pool(*parts) -> Pool:
    return Pool(*parts)


# ---------------------------------------------------------------------------------------
# Cells
# ---------------------------------------------------------------------------------------
class Cell:
    def __init__(self, fn: Callable[[Context], str]):
        self.fn = fn

    def render(self, ctx: Context) -> str:
        return self.fn(ctx)


def render_cell(c, ctx: Context) -> str:
    if isinstance(c, Cell):
        return c.render(ctx)
    if c is None:
        return ""
    return str(c)


def WR(ref: Ref) -> Cell:
    """``65.0% [62.9, 67.1]``"""
    return Cell(lambda ctx: (lambda r: fmt_ci(r.rate, r.ci))(ref.resolve(ctx)))


def PCT(ref: Ref) -> Cell:
    """``65.0%``"""
    return Cell(lambda ctx: fmt_pct(ref.resolve(ctx).rate))


def GAMES(ref: Ref) -> Cell:
    """``2,000``"""
    return Cell(lambda ctx: fmt_int(ref.resolve(ctx).games))


def PTS(ref: Ref) -> Cell:
    """``15.4 vs 12.7``: points per hand (or round) of the agent, then of its opponent."""
    def fn(ctx):
        r = ref.resolve(ctx)
        if r.pts is None:
            raise SpecError("no points per hand in the record")
        return f"{fmt_num(r.pts[0])} vs {fmt_num(r.pts[1])}"
    return Cell(fn)


def ENDS(ref: Pairing, side: str, kind: str) -> Cell:
    """Hands that ``side`` (``a`` or ``b``) of an evaluate.py pairing won by ``kind``."""
    def fn(ctx):
        r = ref.resolve(ctx).raw
        name = r[side]
        return fmt_int(r["hand_ends"][name][kind])
    return Cell(fn)


def GAMES_HANDS(ref: Ref) -> Cell:
    """The number of hands (rounds) a pairing played."""
    def fn(ctx):
        r = ref.resolve(ctx)
        if r.hands is None:
            raise SpecError("no count of hands in the record")
        return fmt_int(r.hands)
    return Cell(fn)


def VALUE(path: str, get: Callable[[Any], float], fmt: Callable[[float], str] = fmt_pct) -> Cell:
    """Any number of a JSON file: ``get(data)``, formatted by ``fmt``."""
    def fn(ctx):
        try:
            return fmt(get(ctx.load(path)))
        except (KeyError, IndexError, TypeError, ValueError) as e:
            raise SpecError(f"{path}: {type(e).__name__} {e}") from None
    return Cell(fn)


def BOLD(c) -> Cell:
    return Cell(lambda ctx: f"**{render_cell(c, ctx)}**")


def CAT(*parts) -> Cell:
    """Text and cells side by side: ``CAT(PCT(x), " (chance: 25%)")``."""
    return Cell(lambda ctx: "".join(render_cell(p, ctx) for p in parts))


def CURVE(path: str, key: str, minutes: str = "list", first: int = 0, last: int | None = None,
          suffix: str = "") -> Cell:
    """The win rates of a curve.json's ``points[first:last]`` (``{"minutes", key}``):
    ``50.0, 52.8, 47.0 at 0, 11, 22 min`` (``minutes="list"``) or ``... at 0-50 min``
    (``"range"``)."""
    def fn(ctx):
        pts = ctx.load(path)["points"][first:last]
        if not pts:
            raise SpecError(f"{path}: no points in [{first}:{last}]")
        vals = ", ".join(fmt_pct(p[key])[:-1] for p in pts)
        mins = [fmt_minutes(p["minutes"]) for p in pts]
        at = ", ".join(mins) if minutes == "list" else f"{mins[0]}-{mins[-1]}"
        return f"{vals} at {at} min{suffix}"
    return Cell(fn)


def entry_rows(path: str, labelled: list, points: bool = False) -> list:
    """Rows ``[label, win rate(, points per hand)]`` of the records of ``path`` named by agent:
    ``labelled`` is ``[(label, agent), ...]``."""
    return [[label, WR(entry(path, agent=agent))] + ([PTS(entry(path, agent=agent))] if points else [])
            for label, agent in labelled]


# ---------------------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------------------
class Table:
    """A static table: a header, an alignment per column (``l`` or ``r``) and rows of cells
    (strings or :class:`Cell`). ``note``: text under the table, before its sources."""

    def __init__(self, header: list, rows: list, align: str | None = None, note: str = "",
                 about: str = ""):
        self.header, self.rows, self.note, self.about = header, rows, note, about
        self.align = align or "l" * len(header)
        if len(self.align) != len(header) or any(len(r) != len(header) for r in rows):
            raise ValueError(f"table {header}: rows or alignment do not match the header")

    def build(self, ctx: Context) -> tuple[list, str, list]:
        return self.header, self.align, [[render_cell(c, ctx) for c in r] for r in self.rows]


class DynTable(Table):
    """A table whose shape comes from its JSON: ``fn(ctx) -> (header, align, rows)``."""

    def __init__(self, fn: Callable[[Context], tuple], note: str = "", about: str = ""):
        self.fn, self.note, self.about = fn, note, about

    def build(self, ctx: Context):
        header, align, rows = self.fn(ctx)
        return header, align, [[render_cell(c, ctx) for c in r] for r in rows]


def _escape(s: str) -> str:
    return s.replace("|", "\\|")


def render_table(spec: Table, root: Path, page: Path) -> str:
    """The Markdown between a table's markers (without the markers): the table, then a
    line linking its JSON relative to ``page``."""
    ctx = Context(root=root)
    try:
        header, align, rows = spec.build(ctx)
    except SpecError:
        raise
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError) as e:
        raise SpecError(f"{type(e).__name__}: {e}") from None
    lines = ["| " + " | ".join(_escape(h) for h in header) + " |",
             "| " + " | ".join("---:" if a == "r" else "---" for a in align) + " |"]
    lines += ["| " + " | ".join(_escape(c) for c in r) + " |" for r in rows]
    out = "\n".join(lines) + "\n"
    if spec.note:
        out += "\n" + spec.note.strip() + "\n"
    if ctx.sources:
        page_dir = (root / page).parent
        links = []
        for s in ctx.sources:
            rel = os.path.relpath(root / RESULTS_DIR / s, page_dir).replace(os.sep, "/")
            links.append(f"[`{s}`]({rel})")
        out += "\nJSON: " + ", ".join(links) + ".\n"
    return out


# ---------------------------------------------------------------------------------------
# Pages
# ---------------------------------------------------------------------------------------
@dataclass
class Block:
    name: str
    start: int  # index of the opening marker line
    end: int    # index of the closing marker line


def find_blocks(text: str) -> tuple[list, list]:
    """The marked blocks of a page and the problems of its markers (line numbers 1-based).
    Markers inside fenced code are ignored."""
    lines = text.split("\n")
    blocks, problems = [], []
    fence = None
    open_at = None
    for i, line in enumerate(lines):
        m = FENCE_RE.match(line)
        if m and open_at is None:
            if fence is None:
                fence = m.group(1)
            elif m.group(1) == fence:
                fence = None
            continue
        if fence is not None:
            continue
        mo, mc = OPEN_RE.match(line), CLOSE_RE.match(line)
        if mo:
            if open_at is not None:
                problems.append(f"line {i + 1}: results marker inside the open table "
                                f"{open_at[1]!r} (line {open_at[0] + 1})")
            open_at = (i, mo.group(1))
        elif mc:
            if open_at is None:
                problems.append(f"line {i + 1}: <!-- /results --> without an opening marker")
            else:
                blocks.append(Block(open_at[1], open_at[0], i))
                open_at = None
    if open_at is not None:
        problems.append(f"line {open_at[0] + 1}: table {open_at[1]!r} is never closed")
    return blocks, problems


def update_page(text: str, page: Path, root: Path, tables: dict) -> tuple[str, list, list]:
    """The page with every marked table regenerated; the names of the tables that changed;
    the errors (each naming the table)."""
    blocks, errors = find_blocks(text)
    if errors:
        return text, [], errors
    lines = text.split("\n")
    changed = []
    for b in reversed(blocks):
        spec = tables.get(b.name)
        if spec is None:
            errors.append(f"line {b.start + 1}: unknown results table {b.name!r}")
            continue
        try:
            body = render_table(spec, root, page)
        except SpecError as e:
            errors.append(f"table {b.name!r}: {e}")
            continue
        new = ["", *body.rstrip("\n").split("\n"), ""]
        if lines[b.start + 1:b.end] != new:
            changed.append(b.name)
            lines[b.start + 1:b.end] = new
    changed.reverse()
    errors.reverse()
    return "\n".join(lines), changed, errors


def pages(root: Path) -> list:
    """README.md and every Markdown file under docs/, as paths relative to ``root``."""
    out = []
    if (root / "README.md").is_file():
        out.append(Path("README.md"))
    docs = root / "docs"
    if docs.is_dir():
        out += sorted(p.relative_to(root) for p in docs.rglob("*.md"))
    return out


def run(root: Path, tables: dict, check: bool, out=sys.stdout) -> int:
    """Rewrite (or, with ``check``, compare) every marked table under ``root``. Returns the
    exit status: 1 when a table is stale (``check``) or anything is in error."""
    status = 0
    n_tables = 0
    for page in pages(root):
        text = (root / page).read_text()
        if "results" not in text:
            continue
        new, changed, errors = update_page(text, page, root, tables)
        n_tables += len(find_blocks(text)[0])
        for e in errors:
            print(f"{page}: error: {e}", file=out)
            status = 1
        if check:
            for name in changed:
                print(f"{page}: table {name!r} differs from what its JSON says "
                      f"(run python scripts/results_tables.py)", file=out)
                status = 1
        elif changed and not errors:
            (root / page).write_text(new)
            for name in changed:
                print(f"{page}: rewrote table {name!r}", file=out)
        elif changed:
            print(f"{page}: not written (errors above)", file=out)
    if status == 0:
        print(f"{n_tables} results tables {'up to date' if check else 'generated'}", file=out)
    return status


def usage(root: Path, tables: dict, out=sys.stdout) -> None:
    """Each table spec with the JSON it reads and the pages that show it."""
    used: dict = {}
    for page in pages(root):
        for b in find_blocks((root / page).read_text())[0]:
            used.setdefault(b.name, []).append(str(page))
    for name, spec in tables.items():
        ctx = Context(root=root)
        try:
            spec.build(ctx)
        except Exception as e:  # noqa: BLE001 -- listed, not fatal
            print(f"{name}: error: {e}", file=out)
        print(f"{name}: {', '.join(ctx.sources) or '-'}  <- {', '.join(used.get(name, [])) or 'unused'}",
              file=out)


# =======================================================================================
# The table specs
# =======================================================================================
# Shorthands for the files used most.
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


# --- index ------------------------------------------------------------------------------
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

# --- baselines --------------------------------------------------------------------------
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

# --- search -----------------------------------------------------------------------------
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

# --- PPO --------------------------------------------------------------------------------
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

# --- expert iteration, Gin --------------------------------------------------------------
_K50 = "gin_exit_knock/final50_vs_"
_K95 = "gin_exit_knock/final95_vs_"
table("gin_exit_runs", Table(
    ["run", "trained", "vs expert", "vs simple", "curve vs expert"],
    [
        ["`gin_rummy_exit.yaml` (`z=2` teacher, search's choice as target)", "best.pt, 10 of 52 min",
         WR(pairing("gin_exit/vs_expert.json", "gin_rummy_exit/best", "expert")),
         WR(pairing("gin_exit/vs_simple.json", "gin_rummy_exit/best", "simple")), "(not kept)"],
        ["+ `exit.depart_weight=10`, 8 minibatches, data against expert and itself only", "26 min",
         CAT(VALUE("gin_exit_departs/curve.json", lambda d: d["points"][-1]["vs_expert"]), " (400)"),
         CAT(VALUE("gin_exit_departs/curve.json", lambda d: d["points"][-1]["vs_simple"]), " (400)"),
         CURVE("gin_exit_departs/curve.json", "vs_expert")],
        ["`exit.target=softmax`, temperature 8", "32 min",
         CAT(VALUE("gin_exit_soft/curve.json", lambda d: d["points"][-1]["vs_expert"]), " (400)"),
         CAT(VALUE("gin_exit_soft/curve.json", lambda d: d["points"][-1]["vs_simple"]), " (400)"),
         CURVE("gin_exit_soft/curve.json", "vs_expert")],
        ["`gin_rummy_exit_knock.yaml` (`exit.phase: knock`, card head), final.pt", "50 min",
         WR(pairing(_K50 + "expert.json", "k1/final50", "expert")),
         WR(pairing(_K50 + "simple.json", "k1/final50", "simple")),
         CURVE("gin_exit_knock/curve.json", "vs_expert", "range", 0, 6)],
        ["+ resumed to 95 min with 64 worlds, data against expert and itself only", "95 min",
         WR(pairing(_K95 + "expert.json", "k1/final95", "expert")),
         WR(pairing(_K95 + "simple.json", "k1/final95", "simple")),
         CURVE("gin_exit_knock/curve.json", "vs_expert", "range", 6)],
        ["PPO fine-tuning of the first row's best.pt (hand episodes, lr 1e-4, simple/expert pool)", "30 min",
         CAT(VALUE("gin_exit_ppo/curve.json", lambda d: d["points"][-1]["vs_expert"]), " (400)"),
         CAT(VALUE("gin_exit_ppo/curve.json", lambda d: d["points"][-1]["vs_simple"]), " (400)"),
         CURVE("gin_exit_ppo/curve.json", "vs_expert", suffix=" of the run's clock")],
    ]))

_WH = "gin_exit/search_where_hands.json"
table("gin_where_hands", Table(
    ["who decides", "hands won of 400 against the expert"],
    entry_rows(_WH, [
        ("the expert everywhere", "base"),
        ("search at the draw only", "teacher at the draw"),
        ("search everywhere but the draw", "teacher but the draw"),
        ("search everywhere", "teacher"),
    ])))

_WK = "gin_exit_knock/search_where_games.json"
table("gin_where_knock_games", Table(
    ["who decides", "games won of 200", "points per hand (vs the expert)"],
    entry_rows(_WK, [
        ("the expert everywhere", "base"),
        ("search everywhere", "teacher"),
        ("search at the knock decisions only", "teacher at the knock"),
        ("search everywhere but the knock", "teacher but the knock"),
    ], points=True)))

table("gin_race_rollout", Table(
    ["agent", "against", "seed", "games", "games won"],
    [
        ["`search:rollout=(expert:w_gin=30)`", "expert", "4242",
         GAMES(pairing("gin_race/search_race_rollout/results.json", "search:rollout=expert:w_gin=30", "expert")),
         WR(pairing("gin_race/search_race_rollout/results.json", "search:rollout=expert:w_gin=30", "expert"))],
        [f"`{RACE}` (the rule alone)", "expert", "20011", GAMES(pairing(_GR, RACE, "expert")),
         WR(pairing(_GR, RACE, "expert"))],
    ], align="lllrl"))

_WS = "gin_race/search_where_simple/"
table("gin_where_simple", Table(
    ["who decides", "games won of 400 against simple", "points per hand (vs simple)"],
    [
        ["the racing expert everywhere", WR(entry(_WS + "knock.json", agent="base")),
         PTS(entry(_WS + "knock.json", agent="base"))],
        ["search at the draw", WR(entry(_WS + "draw.json", agent="teacher at the draw")),
         PTS(entry(_WS + "draw.json", agent="teacher at the draw"))],
        ["search at the knock decisions", WR(entry(_WS + "knock.json", agent="teacher at the knock")),
         PTS(entry(_WS + "knock.json", agent="teacher at the knock"))],
        ["search at every decision but the draw (discards and knocks)",
         WR(entry(_WS + "play.json", agent="teacher at the play")),
         PTS(entry(_WS + "play.json", agent="teacher at the play"))],
        ["the same at 128 worlds (17 minutes)", BOLD(WR(entry(_WS + "play_128_worlds.json", agent="teacher at the play"))),
         PTS(entry(_WS + "play_128_worlds.json", agent="teacher at the play"))],
        ["seed 32: the racing expert everywhere", WR(entry(_WS + "play_seed32.json", agent="base")),
         PTS(entry(_WS + "play_seed32.json", agent="base"))],
        ["seed 32: search at every decision but the draw, 64 worlds",
         WR(entry(_WS + "play_seed32.json", agent="teacher at the play")),
         PTS(entry(_WS + "play_seed32.json", agent="teacher at the play"))],
    ]))


def _exit_simple_curve(ctx):
    d = ctx.load("gin_exit_simple/curve.json")
    marks = []
    for p in d["points"]:
        if p["minutes_data"] not in marks:
            marks.append(p["minutes_data"])

    def at(m, against):
        got = [p for p in d["points"] if p["minutes_data"] == m and p["against"] == against]
        if len(got) != 1:
            raise SpecError(f"gin_exit_simple/curve.json: {len(got)} points at {m} against {against}")
        return got[0]

    header = ["training minutes (data + fit)", *[fmt_num(at(m, "simple")["train_minutes"]) for m in marks]]
    rows = [[f"vs {a}", *[fmt_pct(at(m, a)["win_rate"]) for m in marks]] for a in ("simple", "expert")]
    return header, "l" + "r" * len(marks), rows


table("gin_exit_simple_curve", DynTable(_exit_simple_curve))

_FE = "gin_exit_simple/final_eval/results.json"
_V7 = "gin_exit_simple/variants_seed7.json"
_fit_simple = [pairing(_FE, "gin_exit_simple/fit70", "simple"), entry(_V7, network="fit70", against="simple")]
_fit_expert = [pairing(_FE, "gin_exit_simple/fit70", "expert"), entry(_V7, network="fit70", against="expert")]
table("gin_exit_simple_fit", Table(
    ["network", "deals", "games", "against simple", "against expert"],
    [
        ["the 72-minute fit (`fit70.pt`)", "seed 20011", GAMES(_fit_simple[0]), BOLD(WR(_fit_simple[0])),
         WR(_fit_expert[0])],
        ["the racing rule it starts from", "seed 20011", GAMES(pairing(_RR, RACE, "simple")),
         WR(pairing(_RR, RACE, "simple")), WR(pairing(_RR, RACE, "expert"))],
        ["the 72-minute fit", "seed 7", GAMES(_fit_simple[1]), WR(_fit_simple[1]), WR(_fit_expert[1])],
        ["its untrained start (the rule with the card head)", "seed 7",
         GAMES(entry(_V7, network="m0", against="simple")), WR(entry(_V7, network="m0", against="simple")),
         WR(entry(_V7, network="m0", against="expert"))],
        ["the 72-minute fit", "both seeds", GAMES(pool(*_fit_simple)), WR(pool(*_fit_simple)),
         WR(pool(*_fit_expert))],
    ], align="llrll"))


def _variants(ctx):
    d = ctx.load(_V7)
    order = []
    for r in d["results"]:
        if r["network"] not in order:
            order.append(r["network"])
    rows = []
    for n in order:
        by = {r["against"]: r for r in d["results"] if r["network"] == n}
        what = by["simple"]["what"]
        rows.append([f"`{n}`", what, fmt_ci(by["simple"]["win_rate"], by["simple"]["ci95"]),
                     fmt_ci(by["expert"]["win_rate"], by["expert"]["ci95"])])
    return ["network", "what", "against simple", "against expert"], "llll", rows


table("gin_exit_simple_variants", DynTable(_variants))

_P = "gin_exit_simple/ppo/"
table("gin_exit_simple_ppo", Table(
    ["checkpoint", "deals", "against simple", "against expert"],
    [
        ["`best.pt` (17.3 minutes)", "seed 20011", BOLD(WR(pairing(_P + "best_seed20011.json", "gin_ppo_fit70/best", "simple"))),
         BOLD(WR(pairing(_P + "best_seed20011.json", "gin_ppo_fit70/best", "expert")))],
        ["`best.pt`", "seed 7", WR(pairing(_P + "best_seed7.json", "gin_ppo_fit70/best", "simple")),
         WR(pairing(_P + "best_seed7.json", "gin_ppo_fit70/best", "expert"))],
        ["`final.pt` (20 minutes)", "seed 20011", WR(pairing(_P + "final_seed20011.json", "gin_ppo_fit70/final", "simple")),
         WR(pairing(_P + "final_seed20011.json", "gin_ppo_fit70/final", "expert"))],
    ]))

table("gin_ppo_simple_curve", _parallel_curve(
    "gin_exit_simple/ppo_simple/curve.json", "minutes",
    [("vs simple", "win_rate_vs_simple"), ("vs expert", "win_rate_vs_expert")]))

_PS = "gin_exit_simple/ppo_simple/"
_ps_simple = [pairing(_PS + "best_seed20011.json", "gin_ppo_simple/best", "simple"),
              pairing(_PS + "best_seed7.json", "gin_ppo_simple/best", "simple")]
_ps_expert = [pairing(_PS + "best_seed20011.json", "gin_ppo_simple/best", "expert"),
              pairing(_PS + "best_seed7.json", "gin_ppo_simple/best", "expert")]
table("gin_ppo_simple_eval", Table(
    ["`best.pt` (27.3 minutes)", "games", "against simple", "against expert"],
    [["seed 20011", GAMES(_ps_simple[0]), BOLD(WR(_ps_simple[0])), BOLD(WR(_ps_expert[0]))],
     ["seed 7", GAMES(_ps_simple[1]), WR(_ps_simple[1]), WR(_ps_expert[1])],
     ["both seeds", GAMES(pool(*_ps_simple)), WR(pool(*_ps_simple)), WR(pool(*_ps_expert))]],
    align="lrll"))

# --- Rummy ------------------------------------------------------------------------------


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

# --- plain network ----------------------------------------------------------------------
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


# --- the web app (docs/web.md) ------------------------------------------------------------
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


# --- exploitability (docs/research/exploitability.md) --------------------------------------
#: the targets of each game's rows, in the table's order (a row appears once its JSON exists)
_EXPLOIT_ORDER = ["random", "simple", "expert", "planner", "search", "pretrained", "pretrained-plain"]


def _exploit_label(r: dict) -> str:
    """A row's name for its target: ``--label`` when given (a checkpoint's path says little), else the spec."""
    return r.get("label") or r["target"]


def _exploit(ctx):
    folder = ctx.root / RESULTS_DIR / "exploit"
    runs = [ctx.load(f"exploit/{f.name}") for f in sorted(folder.glob("*.json"))]
    order = {t: i for i, t in enumerate(_EXPLOIT_ORDER)}
    runs.sort(key=lambda r: (r["game"] != "gin", order.get(r["target"], len(order)), _exploit_label(r)))
    rows = []
    for r in runs:
        bar = ""
        if r["target"] == "random":  # random never knocks: the best response must win almost always
            bar = ("passes" if r["ci95"][0] > 0.95 else "fails") + " (> 95%)"
        elif r["target"] == "simple":  # it must beat simple by more than the expert does
            ref = pairing(f"{r['game']}_expert_simple/results.json", "expert", "simple").resolve(ctx)
            bar = ("passes" if r["ci95"][0] > ref.ci[1] else "fails") + f" (expert: {fmt_ci(ref.rate, ref.ci)})"
        budget = f"{fmt_minutes(r['budget_minutes'])} min"
        if r.get("budget_steps") and r["env_steps"] >= r["budget_steps"]:  # the step budget ended it
            budget = f"{fmt_int(r['budget_steps'])} steps"
        curve = ", ".join(fmt_pct(p["win_rate"]) for p in r["curve"][1:])  # after step 0
        title = registry.get(r["game"]).title + ("" if registry.get(r["game"]).min_players == 2 ==
                                                  registry.get(r["game"]).max_players else f", {r['players']} players")
        rows.append([title, f"`{r['target']}`" if _exploit_label(r) == r["target"] else _exploit_label(r), budget, f"{r['minutes']:.1f} min, {fmt_int(r['env_steps'])}",
                     f"**{fmt_ci(r['win_rate'], r['ci95'])}**", fmt_int(r["games"]), fmt_pct(r["chance"]), bar, curve])
    return (["game", "target", "budget", "trained (minutes, env steps)", "the best response wins", "games",
             "chance", "sanity bar", "curve (each evaluation, 400 games)"], "lllrlrrll", rows)


table("exploit", DynTable(
    _exploit,
    note="`rummyrl-exploit TARGET` for each row: a fresh network from the rules alone (the game's plain config) "
         "trained against the target alone, then 2,000 duplicate games to the target on fresh deals (seed 20011) "
         "against it; in Rummy it holds one seat against copies of the target in the others. The curve is the "
         "run's periodic evaluations on fixed deals. Sanity bars: against `random` the interval's lower end above "
         "95%; against `simple` above the upper end of the expert's interval against `simple` (Rummy: one seat "
         "against three `simple`)."))


def _league(ctx):
    d = ctx.load("league/gin.json")
    rows = []
    for x in d["rounds"]:
        m, e = x["main"], x.get("exploiter")
        ev = m["last_eval"]["win_rate"]
        rows.append([str(x["round"]), f"{m['minutes']:.0f} min, {fmt_int(m['env_steps'])}",
                     f"{fmt_pct(ev['simple'])}, {fmt_pct(ev['expert'])}", str(m["exploiters"]),
                     f"{e['minutes']:.0f} min, {fmt_int(e['env_steps'])}" if e else "-",
                     f"**{fmt_ci(e['win_rate'], e['ci95'])}** of {fmt_int(e['games'])}" if e else "-"])
    return (["round", "main agent: trained (cumulative)", "its evaluation against simple, expert (400 games)",
             "exploiters it played", "exploiter: trained", "the exploiter wins against it"], "lrlrll", rows)


table("league", DynTable(
    _league,
    note="`bash scripts/league_run.sh`: the main agent starts from `pretrained-plain` (`--main init=...`) and "
         "trains each round on the plain config's opponents (self-play, PFSP snapshots, the plain curriculum: no "
         "expert) plus every exploiter so far; then a fresh exploiter from the rules alone trains against the frozen "
         "main agent alone and plays it over 2,000 duplicate games (deals of seed 20011)."))


def _league_final(ctx):
    d = ctx.load("league/gin.json")
    rows = [["`best.pt`: the league's best periodic evaluation (" + d["final"]["evaluated"].split("(")[-1],
             *(fmt_ci(p["win_rate"], p["ci95"]) for p in d["final"]["pairings"])]]
    end = "league/gin_final_network.json"
    rows.append(["`main_2.pt`: the main agent at the league's end (after round 2)",
                 *(WR(pairing(end, "league_gin/main_2", p["b"])).render(ctx) for p in d["final"]["pairings"])])
    ship = [WR(_SHIP_PLAIN[p["b"]]).render(ctx) for p in d["final"]["pairings"]]
    rows.append(["`pretrained-plain` (where the main agent started)", *ship])
    return (["network"] + [f"against `{p['b']}`" for p in d["final"]["pairings"]], "lll", rows)


table("league_final", DynTable(
    _league_final,
    note="2,000 duplicate games to 100 on fresh deals (seed 20011) each, as `pretrained-plain`'s model card was "
         "measured. `best.pt` is the league's report (its final evaluation); `main_2.pt`: `evaluate.py "
         "runs/league_gin/main_2.pt simple expert --games 2000 --seed 20011 --option max_hands=30`."))


# --- trainers side by side ---------------------------------------------------------------
_TRAINER_NAMES = {"rummyrl": "**rummyrl** `train.py`", "rummyrl-before": "rummyrl `train.py`, before the GAE fix",
                  "cleanrl-style": "`examples/cleanrl_ppo.py` (our vector env)",
                  "sb3": "SB3-contrib", "torchrl": "TorchRL", "tianshou": "Tianshou", "rllib": "RLlib"}


def _trainers(ctx):
    d = ctx.load("trainers/gin.json")
    before = [dict(r, trainer="rummyrl-before") for r in ctx.load("trainers/gin_before_gae_fix.json")["rows"]]
    ours = next((r["moves_per_second"] for r in d["rows"] if r["trainer"] == "rummyrl"), None)
    rows = []
    for r in d["rows"][:1] + before + d["rows"][1:]:
        mine = r["trainer"].startswith("rummyrl")
        ratio = "" if mine or ours is None else f"{ours / r['moves_per_second']:,.0f}x"
        rows.append([_TRAINER_NAMES.get(r["trainer"], r["trainer"]) + ("" if r["package"] == "rummyrl" else f" {r['version']}"),
                     r["algorithm"],
                     f"{r['seconds'] / 60:.1f}", fmt_int(r["learner_moves"]), fmt_int(r["moves_per_second"]), ratio,
                     fmt_ci(r["vs_simple"]["win_rate_a"], r["vs_simple"]["win_rate_a_ci95"]),
                     fmt_ci(r["vs_expert"]["win_rate_a"], r["vs_expert"]["win_rate_a_ci95"])])
    games = fmt_int(d["games"])
    return (["trainer", "algorithm", "minutes", "learner moves", "learner moves/s", "ours is faster by",
             f"against `simple` ({games} games)", f"against `expert` ({games} games)"], "llrrrrll", rows)


table("trainers", DynTable(
    _trainers,
    note="`python benchmarks/bench_trainers.py --minutes M` on this 2-core machine, the trainers one after another: "
         "each trains a Gin network against `simple` alone for the same wall time (M in the JSON), then its "
         "network plays duplicate games to 100 on the same fresh deals (seed 20011) against `simple` and against "
         "`expert` through `evaluate.py`. A learner move is a move of the learning seat that went into an update; "
         "moves per second are over the whole run, playing and learning together. The row before the GAE fix "
         "is the same command run on the code before it (the benchmark's first run)."))


# --- pretrained -------------------------------------------------------------------------
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


# --- agents' speed (docs/research/benchmarks.md) ---------------------------------------------
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


# --- compression: the shipped networks distilled into fast ones (docs/research/pretrained.md) --
_CO = "compress/"
#: per shipped network: its file, its game, the opponents' words, the teacher's evaluation
#: (file, label), the student's (file, label), the compression's metrics file
COMPRESSED = [
    ("gin.pt", "gin", ("simple", "expert"), (_PS + "best_seed20011.json", "gin_ppo_simple/best"),
     (_CO + "gin_eval.json", "gin_h192/student"), _CO + "gin_fit.json"),
    ("gin-plain.pt", "gin", ("simple", "expert"), (_PL + "gin_curriculum/results.json", "policy"),
     (_CO + "plain_eval.json", "plain_h192/student"), _CO + "plain_fit.json"),
    ("rummy.pt", "rummy", ("three simple", "three expert"), (_TR + "final_20011_results.json", "rummy_read/final"),
     (_CO + "rummy_eval.json", "compress/student"), _CO + "rummy_fit.json"),
]


def _kept(ctx, fit: str) -> dict:
    """The epoch a compression kept (the first of the highest held-out agreement)."""
    return max(ctx.load(fit)["rows"], key=lambda r: r["valid_agreement"])


def _compressed_rows(ctx):
    rows = []
    for name, game, against, (t_path, t_label), (s_path, s_label), fit in COMPRESSED:
        net = ctx.load(fit)["config"]["net"]
        arch = ", ".join(f"{k}: {str(v).lower()}" for k, v in net.items())
        kept, start = _kept(ctx, fit), ctx.load(fit)["rows"][0]
        for who, path, label, speed, agree in (
                ("the network it was (the teacher)", t_path, t_label, f"{name} before compression", ""),
                (f"the student (`{arch}`), shipped", s_path, s_label,
                 "pretrained-plain" if name == "gin-plain.pt" else "pretrained",
                 f"{fmt_pct(kept['valid_agreement'])} (untrained: {fmt_pct(start['valid_agreement'])})")):
            opp = [o.split()[-1] for o in against]
            rows.append([f"`{name}`: {who}", _speed(game, speed)]
                        + [WR(pairing(path, label, o)) for o in opp] + [agree])
    return (["network", "decisions / s", "against simple (Rummy: three)", "against expert (Rummy: three)",
             "its move is the teacher's (held-out positions)"], "lrllr", rows)


table("compressed", DynTable(
    _compressed_rows,
    note="Win rates: 2,000 duplicate games to the target on the deals of seed 20011 (Gin to 100, Rummy four players "
         "to 200), teacher and student on the same deals. Decisions per second: benchmarks/bench_agents.py, batches "
         "of 1,024, 5 in a row, one torch thread, teacher and student in the same run (the teachers as `--agent` rows). "
         "Agreement: the share of the held-out games' positions where the student's greedy move is the teacher's "
         "(the epoch kept; untrained, the student plays the argmax of its features)."))


# =======================================================================================
# ---------------------------------------------------------------------------------------
# README: results at a glance
# ---------------------------------------------------------------------------------------
def _speed(game: str, agent: str) -> Cell:
    """Decisions per second of ``agent`` (benchmarks/bench_agents.py --json)."""
    return VALUE(f"bench_agents/{game}.json", lambda d: d["decisions_per_second"][agent],
                 lambda x: fmt_int(round(x)))


_BASE = "docs/research/baselines.md"
_SEARCH = "docs/research/search.md"
_CARDS = "docs/models/"
table("glance", Table(
    ["game", "agent", "against simple", "against expert", "decisions / s", "evidence"],
    [
        ["Gin Rummy", "`expert`", WR(pairing("gin_expert_simple/results.json", "expert", "simple")), "",
         _speed("gin", "expert"), f"[baselines]({_BASE})"],
        ["Gin Rummy", "`search`", WR(pairing("search_simple/results.json", "search", "simple")),
         WR(pairing("search_expert/results.json", "search", "expert")), _speed("gin", "search"),
         f"[search]({_SEARCH})"],
        ["Gin Rummy", "`pretrained`", WR(_SHIP_GIN["simple"]), WR(_SHIP_GIN["expert"]), _speed("gin", "pretrained"),
         f"[model card]({_CARDS}gin.md)"],
        ["Gin Rummy", "`pretrained-plain`",
         WR(_SHIP_PLAIN["simple"]), WR(_SHIP_PLAIN["expert"]), _speed("gin", "pretrained-plain"), f"[model card]({_CARDS}gin-plain.md)"],
        ["Rummy, 4 players", "`expert`", WR(pairing("rummy_expert_simple/results.json", "expert", "simple")), "",
         _speed("rummy", "expert"), f"[baselines]({_BASE})"],
        ["Rummy, 4 players", "`planner`", WR(pairing("rummy_plan/planner_4000/results.json", "planner", "simple")),
         "", _speed("rummy", "planner"), f"[baselines]({_BASE})"],
        ["Rummy, 4 players", "`search`", "", WR(pool(*_RUMMY_SEARCH_GAMES)), _speed("rummy", "search"),
         f"[search]({_SEARCH})"],
        ["Rummy, 4 players", "`pretrained`",
         WR(_SHIP_RUMMY["simple"]), WR(_SHIP_RUMMY_EXPERT), _speed("rummy", "pretrained"), f"[model card]({_CARDS}rummy.md)"],
    ], align="llllrl",
    note="Gin: the agent against one opponent; Rummy: against three copies of it (chance 25%). "
         "An empty cell was not measured."))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true",
                    help="change nothing; exit 1 naming each page and table that differs from its JSON")
    ap.add_argument("--list", action="store_true", help="list the table specs, their JSON and pages")
    ap.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this checkout)")
    args = ap.parse_args(argv)
    if args.list:
        usage(args.root, TABLES)
        return 0
    return run(args.root, TABLES, check=args.check)


if __name__ == "__main__":
    sys.exit(main())
