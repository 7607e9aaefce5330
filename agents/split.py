"""``PhaseSplitAgent``: one agent makes the draw decisions, another the rest of the turn.

A tool for finding where a strong agent's edge lies before distilling it: put search at
the draw only and the expert everywhere else (and the other way round), play the same
deals, and compare (``scripts/search_where.py``). In Rummy, search's draw decisions alone
carried most of its edge (README, "Expert iteration").

A *draw decision* is a position whose mask allows a draw action: drawing from the stock,
taking the top discard, or (Gin) passing the upcard. The engines allow these only at the
start of a turn, so every other position is the rest of the turn (discards, knocks,
melds, lay-offs).
"""

from __future__ import annotations

import numpy as np

from .base import Agent


def draw_actions(game: str) -> tuple[int, ...]:
    """The action ids of the draw decision in ``game``."""
    if game == "gin":
        from rummyrl import gin

        return gin.DRAW_STOCK, gin.TAKE_DISCARD, gin.PASS
    if game == "rummy":
        from rummyrl import rummy

        return rummy.DRAW_STOCK, rummy.TAKE_DISCARD
    raise ValueError(f"unknown game {game!r}; choose one of ['gin', 'rummy']")


def draw_rows(game: str, action_masks: np.ndarray) -> np.ndarray:
    """``(B,)`` bool: which positions are draw decisions."""
    return np.asarray(action_masks, bool)[:, list(draw_actions(game))].any(1)


class PhaseSplitAgent(Agent):
    """``draw`` acts at draw decisions, ``rest`` at every other position."""

    def __init__(self, draw: Agent, rest: Agent, name: str | None = None):
        if draw.game != rest.game:
            raise ValueError(f"both agents must play the same game: {draw!r} plays {draw.game!r}, "
                             f"{rest!r} plays {rest.game!r}")
        self.draw, self.rest, self.game = draw, rest, draw.game
        self.name = name or f"{draw.name} draws, {rest.name} plays"

    def reset(self, seed: int | None = None) -> None:
        self.draw.reset(seed)
        self.rest.reset(seed)

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks, bool)
        drawing = draw_rows(self.game, masks)
        out = np.empty(len(masks), np.int64)
        for agent, rows in ((self.draw, drawing), (self.rest, ~drawing)):
            if rows.any():
                out[rows] = agent.act(observations[rows], masks[rows])
        return out

    def __repr__(self) -> str:
        return f"PhaseSplitAgent(draw={self.draw!r}, rest={self.rest!r})"
