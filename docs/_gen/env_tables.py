"""Generators: each game's observation layout and action table, read from its engine."""

from __future__ import annotations

import re

from _gen.common import warn
from _gen.markdown import BORDER_RE, docstring_of, md_table, rst_table
from _gen.source import one_line


def _game(name: str):
    from rummyrl import games

    return games.get(name)


def _range(sl: slice) -> str:
    return str(sl.start) if sl.stop - sl.start == 1 else f"{sl.start}-{sl.stop - 1}"


def _obs_meanings(engine) -> dict[str, str]:
    out = {}
    for const in ("OBS_PLANES", "OBS_SCALARS", "OBS_PARTS"):
        for item in getattr(engine, const, ()):
            out[item[0]] = item[-1]
    return out


def obs_high(game_name: str):
    """The upper bounds of each observation entry under the default rules (numpy array)."""
    from rummyrl import games

    g = _game(game_name)
    return games.load(g.observation_high)(g.make_config())


def gen_obs_table(game_name: str) -> str:
    """The flat observation of a game, part by part: index range, name, size, bounds and
    meaning, from the engine's ``OBS_LAYOUT`` and the meanings of its ``OBS_PLANES`` /
    ``OBS_SCALARS`` (Gin) or ``OBS_PARTS`` (Rummy)."""
    g = _game(game_name)
    eng = g.engine
    meanings = _obs_meanings(eng)
    high = obs_high(game_name)
    rows = []
    covered = 0
    for name, sl in eng.OBS_LAYOUT.items():
        if sl.start != covered:
            warn(f"{eng.__name__}.OBS_LAYOUT leaves a gap before {name!r} ({covered}..{sl.start - 1})")
        covered = sl.stop
        size = sl.stop - sl.start
        size_txt = f"{size}\u00a0({size // 52}\u00a0×\u00a052)" if size > 52 and size % 52 == 0 else str(size)
        top = float(high[sl].max())
        bound = f"0 – {top:.3g}"
        meaning = meanings.get(name)
        if meaning is None:
            warn(f"{eng.__name__}: observation part {name!r} has no meaning in OBS_PLANES/OBS_SCALARS/OBS_PARTS")
            meaning = ""
        rows.append([_range(sl), f"`{name}`", size_txt, bound, meaning])
    if covered != eng.OBS_DIM:
        warn(f"{eng.__name__}.OBS_LAYOUT covers {covered} entries, OBS_DIM is {eng.OBS_DIM}")
    table = md_table(["index", "name", "size", "values", "meaning"], rows, ["", "", "r", "", ""])
    return (table + f"\n\n`{eng.__name__}.OBS_DIM` = {eng.OBS_DIM}: {len(eng.OBS_LAYOUT)} parts. "
            f"`{eng.__name__}.OBS_LAYOUT[name]` is each part's slice; the values column is the upper "
            f"bound of the observation space under the default rules.")


def _engine_action_meanings(engine) -> dict[str, str]:
    """Constant name -> meaning, from the engine docstring's reST table of actions."""
    doc = docstring_of(engine)
    lines = doc.split("\n")
    out = {}
    for i, line in enumerate(lines):
        if BORDER_RE.match(line) and i + 1 < len(lines) and lines[i + 1].split()[:1] == ["name"]:
            j, borders = i, 0
            while j < len(lines) and borders < 3:
                borders += bool(BORDER_RE.match(lines[j]))
                j += 1
            header, rows = rst_table(lines[i:j])
            for r in rows:
                m = re.match(r"``(\w+)", r[0])
                if m:
                    out[m.group(1)] = one_line(r[-1])
            break
    return out


def action_blocks(game_name: str) -> list[tuple[str, int, int, str]]:
    """(constant, first id, last id, meaning) of each block of actions, from the engine's
    constants (``DRAW_STOCK``, ``DISCARD``, ``KNOCK``, ...) and its docstring's meanings."""
    eng = _game(game_name).engine
    meanings = _engine_action_meanings(eng)
    if not meanings:
        warn(f"{eng.__name__}: no reST table of actions (name, ids, meaning) in its docstring")
    starts = []
    for name in meanings:
        if not hasattr(eng, name):
            warn(f"{eng.__name__}'s docstring names the action {name}, which is no constant of it")
            continue
        starts.append((int(getattr(eng, name)), name))
    starts.sort()
    blocks = []
    for k, (a, name) in enumerate(starts):
        end = (starts[k + 1][0] if k + 1 < len(starts) else eng.NUM_ACTIONS) - 1
        blocks.append((name, a, end, meanings[name]))
    expect = 0
    for name, a, end, _ in blocks:
        if a != expect:
            warn(f"{eng.__name__}: actions {expect}..{a - 1} belong to no documented block (before {name})")
        expect = end + 1
    if expect != eng.NUM_ACTIONS:
        warn(f"{eng.__name__}: the documented actions end at {expect - 1}, NUM_ACTIONS is {eng.NUM_ACTIONS}")
    return blocks


def gen_action_table(game_name: str) -> str:
    """The action space of a game: each block's constant, ids, an example from
    ``action_name`` and its meaning."""
    eng = _game(game_name).engine
    rows = []
    for name, a, end, meaning in action_blocks(game_name):
        n = end - a + 1
        ids = str(a) if n == 1 else f"{a}..{end}"
        label = f"`{name}`" if n == 1 else f"`{name} + i` ({n})"
        ex = f"`{eng.action_name(a)}`" if n == 1 else f"`{a}`: {eng.action_name(a)} … `{end}`: {eng.action_name(end)}"
        rows.append([label, ids, ex, meaning])
    return (md_table(["action", "ids", "example (`action_name`)", "meaning"], rows)
            + f"\n\n`{eng.__name__}.NUM_ACTIONS` = {eng.NUM_ACTIONS}; "
              f"`{eng.__name__}.action_name(a)` gives the text of any action.")
