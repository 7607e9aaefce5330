"""The generated parts of the documentation site: a MkDocs hook and a griffe extension.

``mkdocs.yml`` loads this file twice: as a *hook* (``hooks:``), whose events fill the pages,
and as a *griffe extension* of mkdocstrings (``extensions:``), which turns the reST of the
library's docstrings into Markdown for the API reference. ``docs/README.md`` explains both.

Markers
    A page asks for a generated part with a line of its own (outside fenced code)::

        <!-- gen: NAME ARG ... -->

    and the hook replaces that line, at build time, with what ``GENERATORS[NAME](*ARGS)``
    returns (Markdown). Every table of spaces, observation layout, actions, rewards, config
    fields, agent options, TensorBoard keys and the results.json schema comes from the
    code this way, so it cannot drift from it. A generator that finds something it cannot
    describe (a config field without a docstring, a TensorBoard key without a meaning here)
    logs a warning, which fails ``mkdocs build --strict`` (and ``tests/docs/test_docs.py``).

Rule ids
    Every rule id of ``docs/rules.md`` (``G-6``, ``R-7``, ``C-4``, ...) in a page's prose, and
    in the docstrings of the API reference, becomes a link to its heading in the rule book.

Other events
    ``on_config`` lays out ``build/docs_api/rummyrl``, a tree of links that puts ``envs/`` and
    ``agents/`` where their import names say (``rummyrl.envs``, ``rummyrl.agents``), so
    griffe finds every module from source, and lists under "Research" any page of
    ``docs/research/`` that the nav of ``mkdocs.yml`` does not; ``on_files`` adds the notebooks of
    ``notebooks/`` (rendered by mkdocs-jupyter from their stored outputs, never executed)
    and ``docs/README.md`` as the page ``contributing-docs.md``.

Run as a script it prints one generated part, to look at it without a build::

    python scripts/docs_gen.py obs_table gin
    python scripts/docs_gen.py --list
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import importlib
import inspect
import io
import json
import logging
import os
import posixpath
import re
import shutil
import shlex
import sys
from contextlib import redirect_stdout
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: where on_config lays out the source tree that griffe reads (mkdocs.yml: ``paths``)
API_TREE = ROOT / "build" / "docs_api"

log = logging.getLogger("mkdocs.hooks.docs_gen")

MARKER_RE = re.compile(r"^\s*<!--\s*gen:\s*(\w+)(.*?)-->\s*$")
FENCE_RE = re.compile(r"^\s*(```|~~~)")
#: a rule id as docs/rules.md defines them (tests/docs/test_rulebook.py: ID_RE)
RULE_ID_RE = re.compile(r"(?<![\w\-/#])([CGR]-\d+[a-z]?)(?![\w\-])")
RULE_HEAD_RE = re.compile(r"^### ([CGR]-\d+[a-z]?) \S.*$", re.M)


def warn(msg: str) -> None:
    """A problem the docs must not hide: a warning fails ``mkdocs build --strict``."""
    log.warning("docs_gen: %s", msg)


# ======================================================================================
# reST (as the library's docstrings write it) -> Markdown
# ======================================================================================
ROLE_RE = re.compile(r":(?:py:)?(?:func|class|meth|data|attr|mod|exc|obj|const):`(~?)([^`]+)`")
BORDER_RE = re.compile(r"^(\s*)(=+)((?:\s+=+)+)\s*$")
SETEXT_RE = re.compile(r"^\s*(-{3,}|={3,})\s*$")
ATX_RE = re.compile(r"^(\s*)#{1,6}\s+(.*?)\s*#*\s*$")
SHELL_START = ("python ", "bash ", "pip ", ".venv/", "$ ", "ray ", "tensorboard ", "rummyrl-")


def _role(m: re.Match) -> str:
    target = m.group(2).strip()
    if target.startswith("."):
        target = target.lstrip(".")
    if m.group(1) == "~":
        target = target.split(".")[-1]
    return f"`{target}`"


def convert_roles(text: str) -> str:
    """``:func:`init``` -> `` `init` ``; ``:class:`~a.b.C``` -> `` `C` ``; reST's double
    backticks as Markdown's single ones."""
    return re.sub(r"``([^`]+)``", r"`\1`", ROLE_RE.sub(_role, text))


def _cells(line: str, starts: list[int]) -> list[str]:
    out = []
    for i, s in enumerate(starts):
        e = starts[i + 1] if i + 1 < len(starts) else len(line)
        out.append(line[s:e].strip() if s < len(line) else "")
    return out


def _md_cell(text: str) -> str:
    # a pipe outside inline code would split the cell
    parts = re.split(r"(`+[^`]*`+)", text)
    return "".join(p if p.startswith("`") else p.replace("|", "\\|") for p in parts)


def rst_table(lines: list[str]) -> tuple[list[str], list[list[str]]]:
    """A reST *simple table* (``===  ===`` borders) as (header, rows); a row whose first
    cell is empty continues the row above it."""
    starts = [m.start() for m in re.finditer(r"=+", lines[0])]
    header, rows, borders = None, [], 0
    for line in lines:
        if BORDER_RE.match(line):
            borders += 1
            continue
        if not line.strip():
            continue
        cells = _cells(line, starts)
        if borders == 1:
            header = cells if header is None else [f"{a} {b}".strip() for a, b in zip(header, cells)]
        elif cells[0] == "" and rows:
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells)]
        else:
            rows.append(cells)
    return header or [], rows


def md_table(header: list[str], rows: list[list[str]], align: list[str] | None = None) -> str:
    """Markdown table text; ``align`` per column: ``""`` or ``"r"``."""
    align = align or [""] * len(header)
    out = ["| " + " | ".join(_md_cell(h) for h in header) + " |",
           "| " + " | ".join("---:" if a == "r" else "---" for a in align) + " |"]
    out += ["| " + " | ".join(_md_cell(str(c)) for c in r) + " |" for r in rows]
    return "\n".join(out)


