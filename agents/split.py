"""``PhaseSplitAgent``: one agent makes one kind of decision (the draw, or Gin's knock), another the rest.

A tool for finding where a strong agent's edge lies before distilling it: put search at
the draw only and the expert everywhere else (and the other way round), play the same
deals, and compare (``docs/research/scripts/search_where.py``). In Rummy, search's draw decisions alone
carried most of its edge (docs/research/rummy.md).

A *draw decision* is a position whose mask allows a draw action: drawing from the stock,
taking the top discard, or (Gin) passing the upcard. The engines allow these only at the
start of a turn, so every other position is the rest of the turn (discards, knocks,
melds, lay-offs).

A *known-stock draw* (``phase="stock"``, Rummy only) is a draw decision, with both the stock
and the top discard open, at which the player knows the card the stock would give: the pile
was turned over this round (R-7: its order is public, the earliest discard on top), or the
stock is empty and a draw would turn the pile over now. Rummy search's draw edge is mostly
there (docs/research/rummy.md).

A *play decision* (``phase="play"``) is every position that is not a draw decision: the
rest of the turn. Against three experts, Rummy search's remaining edge over the planner is
there (docs/research/rummy.md).

A *knock decision* (Gin only) is a position whose mask allows a knock or big gin: the
player may end the hand, or discard and play on. In Gin, search's edge over the expert
lies in the rest of the turn, not in the draw (docs/research/expert_iteration_gin.md); the knock
split says how much of it is the choice to end the hand.
"""

from __future__ import annotations

import numpy as np

from rummyrl import games

from .base import Agent


def draw_rows(game, action_masks: np.ndarray) -> np.ndarray:
    """``(B,)`` bool: which positions are draw decisions."""
    return np.asarray(action_masks, bool)[:, list(games.get(game).draw_actions)].any(1)


def knock_rows(game, action_masks: np.ndarray) -> np.ndarray:
    """``(B,)`` bool: which positions (Gin only) allow ending the hand by a knock or gin."""
    check_phase("knock", game)
    return np.asarray(action_masks, bool)[:, games.get(game).end_actions].any(1)


def stock_rows(game, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
    """``(B,)`` bool: which positions (Rummy only) are draws, with the stock and the top
    discard both open, at which the stock's next card is known (see the module docstring)."""
    check_phase("stock", game)
    return games.load(games.get(game).stock_rows)(observations, action_masks)


#: the kinds of decision a PhaseSplitAgent can hand to its first agent: what a game needs
#: for it (None: every game has it) and its rows, ``(game, observations, action_masks) -> (B,) bool``
PHASES = {
    "draw": (None, lambda game, observations, action_masks: draw_rows(game, action_masks)),
    "knock": ("end_actions", lambda game, observations, action_masks: knock_rows(game, action_masks)),
    "stock": ("stock_rows", stock_rows),
    "play": (None, lambda game, observations, action_masks: ~draw_rows(game, action_masks)),
}


def phase_rows(phase: str, game, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
    """``(B,)`` bool: which positions are ``phase`` decisions (:data:`PHASES`)."""
    return PHASES[phase][1](game, observations, action_masks)


def check_phase(phase: str, game) -> None:
    """Raise ValueError unless ``phase`` is one of :data:`PHASES` and exists in ``game``."""
    if phase not in PHASES:
        raise ValueError(f"unknown phase {phase!r}; choose one of {sorted(PHASES)}")
    g = games.get(game)
    need = PHASES[phase][0]
    if need is not None and not getattr(g, need):
        raise ValueError(f"{phase} decisions do not exist in {g.title}; use phase='draw'")


class PhaseSplitAgent(Agent):
    """``inside`` acts at the ``phase``'s decisions (draw decisions by default), ``rest`` at
    every other position."""

    def __init__(self, inside: Agent, rest: Agent, name: str | None = None, phase: str = "draw"):
        if inside.game != rest.game:
            raise ValueError(f"both agents must play the same game: {inside!r} plays {inside.game!r}, "
                             f"{rest!r} plays {rest.game!r}")
        check_phase(phase, inside.game)
        self.inside, self.rest, self.game, self.phase = inside, rest, inside.game, phase
        self.name = name or f"{inside.name} at the {phase}, {rest.name} elsewhere"

    def reset(self, seed: int | None = None) -> None:
        self.inside.reset(seed)
        self.rest.reset(seed)

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(action_masks, bool)
        chosen = phase_rows(self.phase, self.game, observations, masks)
        out = np.empty(len(masks), np.int64)
        for agent, rows in ((self.inside, chosen), (self.rest, ~chosen)):
            if rows.any():
                out[rows] = agent.act(observations[rows], masks[rows])
        return out

    def __repr__(self) -> str:
        return f"PhaseSplitAgent(inside={self.inside!r}, rest={self.rest!r}, phase={self.phase!r})"
