"""Per-action facts of the meld arithmetic, with no player's judgement in them.

A network with no expert in it (``NetConfig.features = "engine"``) reads these beside the
observation: what each action does to the hand's deadwood, computed by the engine's own
meld solver (:mod:`rummyrl.melds`). The game registry names each game's function
(``Game.engine_features``) and the kinds of action whose feature gets its own learned
weight (``Game.feature_groups``).
"""

from __future__ import annotations

import numpy as np

from . import gin, melds, rummy
from .cards import VALUE

#: the value of an illegal action's feature (finite, so no op ever meets -inf or NaN)
ILLEGAL = -60.0

#: Gin: the kind of each action for the weight on its feature: 1 discards, 2 knocks, 0 the rest
GIN_FEATURE_GROUPS = np.zeros(gin.NUM_ACTIONS, np.int64)
GIN_FEATURE_GROUPS[gin.DISCARD:gin.KNOCK] = 1
GIN_FEATURE_GROUPS[gin.KNOCK:gin.BIG_GIN] = 2
GIN_FEATURE_GROUPS.setflags(write=False)

#: Rummy: 1 discards, 2 melds, 3 lay-offs, 0 the draws
RUMMY_FEATURE_GROUPS = np.zeros(rummy.NUM_ACTIONS, np.int64)
RUMMY_FEATURE_GROUPS[rummy.DISCARD:rummy.MELD] = 1
RUMMY_FEATURE_GROUPS[rummy.MELD:rummy.LAYOFF] = 2
RUMMY_FEATURE_GROUPS[rummy.LAYOFF:] = 3
RUMMY_FEATURE_GROUPS.setflags(write=False)

_VALUE = np.asarray(VALUE, np.float32)
#: the points of each meld's cards
_MELD_POINTS = np.array([sum(VALUE[c] for c in m) for m in melds.MELDS], np.float32)
#: the card each lay-off action puts on the table
_LAYOFF_CARD = np.arange(rummy.NUM_ACTIONS - rummy.LAYOFF) % 52


def gin_features(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Gin Rummy, ``(B, A)`` float32, higher is better, illegal actions read
    :data:`ILLEGAL`: for a discard or knock of card ``c``, minus a quarter of the deadwood
    left without ``c``; for taking the face-up card, minus a quarter of the lowest deadwood
    after taking it and discarding another card; for drawing from the stock and passing,
    minus a quarter of the hand's deadwood as it is; 0 for big gin. (A quarter keeps every
    deadwood, up to 98, inside the range a network's input is clipped to.)"""
    obs = np.asarray(observations)
    hands = obs[:, gin.OBS_LAYOUT["hand"]] > 0.5
    out = np.zeros(masks.shape, np.float32)
    # each part only at the rows where its actions are legal (the rest read ILLEGAL anyway):
    # a hand discards or draws, never both, which halves the meld solves
    throwing = masks[:, gin.DISCARD:gin.BIG_GIN].any(1)
    if throwing.any():
        after = -0.25 * melds.deadwood_after_discard(hands[throwing]).astype(np.float32)
        out[throwing, gin.DISCARD:gin.DISCARD + 52] = after
        out[throwing, gin.KNOCK:gin.KNOCK + 52] = after
    drawing = masks[:, gin.DRAW_STOCK] | masks[:, gin.PASS]
    if drawing.any():  # a 10-card hand: its deadwood as it stands
        now = -0.25 * melds.deadwood(hands[drawing]).astype(np.float32)
        out[drawing, gin.DRAW_STOCK] = now
        out[drawing, gin.PASS] = now
    taking = masks[:, gin.TAKE_DISCARD]
    if taking.any():
        r = np.flatnonzero(taking)
        top = obs[r][:, gin.OBS_LAYOUT["top_discard"]].argmax(1)
        with_top = hands[r].copy()
        with_top[np.arange(r.size), top] = True
        best = melds.deadwood_after_discard(with_top).astype(np.float32)
        best[np.arange(r.size), top] = np.inf  # the card just taken cannot be thrown (C-4)
        out[r, gin.TAKE_DISCARD] = -0.25 * best.min(1)
    return np.where(masks, np.maximum(out, ILLEGAL), ILLEGAL).astype(np.float32)


def rummy_features(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Rummy, ``(B, A)`` float32, higher is better, illegal actions read :data:`ILLEGAL`,
    each a quarter of a count of points: for a discard of card ``c``, minus the deadwood
    left without ``c`` (the points no meld of the rest can hold); for a meld or a lay-off,
    minus the points still in the hand after it (what the hand pays if another player goes
    out now); for drawing from the stock, minus the hand's deadwood as it is; for taking the
    face-up card, minus the lowest deadwood after taking it and discarding another card."""
    obs = np.asarray(observations)
    masks = np.asarray(masks, bool)
    hands = obs[:, rummy.OBS_LAYOUT["hand"]] > 0.5
    out = np.full(masks.shape, ILLEGAL, np.float32)  # each block written where its actions are legal
    points = hands.astype(np.float32) @ _VALUE
    melding = -0.25 * (points[:, None] - _MELD_POINTS)
    np.copyto(out[:, rummy.MELD:rummy.LAYOFF], melding, where=masks[:, rummy.MELD:rummy.LAYOFF])
    laying = -0.25 * (points[:, None] - _VALUE[_LAYOFF_CARD])
    np.copyto(out[:, rummy.LAYOFF:], laying, where=masks[:, rummy.LAYOFF:])
    throwing = np.flatnonzero(masks[:, rummy.DISCARD:rummy.MELD].any(1))
    if throwing.size:
        after = -0.25 * melds.deadwood_after_discard(hands[throwing]).astype(np.float32)
        legal = masks[throwing, rummy.DISCARD:rummy.MELD]
        out[throwing, rummy.DISCARD:rummy.MELD] = np.where(legal, after, ILLEGAL)
    drawing = masks[:, rummy.DRAW_STOCK]
    if drawing.any():
        out[drawing, rummy.DRAW_STOCK] = -0.25 * melds.deadwood(hands[drawing])
    taking = np.flatnonzero(masks[:, rummy.TAKE_DISCARD])
    if taking.size:
        top = obs[taking, rummy.OBS_LAYOUT["top_discard"]].argmax(1)
        with_top = hands[taking].copy()
        with_top[np.arange(taking.size), top] = True
        best = melds.deadwood_after_discard(with_top).astype(np.float32)
        best[np.arange(taking.size), top] = np.inf  # the card just taken stays for the turn (C-4)
        out[taking, rummy.TAKE_DISCARD] = -0.25 * best.min(1)
    return np.maximum(out, ILLEGAL, out=out)
