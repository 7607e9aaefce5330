"""``python scripts/results_tables.py [--check | --list]``: every marked table of the pages
rewritten from its JSON, or checked against it."""

from __future__ import annotations

import argparse
from pathlib import Path

from _gen.tables.formats import ROOT
from _gen.tables.pages import run, usage
from _gen.tables import __doc__ as PACKAGE_DOC, all_tables


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=PACKAGE_DOC.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true",
                    help="change nothing; exit 1 naming each page and table that differs from its JSON")
    ap.add_argument("--list", action="store_true", help="list the table specs, their JSON and pages")
    ap.add_argument("--root", type=Path, default=ROOT, help="the repository (default: this checkout)")
    args = ap.parse_args(argv)
    tables = all_tables()
    if args.list:
        usage(args.root, tables)
        return 0
    return run(args.root, tables, check=args.check)

