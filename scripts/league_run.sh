#!/usr/bin/env bash
# The league run of issue 48's acceptance (docs/research/exploitability.md, "The league"):
# a Gin network from the rules alone trained in a league of 4 rounds (20 minutes of main
# training, then a 10-minute exploiter of it), about 2 hours on 2 cores; then the 30-minute
# best response against its network, the same row the table has for every other agent.
# Writes docs/results/league/gin.json and docs/results/exploit/gin_league.json; each stage
# goes on where it stopped when this is run again. One training at a time: run it alone.
# Then: python scripts/results_tables.py (the exploitability table from the JSON).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh
.venv/bin/python -m rummyrl.league --rounds 4 --main-minutes 20 --exploiter-minutes 10 --run-dir runs/league_gin
mkdir -p docs/results/league
cp runs/league_gin/league.json docs/results/league/gin.json
if [ ! -f docs/results/exploit/gin_league.json ]; then
    .venv/bin/python exploit.py runs/league_gin/main/best.pt --minutes 30 --run-dir runs/exploit/exploit_gin_league \
        --out docs/results/exploit/gin_league.json
fi
