"""Generators: the notebooks, and which copy of each the site shows."""

from __future__ import annotations

import json
import re
from pathlib import Path

from _gen.common import ROOT
from _gen.markdown import md_table


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
