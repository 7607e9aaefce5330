"""Record the pinned behaviour fixtures of ``tests/test_pinned.py`` into ``tests/pinned/``.

    python tests/pinned/record.py              # every file
    python tests/pinned/record.py engine_gin_default agents_gin   # only these files

What it records (the cases themselves are defined in tests/test_pinned.py, which recomputes
them with the same functions and requires identical results):

* ``engine_*.npz``: batches of whole games (Gin; Rummy with 2-6 players; default and
  other rules) played by seeded legal random play: every step's actions (B x T, -1 once a
  game is over), a sha256-based hash of every step's observations and of its masks, every
  hand's (round's) end (how, who, points, deadwoods / hand values, a hash of the revealed
  hands and melds), the final observations of every seat (hashed), scores and itemized
  game results.
* ``positions_*.npz``: observations and masks drawn from seeded random play (Gin, Rummy
  with 4 and 3 players), the inputs of the agent fixtures.
* ``agents_*.npz``: the actions of every built-in agent spec (``random``, ``simple``,
  ``expert`` with default and other parameters, ``planner``, ``pretrained``, ``search``
  with small settings) on those positions, the ``preferences`` of the agents that have
  them, and the expert preference functions / network features (float arrays).
* ``evaluate_*.json``: ``evaluate.py``'s results.json for a small Gin and Rummy
  tournament, without the timing fields.
* ``trainer_*.npz``: the network weights (one array per parameter), ``global_step`` and
  ``updates`` of the in-process trainer after two updates of tiny versions of
  ``configs/gin_rummy.yaml``, ``gin_rummy_plain.yaml``, ``rummy.yaml``,
  ``gin_rummy_exit.yaml`` and ``docs/research/configs/rummy_exit.yaml``.
* ``manifest.json``: the commit and library versions the files were recorded with.

Every case is computed twice and must come out identical both times before anything is
written (the fixtures must be deterministic).

ONLY RERUN THIS FOR A *WANTED* CHANGE OF BEHAVIOUR, in a commit of its own that says what
changed and why. The fixtures exist to prove that a refactor changes nothing; re-recording
them to make a failing test pass defeats them.
"""

from __future__ import annotations

import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import test_pinned as T  # noqa: E402  (tests/test_pinned.py: the cases and the adapter)


def same(a: dict, b: dict) -> bool:
    if sorted(a) != sorted(b):
        return False
    for k in a:
        x, y = a[k], b[k]
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if x.dtype != y.dtype or x.shape != y.shape or not np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"):
                return False
        elif x != y:
            return False
    return True


def record_npz(stem: str) -> None:
    arrays = {}
    for case in T.NPZ_FILES[stem]:
        t = time.perf_counter()
        first = T.compute_npz(stem, case)
        second = T.compute_npz(stem, case)
        if not same(first, second):
            raise SystemExit(f"{stem} {case}: two runs differ; not deterministic, nothing written")
        arrays.update(first)
        print(f"  {stem} {case}: {time.perf_counter() - t:.1f}s (twice)", flush=True)
    np.savez_compressed(HERE / f"{stem}.npz", **arrays)


def record_json(stem: str) -> None:
    t = time.perf_counter()
    first = json.loads(json.dumps(T.JSON_FILES[stem]()))
    second = json.loads(json.dumps(T.JSON_FILES[stem]()))
    if first != second:
        raise SystemExit(f"{stem}: two runs differ; not deterministic, nothing written")
    (HERE / f"{stem}.json").write_text(json.dumps(first, indent=1, sort_keys=True) + "\n")
    print(f"  {stem}: {time.perf_counter() - t:.1f}s (twice)", flush=True)


def manifest() -> dict:
    import numba
    import torch

    def git(*args):
        try:
            return subprocess.run(["git", *args], cwd=T.ROOT, capture_output=True, text=True).stdout.strip()
        except OSError:
            return ""

    return {"commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain", "--untracked-files=no")),
            "recorded": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "python": platform.python_version(),
            "numpy": np.__version__, "numba": numba.__version__, "torch": torch.__version__,
            "torch_cpu_capability": torch.backends.cpu.get_cpu_capability(), "machine": platform.machine(),
            "canaries": T.platform_canaries(), "files": sorted(list(T.NPZ_FILES) + list(T.JSON_FILES))}


def write_manifest(recorded: list[str], every: bool) -> None:
    """manifest.json: for a whole recording, this machine and commit; for some files only,
    the manifest as it was, these files' machine in ``file_canaries`` where it computes
    otherwise than the manifest's (tests/test_pinned.py compares each file as its own
    machine recorded it), and the re-recording listed in ``rerecorded``."""
    new, path = manifest(), HERE / "manifest.json"
    if not every and path.is_file():
        old = json.loads(path.read_text())
        per_file = {k: v for k, v in old.get("file_canaries", {}).items() if k not in recorded}
        if new["canaries"] != old.get("canaries"):
            per_file.update({stem: new["canaries"] for stem in recorded})
        done = {k: new[k] for k in ("commit", "dirty", "recorded", "torch_cpu_capability")}
        rerecorded = old.get("rerecorded", []) + [{"files": sorted(recorded), **done}]
        new = {k: v for k, v in old.items() if k not in ("file_canaries", "rerecorded")}
        new |= ({"file_canaries": per_file} if per_file else {}) | {"rerecorded": rerecorded}
    path.write_text(json.dumps(new, indent=1) + "\n")


def main(argv: list[str]) -> int:
    known = list(T.NPZ_FILES) + list(T.JSON_FILES)
    want = argv or known
    unknown = [w for w in want if w not in known]
    if unknown:
        print(f"unknown fixture(s) {unknown}; known: {known}", file=sys.stderr)
        return 2
    t = time.perf_counter()
    for stem in known:  # in the order of the cases: positions before the agents that use them
        if stem not in want:
            continue
        (record_npz if stem in T.NPZ_FILES else record_json)(stem)
    write_manifest(want, every=set(want) == set(known))
    size = sum(p.stat().st_size for p in HERE.iterdir() if p.is_file())
    print(f"recorded {len(want)} file(s) in {time.perf_counter() - t:.0f}s; tests/pinned/ holds {size / 1e6:.2f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
