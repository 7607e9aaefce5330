"""The documentation site builds, strictly, and its generated parts say what the code says.

The site is built once per session with ``mkdocs build --strict`` into a temporary folder (a
broken link or anchor, a page left out of the navigation, a reference mkdocstrings cannot
resolve, a generated table that cannot be made: each is a warning, and a warning fails the
build). The tests then read the built pages: the observation and action tables hold every
part and action block of the engines, the training guide every config field, the agents page
every option, the games page links every rule id to a heading that exists, and nothing is
loaded from the network. ``docs/_gen``'s reST conversion and rule-id links are
checked on small inputs. docs/README.md describes the site.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import logging
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

import pytest

pytest.importorskip("mkdocs", reason="the docs extra is not installed (bash scripts/setup_env.sh ... docs)")
pytest.importorskip("material", reason="the docs extra is not installed")
pytest.importorskip("mkdocstrings_handlers.python", reason="the docs extra is not installed")
pytest.importorskip("mkdocs_jupyter", reason="the docs extra is not installed")

pytestmark = pytest.mark.docs  # the site's strict build

ROOT = Path(__file__).resolve().parents[2]
#: seconds the strict build may take (about 10 s on the 2-core development machine)
BUILD_TIMEOUT = 300


sys.path.insert(0, str(ROOT / "docs"))  # the generators' package, docs/_gen
from _gen import env_tables, generators, markdown, notebooks, options, rules, training  # noqa: E402


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built with ``mkdocs build --strict`` into a temporary folder."""
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
                          cwd=ROOT, capture_output=True, text=True, timeout=BUILD_TIMEOUT, env=env)
    log = proc.stdout + proc.stderr
    problems = [line for line in log.splitlines() if line.startswith(("WARNING", "ERROR"))]
    assert proc.returncode == 0, "mkdocs build --strict failed:\n" + "\n".join(problems or log.splitlines()[-40:])
    return out


def page(site: Path, name: str) -> str:
    path = site / name
    assert path.is_file(), f"the site has no {name}"
    return path.read_text(encoding="utf-8")


class _Cells(HTMLParser):
    """The text of every table cell of a page, row by row."""

    def __init__(self):
        super().__init__()
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None and self.rows:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def table_rows(html: str) -> list[list[str]]:
    p = _Cells()
    p.feed(html)
    return p.rows


# --------------------------------------------------------------------------------------
# The build
# --------------------------------------------------------------------------------------
def test_every_page_of_the_nav_is_built(site):
    for name in ["index.html", "getting-started.html", "games.html", "rules.html", "agents.html",
                 "training.html", "evaluation.html", "scaling.html", "benchmarks.html", "architecture.html",
                 "notebooks.html", "models/gin.html", "models/rummy.html", "contributing-docs.html",
                 "environments/gin_rummy_v0.html", "environments/rummy_v0.html", "environments/gym_gin.html",
                 "environments/gym_rummy.html", "environments/batched.html", "api/games.html",
                 "api/engines.html", "api/envs.html", "api/agents.html", "api/training.html",
                 "api/tournament.html", "research/index.html"]:
        assert (site / name).is_file(), name
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        html = page(site, f"notebooks/{nb.stem}.html")
        assert "jupyter-wrapper" in html or "jp-Notebook" in html, f"{nb.name} was not rendered as a notebook"


def test_nothing_is_loaded_from_the_network(site):
    """Fonts off, no CDN scripts or styles: the site works from the disk, offline (search
    included: its index is bundled as a script)."""
    external = re.compile(r"""<(?:script|link)\b[^>]*(?:src|href)=["']https?://""")
    for path in site.rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        found = external.findall(text)
        assert not found, f"{path.relative_to(site)} loads {found[:3]}"
    assert (site / "search" / "search_index.js").is_file()


# --------------------------------------------------------------------------------------
# Generated parts against the code
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("game, html_name", [("gin", "environments/gin_rummy_v0.html"),
                                             ("rummy", "environments/rummy_v0.html")])
