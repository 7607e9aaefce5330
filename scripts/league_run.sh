#!/usr/bin/env bash
# The league run of issue 48's acceptance (docs/research/exploitability.md, "The league"):
# the Gin network from the rules alone (pretrained-plain: 65 minutes of the plain config, then
# distilled to 192 wide) trained on in a league of 2 rounds (25 minutes of main training, then
# a 15-minute exploiter of it, fresh from the rules alone), 80 minutes on 2 cores; then the
# best response against its network with the env steps that the 30-minute best response against
# pretrained-plain had (its row of the table), so that the two compare on any machine or load.
# Writes docs/results/league/gin.json, gin_final_network.json (the network at the league's end
# against simple and expert) and docs/results/exploit/gin_league.json; each stage
# goes on where it stopped when this is run again. One training at a time: run it alone.
# Then: python scripts/results_tables.py (the exploitability table from the JSON).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup_env.sh
.venv/bin/python -m rummyrl.league --rounds 2 --main-minutes 25 --exploiter-minutes 15 --run-dir runs/league_gin \
    --main init=agents/pretrained/gin-plain.pt --main net.hidden=192
mkdir -p docs/results/league
cp runs/league_gin/league.json docs/results/league/gin.json
if [ ! -f docs/results/league/gin_final_network.json ]; then
    .venv/bin/python evaluate.py runs/league_gin/main_2.pt simple expert --game gin --games 2000 --unit game \
        --seed 20011 --option max_hands=30 --out runs/league_gin/main_2_eval
    cp runs/league_gin/main_2_eval/results.json docs/results/league/gin_final_network.json
fi
if [ ! -f docs/results/exploit/gin_league.json ]; then
    steps=$(.venv/bin/python -c "import json; print(json.load(open('docs/results/exploit/gin_pretrained-plain.json'))['env_steps'])")
    # the network at the league's end, the one its final evaluation plays
    .venv/bin/python exploit.py runs/league_gin/main_2.pt --steps "$steps" --minutes 60 \
        --run-dir runs/exploit/exploit_gin_league_final \
        --label "the league's final network (round 2, from pretrained-plain)" \
        --out docs/results/exploit/gin_league.json
fi
