"""reST to Markdown: the library's docstrings (roles, simple tables, literal blocks, section
titles) as the site's pages and the API reference show them."""

from __future__ import annotations

import inspect
import re

from _gen.common import FENCE_RE


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
