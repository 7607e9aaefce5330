"""Run the notebooks and keep their outputs for the documentation site.

    python scripts/render_notebooks.py              # every notebook in notebooks/
    python scripts/render_notebooks.py 04_search    # only these

The notebooks in ``notebooks/`` are stored without outputs (``tests/docs/test_notebooks.py`` keeps
them so, and runs them). This script executes each one from the repository's root, in a
kernel of this interpreter, and writes the executed copy, outputs and figures included, to
``notebooks/executed/<name>.ipynb``: the site renders that copy (``docs/_gen/notebooks.py``),
so its pages show what the code printed and drew. ``tests/docs/test_docs.py`` fails when a
copy's code differs from its notebook's: rerun this script after editing a notebook.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

import nbclient
import nbformat

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ROOT / "notebooks"
RENDERED = ROOT / "notebooks" / "executed"
#: seconds one cell may run (the training notebook trains for 45 s, then evaluates)
CELL_TIMEOUT = 600


def kernel_dir(tmp: Path) -> Path:
    """A Jupyter data folder whose ``python3`` kernel runs this interpreter."""
    spec = tmp / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (rummyrl)", "language": "python"}))
    return tmp


def scrub(nb, replace: dict[str, str]) -> None:
    """Replace this machine's paths in the outputs (the checkout, the temporary folder) by
    names that hold anywhere: the copies are read on other machines."""
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if "text" in out:
                for old, new in replace.items():
                    out["text"] = out["text"].replace(old, new)
            for kind, value in out.get("data", {}).items():
                if kind.startswith("text/") and isinstance(value, str):
                    for old, new in replace.items():
                        value = value.replace(old, new)
                    out["data"][kind] = value


def render(path: Path, tmp: str) -> Path:
    nb = nbformat.read(str(path), as_version=4)
    client = nbclient.NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    client.execute()
    scrub(nb, {str(Path(tmp).resolve()): "$TMPDIR", tmp: "$TMPDIR", str(ROOT): "<repository>"})
    RENDERED.mkdir(parents=True, exist_ok=True)
    out = RENDERED / path.name
    tmp = out.with_name(out.name + ".tmp")
    nbformat.write(nb, str(tmp))
    tmp.replace(out)  # a killed run leaves the last good copy
    return out


def main(argv=None) -> int:
    names = list(sys.argv[1:] if argv is None else argv)
    paths = sorted(SOURCES.glob("*.ipynb"))
    if names:
        unknown = sorted(set(names) - {p.stem for p in paths})
        if unknown:
            print(f"render_notebooks: no notebook {unknown}; there are {[p.stem for p in paths]}", file=sys.stderr)
            return 2
        paths = [p for p in paths if p.stem in names]
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["JUPYTER_PATH"] = str(kernel_dir(Path(tmp) / "jupyter"))
        os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
        os.environ["TMPDIR"] = tmp  # the training notebook's run folder goes here
        for path in paths:
            t0 = time.perf_counter()
            out = render(path, tmp)
            print(f"{path.name}: {time.perf_counter() - t0:.0f}s -> {out.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
