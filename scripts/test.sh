#!/usr/bin/env bash
# Set up .venv with the test extras (dev, sb3, ray, rllib, docs, web, tianshou, torchrl; first run only) and run the test suite.
#   bash scripts/test.sh              everything (what CI runs), in a random order (pytest-randomly)
#   bash scripts/test.sh --fast       all but the slow kinds (markers slow, browser, ray, docs: pyproject.toml)
# Other arguments go to pytest, e.g. bash scripts/test.sh -k gin -x, or --fast -x.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh dev sb3 ray rllib docs web tianshou torchrl
if [ "${1:-}" = "--fast" ]; then
    shift
    set -- -m "not (slow or browser or ray or docs)" "$@"
fi
exec .venv/bin/python -m pytest "$@"
