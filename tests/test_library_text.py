"""Library code says what it does: its comments and docstrings hold no measured result (a
percentage, a speed, a ratio, a count of the games something was measured over) and no
history ("used to", "previously", "no longer"). Results live in the docs, generated from the
JSON that the measuring command wrote, and history in git; a number typed into a comment
drifts from both.

Library code is what the wheel installs (``rummyrl``, ``rummyrl.envs``, ``rummyrl.agents``)
and the three command files at the root. A percentage may only be a confidence level (95%).
The patterns are checked on texts that must and must not match, so that a pattern that
stopped matching anything would fail here too.
"""

from __future__ import annotations

import ast
import io
import re
import subprocess
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("rummyrl", "envs", "agents")
COMMANDS = ("train.py", "evaluate.py", "exploit.py")

#: what a comment or docstring of library code must not say, by kind
FORBIDDEN = {
    "a percentage (a result belongs in the docs; only a confidence level such as 95% may stay)":
        re.compile(r"(?<![\w.])(?!95\s?%)\d+(?:\.\d+)?\s?%"),
    "a speed or a ratio of speeds":
        re.compile(r"\b(?:\d+(?:\.\d+)?|a few|several|many|ten|two|three|four|five|hundred) times "
                   r"(?:faster|slower|the\b|as\b)|\b(?:faster|slower)\s+than\b|\b(?:twice|half) as (?:fast|slow)\b"
                   r"|\b\d+(?:\.\d+)?(?:\s?[-–]\s?\d+(?:\.\d+)?)?\s?[x×](?![\w\s]*?\d)\b"
                   r"|\d[\d,.]*\s*k?\s*(?:moves|steps|actions|games|hands|decisions|positions|samples|records)"
                   r"\s*(?:/\s*s\b|a second|per second)|\b\d+\s*(?:µs|us|ms)\b", re.I),
    "a count of what something was measured over":
        re.compile(r"\b(?:longest|mean|median|best|worst) of \d[\d,]* (?:rounds|games|hands|deals|runs)\b"
                   r"|\bof \d[\d,]* (?:rounds|games|hands|deals|positions|runs)\s*[,;)]"
                   r"|\b\d[\d,.]* (?:hands|rounds|moves|actions|turns) (?:per|a) (?:game|round|hand)\b", re.I),
    "history (git holds it; say what the code does now)":
        re.compile(r"\b(?:used to|previously|formerly|no longer|until now|was most of|were most of|"
                   r"before (?:the|this) (?:fix|change|refactor)|we (?:changed|replaced|removed)|"
                   r"measured then)\b", re.I),
}

#: (text, kind or None): what each pattern must catch and what it must leave alone
CASES = [
    ("wins 62.4% against simple", "a percentage"),
    ("a 95% Wilson interval", None),
    ("i1 % n1", None),
    ("index_select: a few times faster than x[mb]", "a speed"),
    ("ten times the whole softmax", "a speed"),
    ("twice as fast on a CPU with AMX", "a speed"),
    ("The cap, 2.6-2.8x the mean", "a speed"),
    ("about 40 decisions a second", "a speed"),
    ("costs about 100 µs per action", "a speed"),
    ("on the 4 x 13 grid of suits by ranks", None),
    ("(6 x 52)", None),
    ("``w_gin`` times the share of unseen cards", None),
    ("longest of 20,000 rounds 400 / 281 / 140", "a count"),
    ("628 / 845 / 739 positions of 96 rounds, ", "a count"),
    ("a tournament of 200 games against simple", None),
    ("random against random: 85 hands per game", "a count"),
    ("the moves per game of a tournament", None),
    ("the passes over every logit were most of its time", "history"),
    ("this used to read the expert's choice", "history"),
    ("results measured then repeat", "history"),
    ("games played in this lane before this one", None),
]


def library_files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", *(f"{p}/*.py" for p in PACKAGES), *COMMANDS],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [ROOT / f for f in out]


def texts(src: str):
    """(line, text) of every comment and every docstring (module, class, function, and the
    string statements that document attributes) of one source file."""
    for tok in tokenize.generate_tokens(io.StringIO(src).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string
    for node in ast.walk(ast.parse(src)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            yield node.lineno, node.value.value


def findings(src: str):
    for line, text in texts(src):
        for k, part in enumerate(text.split("\n")):
            for kind, pattern in FORBIDDEN.items():
                if pattern.search(part):
                    yield line + k, kind, part.strip()


@pytest.mark.parametrize("text, kind", CASES)
def test_the_patterns_catch_what_they_should_and_nothing_else(text, kind):
    found = [k for _, k, _ in findings(f"# {text}\n")]
    if kind is None:
        assert not found, (text, found)
    else:
        assert len(found) == 1 and found[0].startswith(kind), (text, found)


@pytest.mark.slow
def test_library_comments_and_docstrings_hold_no_result_and_no_history():
    files = library_files()
    assert len(files) > 40, "the library's files were not found"
    bad = [f"{f.relative_to(ROOT)}:{line}: {kind}: {text[:120]}"
           for f in files for line, kind, text in findings(f.read_text(encoding="utf-8"))]
    assert not bad, "library code that quotes a result or narrates history:\n" + "\n".join(bad)
