"""How much of a Rummy policy the engine's features hold: fixed rules over them, against three `simple`.

    python docs/research/scripts/fact_rules.py OUT.json [--rounds 2000] [--seed 5]

Each rule plays the argmax of a weighted sum of the engine's feature columns
(:func:`rummyrl.engine_features.rummy_features`): one weight per kind of column
(``RUMMY_FEATURE_GROUPS``), with every meld and lay-off played before any discard. The
weights here are set by hand, so these rules are a diagnostic of what a network that reads
the features could express with a few learned weights, not agents: a plain network starts
every weight at zero and learns them. ``simple`` and ``expert`` are measured the same way as
references, and so are the two baselines split by decision (one draws, the other plays the
rest of the turn, :class:`~rummyrl.agents.split.PhaseSplitAgent`), to show where the expert's
edge over ``simple`` lies, and the best rule with the expert's draws. One seat of four against
three ``simple``, single rounds on duplicate deals; the JSON lists each rule's weights, rounds
won, drawn and the 95% interval.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from rummyrl import rummy
from rummyrl.agents.base import Agent
from rummyrl.agents.loading import load_agent
from rummyrl.agents.split import PhaseSplitAgent
from rummyrl.engine_features import RUMMY_FEATURE_ACTIONS, RUMMY_FEATURE_GROUPS, rummy_features
from rummyrl.stats import wilson_interval
from rummyrl.tournament import match_config, play_pairing

#: group -> what its columns count (engine_features.RUMMY_FEATURE_GROUPS)
GROUPS = ["deadwood: draws", "deadwood: discards", "deadwood: melds", "deadwood: lay-offs",
          "loose cards: draws", "loose cards: discards", "outs: draws", "outs: discards"]

RULES = {
    "deadwood of discards only": {1: 1.0},
    "deadwood and loose cards": {1: 0.1, 4: 3.0, 5: 3.0},
    "deadwood, loose cards and outs": {1: 0.1, 4: 3.0, 5: 3.0, 7: 0.3},
    "deadwood, loose cards and outs, outs of draws": {1: 0.1, 4: 1.0, 5: 3.0, 6: 0.5, 7: 0.3},
}


class FactRule(Agent):
    """The argmax of ``sum_k weights[group(k)] * feature[k]`` over the legal actions, plays first."""

    game = "rummy"

    def __init__(self, name: str, weights: dict[int, float]):
        self.name = name
        w = np.zeros(len(GROUPS), np.float32)
        for g, v in weights.items():
            w[g] = v
        self.column_weight = w[RUMMY_FEATURE_GROUPS]

    def act(self, observations, action_masks):
        obs, masks = self.check_batch(observations, action_masks)
        weighted = rummy_features(obs, masks) * self.column_weight
        score = np.zeros(masks.shape, np.float32)
        np.add.at(score, (slice(None), RUMMY_FEATURE_ACTIONS), weighted)
        score[:, rummy.MELD:] += 1000.0  # every meld and lay-off before any discard
        return np.where(masks, score, -np.inf).argmax(1)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", type=Path)
    ap.add_argument("--rounds", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=5)
    args = ap.parse_args(argv)
    config = match_config("rummy", unit="hand", players=4)
    simple = load_agent("simple", "rummy")
    rows = []
    expert = load_agent("expert", "rummy")
    players = [(n, load_agent(n, "rummy"), None, "the baseline itself") for n in ("simple", "expert")]
    players += [("expert at the draw, simple elsewhere", PhaseSplitAgent(expert, simple), None, "split by decision"),
                ("simple at the draw, expert elsewhere", PhaseSplitAgent(simple, expert), None, "split by decision")]
    players += [(n, FactRule(n, w), w, None) for n, w in RULES.items()]
    best = list(RULES)[-1]
    players += [(f"expert at the draw, `{best}` elsewhere", PhaseSplitAgent(expert, FactRule(best, RULES[best])),
                 None, "split by decision")]
    for name, agent, weights, kind in players:
        r = play_pairing(agent, simple, config, args.rounds, seed=args.seed)
        lo, hi = wilson_interval(r.wins_a, r.games)
        rows.append({"rule": name, "kind": kind,
                     "weights": None if weights is None else {GROUPS[g]: v for g, v in weights.items()},
                     "rounds": r.games, "won": r.wins_a, "drawn": r.draws, "win_rate": r.wins_a / r.games,
                     "ci95": [lo, hi]})
        print(f"{name:50s} {r.wins_a:5d} / {r.games} rounds won ({r.wins_a / r.games:.1%})", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"against": "three simple", "unit": "round", "seed": args.seed,
                                    "rules": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
