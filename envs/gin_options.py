"""Gin Rummy specifics of the wrappers' options (the shared parsing is ``rummyrl.envs.options``).

Rule options are the fields of :class:`rummyrl.gin.GinConfig` (``episode``, ``target``,
``knock_limit``, ...). Reset options fix the deal (``rummyrl.envs.options``); in a Gin deck
``deck[0:10]`` is the non-dealer's hand, ``deck[10:20]`` the dealer's, ``deck[20]`` the
upcard and ``deck[21]`` the first stock card; ``dealer`` is 0 / 1 or ``"player_0"`` /
``"player_1"`` (without it the seeded first dealer, G-3).
"""

from __future__ import annotations

import numpy as np

from rummyrl import gin



def observation_high(config: gin.GinConfig) -> np.ndarray:
    """Upper bounds of the flat observation (lower bounds are 0). Card planes and most
    scalars are in [0, 1]; scores are divided by the target and can pass 1 when the
    game-ending hand overshoots it; hand counts are divided by 10."""
    high = np.ones(gin.OBS_DIM, np.float32)
    # one hand scores at most the defender's deadwood (<= 100 for 10 cards) plus a bonus
    bonus = max(config.gin_bonus, config.big_gin_bonus or 0, config.undercut_bonus + config.knock_limit)
    score_high = (config.target - 1 + 100 + bonus) / config.target
    for name in ("my_score", "opp_score"):
        high[gin.OBS_LAYOUT[name]] = score_high
    for name in ("my_hands_won", "opp_hands_won"):
        high[gin.OBS_LAYOUT[name]] = max(1.0, config.max_hands / 10)
    high[gin.OBS_LAYOUT["target"]] = max(1.0, config.target / 100)
    return high

