"""Rummy specifics of the wrappers' options (the shared parsing is ``rummyrl.envs.options``).

Rule options are the fields of :class:`rummyrl.rummy.RummyConfig` (``num_players``,
``episode``, ``target``, ``stock_passes``, ...). Reset options fix the deal
(``rummyrl.envs.options``); in a Rummy deck with ``h = hand_size`` (7) and dealer ``d``,
``deck[h*i : h*i + h]`` is the hand of the player ``i + 1`` seats left of the dealer (seat
``(d + 1 + i) % P``; ``i = 0`` plays first, R-2), ``deck[h*P]`` is the upcard that starts the
discard pile and ``deck[h*P + 1:]`` is the stock in draw order (R-1). ``dealer`` is a seat
``0..P-1`` or ``"player_i"`` (without it the seeded first dealer).
"""

from __future__ import annotations

import numpy as np

from rummyrl import rummy
from rummyrl.cards import NUM_CARDS, VALUE


#: the most one round can score: the value of every card (R-8, C-2)
MAX_ROUND_POINTS = int(VALUE.sum())


def observation_high(config: rummy.RummyConfig) -> np.ndarray:
    """Upper bounds of the flat observation (lower bounds are 0). Card planes and most
    numbers are in [0, 1]; scores are divided by the target and pass 1 when the round that
    ends the game overshoots it; hand sizes are divided by ``hand_size`` and pass 1 when a
    player holds more cards than it was dealt."""
    high = np.ones(rummy.OBS_DIM, np.float32)
    high[rummy.OBS_LAYOUT["scores"]] = (config.target - 1 + MAX_ROUND_POINTS) / config.target
    high[rummy.OBS_LAYOUT["hand_sizes"]] = NUM_CARDS / config.hand_size
    high[rummy.OBS_LAYOUT["stock_passes"]] = max(1, config.stock_passes)
    high[rummy.OBS_LAYOUT["target"]] = max(1.0, config.target / 200)
    return high

