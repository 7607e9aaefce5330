"""scripts/results_tables.py (docs/_gen/tables): the documentation's results tables are generated from the JSON
under docs/results, and ``--check`` fails when a page's table differs from what its JSON says."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "results_tables.py"


@pytest.fixture(scope="module")
def rt():
    """The table language and the repository's specs (docs/_gen/tables), as one namespace."""
    sys.path.insert(0, str(ROOT / "docs"))
    from _gen import tables
    from _gen.tables import cells, formats, pages, refs

    ns = types.SimpleNamespace(TABLES=tables.all_tables())
    for module in (formats, refs, cells, pages):
        ns.__dict__.update({k: v for k, v in vars(module).items() if not k.startswith("__")})
    return ns


# --------------------------------------------------------------------------------------
# The repository itself
# --------------------------------------------------------------------------------------
def test_repo_tables_match_their_json():
    """Every marked table in README.md and docs/ is what its JSON says."""
    proc = subprocess.run([sys.executable, str(SCRIPT), "--check"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_spec_renders_and_is_used(rt):
    """No spec is broken or orphaned: each renders from the repository's JSON and some page
    shows it."""
    used = set()
    for page in rt.pages(ROOT):
        used |= {b.name for b in rt.find_blocks((ROOT / page).read_text())[0]}
    for name, spec in rt.TABLES.items():
        out = rt.render_table(spec, ROOT, Path("docs/research/x.md"))
        assert out.startswith("| ") and "JSON: " in out, name
    assert set(rt.TABLES) <= used, sorted(set(rt.TABLES) - used)


# --------------------------------------------------------------------------------------
# The generator on a small constructed repository
# --------------------------------------------------------------------------------------
def _results(wins_a: int, games: int = 2000, ci=(0.629, 0.671)) -> dict:
    """The shape evaluate.py writes, one pairing."""
    return {"game": "gin", "unit": "game", "agents": ["net", "expert"], "settings": {"seed": 20011},
            "pairings": [{"a": "net", "b": "expert", "games": games, "wins_a": wins_a,
                          "wins_b": games - wins_a, "draws": 0, "hands": 10000,
                          "points_hand": {"net": 15.38, "expert": 12.65},
                          "win_rate_a": wins_a / games, "win_rate_a_ci95": list(ci)}],
            "ratings": {}}


PAGE = """# A page

Some text.

<!-- results: demo -->
<!-- /results -->

```markdown
<!-- results: not_a_marker_inside_code -->
```
"""


@pytest.fixture()
def repo(tmp_path, rt):
    (tmp_path / "docs" / "results" / "demo").mkdir(parents=True)
    (tmp_path / "docs" / "results" / "demo" / "results.json").write_text(json.dumps(_results(1300)))
    (tmp_path / "docs" / "research").mkdir()
    (tmp_path / "docs" / "research" / "page.md").write_text(PAGE)
    (tmp_path / "README.md").write_text("# readme\n\n<!-- results: demo -->\n<!-- /results -->\n")
    ref = rt.pairing("demo/results.json", "net", "expert")
    tables = {"demo": rt.Table(["agent", "games", "games won", "points / hand"],
                               [["net", rt.GAMES(ref), rt.WR(ref), rt.PTS(ref)]], align="lrll")}
    return tmp_path, tables


def _run(rt, root, tables, check):
    out = io.StringIO()
    rc = rt.run(root, tables, check=check, out=out)
    return rc, out.getvalue()


def test_win_rate_formats(rt):
    assert rt.fmt_ci(0.65, (0.629, 0.671)) == "65.0% [62.9, 67.1]"
    assert rt.fmt_ci(1.0, (0.9980829527187469, 0.9999999999999998)) == "100.0% [99.8, 100.0]"
    assert rt.fmt_pct(0.7315) == "73.2%"
    assert rt.fmt_int(10000) == "10,000"
    assert rt.fmt_num(15.388, 1) == "15.4"


def test_pooled_interval_is_evaluates_wilson(rt):
    from rummyrl.stats import wilson_interval
    for wins, n in [(335, 1000), (3127, 4000), (0, 200), (200, 200)]:
        assert rt.wilson(wins, n) == pytest.approx(wilson_interval(wins, n))


def test_generate_then_check(repo, rt):
    root, tables = repo
    rc, out = _run(rt, root, tables, check=True)
    assert rc == 1 and "docs/research/page.md: table 'demo' differs" in out and "README.md: table 'demo'" in out
    assert (root / "docs" / "research" / "page.md").read_text() == PAGE  # --check changes nothing

    rc, out = _run(rt, root, tables, check=False)
    assert rc == 0, out
    page = (root / "docs" / "research" / "page.md").read_text()
    assert "| net | 2,000 | 65.0% [62.9, 67.1] | 15.4 vs 12.7 |" in page
    assert "[`demo/results.json`](../results/demo/results.json)" in page  # linked from the page
    assert "[`demo/results.json`](docs/results/demo/results.json)" in (root / "README.md").read_text()
    assert "<!-- results: not_a_marker_inside_code -->" in page  # fenced code untouched
    assert _run(rt, root, tables, check=True)[0] == 0
    assert _run(rt, root, tables, check=False)[1].strip() == "2 results tables generated"  # idempotent


def test_changed_number_in_json_fails_check(repo, rt):
    root, tables = repo
    assert _run(rt, root, tables, check=False)[0] == 0
    (root / "docs" / "results" / "demo" / "results.json").write_text(json.dumps(_results(1320)))
    rc, out = _run(rt, root, tables, check=True)
    assert rc == 1
    assert "docs/research/page.md: table 'demo' differs from what its JSON says" in out
    assert _run(rt, root, tables, check=False)[0] == 0
    assert "65.0% [62.9, 67.1]" not in (root / "docs" / "research" / "page.md").read_text()
    assert "66.0% [62.9, 67.1]" in (root / "docs" / "research" / "page.md").read_text()


def test_hand_edited_table_fails_check(repo, rt):
    root, tables = repo
    _run(rt, root, tables, check=False)
    page = root / "docs" / "research" / "page.md"
    page.write_text(page.read_text().replace("65.0%", "66.0%"))
    rc, out = _run(rt, root, tables, check=True)
    assert rc == 1 and "table 'demo' differs" in out


def test_unknown_table_is_an_error_naming_it(repo, rt):
    root, tables = repo
    bad = PAGE.replace("<!-- results: demo -->", "<!-- results: no_such_table -->")
    (root / "docs" / "research" / "page.md").write_text(bad)
    for check in (True, False):
        rc, out = _run(rt, root, tables, check=check)
        assert rc == 1
        assert "docs/research/page.md: error: line 5: unknown results table 'no_such_table'" in out
    assert (root / "docs" / "research" / "page.md").read_text() == bad  # not written


def test_missing_json_and_unmatched_record_are_errors(repo, rt):
    root, tables = repo
    tables["demo"] = rt.Table(["x"], [[rt.WR(rt.pairing("demo/results.json", "net", "simple"))]])
    rc, out = _run(rt, root, tables, check=True)
    assert rc == 1 and "table 'demo'" in out and "0 pairings of a='net' b='simple'" in out
    tables["demo"] = rt.Table(["x"], [[rt.WR(rt.pairing("gone/results.json", "net"))]])
    rc, out = _run(rt, root, tables, check=True)
    assert rc == 1 and "no file docs/results/gone/results.json" in out


def test_unclosed_marker_is_an_error(repo, rt):
    root, tables = repo
    (root / "docs" / "research" / "page.md").write_text("<!-- results: demo -->\n| stale |\n")
    rc, out = _run(rt, root, tables, check=False)
    assert rc == 1 and "table 'demo' is never closed" in out


def test_entry_and_pool(tmp_path, rt):
    """Records of hand-collected lists (search_where.py, more_seeds.json) and a pooled row."""
    (tmp_path / "docs" / "results").mkdir(parents=True)
    (tmp_path / "docs" / "results" / "list.json").write_text(json.dumps({"results": [
        {"agent": "base", "win_rate": 0.5, "ci95": [0.45, 0.55], "games": 400, "points_per_hand": [13.26, 13.26]},
        {"agent": "teacher", "win_rate": 0.55, "ci95": [0.5, 0.6], "games": 400, "wins": 220},
    ]}))
    ctx = rt.Context(root=tmp_path)
    assert rt.WR(rt.entry("list.json", agent="base")).render(ctx) == "50.0% [45.0, 55.0]"
    assert rt.PTS(rt.entry("list.json", agent="base")).render(ctx) == "13.3 vs 13.3"
    both = rt.pool(rt.entry("list.json", agent="base"), rt.entry("list.json", agent="teacher"))
    text = rt.WR(both).render(ctx)
    assert text == rt.fmt_ci(420 / 800, rt.wilson(420, 800)) and text.startswith("52.5% [")
    assert rt.GAMES(both).render(ctx) == "800"
    with pytest.raises(rt.SpecError, match="2 records"):
        rt.entry("list.json", games=400).resolve(ctx)
