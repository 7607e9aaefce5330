"""``planner`` for Rummy: the expert, with its draws at a known stock decided by the race.

After the discard pile has been turned over (R-7), or when the stock is empty, every
player knows which cards the stock will give, and taking the top discard instead of
drawing shifts them by one for every player. This agent plays the ``expert`` everywhere
except at those draws, where it races the players along both sequences on public
information (:mod:`rummyrl.rummy_outlook`) and takes the choice whose race ends better.
It is the argmax of the ``expert_plan`` network features
(:func:`rummyrl.agents.neural.planned_expert_prior`), so an untrained network with those
features and a zero head plays exactly like it. Against three ``simple`` it won 39.1%
[37.6, 40.6] of 4,000 four-player games where the expert won 34.8% [33.3, 36.3] (``evaluate.py
--game rummy planner expert simple --games 4000 --seed 1000``; README, "Rummy: the known
stock is a race"), and 26.2% [24.9, 27.6] against three experts.

The expert's parameters can be set in the agent's name, ``planner:swap_margin=24``
(:func:`rummyrl.agents.rummy_expert.parse_params`). Taking the top discard only when it
gains 24 points of keep value instead of 12 (cards that complete a meld or go onto the
table are taken still) raised the planner against three experts to 29.1% [27.7, 30.5],
29.0% [27.6, 30.4] and 28.2% [26.8, 29.6] of 4,000 games on three seeds (777, 3131, 4242),
from 26.6%, 26.4% and 26.2%, and left it against three simple at 40.3% (39.8% at 12): README,
"Rummy: taking less from the pile". The default stays 12; a network's ``expert_plan``
features take the tuned value from ``NetConfig.expert_params`` (``configs/rummy.yaml`` sets
``swap_margin=24`` and the expert's table-reading options, ``fit_outs=1,hold_outs=2,
w_danger_close=30,close_cards=4``: 31.1% and 30.5% of the same 4,000 games of seeds 777 and
3131; README, "Rummy: reading the table").
"""

from __future__ import annotations

import numpy as np

from .base import Agent


class PlannerRummyAgent(Agent):
    name = "planner"
    game = "rummy"

    def __init__(self, game: str = "rummy", seed: int | None = None, num_players: int | None = None,
                 params=None):
        if game != "rummy":
            raise ValueError(f"the planner plays 'rummy' only (Gin has no turned-over stock), not {game!r}; "
                             f"use 'expert' for gin")
        self.num_players = num_players
        self.params = params

    def preferences(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``(B, NUM_ACTIONS)``: the expert's preference with the known-stock draws planned."""
        from .neural import planned_expert_prior

        return planned_expert_prior("rummy", observations, np.asarray(action_masks, bool), self.num_players,
                                    self.params)

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return self.preferences(observations, action_masks).argmax(1)
