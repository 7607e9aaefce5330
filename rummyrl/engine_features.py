"""Per-action facts of the meld arithmetic, with no player's judgement in them.

A network with no expert in it (``NetConfig.features = "engine"``) reads these beside the
observation: what each action does to the hand's deadwood, computed by the engine's own
meld solver (:mod:`rummyrl.melds`). The game registry names each game's function
(``Game.engine_features``) and the kinds of action whose feature gets its own learned
weight (``Game.feature_groups``).
"""

from __future__ import annotations

import numpy as np

from . import gin, melds

#: the value of an illegal action's feature (finite, so no op ever meets -inf or NaN)
ILLEGAL = -60.0

#: Gin: the kind of each action for the weight on its feature: 1 discards, 2 knocks, 0 the rest
GIN_FEATURE_GROUPS = np.zeros(gin.NUM_ACTIONS, np.int64)
GIN_FEATURE_GROUPS[gin.DISCARD:gin.KNOCK] = 1
GIN_FEATURE_GROUPS[gin.KNOCK:gin.BIG_GIN] = 2
GIN_FEATURE_GROUPS.setflags(write=False)


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
    after = -0.25 * melds.deadwood_after_discard(hands).astype(np.float32)
    out[:, gin.DISCARD:gin.DISCARD + 52] = after
    out[:, gin.KNOCK:gin.KNOCK + 52] = after
    drawing = masks[:, gin.DRAW_STOCK] | masks[:, gin.PASS]
    if drawing.any():  # a 10-card hand: its deadwood as it stands
        now = -0.25 * melds.deadwood(hands[drawing]).astype(np.float32)
        out[drawing, gin.DRAW_STOCK] = now
        out[drawing, gin.PASS] = now
    top_plane = obs[:, gin.OBS_LAYOUT["top_discard"]]
    has_top = top_plane.max(1) > 0.5
    if has_top.any():
        r = np.flatnonzero(has_top)
        top = top_plane[r].argmax(1)
        with_top = hands[r].copy()
        with_top[np.arange(r.size), top] = True
        best = melds.deadwood_after_discard(with_top).astype(np.float32)
        best[np.arange(r.size), top] = np.inf  # the card just taken cannot be thrown (C-4)
        out[r, gin.TAKE_DISCARD] = -0.25 * best.min(1)
    return np.where(masks, np.maximum(out, ILLEGAL), ILLEGAL).astype(np.float32)
