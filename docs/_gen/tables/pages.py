"""Tables and pages: a spec rendered from its JSON, the marked blocks of a page rewritten in
place, and the run over every page (``--check`` changes nothing and names what differs)."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from _gen.tables.cells import render_cell
from _gen.tables.formats import CLOSE_RE, FENCE_RE, OPEN_RE, RESULTS_DIR, SpecError
from _gen.tables.refs import Context


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