def rst_to_markdown(text: str, demote_headings: bool = True) -> str:
    """The reST of the library's docstrings as Markdown: roles as inline code, simple tables
    as Markdown tables, ``::`` and indented blocks as fenced code, and (``demote_headings``)
    section titles as bold lines, so that a docstring adds no entry to a page's contents."""
    lines = text.split("\n")
    out: list[str] = []
    i, n = 0, len(lines)
    in_fence = False
    while i < n:
        line = lines[i]
        if FENCE_RE.match(line):
            in_fence = not in_fence
            out.append(line)
            i += 1
            continue
        if in_fence:
            out.append(line)
            i += 1
            continue
        # simple table: top border, header, border, rows, bottom border
        if BORDER_RE.match(line) and len(re.findall(r"=+", line)) >= 2:
            j, borders = i, 0
            while j < n and (borders < 3):
                if BORDER_RE.match(lines[j]):
                    borders += 1
                elif not lines[j].strip() and borders >= 2:
                    break
                j += 1
            if borders == 3:
                header, rows = rst_table(lines[i:j])
                indent = BORDER_RE.match(line).group(1)
                table = md_table([convert_roles(h) for h in header],
                                 [[convert_roles(c) for c in r] for r in rows]).split("\n")
                if out and out[-1].strip():
                    out.append("")
                out += [indent + t for t in table]
                out.append("")
                i = j
                continue
        # setext title: "Title" over "-----"
        if (demote_headings and i + 1 < n and line.strip() and not line.startswith(" ")
                and SETEXT_RE.match(lines[i + 1]) and not BORDER_RE.match(lines[i + 1].replace("-", "="))
                and len(lines[i + 1].strip()) >= min(3, len(line.strip()))):
            out.append(f"**{convert_roles(line.strip())}**")
            out.append("")
            i += 2
            continue
        m = ATX_RE.match(line)
        if demote_headings and m and line.lstrip().startswith("#"):
            out.append(f"{m.group(1)}**{convert_roles(m.group(2))}**")
            i += 1
            continue
        # "text::" ends a paragraph before a literal block: keep the colon, lose the marker
        if line.rstrip().endswith("::"):
            stripped = line.rstrip()[:-2].rstrip()
            if stripped:
                out.append(convert_roles(stripped) + ":")
            i += 1
            continue
        # an indented block after a blank line is code (as Markdown would read it): fence it
        if not line.strip():
            j = i
            while j < n and not lines[j].strip():
                j += 1
            prev = next((p for p in reversed(out) if p.strip()), None)
            base = _indent(prev) if prev is not None else 0
            if (j < n and prev is not None and _indent(lines[j]) >= base + 4
                    and not prev.lstrip().startswith(("|", "```", "~~~"))):
                k = j
                while k < n and (not lines[k].strip() or _indent(lines[k]) >= base + 4):
                    k += 1
                while k > j and not lines[k - 1].strip():
                    k -= 1
                block = lines[j:k]
                cut = min(_indent(b) for b in block if b.strip())
                body = [b[cut:] for b in block]
                shell = all(b.lstrip().startswith(SHELL_START + ("#",)) or not b.strip() for b in body)
                pad = " " * base
                out += ["", f"{pad}```{'bash' if shell else 'python'}"]
                out += [(pad + b) if b.strip() else "" for b in body]
                out += [f"{pad}```", ""]
                i = k
                continue
        out.append(convert_roles(line))
        i += 1
    return _join_code_spans(_squeeze_blank_lines(out).strip("\n"))


def _squeeze_blank_lines(lines: list[str]) -> str:
    """The lines joined, runs of blank lines outside fenced code cut to one."""
    kept, in_fence = [], False
    for line in lines:
        if FENCE_RE.match(line):
            in_fence = not in_fence
        if not in_fence and not line.strip() and kept and not kept[-1].strip():
            continue
        kept.append(line)
    return "\n".join(kept)


def _join_code_spans(text: str) -> str:
    """reST's ````code```` that runs over a line break, as one Markdown code span (outside
    fenced code)."""
    parts = re.split(r"(^\s*```.*?^\s*```[^\n]*$)", text, flags=re.M | re.S)
    for k in range(0, len(parts), 2):
        parts[k] = re.sub(r"``(.+?)``", lambda m: "`" + re.sub(r"\s*\n\s*", " ", m.group(1)) + "`",
                          parts[k], flags=re.S)
    return "".join(parts)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def docstring_of(obj) -> str:
    """The cleaned docstring of a module, class or function ("" when it has none)."""
    return inspect.cleandoc(obj.__doc__ or "")


# ======================================================================================
# Rule ids -> links into docs/rules.md
# ======================================================================================
@functools.lru_cache(maxsize=None)
def rule_anchors() -> dict[str, str]:
    """Rule id -> the anchor MkDocs gives its heading in docs/rules.md (toc's slugify)."""
    from markdown.extensions.toc import slugify

    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    out = {}
    for m in RULE_HEAD_RE.finditer(text):
        out[m.group(1)] = slugify(m.group(0)[4:].strip(), "-")
    return out


#: spans of a Markdown line that must stay as they are: code, links, images, HTML
PROTECT_RE = re.compile(r"(`+).+?\1|!?\[[^\]]*\]\([^)]*\)|!?\[[^\]]*\]\[[^\]]*\]|<[^>]+>")


def link_rule_ids(markdown: str, rules_href: str, autoref: bool = False) -> str:
    """Each rule id in prose as a link to its heading: ``[G-6](rules_href#g-6-knock)``
    (``autoref``: ``[G-6][g-6-knock]``, which mkdocs-autorefs resolves on any page)."""
    anchors = rule_anchors()

    def link(m: re.Match) -> str:
        rid = m.group(1)
        if rid not in anchors:
            return rid
        return f"[{rid}][{anchors[rid]}]" if autoref else f"[{rid}]({rules_href}#{anchors[rid]})"

    out, in_fence, in_comment = [], False, False
    for line in markdown.split("\n"):
        if FENCE_RE.match(line):
            in_fence = not in_fence
            out.append(line)
            continue
        if in_comment or "<!--" in line:
            in_comment = ("<!--" in line and "-->" not in line.split("<!--")[-1]) or (in_comment and "-->" not in line)
            out.append(line)
            continue
        if in_fence or line.lstrip().startswith(("#", ":::")):
            out.append(line)
            continue
        pieces, last = [], 0
        for m in PROTECT_RE.finditer(line):
            pieces.append(RULE_ID_RE.sub(link, line[last:m.start()]))
            pieces.append(m.group(0))
            last = m.end()
        pieces.append(RULE_ID_RE.sub(link, line[last:]))
        out.append("".join(pieces))
    return "\n".join(out)


