"""Reward schemes of the Gin Rummy environments, computed for a whole batch at once.

=================  =============================================================================
scheme             reward
=================  =============================================================================
``hand_points``    when a hand ends, its winner gets ``+points * HAND_POINTS_SCALE`` and the
                   other player the negative (G-11 .. G-14: knock, undercut and gin points with
                   their bonuses); a dead or capped hand gives 0
``game``           when the episode ends with a winner, +1 to the winner, -1 to the loser; 0 to
                   both when it is truncated or a one-hand episode ends dead
``game_points``    when the episode ends with a winner, ``+margin * GAME_POINTS_SCALE`` to the
                   winner and the negative to the loser (G-19; in one-hand episodes the
                   margin is the hand's points)
=================  =============================================================================

Schemes combine with ``+`` (``"hand_points+game"``: points of every hand, then +-1 for the
game). Every scheme is zero-sum: each step's rewards add up to 0 over the players
(``rummyrl.envs.rewards`` computes them for any number of players).
"""

from __future__ import annotations

import numpy as np

from rummyrl import games

from .rewards import ZeroSumRewards

#: reward per hand point in the ``hand_points`` scheme (the registry's ``points_scale``)
HAND_POINTS_SCALE = games.get("gin").points_scale
#: reward per point of the final margin in the ``game_points`` scheme
GAME_POINTS_SCALE = games.get("gin").game_points_scale


class GinRewards(ZeroSumRewards, game="gin"):
    """A parsed Gin Rummy reward specification (``GinRewards.parse("hand_points+game")``)."""

    @property
    def hand_points_scale(self) -> float:
        return self.points_scale

    def deal_points(self, state, rows):
        n = np.arange(rows.size)
        w = state.last_winner[rows].astype(np.int64)
        pts = state.last_points[rows]
        out = np.zeros((rows.size, 2), np.int64)
        out[n, w] = pts
        out[n, 1 - w] = -pts
        return out


SCHEMES = GinRewards.schemes()
