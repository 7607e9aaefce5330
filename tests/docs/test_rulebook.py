"""The rule book, docs/rules.md, against the repository.

The rule book defines each rule with one heading ``### <id> <title>`` followed by the lines
``- **Default:**``, ``- **Option:**`` and ``- **Tests:**``. These tests check that

* every rule id cited anywhere in the repository (code, tests, docs, notebooks) is defined
  in the rule book; a range such as ``G-15..G-18`` cites both of its ends;
* every rule defined there is named by at least one test module ``tests/**/test_*.py``;
* the config options and the tests the rule book names exist (and the defaults it states
  in its open-points table are the code's defaults);
* no file refers to a path outside the repository (the rule book lives in the repository).

Files scanned: what ``git ls-files`` lists (tracked, and untracked files not ignored, so a
new file counts before it is committed), binary files left out.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

from rummyrl.gin import GinConfig
from rummyrl.rummy import RummyConfig

ROOT = Path(__file__).resolve().parents[2]
RULEBOOK = ROOT / "docs" / "rules.md"
THIS = Path(__file__).resolve()
#: files written with the rule book, scanned even where git does not list them
NEW_FILES = ("docs/rules.md", "tests/docs/test_rulebook.py")

#: a rule id: C-, G- or R-, a number, an optional lower-case letter (G-10a)
ID_RE = re.compile(r"\b([CGR])-(\d+)([a-z]?)\b")
#: the heading that defines a rule
HEADING_RE = re.compile(r"^### ([CGR]-\d+[a-z]?) \S.*$", re.M)
#: a config field as the rule book writes it
OPTION_RE = re.compile(r"`(\w+Config)\.(\w+)`")
#: a test as the rule book writes it
TEST_RE = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")
CONFIGS = {"GinConfig": GinConfig, "RummyConfig": RummyConfig}
BINARY_SUFFIXES = {
    ".png", ".jpg", ".jpeg", ".gif", ".ico", ".pdf", ".pt", ".pth", ".npy", ".npz", ".pkl",
    ".gz", ".zip", ".tar", ".whl", ".so", ".pyc",
}
#: the folder beside a checkout that held the source rule book (spelt in two parts so that
#: this file does not itself refer to it)
_SIDE = "sha" + "red"
#: references to places outside the repository
OUTSIDE_PATTERNS = [
    (re.compile(r"\.\./" + _SIDE), "../" + _SIDE),
    (re.compile(r"shared/(?:RULES|TRAINING|STYLE)\.md"), "a shared/ document"),
    (re.compile(r"shared/peers"), "shared/peers"),
    (re.compile(r"RULES\.md"), "RULES.md (the rule book is docs/rules.md)"),
    (re.compile(r"/work/"), "an absolute path /work/"),
    (re.compile(r"(?<![\w.])/(?:home|Users)/\w"), "an absolute home-directory path"),
]


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------
def repo_files() -> list[str]:
    """Paths (relative, posix) of the repository's files: tracked, and untracked but not
    ignored, plus the rule book's own new files; only those present in the working tree."""
    try:
        out = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, capture_output=True, check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"not a git checkout, cannot list the repository's files: {e}")
    names = {n for n in out.decode("utf-8", "surrogateescape").split("\0") if n}
    names.update(NEW_FILES)
    return sorted(n for n in names if (ROOT / n).is_file())


def read_text(rel: str) -> str | None:
    """The file's text, or None for a binary file."""
    path = ROOT / rel
    if path.suffix.lower() in BINARY_SUFFIXES:
        return None
    data = path.read_bytes()
    if b"\0" in data:
        return None
    return data.decode("utf-8", "replace")