# ======================================================================================
# Helpers that read the code
# ======================================================================================
def obj(dotted: str):
    """``"rummyrl.gin.GinConfig"`` -> the object (module, class, function)."""
    try:
        return importlib.import_module(dotted)
    except ImportError:
        module, _, name = dotted.rpartition(".")
        return getattr(obj(module), name)


def source_file(o) -> str:
    """``rummyrl/gin.py``: the object's file relative to the repository."""
    path = Path(inspect.getsourcefile(o)).resolve()
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return path.name


@functools.lru_cache(maxsize=None)
def _class_node(cls) -> tuple[ast.ClassDef, list[str]]:
    src = inspect.getsource(cls)
    lines = src.splitlines()
    tree = ast.parse(inspect.cleandoc("\n" + src) if src[:1].isspace() else src)
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls.__name__)
    return node, lines


def field_docs(cls) -> dict[str, dict]:
    """Per dataclass field of ``cls`` (its bases' first): ``type`` (the annotation as
    written), ``doc`` (the string literal under the field) and ``comment`` (a ``#`` comment
    on its line)."""
    out: dict[str, dict] = {}
    for base in reversed(cls.__mro__):
        if not dataclasses.is_dataclass(base) or base is object:
            continue
        try:
            node, lines = _class_node(base)
        except (OSError, TypeError, StopIteration):
            continue
        body = node.body
        for k, stmt in enumerate(body):
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                name = stmt.target.id
                doc = ""
                if k + 1 < len(body) and isinstance(body[k + 1], ast.Expr) and \
                        isinstance(getattr(body[k + 1], "value", None), ast.Constant) and \
                        isinstance(body[k + 1].value.value, str):
                    doc = inspect.cleandoc(body[k + 1].value.value)
                line = lines[stmt.lineno - 1] if stmt.lineno - 1 < len(lines) else ""
                comment = line.split("  # ", 1)[1].strip() if "  # " in line else ""
                out[name] = {"type": ast.unparse(stmt.annotation), "doc": doc, "comment": comment}
    return out


def _default(f: dataclasses.Field):
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:
        return f.default_factory()
    return dataclasses.MISSING


