"""References into the JSON under docs/results: a pairing of evaluate.py's results, an entry
of a list, a pool of pairings (their wins and games added, the interval recomputed)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path
from typing import Any

from rummyrl.stats import wilson_interval as wilson
from _gen.tables.formats import RESULTS_DIR, SpecError


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
