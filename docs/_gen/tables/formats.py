"""The tables' paths, markers and number formats: a win rate with its 95% Wilson interval as
``65.0% [62.9, 67.1]`` (the rounding of ``evaluate.py``'s own report), a win rate alone as
``65.0%``, counts with thousands separators."""

from __future__ import annotations

import re
from pathlib import Path


ROOT = Path(__file__).resolve().parents[3]
RESULTS_DIR = Path("docs") / "results"

OPEN_RE = re.compile(r"^\s*<!--\s*results:\s*([A-Za-z0-9_.\-]+)\s*-->\s*$")
CLOSE_RE = re.compile(r"^\s*<!--\s*/results\s*-->\s*$")
FENCE_RE = re.compile(r"^\s*(```|~~~)")


class SpecError(Exception):
    """A table spec that cannot be rendered from its JSON (missing file, no match, ...)."""


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