def fmt_value(v, style: str = "python") -> str:
    """A default as a reader types it: Python (``None``, ``True``, ``"gin"``) or YAML
    (``null``, ``true``, ``gin``) for the training config."""
    if style == "yaml":
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, str):
            return '""' if v == "" else v
        if isinstance(v, list):
            return "[" + ", ".join(fmt_value(x, style) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ", ".join(f"{k}: {fmt_value(x, style)}" for k, x in v.items()) + "}"
    if isinstance(v, float):
        return str(int(v)) if v.is_integer() and abs(v) >= 1e5 else repr(v)
    if isinstance(v, str):
        return f'"{v}"'
    return repr(v)


def one_line(text: str) -> str:
    """A docstring as one table cell: reST converted, lines joined."""
    md = rst_to_markdown(text)
    return " ".join(part.strip() for part in md.split("\n") if part.strip())


# ======================================================================================
# Generators: environments
# ======================================================================================
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


def _box(space) -> str:
    import numpy as np

    return f"`Box({float(np.min(space.low)):g}, {float(np.max(space.high)):g}, {space.shape}, {space.dtype})`"


def _space(space) -> str:
    from gymnasium import spaces

    if isinstance(space, spaces.Dict):
        return "`Dict(" + ", ".join(f'"{k}": ' + _space(v).strip("`") for k, v in space.spaces.items()) + ")`"
    if isinstance(space, spaces.Box):
        return _box(space)
    return f"`{space}`"


#: each game's PettingZoo module and batched classes (the registry names neither)
PETTINGZOO_MODULES = {"gin": "rummyrl.envs.gin_rummy_v0", "rummy": "rummyrl.envs.rummy_v0"}
BATCHED_CLASSES = {"gin": ("rummyrl.envs.gin_vector.GinSelfPlay", "rummyrl.envs.gin_vector.GinRummyVectorEnv"),
                   "rummy": ("rummyrl.envs.rummy_vector.RummySelfPlay", "rummyrl.envs.rummy_vector.RummyVectorEnv")}


def gen_spaces(kind: str, game_name: str) -> str:
    """The table of spaces at the top of an environment's page, from a live environment
    with the default arguments."""
    import gymnasium
    import numpy as np

    import rummyrl.envs as envs

    g = _game(game_name)
    rows = []
    if kind == "pettingzoo":
        module = PETTINGZOO_MODULES[g.name]
        env = obj(module).raw_env()
        a0 = env.possible_agents[0]
        obs, act = env.observation_space(a0), env.action_space(a0)
        high = obs["observation"].high
        rows = [
            ["Import", f"`from rummyrl.envs import {module.rsplit('.', 1)[1]}`"],
            ["Actions", type(act).__name__],
            ["Parallel API", "Yes" if env.metadata.get("is_parallelizable") else
             "No (a turn is several actions: turns do not alternate action by action)"],
            ["Manual control", "No (`python -m rummyrl.agents.play` is a terminal game against an agent)"],
            ["Agents", f"`{env.possible_agents}`" + ("" if g.min_players == g.max_players else
                                                      f" (`num_players={g.default_players}`, the default)")],
            ["Number of agents", str(g.min_players) if g.min_players == g.max_players
             else f"{g.min_players} to {g.max_players}"],
            ["Action shape", f"`{act}`"],
            ["Action values", f"0 .. {act.n - 1}"],
            ["Observation shape", f"`{obs['observation'].shape}`, {obs['observation'].dtype}, plus an action mask "
                                  f"`{obs['action_mask'].shape}`, {obs['action_mask'].dtype}"],
            ["Observation values", f"0 .. {float(np.max(high)):.3g} (each part's bounds: the table below)"],
            ["Observation space", _space(obs)],
        ]
    elif kind == "gymnasium":
        env_id = {"gin": envs.GIN_ENV_ID, "rummy": envs.RUMMY_ENV_ID}[g.name]
        spec = gymnasium.spec(env_id)
        env = gymnasium.make(env_id)
        rows = [
            ["Make", f'`gymnasium.make("{env_id}")` (after `import rummyrl.envs`)'],
            ["Class", f"`{spec.entry_point.replace(':', '.')}`"],
            ["Vector class", f"`{spec.vector_entry_point.replace(':', '.')}` (`gymnasium.make_vec`)"],
            ["Action space", f"`{env.action_space}`"],
            ["Observation space", _space(env.observation_space)],
            ["Players", f"{g.default_players}" if g.min_players == g.max_players else
             f"{g.min_players} to {g.max_players} (`num_players`, default {g.default_players}): the learner and "
             f"{g.default_players - 1} opponents"],
        ]
        env.close()
    elif kind == "batched":
        from rummyrl.envs.batched import SelfPlay

        selfplay, vector = BATCHED_CLASSES[g.name]
        env = SelfPlay(g.name, num_envs=4)
        batch = env.reset(seed=0)
        vec = obj(vector)(num_envs=4)
        rows = [
            ["Self-play class", f"`{selfplay}` (`rummyrl.envs.batched.SelfPlay(\"{g.name}\", ...)`)"],
            ["`batch.player`, `.obs`, `.mask`", f"`{batch.player.shape}` {batch.player.dtype}, "
                                                 f"`{batch.obs.shape}` {batch.obs.dtype}, `{batch.mask.shape}` {batch.mask.dtype} (B = 4)"],
            ["`batch.rewards`", f"`{batch.rewards.shape}` {batch.rewards.dtype}: one column per seat"],
            ["`batch.final`", ", ".join(f"`{k}`" for k in batch.final)],
            ["Vector env", f"`{type(vec).__module__}.{type(vec).__name__}`"],
            ["Vector spaces (B = 4)", f"action `{vec.action_space}`, observation {_space(vec.observation_space)}"],
        ]
        vec.close()
    else:
        raise ValueError(f"spaces: kind must be pettingzoo, gymnasium or batched, got {kind!r}")
    return md_table(["", ""], rows)


def gen_rewards(game_name: str) -> str:
    """The reward schemes of a game: the table of its rewards module's docstring, and its
    scheme names and scales from the code."""
    from rummyrl import games

    g = _game(game_name)
    cls = games.load(g.rewards)
    module = importlib.import_module(cls.__module__)
    doc = rst_to_markdown(docstring_of(module))
    return doc + "\n\n" + gen_reward_scales(game_name)


def gen_reward_scales(game_name: str) -> str:
    """One line: a game's reward scheme names and scales, from its reward class."""
    from rummyrl import games

    g = _game(game_name)
    cls = games.load(g.rewards)
    module = importlib.import_module(cls.__module__)
    schemes = ", ".join(f"`{s}`" for s in cls.schemes())
    consts = [f"`{k} = {getattr(module, k):g}`" for k in dir(module) if k.endswith("_SCALE") and not k.startswith("_")]
    return (f"From the code: the schemes are {schemes} (`{cls.__module__}.SCHEMES`, computed by "
            f"`{cls.__module__}.{cls.__name__}`); {', '.join(consts)}.")


def gen_rule_options(game_name: str) -> str:
    """The rule options of a game: its engine config's fields, defaults and docstrings."""
    cls = _game(game_name).config_cls
    return gen_config_table(f"{cls.__module__}.{cls.__name__}", "python")


def _split_sections(doc: str) -> tuple[str, list[tuple[str, str]]]:
    parts = re.split(r"^## (.+)$", doc, flags=re.M)
    return parts[0], [(parts[k].strip(), parts[k + 1]) for k in range(1, len(parts), 2)]


def _first_table(text: str) -> tuple[str, list[str], str]:
    """(before, table lines, after) of the first Markdown table in ``text``."""
    lines = text.split("\n")
    start = next((k for k, l in enumerate(lines) if l.lstrip().startswith("|")), None)
    if start is None:
        return text, [], ""
    end = start
    while end < len(lines) and lines[end].lstrip().startswith("|"):
        end += 1
    return "\n".join(lines[:start]), lines[start:end], "\n".join(lines[end:])


def _table_rows(table: list[str]) -> list[list[str]]:
    rows = [[c.strip() for c in re.split(r"(?<!\\)\|", l.strip())[1:-1]] for l in table]
    return [r for r in rows[2:]] if len(rows) > 2 else []


def _check_obs_rows(module: str, game_name: str, rows: list[list[str]]) -> None:
    """The docstring's hand-written layout table against OBS_LAYOUT (drift is a warning)."""
    layout = _game(game_name).engine.OBS_LAYOUT
    named = set()
    for r in rows:
        m = re.match(r"(\d+)", r[0])
        names = re.findall(r"`(\w+)`", r[1])
        named.update(names)
        if m and names and names[0] in layout and layout[names[0]].start != int(m.group(1)):
            warn(f"{module}: its observation table puts {names[0]!r} at {m.group(1)}, "
                 f"OBS_LAYOUT at {layout[names[0]].start}")
    missing = [k for k in layout if k not in named]
    if missing:
        warn(f"{module}: its observation table does not list {missing} (OBS_LAYOUT does)")


def _check_action_rows(module: str, game_name: str, header: list[str], rows: list[list[str]]) -> None:
    col = next((k for k, h in enumerate(header) if h.strip("` ") == "ids"), 0)
    starts = {a for _, a, _, _ in action_blocks(game_name)}
    found = set()
    for r in rows:
        m = re.match(r"\s*(\d+)", r[col])
        if m:
            found.add(int(m.group(1)))
    if found != starts:
        warn(f"{module}: its action table starts blocks at {sorted(found)}, the constants at {sorted(starts)}")


def gen_env_page(module: str) -> str:
    """A PettingZoo environment's page: its module docstring (PettingZoo's format), with the
    table of spaces, the observation layout and the action table generated from the code
    (the docstring's own tables are checked against it), and its rule options appended to
    the arguments."""
    mod = obj(module)
    game_name = mod.raw_env.game.name
    doc = docstring_of(mod)
    pre, sections = _split_sections(doc)
    before, _, after = _first_table(pre)
    src = source_file(mod)
    out = [before.rstrip(), "", gen_spaces("pettingzoo", game_name), "", after.strip(), "",
           f'!!! info "Generated"\n    This page is the docstring of `{src}`; its tables of spaces, observation '
           f"and actions are generated from the code at build time (`OBS_LAYOUT`, the action constants), "
           f"so they match the installed version."]
    for title, body in sections:
        out += ["", f"## {title}", ""]
        if title.startswith("Observation"):
            b, table, a = _first_table(body)
            if table:
                _check_obs_rows(module, game_name, _table_rows(table))
            out += [b.strip(), "", gen_obs_table(game_name), "", a.strip()]
        elif title.startswith("Action"):
            b, table, a = _first_table(body)
            if table:
                header = [c.strip() for c in table[0].strip().strip("|").split("|")]
                _check_action_rows(module, game_name, header, _table_rows(table))
            out += [b.strip(), "", gen_action_table(game_name), "", a.strip(), "", "## Action mask", "",
                    gen_action_mask(module)]
        elif title.startswith("Reward"):
            out += [body.strip(), "", gen_reward_scales(game_name)]
        elif title.startswith("Arguments"):
            cls = _game(game_name).config_cls
            out += [body.strip(), "", f"### Rule options (`{cls.__name__}`)", "", gen_rule_options(game_name)]
        else:
            out.append(body.strip())
    return "\n".join(out).rstrip() + "\n"


def gen_action_mask(module: str) -> str:
    """The action mask of a PettingZoo environment: its space, from a live environment."""
    env = obj(module).raw_env()
    space = env.observation_space(env.possible_agents[0])["action_mask"]
    return (f'`observe(agent)["action_mask"]` is a {_box(space)}: 1 for each action that is legal for '
            f"`agent` now, 0 for the others, and all 0 when it is not `agent`'s turn or the episode is over. "
            f"It is the engine's own mask (`state.mask`), computed by the rules of the phase, so it is exact: "
            f"every action it allows is legal, and stepping any other raises (`raw_env`) or ends the episode "
            f"(`env()`), as [below](#illegal-moves-and-episode-ends). Sample from it, or mask the logits with it.")


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


# ======================================================================================
# Generators: config dataclasses and agent options
# ======================================================================================
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
        rows.append([f"`{prefix}{f.name}`", f"`{d.get('type', '')}`", shown, one_line(text)])
    return md_table(["field", "type", "default", "meaning"], rows)


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


# ======================================================================================
# Generators: training
# ======================================================================================
def metric_meanings() -> dict[str, str]:
    """The meaning of every TensorBoard key the training code logs, by its pattern in the code:
    the ``METRICS`` that each module of ``rummyrl/training`` keeps beside the code that logs them."""
    out = {}
    for path in sorted((ROOT / "rummyrl" / "training").glob("*.py")):
        out.update(getattr(importlib.import_module(f"rummyrl.training.{path.stem}"), "METRICS", {}))
    return out


def _fstring_pattern(node) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        out = ""
        for v in node.values:
            if isinstance(v, ast.Constant):
                out += str(v.value)
            else:
                out += f"<{ast.unparse(v.value)}>"
        return out
    return None


def tensorboard_calls() -> list[tuple[str, str]]:
    """(pattern, file:line) of every ``add_scalar`` in ``rummyrl/training``."""
    out = []
    for path in sorted((ROOT / "rummyrl" / "training").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in ("add_scalar", "add_scalars") and node.args:
                pat = _fstring_pattern(node.args[0])
                where = f"{path.relative_to(ROOT).as_posix()}:{node.lineno}"
                if pat is None:
                    warn(f"{where}: a TensorBoard key that is not a literal; docs_gen cannot list it")
                    continue
                out.append((pat, where))
    return out


def _function_keys(dotted: str, names: tuple[str, ...]) -> list[str]:
    """String keys of the dicts a function builds: dict literals assigned to ``names`` and
    ``name["key"] = ...`` assignments."""
    func = obj(dotted)
    tree = ast.parse(inspect.cleandoc("\n" + inspect.getsource(func)))
    keys: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name) and t.id in names and isinstance(node.value, ast.Dict):
                    keys += [k.value for k in node.value.keys if isinstance(k, ast.Constant)]
                if isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name) and t.value.id in names \
                        and isinstance(t.slice, ast.Constant) and isinstance(t.slice.value, str):
                    keys.append(t.slice.value)
    return list(dict.fromkeys(keys))


