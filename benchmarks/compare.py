"""Before and after: run one benchmark script in two checkouts, alternating, and print each
row's numbers side by side with their ratio.

    python benchmarks/compare.py BEFORE_CHECKOUT [--before-python PY] [--rounds 3] \\
        -- bench_agents.py --batch 1024

``BEFORE_CHECKOUT`` is another checkout of the project (``git worktree add ../before REV``)
with its own environment (``--before-python``, default ``BEFORE_CHECKOUT/.venv/bin/python``);
the script runs under this checkout's interpreter here and under that one there. The two
alternate for ``--rounds`` rounds, so a shared machine's slow spells fall on both, and each
number is the best of its rounds (all the benchmarks here print rates: higher is better).
Every markdown table row the script prints (``| name | number | ...``) is matched by its
first cell; the ratio is after / before.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NUMBER = re.compile(r"^-?[\d,]+(\.\d+)?$")


def rows(text: str) -> dict[tuple[str, int], float]:
    """``(table title, row name, column) -> number`` of every numeric cell of the markdown
    tables in ``text`` (the title is the last non-table line before the table)."""
    out, title = {}, ""
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            if line:
                title = line
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if set("".join(cells)) <= set("-: "):
            continue
        for k, cell in enumerate(cells[1:], 1):
            if NUMBER.match(cell):
                out[(title, cells[0], k)] = float(cell.replace(",", ""))
    return out


def _commit(checkout: Path) -> str:
    """The commit a checkout is at (what a results file records, not the folder's path)."""
    out = subprocess.run(["git", "-C", str(checkout), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    return f"commit {out.stdout.strip()}" if out.returncode == 0 else "another checkout"


def run(python: str, checkout: Path, script: list[str]) -> dict:
    cmd = [python, str(checkout / "benchmarks" / script[0]), *script[1:]]
    out = subprocess.run(cmd, cwd=checkout, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"compare: {' '.join(cmd)} failed in {checkout}:\n{out.stderr[-2000:]}")
    return rows(out.stdout)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("before", type=Path, help="the other checkout (the 'before' side)")
    ap.add_argument("--before-python", help="its interpreter (default BEFORE/.venv/bin/python)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds; each number is its best (default 3)")
    ap.add_argument("--json", type=Path, help="also write the rows to this JSON file (for docs/results)")
    argv = list(sys.argv[1:] if argv is None else argv)
    cut = argv.index("--") if "--" in argv else len(argv)
    args, script = ap.parse_args(argv[:cut]), argv[cut + 1:]
    if not script:
        ap.error("name the benchmark script after --, e.g. -- bench_agents.py --batch 1024")
    if not (args.before / "benchmarks" / script[0]).is_file():
        ap.error(f"{args.before / 'benchmarks' / script[0]} does not exist")
    if args.rounds < 1:
        ap.error(f"--rounds must be >= 1, got {args.rounds}")
    before_py = args.before_python or str(args.before / ".venv" / "bin" / "python")
    best: dict[str, dict] = {"before": {}, "after": {}}
    for _ in range(args.rounds):
        for side, python, checkout in (("before", before_py, args.before), ("after", sys.executable, ROOT)):
            for key, value in run(python, checkout, script).items():
                best[side][key] = max(value, best[side].get(key, value))
    print(f"{' '.join(script)}: best of {args.rounds} alternating rounds; before = {args.before}, after = {ROOT}\n")
    rows_out = []
    print("| table | row | column | before | after | after / before |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    for key in best["after"]:
        if key in best["before"]:
            a, b = best["after"][key], best["before"][key]
            ratio = f"{a / b:.2f}" if b else "n/a"
            print(f"| {key[0][:40]} | {key[1]} | {key[2]} | {b:,.0f} | {a:,.0f} | {ratio} |")
            rows_out.append({"table": key[0], "row": key[1], "column": key[2], "before": b, "after": a})
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"script": script, "rounds": args.rounds, "before": _commit(args.before),
                                         "machine": f"{platform.machine()}, {os.cpu_count()} cores",
                                         "measured": time.strftime("%Y-%m-%d"), "rows": rows_out}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