def cited_ids(text: str) -> list[tuple[str, int]]:
    """(id, line number) of every rule id in ``text``."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        out += [(m.group(0), n) for m in ID_RE.finditer(line)]
    return out


def rulebook() -> str:
    assert RULEBOOK.is_file(), "the rule book docs/rules.md is missing"
    return RULEBOOK.read_text(encoding="utf-8")


def rule_sections() -> dict[str, str]:
    """id -> the text of its section (heading to the next heading)."""
    text = rulebook()
    heads = list(HEADING_RE.finditer(text))
    sections = {}
    for i, h in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = text[h.end():end]
        nxt = re.search(r"^#{1,3} ", body, re.M)  # a ## section ends the rule too
        sections[h.group(1)] = body[: nxt.start()] if nxt else body
    return sections


def field_line(section: str, label: str) -> str | None:
    m = re.search(rf"^- \*\*{label}:\*\*(.*)$", section, re.M)
    return m.group(1).strip() if m else None


def defined_ids() -> set[str]:
    return set(rule_sections())


def function_source(path: Path, name: str) -> str | None:
    """The source of top-level function ``name`` in ``path`` (def line to the next
    top-level statement), or None when there is none."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for i, line in enumerate(lines):
        if re.match(rf"def {re.escape(name)}\(", line):
            body = [line]
            for nxt in lines[i + 1:]:
                if nxt and not nxt[0].isspace() and not nxt.startswith(")"):
                    break
                body.append(nxt)
            return "\n".join(body)
    return None


# --------------------------------------------------------------------------------------
# The rule book's own structure
# --------------------------------------------------------------------------------------
def test_rulebook_defines_each_rule_once_with_default_option_and_tests():
    text = rulebook()
    heads = [m.group(1) for m in HEADING_RE.finditer(text)]
    assert heads, "docs/rules.md defines no rule (headings '### <id> <title>')"
    twice = sorted({h for h in heads if heads.count(h) > 1})
    assert not twice, f"rules defined more than once in docs/rules.md: {twice}"
    # ids of each letter are numbered 1..n without a gap
    numbers = defaultdict(set)
    for h in heads:
        m = ID_RE.fullmatch(h)
        numbers[m.group(1)].add(int(m.group(2)))
    for letter, ns in numbers.items():
        gaps = sorted(set(range(1, max(ns) + 1)) - ns)
        assert not gaps, f"docs/rules.md: {letter}- rules missing between 1 and {max(ns)}: {gaps}"
    problems = []
    for rid, section in rule_sections().items():
        for label in ("Default", "Option", "Tests"):
            value = field_line(section, label)
            if not value:
                problems.append(f"{rid}: no '- **{label}:**' line (or an empty one)")
    assert not problems, "docs/rules.md:\n" + "\n".join(problems)


# --------------------------------------------------------------------------------------
# a. every cited id is defined
# --------------------------------------------------------------------------------------
def test_every_cited_rule_id_is_defined():
    defined = defined_ids()
    where = defaultdict(list)
    for rel in repo_files():
        if rel == "docs/rules.md":
            continue
        text = read_text(rel)
        if text is None:
            continue
        for rid, n in cited_ids(text):
            where[rid].append(f"{rel}:{n}")
    assert where, "no rule id found in the repository: the scan is broken"
    undefined = sorted(set(where) - defined)
    assert not undefined, "rule ids cited but not defined in docs/rules.md:\n" + "\n".join(
        f"  {rid}: {', '.join(where[rid][:8])}{' ...' if len(where[rid]) > 8 else ''}" for rid in undefined
    )


# --------------------------------------------------------------------------------------
# b. every defined rule is named by a test module
# --------------------------------------------------------------------------------------
def test_every_defined_rule_is_tested():
    defined = defined_ids()
    modules = sorted(p for p in (ROOT / "tests").rglob("test_*.py") if p.resolve() != THIS)
    assert modules, "no test modules found"
    named = set()
    for p in modules:
        named.update(rid for rid, _ in cited_ids(p.read_text(encoding="utf-8")))
    untested = sorted(defined - named)
    assert not untested, (
        f"rules defined in docs/rules.md that no test module tests/**/test_*.py names: {untested}"
    )


# --------------------------------------------------------------------------------------
# c. nothing points outside the repository
# --------------------------------------------------------------------------------------
def test_no_reference_outside_the_repository():
    hits = []
    for rel in repo_files():
        if (ROOT / rel).resolve() == THIS:  # this file holds the patterns
            continue
        text = read_text(rel)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            found = [why for rx, why in OUTSIDE_PATTERNS if rx.search(line)]
            if found:
                hits.append(f"  {rel}:{n}: {'; '.join(found)}: {line.strip()[:120]}")
    assert not hits, "files that refer to a path outside the repository:\n" + "\n".join(hits)


