#!/usr/bin/env bash
# Make .venv (once) and install the project into it with the extras given as arguments.
# Idempotent: a run with the same pyproject.toml asking for extras already installed does nothing.
# Usage: bash scripts/setup_env.sh [EXTRA ...]      e.g. bash scripts/setup_env.sh dev sb3 ray
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
# the extras asked for, joined with those installed before (an install never drops one), sorted
stamp=.venv/.rummyrl-installed
hash=$(sha1sum pyproject.toml | cut -d' ' -f1)
had=""
[ -f "$stamp" ] && had=$(sed -n 's/^[0-9a-f]* \[\(.*\)\]$/\1/p' "$stamp" | tr ',' ' ')
extras=$(printf '%s\n' "$@" $had | sed '/^$/d' | sort -u | paste -sd, -)
want="$hash [$extras]"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    exit 0
fi
echo "setting up .venv (extras: ${extras:-none}) ..." >&2
.venv/bin/python -m pip install -q --upgrade pip
# torch first, as a CPU build where one is at hand: a bare "torch" requirement can pull a
# multi-GB CUDA build. torch==2.13.0 is the CPU wheel this project is developed with.
if ! .venv/bin/python -c "import torch" 2>/dev/null; then
    .venv/bin/python -m pip install -q "torch==2.13.0" ||
        .venv/bin/python -m pip install -q torch --index-url https://download.pytorch.org/whl/cpu
fi
.venv/bin/python -m pip install -q -e ".${extras:+[$extras]}"
echo "$want" > "$stamp"
