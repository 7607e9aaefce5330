"""Zero-sum reward schemes over a batch of games, for any number of players.

A game's schemes (``rummyrl.envs.gin_rewards``, ``rummyrl.envs.rummy_rewards``) are a per-deal scheme
(``hand_points`` / ``round_points``: the points of each deal) and two end-of-episode schemes
shared by both games:

=================  =============================================================================
scheme             reward when the episode ends with a winner (0 to everyone without one)
=================  =============================================================================
``game``           +1 to the winner, ``-1 / (P - 1)`` to each other player
``game_points``    to each player, ``(its final total - the mean of the other players'
                   totals) * game_points_scale``: with two players ``+-margin``
=================  =============================================================================

Schemes combine with ``+``. Every scheme is zero-sum: each step's rewards add up to 0 over
the players.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from rummyrl import games
from rummyrl.games import Game


def win_shares(winner: np.ndarray, num_players: int) -> np.ndarray:
    """``(n, P)``: +1 for each row's winner, ``-1 / (P - 1)`` for every other player."""
    out = np.full((winner.size, num_players), -1.0 / (num_players - 1))
    out[np.arange(winner.size), winner] = 1.0
    return out


def relative_totals(total: np.ndarray) -> np.ndarray:
    """``(n, P)``: each player's total minus the mean of the other players' totals (two
    players: ``+-margin``, G-19). Adds up to 0 over each row."""
    P = total.shape[1]
    return (total * (P - 1) - (total.sum(1, keepdims=True) - total)) / (P - 1)


@dataclass(frozen=True)
class ZeroSumRewards:
    """A parsed reward specification; :meth:`add` computes the rewards of the last step.
    A game subclasses it naming itself, ``class GinRewards(ZeroSumRewards, game="gin")``,
    and implements :meth:`deal_points`; the name and scale of its per-deal scheme and the
    scale of ``game_points`` come from the game's registry entry."""

    parts: tuple[str, ...]
    points_scale: float
    game_points_scale: float

    game: ClassVar[Game]
    POINTS: ClassVar[str]  #: the per-deal scheme: ``"hand_points"`` / ``"round_points"``
    POINTS_SCALE: ClassVar[float]
    GAME_POINTS_SCALE: ClassVar[float]

    def __init_subclass__(cls, game: str | None = None, **kwargs):
        super().__init_subclass__(**kwargs)
        if game is not None:
            cls.game = games.get(game)
            cls.POINTS = cls.game.points_reward
            cls.POINTS_SCALE = cls.game.points_scale
            cls.GAME_POINTS_SCALE = cls.game.game_points_scale

    @classmethod
    def schemes(cls) -> tuple[str, ...]:
        return (cls.POINTS, "game", "game_points")

    @classmethod
    def parse(cls, spec, points_scale=None, game_points_scale=None):
        """A scheme from its name (``"round_points+game"``); the scales default to the game's."""
        if isinstance(spec, cls):
            return spec
        schemes = cls.schemes()
        if not isinstance(spec, str) or not spec:
            raise ValueError(f"reward must be a scheme name {list(schemes)} or several joined by '+', got {spec!r}")
        parts = tuple(p.strip() for p in spec.split("+"))
        bad = [p for p in parts if p not in schemes]
        if bad:
            raise ValueError(f"unknown reward scheme(s) {bad} in {spec!r}; choose from {list(schemes)} "
                             "(several may be joined by '+')")
        if len(set(parts)) != len(parts):
            raise ValueError(f"reward {spec!r} names a scheme twice")
        points_scale = cls.POINTS_SCALE if points_scale is None else points_scale
        game_points_scale = cls.GAME_POINTS_SCALE if game_points_scale is None else game_points_scale
        for name, v in ((f"{cls.POINTS}_scale", points_scale), ("game_points_scale", game_points_scale)):
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not np.isfinite(v) or v <= 0:
                raise ValueError(f"{name} must be a positive number, got {v!r}")
        return cls(parts, float(points_scale), float(game_points_scale))

    @classmethod
    def parse_for(cls, spec, scales: tuple, where: str):
        """:meth:`parse` with errors prefixed by the environment's name."""
        try:
            return cls.parse(spec, *scales)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None

    @property
    def name(self) -> str:
        return "+".join(self.parts)

    def deal_points(self, state, rows: np.ndarray) -> np.ndarray:
        """``(n, P)`` zero-sum points of the deals that ended with a winner in games ``rows``."""
        raise NotImplementedError

    def add(self, state, out: np.ndarray, rows: np.ndarray | None = None) -> None:
        """Add the rewards of the last ``step`` to ``out`` ``(B, P)`` for the games ``rows``
        whose deal ended in it (default: found from the state)."""
        if rows is None:
            rows = np.flatnonzero(self.game.deal_ended(state))
        if rows.size == 0:
            return
        if self.POINTS in self.parts:
            r = rows[state.last_winner[rows] >= 0]  # a dead, drawn or capped deal scores nothing
            if r.size:
                out[r] += self.deal_points(state, r) * self.points_scale
        if "game" in self.parts or "game_points" in self.parts:
            ended = rows[state.game_over[rows]]
            w = state.winner[ended].astype(np.int64)
            ok = w >= 0  # no winner: truncated by a cap, or a one-deal episode without one
            r, w = ended[ok], w[ok]
            if r.size:
                value = np.zeros((r.size, out.shape[1]))
                if "game" in self.parts:
                    value += win_shares(w, out.shape[1])
                if "game_points" in self.parts:
                    total = self.game.engine.game_result(state, r).total
                    value += relative_totals(total) * self.game_points_scale
                out[r] += value
