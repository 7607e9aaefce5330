"""What the generic wrappers need to know of each engine (:class:`GameSpec`).

Both engines share one API (``init``, ``step(..., inplace, active)``, ``observe``,
``reset_done``, ``game_result``, ``game_info``, ``action_name``, ``IllegalActionError``,
``NUM_ACTIONS``, ``OBS_DIM``); a spec adds what differs: the word for one deal ("hand" in Gin
Rummy, "round" in Rummy) and the state fields named after it, the number of players, the
observation bounds and the renderer. The AEC, Gymnasium and batched wrappers are written
once over a spec (``rummyrl.envs.card_aec``, ``rummyrl.envs.seat_env``, ``rummyrl.envs.vector``).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Callable

import numpy as np

from rummyrl import gin, rummy

from . import gin_options, rummy_options
from .render import render_gin, render_rummy


@dataclass(frozen=True)
class GameSpec:
    name: str  #: the agents' name of the game (``rummyrl.agents.load_agent(..., game=name)``)
    title: str
    core: ModuleType  #: the engine module
    deal: str  #: one deal: ``"hand"`` or ``"round"`` (``state.<deal>_ended``, ``<deal>_no``, ``<deal>s_won``)
    config_cls: type
    deal_info: Callable  #: ``(state, b) -> dict``: how the last deal ended
    observation_space: Callable  #: ``config -> gymnasium.spaces.Dict``
    render: Callable  #: ``(state, b, names, deal_ended) -> str``
    players: Callable  #: ``config -> number of players``

    def deal_ended(self, state) -> np.ndarray:
        """``(B,)`` bool: a deal ended in the last step."""
        return getattr(state, f"{self.deal}_ended")

    def deals_won(self, state) -> np.ndarray:
        return getattr(state, f"{self.deal}s_won")

    def deals_played(self, state) -> np.ndarray:
        """Deals of each game so far, the current one included."""
        return getattr(state, f"{self.deal}_no") + 1

    def illegal_message(self, state, action: int, who: str) -> str:
        """The error text of an illegal action in a batch of one: ``"{who}: action 2 (discard As)
        is not legal in phase DRAW; legal: [0 (draw_stock), 1 (take_discard)]"``."""
        core = self.core
        legal = np.flatnonzero(state.mask[0]).tolist()
        shown = ", ".join(f"{x} ({core.action_name(x)})" for x in legal)
        what = core.action_name(action) if 0 <= action < core.NUM_ACTIONS else "out of range"
        return (f"{who}: action {action} ({what}) is not legal in phase "
                f"{core.PHASE_NAMES[state.phase[0]]}; legal: [{shown}]")


GIN = GameSpec("gin", "Gin Rummy", gin, "hand", gin.GinConfig, gin.hand_info, gin_options.observation_space,
               render_gin, lambda config: gin.NUM_PLAYERS)
RUMMY = GameSpec("rummy", "Rummy", rummy, "round", rummy.RummyConfig, rummy.round_info,
                 rummy_options.observation_space, render_rummy, lambda config: config.num_players)
