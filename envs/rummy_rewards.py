"""Reward schemes of the Rummy environments, computed for a whole batch at once, for 2-6
players. Every scheme is zero-sum: each step's rewards add up to 0 over the players.

=================  =============================================================================
scheme             reward
=================  =============================================================================
``round_points``   when a round ends with a player going out (R-6), that player gets
                   ``+points * ROUND_POINTS_SCALE`` (R-8: the value of every card left in the
                   other hands) and each other player ``-value * ROUND_POINTS_SCALE``, the
                   value (C-2) of the cards left in its own hand: its share of the winner's
                   points. A drawn (R-7) or capped round gives 0
``game``           when the episode ends with a winner, +1 to the winner and ``-1 / (P - 1)``
                   to each other player; 0 to everyone when it is truncated (move cap,
                   ``max_rounds``) or a one-round episode ends in a draw
``game_points``    when the episode ends with a winner, to each player ``(its total - the mean
                   of the other players' totals) * GAME_POINTS_SCALE`` (R-9; with two players
                   ``+-`` the margin); 0 on truncation or a drawn one-round episode
=================  =============================================================================

Schemes combine with ``+`` (``"round_points+game"``). In one-round episodes the totals are
the round's points.
"""

from __future__ import annotations

import numpy as np

from .games import RUMMY
from .rewards import ZeroSumRewards

#: reward per point in the ``round_points`` scheme. Between the ``simple`` and ``expert``
#: baselines a won round is worth a median 45 points with 4 players (10-90 % range 16-90;
#: 6 with 2 players, 125 with 6): about 0.9 here
ROUND_POINTS_SCALE = 1 / 50
#: reward per point in the ``game_points`` scheme. The same baselines win a game to 200 by
#: a median 160 points over the mean of the others with 4 players (75 with 2, 220 with 6):
#: about 0.8 here
GAME_POINTS_SCALE = 1 / 200


class RummyRewards(ZeroSumRewards):
    """A parsed Rummy reward specification (``RummyRewards.parse("round_points+game")``)."""

    game = RUMMY
    POINTS = "round_points"
    POINTS_SCALE = ROUND_POINTS_SCALE
    GAME_POINTS_SCALE = GAME_POINTS_SCALE

    @property
    def round_points_scale(self) -> float:
        return self.points_scale

    def deal_points(self, state, rows):
        out = -state.last_hand_values[rows].astype(np.int64)
        out[np.arange(rows.size), state.last_winner[rows]] = state.last_points[rows]
        return out


SCHEMES = RummyRewards.schemes()
