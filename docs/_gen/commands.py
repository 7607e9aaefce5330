"""Generators: the commands' ``--help``, the shipped configs and the scripts of a folder."""

from __future__ import annotations

import ast
import io
import os
import re
import sys
from contextlib import redirect_stdout

from _gen.common import ROOT, warn
from _gen.markdown import md_table
from _gen.source import obj, one_line


def gen_cli_help(command: str) -> str:
    """The ``--help`` of ``train.py`` or ``evaluate.py``, as the installed version prints it."""
    mains = {"train": "rummyrl.training.cli.main", "evaluate": "rummyrl.evaluate.main"}
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
