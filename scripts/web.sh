#!/usr/bin/env bash
# Set up .venv with the web extra (first run only), then start the browser table,
# rummyrl-web, on http://127.0.0.1:8000. Arguments go to rummyrl-web, e.g.
#   bash scripts/web.sh --opponent expert --opponent pretrained --records runs/records
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh web
exec .venv/bin/rummyrl-web "$@"
