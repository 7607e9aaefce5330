"""The commands a run prints for its user to type (play the report's games again, continue a
stopped run), spelled the way this process was started, so that they work where it ran:
outside the virtual environment ``python`` may be another interpreter without rummyrl.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

#: the command-line tools of the project: console script (pyproject's ``[project.scripts]``),
#: the repository's script, the module
TOOLS = {"train": ("rummyrl-train", "train.py", "rummyrl.training.cli"),
         "evaluate": ("rummyrl-evaluate", "evaluate.py", "rummyrl.evaluate"),
         "exploit": ("rummyrl-exploit", "exploit.py", "rummyrl.exploit")}


def tool_command(tool: str) -> list[str]:
    """How to start ``tool`` (``train`` or ``evaluate``): its console script when this process
    was started by one (``rummyrl-train``) and the other is on ``PATH``; else this interpreter
    with the repository's script (``.venv/bin/python evaluate.py``) when the script is in the
    current folder; else this interpreter with the module (``python -m rummyrl.evaluate``)."""
    if tool not in TOOLS:
        raise ValueError(f"tool must be one of {sorted(TOOLS)}, got {tool!r}")
    console, script, module = TOOLS[tool]
    if Path(sys.argv[0] if sys.argv else "").name.startswith("rummyrl-") and shutil.which(console):
        return [console]
    python = interpreter()
    if (Path.cwd() / script).is_file():
        return [python, script]
    return [python, "-m", module]


def interpreter() -> str:
    """This interpreter, relative to the current folder when it lies inside it
    (``.venv/bin/python``), else its absolute path."""
    exe = Path(sys.executable)
    try:
        rel = exe.relative_to(Path.cwd())
    except ValueError:
        return str(exe)
    return str(rel) if os.sep in str(rel) else str(exe)


def command_line(tool: str, *args) -> str:
    """``tool`` (:func:`tool_command`) with ``args``, quoted for a POSIX shell."""
    return shlex.join([*tool_command(tool), *map(str, args)])
