"""Compiled helpers that both rule experts use: a hand as four 13-bit suit masks, its card
count and deadwood, and the danger of a discard (how likely the next player can meld it).

A card set is read from a flat observation plane into ``out[s]`` (bit ``r`` set for the card
of suit ``s`` and rank ``r``); everything here runs inside the experts' numba kernels.
"""

from __future__ import annotations

from numba import njit

from rummyrl.cards import NUM_RANKS, NUM_SUITS
from rummyrl.melds import POPCOUNT13, deadwood_one


@njit(cache=True, nogil=True)
def suit_masks(row, start, out):
    """The card plane at ``row[start:start + 52]`` as four suit masks, into ``out``."""
    for s in range(NUM_SUITS):
        m = 0
        for r in range(NUM_RANKS):
            if row[start + s * NUM_RANKS + r] > 0.5:
                m |= 1 << r
        out[s] = m


@njit(cache=True, nogil=True)
def card_count(m):
    """How many cards the four suit masks ``m`` hold."""
    return POPCOUNT13[m[0]] + POPCOUNT13[m[1]] + POPCOUNT13[m[2]] + POPCOUNT13[m[3]]


@njit(cache=True, nogil=True)
def deadwood(m):
    """The least deadwood of the hand ``m`` (C-3)."""
    return deadwood_one(m[0], m[1], m[2], m[3])


@njit(cache=True, nogil=True)
def danger(s, r, known, thrown, passed, unseen, hidden):
    """How likely the opponent can meld card (s, r): 1 when its known cards already do."""
    b = 1 << r
    k_same = 0
    u_same = 0
    for t in range(NUM_SUITS):
        if t != s:
            k_same += (known[t] >> r) & 1
            u_same += (unseen[t] >> r) & 1
    if k_same >= 2:
        return 1.0
    ks = known[s]
    if ((ks >> 1) & (ks >> 2) & b) or ((ks << 1) & (ks >> 1) & b) or ((ks << 1) & (ks << 2) & b):
        return 1.0
    n_unseen = card_count(unseen)
    if n_unseen == 0 or hidden <= 0:
        return 0.0
    q = min(1.0, hidden / n_unseen)  # chance a given unseen card is in the opponent's hand
    # set: two more of the rank among known + hidden cards
    if k_same == 1:
        p_set = 1 - (1 - q) ** u_same
    else:
        p_set = 0.0 if u_same < 2 else (u_same * (u_same - 1) / 2) * q * q
    # runs through this card: (r-2, r-1), (r-1, r+1), (r+1, r+2) in suit s
    p_run = 0.0
    for lo in (-2, -1, 1):
        a, c = r + lo, r + lo + 1
        if lo == -1:
            a, c = r - 1, r + 1
        if a < 0 or c > NUM_RANKS - 1:
            continue
        pa = 1.0 if (ks >> a) & 1 else (q if (unseen[s] >> a) & 1 else 0.0)
        pc = 1.0 if (ks >> c) & 1 else (q if (unseen[s] >> c) & 1 else 0.0)
        p_run += pa * pc
    p = min(1.0, p_set + p_run)
    # cards the opponent threw or declined next to this one make it less likely to want it
    near = 0
    for t in range(NUM_SUITS):
        near += ((thrown[t] | passed[t]) >> r) & 1
    near += ((thrown[s] | passed[s]) >> max(r - 1, 0)) & 1 if r > 0 else 0
    near += ((thrown[s] | passed[s]) >> (r + 1)) & 1 if r < NUM_RANKS - 1 else 0
    return p * (0.5 ** near)
