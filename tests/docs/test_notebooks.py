"""The notebooks run top to bottom, in a kernel of this Python, from the repository root.

Each notebook in ``notebooks/`` is executed with nbclient; a cell that raises fails the test
with the cell's traceback. The kernel is the ``python3`` spec of a temporary Jupyter path
that starts ``sys.executable``, so the notebooks import the project from the same
environment as the tests, whatever other kernels are installed. The notebooks in the
repository carry no outputs.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

pytestmark = pytest.mark.docs  # every notebook, top to bottom

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
#: seconds one cell may run (the training cell trains for 45 s, then evaluates)
CELL_TIMEOUT = 300
#: what each notebook must print: the results of its experiments, not just "no error"
EXPECTED = {
    "01_quickstart": ["observation (794,) float32 | action mask (108,) int8", "256 games finished",
                      "deadwood after discarding each card:", "NUM_ACTIONS = 108", "OBS_DIM = 794",
                      "wins after", "total", "batched: {'player': (64,), 'obs': (64, 3061)"],
    "02_train_and_evaluate": ["a typo is an error: unknown config key 'num_env'; known keys: ['algo',", "environment steps in",
                              "| notebook/best | simple | 50 |", "| notebook/best | expert | 50 |",
                              "checkpoint holds:", "python -m rummyrl.agents.play --game gin --opponent",
                              "pretrained gin network from:", "| pretrained | expert | 50 |"],
    "03_rules_and_analysis": ["9,000 hands in", "after turn 1: median", "knock        gin   undercut",
                              "of the hands:", "taking minus passing:", "paired deals"],
    "04_search": ["opponent passed:", "uniform   mean log P(true hidden card)",
                  "weighted  mean log P(true hidden card)", "gain vs expert", "expert plays:"],
    "05_replay": ["records read: 2 games", "replayed", "weighed:", "and played", "deadwood at the end of the first hand:"],
}


@pytest.fixture(scope="module")
def kernel_path(tmp_path_factory):
    """A Jupyter data folder whose ``python3`` kernel runs this interpreter."""
    data = tmp_path_factory.mktemp("jupyter")
    spec = data / "kernels" / "python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (rummyrl tests)",
        "language": "python",
    }))
    return data


def test_the_notebooks_are_there():
    assert [p.name for p in NOTEBOOKS] == ["01_quickstart.ipynb", "02_train_and_evaluate.ipynb",
                                           "03_rules_and_analysis.ipynb", "04_search.ipynb", "05_replay.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_stored_without_outputs(path):
    nb = nbformat.read(str(path), as_version=4)
    nbformat.validate(nb)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code, "a notebook without code"
    for i, cell in enumerate(code):
        assert cell.outputs == [] and cell.execution_count is None, f"code cell {i} has outputs stored"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_runs_top_to_bottom(path, kernel_path, monkeypatch, tmp_path):
    monkeypatch.setenv("JUPYTER_PATH", str(kernel_path))
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the training notebook's run folder goes here
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    nb = nbformat.read(str(path), as_version=4)
    client = nbclient.NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                                     resources={"metadata": {"path": str(ROOT)}})
    t0 = time.perf_counter()
    client.execute()  # raises CellExecutionError naming the cell and its traceback
    seconds = time.perf_counter() - t0
    print(f"{path.name}: {seconds:.0f}s")
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    errors = [o for o in outputs if o.output_type == "error"]
    assert not errors, errors
    images = [o for o in outputs if o.output_type in ("display_data", "execute_result") and "image/png" in o.data]
    assert images, "the notebook drew no figure"
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "Traceback" not in text
    missing = [s for s in EXPECTED[path.stem] if s not in text]
    assert not missing, f"{path.name} did not print {missing}"
    assert seconds < 300, f"{path.name} took {seconds:.0f}s: keep each notebook under 5 minutes"
