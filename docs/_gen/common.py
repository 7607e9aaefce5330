"""What every generator of the documentation shares: the repository's root and the log whose
warnings fail ``mkdocs build --strict``."""

from __future__ import annotations

import logging
import re
from pathlib import Path


ROOT = Path(__file__).resolve().parents[2]
#: where on_config lays out the source tree that griffe reads (mkdocs.yml: ``paths``)
API_TREE = ROOT / "build" / "docs_api"

log = logging.getLogger("mkdocs.hooks.docs_gen")

MARKER_RE = re.compile(r"^\s*<!--\s*gen:\s*(\w+)(.*?)-->\s*$")
FENCE_RE = re.compile(r"^\s*(```|~~~)")
#: a rule id as docs/rules.md defines them (tests/docs/test_rulebook.py: ID_RE)
RULE_ID_RE = re.compile(r"(?<![\w\-/#])([CGR]-\d+[a-z]?)(?![\w\-])")
RULE_HEAD_RE = re.compile(r"^### ([CGR]-\d+[a-z]?) \S.*$", re.M)


def warn(msg: str) -> None:
    """A problem the docs must not hide: a warning fails ``mkdocs build --strict``."""
    log.warning("docs_gen: %s", msg)
