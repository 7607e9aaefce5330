"""Step infos of one fixed shape, so that a learning library can store them step after step.

Libraries that keep infos in a buffer (Tianshou's ``ReplayBuffer``, TorchRL's tensordicts)
stack each key over steps: an info must have the same keys, shapes and dtypes at every step,
and hold numbers only. So every info of the environments has them all:

* ``deal_over``: 1 at the step that ended a deal (a Gin hand, a Rummy round), else 0;
* the engine's ``<deal>_arrays`` of that deal (``rummyrl.gin.hand_arrays``,
  ``rummyrl.rummy.round_arrays``): its end as an ``END_*`` code, the winner, points, each
  player's hand, melds and lay-offs as (P, 52) card masks, the scores after it; at a step that
  ended no deal the same arrays hold "nothing" (0; -1 for a player or a round number);
* ``game_over``, ``game_winner``, ``game_total`` (P,) and ``game_margin``: the game's result
  (:func:`rummyrl.gin.game_result`) once it is over, "nothing" before.

The same facts in words (card names, end names, each bonus itemized) come from the
environments' ``deal_info()`` and ``game_info()`` methods, which build them only when asked.
"""

from __future__ import annotations

import numpy as np

from rummyrl.games import Game

#: keys whose "nothing" is -1, not 0: a player (nobody) or a round number (none)
MINUS_ONE_KEYS = ("knocker", "winner", "dealer", "game_winner", "round")


class StepInfo:
    """The info arrays of one environment's game: :meth:`of` a state after a step."""

    def __init__(self, game: Game, config):
        self.game = game
        state = game.engine.init(1, seed=0, config=config)  # any state gives the shapes and dtypes
        arrays = {"deal_over": np.int64(0), **game.deal_arrays(state, 0), **self.game_part(state)}
        self._blank = {k: np.full_like(v, -1 if k in MINUS_ONE_KEYS else 0) for k, v in arrays.items()}

    def blank(self) -> dict:
        """The info of a step that ended no deal in a game not over: every array "nothing"."""
        return {k: v.copy() if v.ndim else v[()] for k, v in self._blank.items()}  # 0-d: a numpy scalar

    def of(self, state, deal_over: bool) -> dict:
        """The info after a step of game 0 of ``state``: ``deal_over`` says whether it ended a deal."""
        info = self.blank()
        if deal_over:
            info["deal_over"] = np.int64(1)
            info.update(self.game.deal_arrays(state, 0))
        if state.game_over[0]:
            info.update(self.game_part(state))
        return info

    def game_part(self, state) -> dict:
        """The game's result arrays of game 0 of ``state`` (meaningful once it is over)."""
        r = self.game.engine.game_result(state, np.zeros(1, np.int64))
        return {"game_over": np.int64(state.game_over[0]), "game_winner": np.int64(r.winner[0]),
                "game_total": np.asarray(r.total[0], np.int64), "game_margin": np.int64(r.margin[0])}


__all__ = ["MINUS_ONE_KEYS", "StepInfo"]
