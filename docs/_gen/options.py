"""Generators: settings dataclasses as tables of fields, agent options, docstrings and
signatures by dotted name."""

from __future__ import annotations

import dataclasses
import inspect
import re
import typing
from pathlib import Path

from _gen.common import warn
from _gen.markdown import BORDER_RE, docstring_of, md_table, rst_table, rst_to_markdown
from _gen.source import _default, field_docs, fmt_value, obj, one_line
from rummyrl.settings import describe


def gen_docstring(dotted: str, skip_title: str = "") -> str:
    """An object's docstring as Markdown (reST converted, section titles kept as bold lines).
    ``skip_title=1`` drops its first line (the summary)."""
    text = docstring_of(obj(dotted))
    if skip_title:
        text = text.split("\n", 1)[1] if "\n" in text else ""
    return rst_to_markdown(text.strip())


def gen_docstring_box(dotted: str, title: str, kind: str = "???") -> str:
    """An object's docstring in a collapsible box titled ``title`` (``kind``: ``???`` shut,
    ``???+`` open, ``!!!`` not collapsible)."""
    body = gen_docstring(dotted)
    inner = "\n".join(("    " + l) if l.strip() else "" for l in body.split("\n"))
    return f'{kind} note "{title}"\n\n{inner}'


def gen_value(dotted: str, join: str = "") -> str:
    """A constant's value as inline code (``join``: a list's items joined by that text)."""
    v = obj(dotted)
    if join and isinstance(v, (list, tuple)):
        return "`" + join.join(str(x) for x in v) + "`"
    return f"`{v!r}`"


def gen_signature(dotted: str) -> str:
    """A callable's signature as a Python block."""
    o = obj(dotted)
    target = o.__init__ if inspect.isclass(o) else o
    sig = inspect.signature(target)
    params = [p for p in sig.parameters.values() if p.name != "self"]
    name = dotted
    body = ",\n    ".join(str(p) for p in params)
    return f"```python\n{name}(\n    {body},\n)\n```"


def gen_config_table(dotted, style: str = "python", prefix: str = "", only: str = "") -> str:
    """One dataclass's fields (``dotted``: its dotted name, or the class): name (with
    ``prefix``), type, default and the docstring under the field (``only``: the
    comma-separated fields to show, in the class's order). A field without a docstring is a
    warning. A field that is a dataclass itself points to its own table."""
    cls = obj(dotted) if isinstance(dotted, str) else dotted
    dotted = f"{cls.__module__}.{cls.__qualname__}"
    docs = field_docs(cls)
    rows = []
    names = {n.strip() for n in only.split(",") if n.strip()}
    unknown = names - {f.name for f in dataclasses.fields(cls)}
    if unknown:
        warn(f"config_table {dotted}: no field(s) {sorted(unknown)}")
    for f in dataclasses.fields(cls):
        if names and f.name not in names:
            continue
        d = docs.get(f.name, {})
        text = d.get("doc") or d.get("comment") or ""
        if not text:
            warn(f"{dotted}.{f.name} has no docstring: the docs show every config field with its documentation")
        default = _default(f)
        if dataclasses.is_dataclass(default):
            shown = f"[section `{f.name}`](#{f.name})"
        elif default is dataclasses.MISSING:
            shown = "(required)"
        else:
            shown = f"`{fmt_value(default, style)}`"
        typ, allowed = type_and_range(cls, f.name, d.get("type", ""))
        rows.append([f"`{prefix}{f.name}`", f"`{typ}`", allowed, shown, one_line(text)])
    return md_table(["field", "type", "allowed", "default", "meaning"], rows)


def type_and_range(cls, name: str, written: str) -> tuple[str, str]:
    """A field's type and what it allows, as a settings class declares them (rummyrl.settings:
    the range of an ``Int``/``Float``, the choices of a ``Literal``); other classes' fields
    show their annotation as written."""
    info = getattr(cls, "__pydantic_fields__", {}).get(name)
    if info is None:
        return written, ""
    ann = info.annotation
    if typing.get_origin(ann) is typing.Literal:
        return "str", ", ".join(f"`{a}`" for a in typing.get_args(ann))
    shown = ann.__name__ if isinstance(ann, type) else str(ann).replace("typing.", "")
    return shown, describe(info.metadata)


def gen_search_options() -> str:
    """search's options for each game: defaults from the registry (``SEARCH_DEFAULTS`` and
    each game's ``search_defaults``), meanings from ``agents/search.py``'s table."""
    from rummyrl import games
    from rummyrl.agents import search

    doc = docstring_of(search).split("\n")
    meanings = {}
    for i, line in enumerate(doc):
        if BORDER_RE.match(line) and i + 1 < len(doc) and doc[i + 1].split()[:1] == ["option"]:
            j, borders = i, 0
            while j < len(doc) and borders < 3:
                borders += bool(BORDER_RE.match(doc[j]))
                j += 1
            for r in rst_table(doc[i:j])[1]:
                m = re.match(r"``(\w+)``", r[0])
                if m:
                    meanings[m.group(1)] = one_line(r[-1])
    names = list(games.names())
    per_game = {n: {**games.SEARCH_DEFAULTS, **games.get(n).search_defaults} for n in names}
    options = []
    for n in names:
        options += [k for k in per_game[n] if k not in options]
    rows = []
    for k in options:
        kinds = {per_game[n][k][0].__name__ for n in names if k in per_game[n]}
        cells = [f"`{k}`", "/".join(sorted(kinds))]
        for n in names:
            cells.append(f"`{fmt_value(per_game[n][k][1], 'yaml')}`" if k in per_game[n] else "—")
        meaning = meanings.get(k)
        if meaning is None:
            only = [games.get(n).title for n in names if k in per_game[n]]
            meaning = f"{' and '.join(only)} only; see the module docstring of `agents/search.py` " \
                      f"and the belief sampler (`{games.get(names[-1]).beliefs.__name__}`)" if len(only) < len(names) \
                else "(see `agents/search.py`)"
        cells.append(meaning)
        rows.append(cells)
    return md_table(["option", "type"] + [f"{games.get(n).title} default" for n in names] + ["meaning"], rows)


def gen_agents_matrix() -> str:
    """Which agent names load in which game (``load_agent``), and whether they take options."""
    from rummyrl import games
    from rummyrl.agents import loading

    names = loading.agent_names()
    rows = []
    for a in names:
        cells = [f"`{a}`"]
        for g in games.names():
            entry = games.get(g)
            if a in ("random", "search"):
                ok = True
            elif a == "pretrained":
                from rummyrl.agents.checkpoint import pretrained_path

                ok = Path(pretrained_path(g)).is_file()
            else:
                ok = a in entry.agents
            cells.append("yes" if ok else "—")
        cells.append(f"`{a}:key=value,...`" if a in loading._WITH_OPTIONS else "—")
        rows.append(cells)
    return md_table(["name"] + [games.get(g).title for g in games.names()] + ["options"], rows)