def gen_tensorboard_keys() -> str:
    """Every TensorBoard key the training code logs, found by reading its ``add_scalar``
    calls; the keys of the update's statistics are read from ``ppo_update``, ``distill`` and
    ``exit_update`` (the update functions of :mod:`rummyrl.training.methods`' methods)."""
    rows = []
    meanings = metric_meanings()
    for pat, where in tensorboard_calls():
        if pat not in meanings:
            warn(f"{where}: TensorBoard key {pat!r} has no meaning in the METRICS of its module")
            continue
        if pat == "<section>/<k>":
            # every registered method's section, as its module's METRICS list it; the keys the
            # two methods' update functions build are checked against them (a key without a meaning warns)
            from rummyrl.training import methods

            subs = []
            for name in methods.names():
                cls = methods.get(name)
                mod = importlib.import_module(cls.__module__)
                subs += [k for k in getattr(mod, "METRICS", {}) if k.startswith(cls.section + "/")]
            subs += [f"losses/{k}" for k in _function_keys("rummyrl.training.ppo.ppo_update", ("stats", "out"))]
            subs += [f"exit/{k}" for k in _function_keys("rummyrl.training.exit.distill", ("out",))]
            subs += [f"exit/{k}" for k in _function_keys("rummyrl.training.exit.exit_update", ("upd",))]
            for s in dict.fromkeys(subs):
                if s not in meanings:
                    warn(f"TensorBoard key {s!r} (from {where}) has no meaning in the METRICS of its module")
                rows.append([f"`{s}`", f"`{where}`", meanings.get(s, "")])
            continue
        shown = re.sub(r"<(p\.b|opp)>", "<opponent>", pat.replace("<k[6:]>", "<end>"))
        meaning = meanings[pat]
        if pat == "hands/<k[6:]>_rate":
            from rummyrl import games

            meaning += ": " + "; ".join(f"{games.get(g).title}: " + ", ".join(
                f"`{e}`" for e in games.get(g).end_names if e != "none") for g in games.names())
        if pat.startswith("distill/"):
            shown = "distill/train_<k>, distill/valid_<k>"
        rows.append([f"`{shown}`", f"`{where}`", meaning])
    return md_table(["key", "logged at", "meaning"], rows)


