"""What a network is given per action beside the observation (``NetConfig.features``).

=================  ===========================================================================
features           per action
=================  ===========================================================================
``expert``         the rule expert's preference (:func:`expert_prior`), also the network's prior
``expert_plan``    the same, with Rummy's known-stock draws planned (the ``planner`` baseline)
``engine``         facts of the meld arithmetic (``Game.engine_features``): no expert in them
``none``           nothing (0 for a legal action)
=================  ===========================================================================

Illegal actions read :data:`PRIOR_ILLEGAL`. The first ``A`` columns are one per action; a
game's engine features may add columns that also score actions (:func:`feature_width`).
Every function here is numpy: the rule agents and the features need no torch. The game
registry names each game's preference functions (``Game.preferences``) and engine features,
so nothing here branches on a game's name.
"""

from __future__ import annotations

import functools

import numpy as np

from rummyrl import games
from rummyrl.engine_features import ILLEGAL as PRIOR_ILLEGAL

#: what a network is given per action beside the observation (NetConfig.features)
FEATURES = ("expert", "expert_plan", "engine", "none")
#: the features with the expert's preference in them (the prior of ``prior_scale``)
EXPERT_FEATURES = ("expert", "expert_plan")
#: the rule agent whose preference function gives each kind of expert features
_PREFERENCE_OF = {"expert": "expert", "expert_plan": "planner"}


def available_features(game) -> list[str]:
    """The feature sets ``game`` has: the expert's where it has the rule agent behind them,
    the engine's where its registry entry names them, and ``none``."""
    g = games.get(game)
    return [k for k in FEATURES if (k not in _PREFERENCE_OF or _PREFERENCE_OF[k] in g.preferences)
            and (k != "engine" or g.engine_features is not None)]


def check_features(kind: str, game, expert_params: str = "") -> None:
    """Raise ValueError unless ``kind`` is a feature set that ``game`` has and
    ``expert_params`` (set only with the expert's features) parses."""
    g = games.get(game)
    if kind not in FEATURES:
        raise ValueError(f"net.features must be one of {list(FEATURES)}, got {kind!r}")
    if kind not in available_features(g):
        why = (f"needs the {_PREFERENCE_OF[kind]!r} rule agent" if kind in _PREFERENCE_OF
               else "needs the engine's per-action features")
        raise ValueError(f"net.features={kind!r} {why}, which {g.title} has not; "
                         f"use one of {available_features(g)}")
    if expert_params and kind not in EXPERT_FEATURES:
        raise ValueError(f"net.expert_params is for the expert's features {list(EXPERT_FEATURES)}, not {kind!r}")
    parse_expert_params(g.name, expert_params)


@functools.lru_cache(maxsize=64)
def parse_expert_params(game: str, text: str):
    """``NetConfig.expert_params`` read: ``None`` for ``""`` (the baseline's parameters),
    else the expert's parameters (``Game.params``); read once per text, not at every batch."""
    if not text:
        return None
    return games.load(games.get(game).params["expert"])(text)


def expert_prior(game, observations: np.ndarray, masks: np.ndarray, params=None) -> np.ndarray:
    """The rule expert's preference over actions, ``(B, A)`` float32, in deadwood points
    (Gin) or penalty points (Rummy); illegal actions read :data:`PRIOR_ILLEGAL`.
    ``params``: the expert's parameters (default: the ``expert`` baseline's)."""
    pref = games.load(games.get(game).preferences["expert"])(observations, masks, params)
    return np.maximum(pref, PRIOR_ILLEGAL, out=pref)


def feature_width(kind: str, game) -> int:
    """Columns of :func:`action_features` of ``kind``: one per action, and with the engine's
    features the columns its game adds (``Game.feature_actions``; Rummy's loose cards and
    outs of the draws and discards)."""
    g = games.get(game)
    return len(g.feature_actions) if kind == "engine" else g.num_actions


def action_features(kind: str, game, observations: np.ndarray, masks: np.ndarray,
                    expert_params: str = "") -> np.ndarray:
    """What a network with ``NetConfig.features == kind`` is given per action, ``(B, F)``
    (:func:`feature_width`; the first ``A`` columns one per action).
    ``expert_params``: ``NetConfig.expert_params``, the expert's parameters in the expert's
    features (``""``: the ``expert`` baseline's). The network checked ``kind`` when it was
    built (:func:`check_features`), so a rollout does not check it at every batch."""
    g = games.get(game)
    if kind in _PREFERENCE_OF:
        params = parse_expert_params(g.name, expert_params)
        if kind == "expert":
            return expert_prior(g, observations, masks, params)
        return games.load(g.preferences["planner"])(observations, masks, params)
    if kind == "engine":
        return g.engine_features(observations, masks)
    return np.where(masks, 0.0, PRIOR_ILLEGAL).astype(np.float32)
