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

from rummyrl import games

from .rewards import ZeroSumRewards

#: reward per point in the ``round_points`` scheme (the registry's ``points_scale``)
ROUND_POINTS_SCALE = games.get("rummy").points_scale
#: reward per point of the final margin in the ``game_points`` scheme
GAME_POINTS_SCALE = games.get("rummy").game_points_scale


class RummyRewards(ZeroSumRewards, game="rummy"):
    """A parsed Rummy reward specification (``RummyRewards.parse("round_points+game")``)."""

    @property
    def round_points_scale(self) -> float:
        return self.points_scale

    def deal_points(self, state, rows):
        out = -state.last_hand_values[rows].astype(np.int64)
        out[np.arange(rows.size), state.last_winner[rows]] = state.last_points[rows]
        return out


SCHEMES = RummyRewards.schemes()