def test_observation_table_is_the_engines_layout(site, game, html_name):
    from rummyrl import games

    engine = games.get(game).engine
    rows = {r[1]: r for r in table_rows(page(site, html_name)) if len(r) == 5 and r[1] in engine.OBS_LAYOUT}
    assert set(rows) == set(engine.OBS_LAYOUT), sorted(set(engine.OBS_LAYOUT) - set(rows))
    for name, sl in engine.OBS_LAYOUT.items():
        want = str(sl.start) if sl.stop - sl.start == 1 else f"{sl.start}-{sl.stop - 1}"
        assert rows[name][0] == want, (name, rows[name][0], want)


@pytest.mark.parametrize("game, html_name", [("gin", "environments/gin_rummy_v0.html"),
                                             ("rummy", "environments/gym_rummy.html")])
def test_action_table_is_the_engines_constants(site, game, html_name):
    from rummyrl import games

    engine = games.get(game).engine
    rows = [r for r in table_rows(page(site, html_name)) if len(r) == 4 and r[0].split()[0].isupper()]
    firsts = sorted(int(r[1].split("..")[0]) for r in rows)
    blocks = env_tables.action_blocks(game)
    assert firsts == [a for _, a, _, _ in blocks]
    assert int(rows[-1][1].split("..")[-1]) == engine.NUM_ACTIONS - 1
    for name, a, _, _ in blocks:
        assert getattr(engine, name) == a


def test_training_guide_lists_every_config_field(site):
    from rummyrl.agents.network import NetConfig
    from rummyrl.training.config import EvalConfig, ExitConfig, OpponentConfig, TrainConfig

    cells = {r[0] for r in table_rows(page(site, "training.html")) if r}
    for prefix, cls in [("", TrainConfig), ("net.", NetConfig), ("opponents.", OpponentConfig),
                        ("eval.", EvalConfig), ("exit.", ExitConfig)]:
        missing = [prefix + f.name for f in dataclasses.fields(cls) if prefix + f.name not in cells]
        assert not missing, f"training.md does not table {missing}"


def test_training_guide_lists_every_tensorboard_key(site):
    html = page(site, "training.html")
    for pattern, where in training.tensorboard_calls():
        static = re.split(r"<", pattern)[0]
        assert static in html, f"TensorBoard key {pattern!r} ({where}) is not on the training page"


def test_agents_page_tables_every_option(site):
    from rummyrl import games
    from rummyrl.agents.gin_expert import ExpertParams
    from rummyrl.agents.rummy_expert import RummyExpertParams

    cells = {r[0] for r in table_rows(page(site, "agents.html")) if r}
    for cls in (ExpertParams, RummyExpertParams):
        missing = [f.name for f in dataclasses.fields(cls) if f.name not in cells]
        assert not missing, f"agents.md does not table {cls.__name__}: {missing}"
    options = set(games.SEARCH_DEFAULTS)
    for g in games.names():
        options |= set(games.get(g).search_defaults)
    assert options <= cells, sorted(options - cells)


def test_every_rule_id_of_the_games_page_links_to_its_heading(site):
    """The plain-words page cites every rule of the rule book, each as a link to a heading
    that exists in the built rule book."""
    rules = page(site, "rules.html")
    ids = set(re.findall(r'id="([^"]+)"', rules))
    links = dict(re.findall(r'<a href="rules\.html#([^"]+)">([CGR]-\d+[a-z]?)</a>', page(site, "games.html")))
    linked = set(links.values())
    defined = set(re.findall(r"^### ([CGR]-\d+[a-z]?) ", (ROOT / "docs" / "rules.md").read_text(), re.M))
    assert defined <= linked, f"games.md does not cite {sorted(defined - linked)}"
    assert set(links) <= ids, f"links to missing anchors: {sorted(set(links) - ids)}"


def test_results_schema_lists_every_pairing_field(site):
    from rummyrl.tournament import PairingResult

    cells = {r[0] for r in table_rows(page(site, "evaluation.html")) if r}
    keys = set(PairingResult("a", "b").to_dict())
    assert keys <= cells, sorted(keys - cells)


