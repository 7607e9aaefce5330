#!/usr/bin/env bash
# Set up .venv (first run only) and run the main job.
# Until train.py exists this is a demo: a batch of Gin Rummy games with random legal moves.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh
exec .venv/bin/python -m rummyrl.demo "$@"