def gen_cli_help(command: str) -> str:
    """The ``--help`` of ``train.py`` or ``evaluate.py``, as the installed version prints it."""
    mains = {"train": "rummyrl.train.main", "evaluate": "rummyrl.evaluate.main"}
    main = obj(mains[command])
    buf = io.StringIO()
    old_columns, old_argv0 = os.environ.get("COLUMNS"), sys.argv[0]
    os.environ["COLUMNS"] = "100"
    sys.argv[0] = f"{command}.py"  # argparse's prog
    try:
        with redirect_stdout(buf):
            try:
                main(["--help"])
            except SystemExit:
                pass
    finally:
        sys.argv[0] = old_argv0
        if old_columns is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old_columns
    text = buf.getvalue()
    body = "\n".join("    " + l if l.strip() else "" for l in text.rstrip().split("\n"))
    return f'??? example "`python {command}.py --help`"\n\n    ```text\n{body}\n    ```'


def gen_configs(folder: str = "configs") -> str:
    """The YAML configs in ``folder``: each file with the first sentence of its header comment."""
    rows = []
    for path in sorted((ROOT / folder).glob("*.yaml")):
        words = []
        for line in path.read_text(encoding="utf-8").splitlines():
            text = line.lstrip("#").strip() if line.startswith("#") else None
            if text is None or (not text and words):
                break
            if text:
                words.append(text)
        para = " ".join(words)
        m = re.search(r"(?<=[.])\s+(?=[A-Z])", para)  # its first sentence
        first = (para[:m.start()] if m else para).rstrip(":")
        if not first:
            warn(f"{folder}/{path.name} has no header comment saying what it is")
        rows.append([f"`{folder}/{path.name}`", first])
    return md_table(["config", "what (its header comment's first sentence)"], rows)


def gen_scripts(folder: str) -> str:
    """The Python scripts of ``folder``: what each is (its docstring's first paragraph) and
    its usage line (the first indented ``python ...`` line of the docstring)."""
    rows = []
    for path in sorted((ROOT / folder).glob("*.py")):
        if path.name.startswith("_"):
            continue
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        if not doc:
            warn(f"{folder}/{path.name} has no docstring saying what it is")
        first = " ".join(doc.split("\n\n")[0].split())
        usage = next((l.strip().rstrip("\\").strip() for l in doc.splitlines() if l.startswith("    python ")), "")
        rows.append([f"`{folder}/{path.name}`", one_line(first) + (f"<br>`{usage}`" if usage else "")])
    return md_table(["script", "what, and how to run it"], rows)


# ======================================================================================
# Generators: evaluation
# ======================================================================================
#: meanings of the results.json fields that the code documents nowhere else
RESULTS_MEANINGS = {
    "game": "the game's registry name (`gin`, `rummy`)",
    "unit": "`game` (to the target) or `hand` (single deals)",
    "agents": "the agents' labels, in the order given",
    "settings": "how the tournament was played (table below)",
    "pairings": "one object per pairing (table below)",
    "ratings": "label -> `{\"elo\": rating, \"se\": standard error}`: Bradley-Terry ratings on the Elo scale, mean 0",
    "a": "label of agent A (the one whose win rate is given)",
    "b": "label of agent B (every other seat in Rummy)",
    "games": "games played (rounded up to whole duplicate sets)",
    "wins_a": "games A won",
    "wins_b": "games B won (in Rummy: games any copy of B won)",
    "draws": "games nobody won (cut off by a cap)",
    "hands": "deals played (Gin hands, Rummy rounds)",
    "seconds": "wall time of the pairing",
    "win_rate_a": "`wins_a / games`",
    "win_rate_a_ci95": "the 95% Wilson interval of `win_rate_a`, `[low, high]`",
    "games_per_pairing": "`--games`",
    "players": "seats per game",
    "duplicate": "duplicate deals (each deal with A in every seat); false with `--no-duplicate`",
    "seed": "`--seed`: every deal and agent seed derives from it",
    "chunk": "`--chunk`: games per batch (results depend on it, not on `--workers`)",
    "options": "the rule options given (`--option KEY=VALUE`)",
    "config": "the full rules config of the games (`GinConfig` / `RummyConfig` as a dict)",
    "agent_specs": "label -> the spec it was loaded from (a name with options, a checkpoint path)",
    "ray": "with `--workers`: the Ray session (workers, address, ...)",
}


