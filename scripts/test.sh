#!/usr/bin/env bash
# Set up .venv with the test extras (dev, sb3, ray, rllib, docs, web, tianshou, torchrl; first run only) and run the whole test suite.
# Extra arguments go to pytest, e.g. bash scripts/test.sh -k gin -x
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh dev sb3 ray rllib docs web tianshou torchrl
exec .venv/bin/python -m pytest "$@"
