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
game). Every scheme is zero-sum: each step's rewards add up to 0 over the players.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from rummyrl import gin

#: reward per hand point in the ``hand_points`` scheme: a typical knock (10-20 points) is
#: about 0.5, gin with 20 deadwood against it (45) is 1.8
HAND_POINTS_SCALE = 1 / 25
#: reward per point of the final margin in the ``game_points`` scheme: winning a game to
#: 100 by a usual margin (150-300 with the game and box bonuses) gives 1.5-3
GAME_POINTS_SCALE = 1 / 100
SCHEMES = ("hand_points", "game", "game_points")


@dataclass(frozen=True)
class RewardScheme:
    """A parsed reward specification; :meth:`add` computes the rewards of the last step."""

    parts: tuple[str, ...]
    hand_points_scale: float = HAND_POINTS_SCALE
    game_points_scale: float = GAME_POINTS_SCALE

    @classmethod
    def parse(cls, spec, hand_points_scale=HAND_POINTS_SCALE,
              game_points_scale=GAME_POINTS_SCALE) -> "RewardScheme":
        if isinstance(spec, RewardScheme):
            return spec
        if not isinstance(spec, str) or not spec:
            raise ValueError(f"reward must be a scheme name {list(SCHEMES)} or several joined by '+', got {spec!r}")
        parts = tuple(p.strip() for p in spec.split("+"))
        bad = [p for p in parts if p not in SCHEMES]
        if bad:
            raise ValueError(f"unknown reward scheme(s) {bad} in {spec!r}; choose from {list(SCHEMES)} "
                             "(several may be joined by '+')")
        if len(set(parts)) != len(parts):
            raise ValueError(f"reward {spec!r} names a scheme twice")
        for name, v in (("hand_points_scale", hand_points_scale), ("game_points_scale", game_points_scale)):
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not np.isfinite(v) or v <= 0:
                raise ValueError(f"{name} must be a positive number, got {v!r}")
        return cls(parts, float(hand_points_scale), float(game_points_scale))

    @property
    def name(self) -> str:
        return "+".join(self.parts)

    def add(self, state: gin.GinState, out: np.ndarray, rows: np.ndarray | None = None) -> None:
        """Add the rewards of the last ``step`` to ``out`` ``(B, 2)`` for the games ``rows``
        whose hand ended in it (default: found from ``state.hand_ended``)."""
        if rows is None:
            rows = np.flatnonzero(state.hand_ended)
        if rows.size == 0:
            return
        if "hand_points" in self.parts:
            w = state.last_winner[rows].astype(np.int64)
            ok = w >= 0
            r, w = rows[ok], w[ok]
            pts = state.last_points[r] * self.hand_points_scale
            out[r, w] += pts
            out[r, 1 - w] -= pts
        if "game" in self.parts or "game_points" in self.parts:
            ended = rows[state.game_over[rows]]
            w = state.winner[ended].astype(np.int64)
            ok = w >= 0  # no winner: truncated (G-10a cap, max_hands) or a dead one-hand episode
            r, w = ended[ok], w[ok]
            if r.size:
                value = np.zeros(r.size)
                if "game" in self.parts:
                    value += 1.0
                if "game_points" in self.parts:
                    value += gin.game_result(state, r).margin * self.game_points_scale
                out[r, w] += value
                out[r, 1 - w] -= value