# --------------------------------------------------------------------------------------
# d. the options and tests the rule book names exist
# --------------------------------------------------------------------------------------
def test_options_named_per_rule_are_config_fields():
    fields = {name: {f.name for f in dataclasses.fields(cls)} for name, cls in CONFIGS.items()}
    problems = []
    listed = 0
    for rid, section in rule_sections().items():
        value = field_line(section, "Option") or ""
        names = OPTION_RE.findall(value)
        if not names and not value.startswith("—"):
            problems.append(f"{rid}: Option line names no `GinConfig.x` / `RummyConfig.x` and is not '—': {value!r}")
        for cls, fld in names:
            listed += 1
            if cls not in fields:
                problems.append(f"{rid}: {cls} is not a config class (GinConfig, RummyConfig)")
            elif fld not in fields[cls]:
                problems.append(f"{rid}: {cls}.{fld} is not a field of {cls}")
            elif rid[0] in "GR" and cls != {"G": "GinConfig", "R": "RummyConfig"}[rid[0]]:
                problems.append(f"{rid}: a {rid[0]}- rule names an option of {cls}")
    assert listed >= 10, f"only {listed} options found on the Option lines: is the format parsed?"
    assert not problems, "docs/rules.md:\n" + "\n".join(problems)


def test_every_config_name_in_the_rulebook_exists_and_stated_defaults_are_the_code_defaults():
    text = rulebook()
    problems = []
    for cls, attr in OPTION_RE.findall(text):
        if cls not in CONFIGS:
            problems.append(f"{cls}.{attr}: {cls} is not a config class")
        elif not hasattr(CONFIGS[cls], attr) and attr not in {f.name for f in dataclasses.fields(CONFIGS[cls])}:
            problems.append(f"{cls}.{attr} does not exist")
    # "`GinConfig.stock_floor` = `2`": the stated default is the dataclass default
    stated = re.findall(r"`(\w+Config)\.(\w+)` = `([^`]*)`", text)
    assert len(stated) >= 10, f"only {len(stated)} stated defaults found in the open-points table"
    for cls, attr, value in stated:
        fld = {f.name: f for f in dataclasses.fields(CONFIGS[cls])}.get(attr) if cls in CONFIGS else None
        if fld is None:
            problems.append(f"{cls}.{attr} = {value}: not a field")
            continue
        try:
            want = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            problems.append(f"{cls}.{attr} = {value}: not a Python literal")
            continue
        if fld.default != want:
            problems.append(f"{cls}.{attr}: docs/rules.md says {value}, the code's default is {fld.default!r}")
    assert not problems, "docs/rules.md:\n" + "\n".join(problems)


def test_tests_named_in_the_rulebook_exist():
    text = rulebook()
    named = TEST_RE.findall(text)
    assert len(named) >= 40, f"only {len(named)} tests named in docs/rules.md: is the format parsed?"
    problems = []
    for rel, name in sorted(set(named)):
        path = ROOT / rel
        if not path.is_file():
            problems.append(f"{rel}::{name}: no file {rel}")
        elif function_source(path, name) is None:
            problems.append(f"{rel}::{name}: no 'def {name}(' in {rel}")
    assert not problems, "docs/rules.md names tests that do not exist:\n" + "\n".join(problems)


def test_each_rule_lists_a_test_that_names_it():
    """Every rule's Tests line names at least one test, and at least one of them names the
    rule: its id in the function name (``test_g10a_...``) or in its source (docstring,
    comments)."""
    problems = []
    for rid, section in rule_sections().items():
        tests = TEST_RE.findall(field_line(section, "Tests") or "")
        if not tests:
            problems.append(f"{rid}: the Tests line names no `tests/<file>.py::<test>`")
            continue
        token = rid.lower().replace("-", "")
        ok = False
        for rel, name in tests:
            path = ROOT / rel
            src = function_source(path, name) if path.is_file() else None
            if src is None:
                continue  # reported by test_tests_named_in_the_rulebook_exist
            if token in name.split("_") or rid in {r for r, _ in cited_ids(src)}:
                ok = True
                break
        if not ok:
            problems.append(f"{rid}: none of {[n for _, n in tests]} names {rid}")
    assert not problems, "docs/rules.md:\n" + "\n".join(problems)
