"""Generate the results tables of the documentation from the JSON under docs/results.

A Markdown page marks each generated table with a pair of HTML comments, each on a line
of its own (outside fenced code)::

    <!-- results: gin_expert_race -->
    ...the table, rewritten by this script...
    <!-- /results -->

The name after ``results:`` is a table spec (:func:`_gen.tables.shared.table`), kept in the module of
this package named for the page it fills (``plain`` for docs/research/plain_network.md): which JSON files under
``docs/results/`` and which of their fields make its rows and columns. Every number in a
generated table comes from those files; the line under the table names and links them.

    python scripts/results_tables.py            # rewrite every marked table
    python scripts/results_tables.py --check    # change nothing; exit 1 naming each stale table
    python scripts/results_tables.py --list     # the table specs, their JSON and their pages

The pages are every ``*.md`` under ``docs/`` and ``README.md``. A marker naming an
unknown table, a marker left open, or a spec whose JSON is missing or does not match is
an error naming the page and the table.

Formats, the same everywhere: a win rate with its 95% Wilson interval as
``65.0% [62.9, 67.1]`` (the rounding of ``evaluate.py``'s own report, ``format(x, ".1%")``),
a win rate alone as ``65.0%``, game counts with thousands separators (``2,000``), points
per hand as ``15.4 vs 12.7`` (the agent's, then its opponent's). A pooled row
(:func:`pool`) adds the wins and games of its parts and recomputes the Wilson interval.
"""

import importlib

#: the modules of table specs, one per page or family of pages
SPEC_MODULES = ("index", "baselines", "search", "ppo", "exit_gin", "rummy", "plain", "web", "exploitability", "trainers", "pretrained", "benchmarks", "compress")


def all_tables() -> dict:
    """Every table spec by name (importing a spec module registers its tables)."""
    for name in SPEC_MODULES:
        importlib.import_module(f"{__name__}.{name}")
    from _gen.tables.shared import TABLES

    return TABLES
