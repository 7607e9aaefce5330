"""``simple``: the standard baseline of Gin Rummy AI research, vectorized over a batch.

* Draw: take the face-up card (the upcard in the offer, or the top discard) only if it
  would be part of a meld in the hand; otherwise pass / draw from the stock.
* Discard: the card whose removal leaves the lowest deadwood; ties go to the highest
  rank, then to the first suit in s h d c order. Never the card just taken from the pile
  (the engine's mask already forbids it, C-4).
* Knock as soon as it is legal (with that same discard); gin when possible (a knock with
  no deadwood left is gin), big gin when the rules allow it and the hand has it.
"""

from __future__ import annotations

import numpy as np

from rummyrl import gin, melds
from rummyrl.cards import RANK, SUIT

from .base import Agent

_HAND = gin.OBS_LAYOUT["hand"]
_TOP = gin.OBS_LAYOUT["top_discard"]
#: discard preference among equal deadwood: highest rank first, then suit order s h d c
_TIE_ORDER = np.argsort(np.lexsort((SUIT, -RANK)))  # card -> position in that order


def would_meld(hands: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """``(B,)`` bool: card ``cards[b]`` lies in some meld of ``hands[b]`` plus that card."""
    with_card = hands.copy()
    r = np.arange(hands.shape[0])
    with_card[r, cards] = True
    meldable = melds.unpack_masks(melds._meldable(melds.suit_masks(with_card)))
    return meldable[r, cards]


def min_deadwood_discards(hands: np.ndarray, allowed: np.ndarray) -> np.ndarray:
    """``(B,)`` the allowed card whose discard leaves the lowest deadwood (simple's tie order)."""
    after = melds.deadwood_after_discard(hands)
    key = np.where(allowed, after * 64 + _TIE_ORDER[None, :], np.iinfo(np.int64).max)
    return key.argmin(1)


class SimpleGinAgent(Agent):
    name = "simple"
    game = "gin"

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs, mask = self.check_batch(observations, action_masks)
        B = obs.shape[0]
        hands = obs[:, _HAND] > 0.5
        actions = np.full(B, -1, np.int64)

        # draw decisions: the offer (take / pass) and the draw (take / stock)
        drawing = mask[:, gin.TAKE_DISCARD] | mask[:, gin.DRAW_STOCK] | mask[:, gin.PASS]
        d = np.flatnonzero(drawing)
        if d.size:
            top = obs[d, _TOP].argmax(1)
            has_top = obs[d, _TOP].max(1) > 0.5
            take = mask[d, gin.TAKE_DISCARD] & has_top & would_meld(hands[d], top)
            other = np.where(mask[d, gin.PASS], gin.PASS, gin.DRAW_STOCK)
            actions[d] = np.where(take, gin.TAKE_DISCARD, other)

        # discard decisions
        t = np.flatnonzero(~drawing & mask[:, gin.DISCARD:gin.KNOCK].any(1))
        if t.size:
            allowed = mask[t, gin.DISCARD:gin.KNOCK]
            card = min_deadwood_discards(hands[t], allowed)
            knock = mask[t, gin.KNOCK + card]
            actions[t] = np.where(knock, gin.KNOCK + card, gin.DISCARD + card)
            big = mask[t, gin.BIG_GIN]
            actions[t[big]] = gin.BIG_GIN
        return actions
