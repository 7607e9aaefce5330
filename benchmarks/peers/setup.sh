#!/usr/bin/env bash
# A side environment holding the peers that benchmarks/bench_envs.py compares against:
# PettingZoo 1.26.1 (its last release with gin_rummy_v4) and RLCard, which that env runs on.
# Never a dependency of rummyrl. Prints the side environment's python.
# Usage: PY=$(bash benchmarks/peers/setup.sh [DIR])    (default DIR: $TMPDIR/rummyrl-peers)
set -euo pipefail
d=${1:-${TMPDIR:-/tmp}/rummyrl-peers}
[ -x "$d/bin/python" ] || python3 -m venv "$d" >&2
"$d/bin/python" -m pip install -q "pettingzoo==1.26.1" "rlcard==1.2.0" pygame-ce gymnasium numpy >&2
echo "$d/bin/python"