# --------------------------------------------------------------------------------------
# docs/_gen on small inputs
# --------------------------------------------------------------------------------------
def test_rst_simple_table_roles_and_literal_blocks_become_markdown():
    text = "\n".join([
        "Options (see :func:`~rummyrl.agents.load_agent`)::",
        "",
        "    load_agent(\"search:worlds=64\")",
        "",
        "=============  ============  ==========================",
        "option         default       meaning",
        "=============  ============  ==========================",
        "``worlds``     32            sampled worlds per",
        "                             decision",
        "``z``          1.0           a ``|`` b",
        "=============  ============  ==========================",
        "",
        "Rules",
        "-----",
        "See :class:`GinConfig`.",
    ])
    assert markdown.rst_to_markdown(text).split("\n") == [
        "Options (see `load_agent`):",
        "",
        "```python",
        'load_agent("search:worlds=64")',
        "```",
        "",
        "| option | default | meaning |",
        "| --- | --- | --- |",
        "| `worlds` | 32 | sampled worlds per decision |",
        "| `z` | 1.0 | a `|` b |",
        "",
        "**Rules**",
        "",
        "See `GinConfig`.",
    ]


def test_rule_ids_become_links_outside_code_and_links():
    anchors = rules.rule_anchors()
    assert anchors["G-6"] == "g-6-knock" and anchors["G-10a"] == "g-10a-move-cap"
    unknown = "R-" + "99"  # an id the rule book does not define (spelt apart: tests/docs/test_rulebook.py scans files)
    md = "\n".join([f"A knock (G-6), `G-7` in code, [G-8 here](x.md), {unknown} unknown.",
                    "# G-9 in a heading", "```", "G-11 in a fence", "```"])
    out = rules.link_rule_ids(md, "../rules.md").split("\n")
    assert out[0] == ("A knock ([G-6](../rules.md#g-6-knock)), `G-7` in code, [G-8 here](x.md), "
                      f"{unknown} unknown.")
    assert out[1:] == md.split("\n")[1:]


@dataclass
class _Undocumented:
    documented: int = 1
    """A field with its docstring."""
    bare: int = 2


def test_a_config_field_without_docstring_is_a_warning(caplog):
    with caplog.at_level(logging.WARNING, logger="mkdocs.hooks.docs_gen"):
        table = options.gen_config_table(_Undocumented)
    assert "A field with its docstring." in table
    assert any("_Undocumented.bare has no docstring" in r.getMessage() for r in caplog.records)
    assert not any("documented has no" in r.getMessage() and ".documented" in r.getMessage() for r in caplog.records)


def test_markers_expand_outside_fences_only():
    md = "<!-- gen: value rummyrl.gin.NUM_ACTIONS -->\n```\n<!-- gen: value rummyrl.gin.NUM_ACTIONS -->\n```"
    from rummyrl import gin

    assert generators.expand_markers(md).split("\n") == [f"`{gin.NUM_ACTIONS!r}`", "```",
                                                       "<!-- gen: value rummyrl.gin.NUM_ACTIONS -->", "```"]


def test_every_notebook_page_shows_its_executed_copy():
    """The site renders each notebook from its executed copy (``scripts/render_notebooks.py``),
    so its pages show what the code printed and drew; a copy whose code is not its
    notebook's any more must be rendered again."""
    gen = notebooks
    for nb in gen.notebooks():
        copy = gen.executed(nb)
        assert copy is not None, (f"notebooks/executed/{nb.name} is missing or its code differs from "
                                  f"notebooks/{nb.name}: run python scripts/render_notebooks.py {nb.stem}")
        outputs = [o for c in json.loads(copy.read_text())["cells"] if c["cell_type"] == "code"
                   for o in c.get("outputs", [])]
        assert any("image/png" in o.get("data", {}) for o in outputs), f"{copy.name} shows no figure"
        assert not [o for o in outputs if o.get("output_type") == "error"], f"{copy.name} stored an error"


def test_the_generators_are_one_small_module_per_page_family():
    """docs/_gen keeps one module per generated page or table family, none over 400 lines, and
    every table spec in a module named for a page (docs/_gen/tables/SPEC_MODULES)."""
    from _gen import tables

    sizes = {p.relative_to(ROOT).as_posix(): len(p.read_text().splitlines())
             for p in (ROOT / "docs" / "_gen").rglob("*.py")}
    assert len(sizes) > 20 and max(sizes.values()) <= 400, {k: v for k, v in sizes.items() if v > 400}
    modules = {p.stem for p in (ROOT / "docs" / "_gen" / "tables").glob("*.py")}
    assert set(tables.SPEC_MODULES) <= modules
    assert len(tables.all_tables()) > 50
