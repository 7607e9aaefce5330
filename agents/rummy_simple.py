"""``simple`` for Rummy: meld and lay off whatever it can at once, then discard.

* Draw: take the top discard only if it would be part of a meld with the hand;
  otherwise draw from the stock.
* Play: lay down a meld while it holds one (the largest first, then the highest value);
  then lay off every card it can (the highest value first; the engine allows lay-offs
  only after the player's first meld, R-4).
* Discard: the highest-value card in no partial meld (a partial meld: another card of
  its rank, or a card of its suit at most two ranks away); when every card is in one,
  the highest-value card. Ties: the higher rank, then suit order s h d c. Never the card
  just taken from the pile (the mask forbids it, R-5).

Compiled over the batch: one decision per game, no Python loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rummyrl import rummy
from rummyrl.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS, VALUE
from rummyrl.melds import MELDS, NUM_MELDS

from .base import Agent

_L = rummy.OBS_LAYOUT
_P_HAND, _P_TOP = _L["hand"].start, _L["top_discard"].start
_MELD_SIZE = np.array([len(m) for m in MELDS], np.int64)
_MELD_VALUE = np.array([sum(int(VALUE[c]) for c in m) for m in MELDS], np.int64)
_VALUE = np.ascontiguousarray(VALUE, dtype=np.int64)


@njit(cache=True, nogil=True)
def would_meld(hand_row, start, c):
    """Card ``c`` forms a meld with the cards of the hand plane at ``row[start:start+52]``."""
    s, r = c // NUM_RANKS, c % NUM_RANKS
    same = 0
    for t in range(NUM_SUITS):
        if t != s and hand_row[start + t * NUM_RANKS + r] > 0.5:
            same += 1
    if same >= 2:
        return True
    base = start + s * NUM_RANKS

    def held(x):
        return 0 <= x < NUM_RANKS and hand_row[base + x] > 0.5

    return (held(r - 2) and held(r - 1)) or (held(r - 1) and held(r + 1)) or (held(r + 1) and held(r + 2))


@njit(cache=True, nogil=True)
def in_partial_meld(row, start, c):
    """Card ``c`` of the hand has another card of its rank, or a suit mate within two ranks."""
    s, r = c // NUM_RANKS, c % NUM_RANKS
    for t in range(NUM_SUITS):
        if t != s and row[start + t * NUM_RANKS + r] > 0.5:
            return True
    for d in (-2, -1, 1, 2):
        x = r + d
        if 0 <= x < NUM_RANKS and row[start + s * NUM_RANKS + x] > 0.5:
            return True
    return False


@njit(cache=True, nogil=True)
def _act_kernel(obs, mask, meld_size, meld_value, value, out):
    for b in range(obs.shape[0]):
        row, mk = obs[b], mask[b]
        if mk[rummy.DRAW_STOCK] or mk[rummy.TAKE_DISCARD]:
            top = -1
            for c in range(NUM_CARDS):
                if row[_P_TOP + c] > 0.5:
                    top = c
            take = mk[rummy.TAKE_DISCARD] and top >= 0 and would_meld(row, _P_HAND, top)
            out[b] = rummy.TAKE_DISCARD if take or not mk[rummy.DRAW_STOCK] else rummy.DRAW_STOCK
            continue
        best, best_key = -1, -1
        for m in range(NUM_MELDS):
            if mk[rummy.MELD + m]:
                key = meld_size[m] * 1000 + meld_value[m]
                if key > best_key:
                    best, best_key = rummy.MELD + m, key
        if best < 0:
            for a in range(rummy.LAYOFF, rummy.NUM_ACTIONS):
                if mk[a]:
                    c = (a - rummy.LAYOFF) % NUM_CARDS
                    key = value[c] * 100 + c % NUM_RANKS
                    if key > best_key:
                        best, best_key = a, key
        if best < 0:
            # highest value in no partial meld; else highest value (ties: rank, then suit order)
            for c in range(NUM_CARDS):
                if mk[rummy.DISCARD + c]:
                    loose = not in_partial_meld(row, _P_HAND, c)
                    key = loose * 100000 + value[c] * 1000 + (c % NUM_RANKS) * 10 + (NUM_SUITS - c // NUM_RANKS)
                    if key > best_key:
                        best, best_key = rummy.DISCARD + c, key
        out[b] = best


class SimpleRummyAgent(Agent):
    name = "simple"
    game = "rummy"

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        obs, mask = self.check_batch(observations, action_masks)
        out = np.full(obs.shape[0], -1, np.int64)
        _act_kernel(obs, mask, _MELD_SIZE, _MELD_VALUE, _VALUE, out)
        return out
