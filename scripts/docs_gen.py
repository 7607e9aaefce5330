"""Print one generated part of the documentation site without a build (the generators are the
package ``docs/_gen``; docs/README.md explains them)::

    python scripts/docs_gen.py obs_table gin
    python scripts/docs_gen.py --list
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))

from _gen.cli import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
