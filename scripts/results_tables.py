"""Generate the results tables of the documentation from the JSON under docs/results (the
table specs and their language are the package ``docs/_gen/tables``; docs/README.md)::

    python scripts/results_tables.py            # rewrite every marked table
    python scripts/results_tables.py --check    # change nothing; exit 1 naming each stale table
    python scripts/results_tables.py --list     # the table specs, their JSON and their pages
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))

from _gen.tables.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