def _dict_return_keys(dotted: str) -> list[str]:
    func = obj(dotted)
    tree = ast.parse(inspect.cleandoc("\n" + inspect.getsource(func)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
            return [k.value for k in node.value.keys if isinstance(k, ast.Constant)]
    return []


def gen_results_schema() -> str:
    """The fields of ``results.json``: ``Tournament.to_dict``, ``PairingResult.to_dict``
    and the settings ``run_tournament`` records, read from ``rummyrl/tournament.py``."""
    from rummyrl.tournament import PairingResult

    def meaning(key: str, fallback: str = "") -> str:
        text = RESULTS_MEANINGS.get(key) or fallback
        if not text:
            warn(f"results.json field {key!r} has no meaning in scripts/docs_gen.py RESULTS_MEANINGS")
        return text

    top = [[f"`{k}`", meaning(k)] for k in _dict_return_keys("rummyrl.tournament.Tournament.to_dict")]
    docs = field_docs(PairingResult)
    pairing = []
    for f in dataclasses.fields(PairingResult):
        d = docs.get(f.name, {})
        pairing.append([f"`{f.name}`", f"`{d.get('type', '')}`", meaning(f.name, d.get("comment", ""))])
    for k in _function_keys("rummyrl.tournament.PairingResult.to_dict", ("d",)):
        pairing.append([f"`{k}`", "`float`" if k == "win_rate_a" else "`list`", meaning(k)])
    settings = [[f"`{k}`", meaning(k)] for k in _function_keys("rummyrl.tournament.run_tournament", ("settings",))]
    return "\n\n".join([
        "**Top level** (`Tournament.to_dict`)", md_table(["key", "meaning"], top),
        "**Each pairing** (`PairingResult.to_dict`; a side is an agent's label)",
        md_table(["key", "type", "meaning"], pairing),
        "**`settings`** (`run_tournament`)", md_table(["key", "meaning"], settings),
    ])


# ======================================================================================
# Generators: the shipped networks
# ======================================================================================
def gen_model_facts(game_name: str, kind: str = "pretrained") -> str:
    """What the shipped network ``kind`` (``pretrained``, ``pretrained-plain``) of a game says
    of itself: size, parameters, network config, and the settings of the training run it came
    from."""
    from rummyrl.agents.checkpoint import load_checkpoint, pretrained_path
    from rummyrl.agents.network import NetConfig

    path = Path(pretrained_path(game_name, kind))
    ck = load_checkpoint(path)
    params = sum(int(v.numel()) for v in ck["model"].values())
    net = dataclasses.asdict(NetConfig.from_dict(ck["net_config"]))
    tc = ck.get("train_config", {})
    about = ck.get("about", {})
    rel = path.resolve().relative_to(ROOT).as_posix() if path.resolve().is_relative_to(ROOT) else path.name
    rows = [
        ["file", f"`{rel}` ({path.stat().st_size / 1e6:.1f} MB)"],
        ["game, players", f"{_game(ck['game']).title}, {ck['num_players']}"],
        ["parameters", f"{params:,}"],
        ["network (`net`)", ", ".join(f"`{k}={fmt_value(v, 'yaml')}`" for k, v in net.items())],
        ["exported from", f"`{about.get('source', '?')}`"],
    ]
    keys = ["algo", "episode", "reward", "total_steps", "time_limit_minutes", "num_envs", "rollout_steps",
            "learning_rate", "lr_schedule", "update_epochs", "ent_coef", "init", "seed"]
    rows += [[f"training `{k}`", f"`{fmt_value(tc[k], 'yaml')}`"] for k in keys if k in tc]
    if "opponents" in tc:
        rows.append(["training `opponents`", ", ".join(f"{k} {v:g}" for k, v in tc["opponents"].items())])
    if "eval" in tc:
        rows.append(["training `eval.best_by`", f"`{tc['eval'].get('best_by')}`"])
    return md_table(["", ""], rows)


# ======================================================================================
# Generators: notebooks
# ======================================================================================
def notebooks() -> list[Path]:
    return sorted((ROOT / "notebooks").glob("*.ipynb"))


def _code(path: Path) -> list[str]:
    return ["".join(c.get("source", [])) for c in json.loads(path.read_text(encoding="utf-8")).get("cells", [])
            if c.get("cell_type") == "code"]


def executed(nb: Path) -> Path | None:
    """The executed copy of notebook ``nb`` that ``scripts/render_notebooks.py`` wrote
    (``notebooks/executed/``), if there is one and its code is the notebook's."""
    copy = ROOT / "notebooks" / "executed" / nb.name
    return copy if copy.is_file() and _code(copy) == _code(nb) else None


def shown(nb: Path) -> Path:
    """The file the site renders for notebook ``nb``: its executed copy, else the notebook."""
    return executed(nb) or nb


def gen_notebooks() -> str:
    """The notebooks: title, page, and whether outputs are stored in the file."""
    rows = []
    for nb in notebooks():
        data = json.loads(shown(nb).read_text(encoding="utf-8"))
        title = nb.stem
        for cell in data.get("cells", []):
            if cell.get("cell_type") == "markdown":
                src = "".join(cell.get("source", []))
                m = re.search(r"^#\s+(.+)$", src, re.M)
                if m:
                    title = m.group(1).strip()
                    break
        code = [c for c in data.get("cells", []) if c.get("cell_type") == "code"]
        stored = sum(1 for c in code if c.get("outputs"))
        rows.append([f"[{title}](notebooks/{nb.name})", f"`notebooks/{nb.name}`",
                     f"{stored} of {len(code)}" if stored else f"none (0 of {len(code)} code cells)"])
    return md_table(["notebook", "file", "cells with output shown"], rows)


GENERATORS = {
    "env_page": gen_env_page,
    "spaces": gen_spaces,
    "obs_table": gen_obs_table,
    "action_table": gen_action_table,
    "action_mask": gen_action_mask,
    "rewards": gen_rewards,
    "reward_scales": gen_reward_scales,
    "rule_options": gen_rule_options,
    "docstring": gen_docstring,
    "docstring_box": gen_docstring_box,
    "signature": gen_signature,
    "value": gen_value,
    "config_table": gen_config_table,
    "search_options": gen_search_options,
    "agents_matrix": gen_agents_matrix,
    "tensorboard_keys": gen_tensorboard_keys,
    "cli_help": gen_cli_help,
    "configs": gen_configs,
    "scripts": gen_scripts,
    "results_schema": gen_results_schema,
    "model_facts": gen_model_facts,
    "notebooks": gen_notebooks,
}


def expand_markers(markdown: str, where: str = "") -> str:
    """Replace each ``<!-- gen: NAME ARGS -->`` line (outside fenced code) with its part."""
    out, in_fence = [], False
    for line in markdown.split("\n"):
        if FENCE_RE.match(line):
            in_fence = not in_fence
        m = None if in_fence else MARKER_RE.match(line)
        if not m:
            out.append(line)
            continue
        name, args = m.group(1), shlex.split(m.group(2))
        if name not in GENERATORS:
            warn(f"{where}: unknown generator {name!r}; known: {sorted(GENERATORS)}")
            out.append(line)
            continue
        try:
            out.append(GENERATORS[name](*args))
        except Exception as e:  # a broken generator must fail the build, naming the page
            warn(f"{where}: generator {name} {args} failed: {type(e).__name__}: {e}")
            out.append(line)
    return "\n".join(out)


# ======================================================================================
# MkDocs events
# ======================================================================================
def make_api_tree(dest: Path = API_TREE) -> Path:
    """``dest/rummyrl``: links to every entry of ``rummyrl/`` plus ``envs`` and ``agents``
    under their import names, so that griffe reads ``rummyrl.envs`` and ``rummyrl.agents``
    from source (pyproject.toml maps those folders; griffe follows only the top package)."""
    pkg = dest / "rummyrl"
    pkg.mkdir(parents=True, exist_ok=True)
    want = {p.name: p for p in (ROOT / "rummyrl").iterdir() if p.name != "__pycache__"}
    want["envs"] = ROOT / "envs"
    want["agents"] = ROOT / "agents"
    for entry in pkg.iterdir():
        if entry.name not in want or not entry.is_symlink() or Path(os.readlink(entry)) != Path(
                os.path.relpath(want[entry.name], pkg)):
            if entry.is_symlink() or entry.is_file():
                entry.unlink()
    for name, target in want.items():
        link = pkg / name
        if not link.is_symlink():
            tmp = pkg / f".{name}.{os.getpid()}"
            os.symlink(os.path.relpath(target, pkg), tmp)
            os.replace(tmp, link)
    return dest


try:
    from mkdocs.plugins import event_priority
except ImportError:  # run as a script without MkDocs: the events are not used
    def event_priority(_):
        return lambda f: f


def _nav_paths(items) -> set[str]:
    out = set()
    for item in items or []:
        values = item.values() if isinstance(item, dict) else [item]
        for v in values:
            out |= _nav_paths(v) if isinstance(v, list) else {v} if isinstance(v, str) else set()
    return out


def add_research_pages(nav: list, docs_dir: Path) -> list[str]:
    """Append to the nav's "Research" section every ``research/*.md`` it does not list yet
    (titled by the page's first heading), so that a new page of the research record is in
    the site without an edit of mkdocs.yml; returns the pages added."""
    section = next((item["Research"] for item in nav or [] if isinstance(item, dict) and "Research" in item), None)
    if section is None:
        return []
    listed = _nav_paths(nav)
    added = []
    for path in sorted((docs_dir / "research").glob("*.md")):
        rel = path.relative_to(docs_dir).as_posix()
        if rel in listed:
            continue
        m = re.search(r"^#\s+(.+)$", path.read_text(encoding="utf-8"), re.M)
        section.append({m.group(1).strip() if m else path.stem: rel})
        added.append(rel)
    return added


@event_priority(100)
def on_config(config):
    make_api_tree()
    for rel in add_research_pages(config["nav"], Path(config["docs_dir"])):
        log.info("docs_gen: %s is not in mkdocs.yml's nav: listed under Research", rel)
    return config


@event_priority(50)  # before mkdocs-jupyter's on_files, which claims the .ipynb pages
def on_files(files, config):
    from mkdocs.structure.files import File

    for nb in notebooks():
        # a File read from the repository's root, not File.generated: mkdocs-jupyter's wrapper
        # finds the source path of a real file only
        # the executed copy (outputs and figures included) where there is one, laid out as
        # notebooks/<name>.ipynb under build/ so that its page keeps the notebook's address
        staged = ROOT / "build" / "docs_notebooks" / "notebooks" / nb.name
        staged.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shown(nb), staged)
        files.append(File(f"notebooks/{nb.name}", src_dir=str(staged.parents[1]), dest_dir=config["site_dir"],
                          use_directory_urls=config["use_directory_urls"]))
    readme = Path(config["docs_dir"]) / "README.md"
    if readme.is_file():
        files.append(File.generated(config, "contributing-docs.md", content=readme.read_text(encoding="utf-8")))
    return files


def on_page_content(html, page, config, files):
    """Under a notebook page's title: a link to its ``.ipynb`` (mkdocs-jupyter copies it beside
    the page) and, when the file holds no outputs, a word saying so."""
    src = page.file.src_uri
    if not src.endswith(".ipynb"):
        return html
    nb = ROOT / "notebooks" / posixpath.basename(src)
    code = [c for c in json.loads(shown(nb).read_text(encoding="utf-8")).get("cells", [])
            if c.get("cell_type") == "code"]
    stored = any(c.get("outputs") for c in code)
    note = "" if stored else (" The file is stored without outputs, so this page shows its code and text: "
                              "run it to see its tables and charts.")
    head = (f'<div class="admonition info"><p class="admonition-title">Notebook</p><p>'
            f'<a href="{posixpath.basename(src)}" download><code>notebooks/{nb.name}</code></a>: '
            f"download it and run it from the repository's root, in the project's <code>.venv</code>."
            f"{note}</p></div>")
    cut = html.find("</h1>")
    return html[:cut + 5] + head + html[cut + 5:] if cut >= 0 else head + html


def on_page_markdown(markdown, page, config, files):
    src = page.file.src_uri
    if src.endswith(".ipynb"):
        return markdown
    markdown = expand_markers(markdown, src)
    if src != "rules.md":
        href = posixpath.relpath("rules.md", posixpath.dirname(src) or ".")
        markdown = link_rule_ids(markdown, href)
    return markdown


# ======================================================================================
# griffe extension: the docstrings of the API reference
# ======================================================================================
try:
    import griffe
except ImportError:  # the hook and the script work without griffe
    griffe = None

if griffe is not None:
    class RstDocstrings(griffe.Extension):
        """Docstrings as Markdown for mkdocstrings: reST converted (:func:`rst_to_markdown`),
        rule ids linked through autorefs, and ``#:`` comments above a module attribute (the
        library's way of documenting a constant) read as its docstring."""

        def __init__(self):
            super().__init__()
            self._lines: dict[str, list[str]] = {}
            self._done: set[int] = set()

        def _convert(self, o) -> None:
            if o.docstring is None or id(o.docstring) in self._done:
                return
            o.docstring.value = link_rule_ids(rst_to_markdown(o.docstring.value), "", autoref=True)
            self._done.add(id(o.docstring))

        def on_instance(self, *, node=None, obj=None, agent=None, **kwargs):  # noqa: ARG002
            if obj is not None:
                self._convert(obj)

        def on_attribute_instance(self, *, node=None, attr=None, agent=None, **kwargs):  # noqa: ARG002
            if attr is None or attr.docstring is not None or not attr.lineno or attr.filepath is None:
                return
            path = str(attr.filepath)
            if path not in self._lines:
                try:
                    self._lines[path] = Path(path).read_text(encoding="utf-8").splitlines()
                except OSError:
                    self._lines[path] = []
            lines = self._lines[path]
            k = attr.lineno - 2
            doc = []
            while 0 <= k < len(lines) and lines[k].lstrip().startswith("#:"):
                doc.insert(0, lines[k].lstrip()[2:].strip())
                k -= 1
            if doc:
                attr.docstring = griffe.Docstring("\n".join(doc), lineno=k + 2, parent=attr)
                self._convert(attr)


# ======================================================================================
# Command line: print one generated part
# ======================================================================================
def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "--list"):
        print(__doc__.split("Run as a script")[0].strip() if args[:1] != ["--list"] else "")
        for name, fn in GENERATORS.items():
            sig = inspect.signature(fn)
            print(f"  {name} {' '.join(sig.parameters)}: {(fn.__doc__ or '').strip().splitlines()[0]}")
        return 0
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    name, rest = args[0], args[1:]
    if name not in GENERATORS:
        print(f"unknown generator {name!r}; known: {', '.join(GENERATORS)}", file=sys.stderr)
        return 2
    print(GENERATORS[name](*rest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
