#!/usr/bin/env bash
# Set up .venv (first run only), then the main job: train Gin Rummy with the default
# config (configs/gin_rummy.yaml, about an hour on 2 cores) and evaluate the result
# against the baselines. Arguments go to train.py, e.g.
#   bash scripts/run.sh --quick                          # a few minutes
#   bash scripts/run.sh --config configs/rummy.yaml      # Rummy, 4 players
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh
exec .venv/bin/python train.py "$@"
