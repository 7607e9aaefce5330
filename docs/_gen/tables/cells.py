"""Cells: what a table's column shows of a reference (a win rate, its games, points per
hand, a value read by a function, a curve's points)."""

from __future__ import annotations

from typing import Any
from typing import Callable

from _gen.tables.formats import SpecError, fmt_ci, fmt_int, fmt_minutes, fmt_num, fmt_pct
from _gen.tables.refs import Context, Pairing, Ref, entry


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
