"""The README is the front door: short, and every command in it runs as written.

Each ```python block runs as a script; each line of a ```bash block runs as a command, in
order, in one scratch folder (so a later command finds what an earlier one wrote), with
``.venv/bin/python`` standing for this interpreter. A command that takes more than a minute
on this machine says so in its comment and carries ``[test: ARGS]``: the test runs it with
ARGS appended (a reduced form, e.g. fewer games). ``[skip: why]`` marks the few that cannot
run here (a server, an interactive game, an install)."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.docs  # the README's commands, as written

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.M | re.S)
#: what a scratch folder needs from the checkout to run the README's commands
LINKED = ("train.py", "evaluate.py", "configs")


def blocks(kind: str) -> list[str]:
    return [body for lang, body in FENCE.findall(README.read_text()) if lang == kind]


def bash_commands() -> list[tuple[str, str]]:
    """``(command, annotation)`` of every line of the README's bash blocks."""
    out = []
    for body in blocks("bash"):
        for line in body.splitlines():
            if not line.strip():
                continue
            command, _, comment = line.partition("#")
            note = re.search(r"\[(test|skip): ([^\]]*)\]", comment)
            out.append((command.strip(), f"{note.group(1)}: {note.group(2)}" if note else ""))
    return out


def test_the_readme_is_a_front_door():
    text = README.read_text()
    assert len(text.splitlines()) <= 250
    commands = [c for c, _ in bash_commands()]
    assert commands[:2] == ["bash scripts/run.sh", "bash scripts/test.sh"]  # the two commands come first
    for heading in ("## Results at a glance", "## A quick tour", "## Where to go next"):
        assert heading in text


def test_the_readmes_links_lead_somewhere():
    text = README.read_text()
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text):
        if not target.startswith(("http://", "https://")):
            assert (ROOT / target).exists(), target


def test_slow_commands_say_so_and_carry_a_reduced_form():
    for command, note in bash_commands():
        if command.startswith("bash scripts/"):
            continue  # the two commands at the top: CI runs the tests; the main job is the hour it says
        line = next(l for l in README.read_text().splitlines() if l.strip().startswith(command))
        slow = re.search(r"\b(hours?|min)\b", line.partition("#")[2])
        if slow and "a few minutes" not in line:
            assert note, f"a slow command without [test: ...] or [skip: ...]: {command}"


@pytest.mark.parametrize("index", range(len(blocks("python"))))
def test_python_blocks_run(index, tmp_path):
    out = subprocess.run([sys.executable, "-c", blocks("python")[index]], cwd=tmp_path, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]


def test_bash_commands_run_in_order(tmp_path):
    for name in LINKED:
        (tmp_path / name).symlink_to(ROOT / name)
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    ran = 0
    for command, note in bash_commands():
        if note.startswith("skip") or command.startswith("bash scripts/"):
            continue  # the two set-up commands are what CI itself runs
        argv = shlex.split(command)
        if argv[0] == ".venv/bin/python":
            argv[0] = sys.executable
        if note.startswith("test: "):
            argv += shlex.split(note[len("test: "):])
        out = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
        assert out.returncode == 0, f"{command}\n{out.stderr[-3000:]}"
        ran += 1
    assert ran >= 5
