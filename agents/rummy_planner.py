"""``planner`` for Rummy: the expert, with its draws at a known stock decided by the race.

After the discard pile has been turned over (R-7), or when the stock is empty, every
player knows which cards the stock will give, and taking the top discard instead of
drawing shifts them by one for every player. This agent plays the ``expert`` everywhere
except at those draws, where it races the players along both sequences on public
information (:mod:`rummyrl.rummy_outlook`) and takes the choice whose race ends better.
It is the argmax of the ``expert_plan`` network features
(:func:`planned_preferences`), so an untrained network with those
features and a zero head plays exactly like it.

The expert's parameters can be set in the agent's name, ``planner:swap_margin=24``
(:func:`rummyrl.agents.rummy_expert.parse_params`): taking the top discard only when it
gains 24 points of keep value instead of 12 (cards that complete a meld or go onto the
table are taken still). The default stays 12; a network's ``expert_plan`` features take
tuned values from ``NetConfig.expert_params`` (``configs/rummy.yaml``). What the planner
and its options win is in ``docs/research/rummy.md``.
"""

from __future__ import annotations

import numpy as np

from rummyrl import rummy
from rummyrl.engine_features import ILLEGAL
from rummyrl.rummy_outlook import known_stock_outlook, plan_preference

from .base import PreferenceAgent
from .rummy_expert import expert_preferences

_STOCK_PASSES = rummy.OBS_LAYOUT["stock_passes"].start
_STOCK_SIZE = rummy.OBS_LAYOUT["stock_size"].start
_SEATS = rummy.OBS_LAYOUT["seat_present"]


def stock_rows(observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
    """``(B,)`` bool: which positions are draws, with the stock and the top discard both
    open, at which the stock's next card is known: the pile was turned over this round
    (R-7: its order is public, the earliest discard on top), or the stock is empty and a
    draw would turn the pile over now."""
    obs, masks = np.asarray(observations), np.asarray(action_masks, bool)
    turned = obs[:, _STOCK_PASSES] > 0
    empty = obs[:, _STOCK_SIZE] == 0
    return masks[:, rummy.DRAW_STOCK] & masks[:, rummy.TAKE_DISCARD] & (turned | empty)


def planned_preferences(observations: np.ndarray, action_masks: np.ndarray, params=None) -> np.ndarray:
    """The expert's preference, ``(B, A)`` float32, illegal actions at ``ILLEGAL``, with the
    known-stock draws scored by the race along the known stock instead
    (:mod:`rummyrl.rummy_outlook`): where drawing and taking the top discard end the race
    differently (the player out first, nobody, an opponent) or at different times, drawing
    reads 0 and taking :func:`~rummyrl.rummy_outlook.plan_preference` (+-5 to +-12);
    elsewhere the expert's preference stands. ``params``: the expert's
    ``RummyExpertParams`` (default: the baseline's)."""
    obs = np.asarray(observations)
    masks = np.asarray(action_masks, bool)
    pref = expert_preferences(obs, masks, params)
    np.maximum(pref, ILLEGAL, out=pref)
    rows = np.flatnonzero(stock_rows(obs, masks))
    if rows.size:
        players = int(round(obs[rows[0], _SEATS].sum()))
        plan = plan_preference(known_stock_outlook(obs, rows, players))
        decided = plan != 0
        pref[rows[decided], rummy.DRAW_STOCK] = 0.0
        pref[rows[decided], rummy.TAKE_DISCARD] = plan[decided]
    return pref


class PlannerRummyAgent(PreferenceAgent):
    name = "planner"
    game = "rummy"
    preference = staticmethod(planned_preferences)
