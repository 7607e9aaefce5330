"""The known-stock outlook of Rummy: which of the stock's known cards each draw choice brings.

Once the discard pile has been turned over (R-7), every player knows the order of the
stock; when the stock is empty, the pile that a draw would turn over is known too. At such
a draw, drawing from the stock and taking the top discard decide more than this turn's
card: taking leaves the stock's next card to the next player and shifts, by one, which
stock cards this player gets on every later turn. With ``P`` players, all drawing from the
stock, the player gets stock cards ``0, P, 2P, ...`` after a draw, and the top discard
then ``P - 1, 2P - 1, ...`` after a take. The choice also matters because the last stock
allowed ends the round as a draw when it runs out (R-7).

:func:`known_stock_outlook` races the players along each of the two sequences, on
public information only (no hidden card is sampled, and everyone is assumed to draw from
the stock). The player's own hand is played forward: each turn it adds its card (a card
that fits a table meld once the player has melded is laid off, R-4), goes out if every
card of the hand melds (with or without a last discard, R-6), and otherwise throws the
card that leaves the least deadwood (ties: the lowest card id). An opponent is known to
hold its hand size in cards; each card it gets that helps it (it fits the table and the
opponent has melded, or it melds with cards the opponent is known to hold: taken from the
pile or drawn from the turned stock) is played and a card thrown, one card fewer, and it
goes out when its hand is used up. The race ends when the player goes out (on its turn,
before the opponents' turns of that round), an opponent does, or the known cards run out
(then nobody does: a drawn round, R-7). :func:`plan_preference` prefers the choice whose
race ends better (the player out first, then nobody, then an opponent); between two races
won by the player, the sooner; between two lost to an opponent, the later (the race knows
only part of the opponents' hands: the longer it runs, the likelier it turns). It leaves
other ties to whoever uses it.

What the plan wins, against three ``simple`` and three experts, and the variants that
were tried beside it are in the research record (``docs/research/rummy.md``).

The engine's rules are not changed or consulted here beyond the observation's layout;
this module is a feature for agents (the ``planner`` agent and ``NetConfig.features =
"expert_plan"``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards import NUM_CARDS, NUM_RANKS, NUM_SUITS, RANK_VALUE
from .melds import deadwood_one, min_after_discard_one
from . import rummy

_L = rummy.OBS_LAYOUT
_HAND, _TOP, _FITS = _L["hand"].start, _L["top_discard"].start, _L["table_fits"].start
_ORDER, _RECENCY = _L["stock_order"].start, _L["pile_recency"].start
_MELDED = _L["melded"].start
_KNOWN, _DRAWN = _L["known"].start, _L["drawn_seen"].start
_SIZES = _L["hand_sizes"].start
_STOCK, _PASSES = _L["stock_size"].start, _L["stock_passes"].start

#: the turn reported when the player does not go out within the known stock
NEVER = 99
#: how a race ends: the player goes out first, an opponent does, or nobody does
ME, OPPONENT, NOBODY = 0, 1, 2


@njit(cache=True, nogil=True)
def _deadwood(m):
    return deadwood_one(m[0], m[1], m[2], m[3])


@njit(cache=True, nogil=True)
def _throw_best(m):
    """Remove from ``m`` (in place) the card whose loss leaves the least deadwood."""
    best, bs, bb = 1 << 20, -1, 0
    for s in range(NUM_SUITS):
        bits = m[s]
        while bits:
            b = bits & -bits
            bits &= bits - 1
            m[s] &= ~b
            v = _deadwood(m)
            m[s] |= b
            if v < best:
                best, bs, bb = v, s, b
    if bs >= 0:
        m[bs] &= ~bb


@njit(cache=True, nogil=True)
def _play_out(hand, fits, cards, n):
    """The turn of going out (or :data:`NEVER`) of suit masks ``hand`` receiving ``cards[:n]``,
    one per turn; ``fits``: suit masks of the cards it may lay off."""
    m = hand.copy()
    for t in range(n):
        x = cards[t]
        s, r = x // NUM_RANKS, x % NUM_RANKS
        if not (fits[s] >> r) & 1:
            m[s] |= 1 << r
            if _deadwood(m) == 0:
                return t
        if min_after_discard_one(m, -1, -1) == 0:
            return t
        _throw_best(m)
    return NEVER


@njit(cache=True, nogil=True)
def _known_cards(row, j, known):
    """Write into ``known`` the suit masks of the cards relative seat ``j`` is known to hold
    (taken from the pile or drawn from a turned stock); returns whether there are any."""
    known[:] = 0
    for c in range(NUM_CARDS):
        if row[_KNOWN + j * NUM_CARDS + c] > 0.5 or row[_DRAWN + j * NUM_CARDS + c] > 0.5:
            known[c // NUM_RANKS] |= 1 << (c % NUM_RANKS)
    return (known[0] | known[1] | known[2] | known[3]) != 0


@njit(cache=True, nogil=True)
def _helps(row, j, x, known, any_known):
    """Does card ``x`` help relative seat ``j``: it fits a table meld and ``j`` has melded,
    or it melds with the cards ``known`` (:func:`_known_cards`) ``j`` is known to hold?"""
    s, r = x // NUM_RANKS, x % NUM_RANKS
    if row[_MELDED + j] > 0.5 and row[_FITS + x] > 0.5:
        return True
    if not any_known:
        return False
    before = _deadwood(known)
    known[s] |= 1 << r
    after = _deadwood(known)
    known[s] &= ~(1 << r)
    return after < before + RANK_VALUE[r]


@njit(cache=True, nogil=True)
def _race(row, seq, n, first, players, my_turn, hand_size):
    """Who goes out first along the known sequence, and on which turn: (:data:`ME`, the
    player's turn ``my_turn``), (:data:`OPPONENT`, its turn) or (:data:`NOBODY`,
    :data:`NEVER`) when the known cards run out first. Opponent ``j`` (relative seat)
    gets ``seq[first + t * players + j - 1]`` on its turn ``t``; each card that helps it
    (:func:`_helps`) is played and a card thrown, one card fewer in its hand, and it goes out
    when its hand is used up."""
    left = np.zeros(players, np.int64)
    known = np.zeros((players, NUM_SUITS), np.int64)
    any_known = np.zeros(players, np.bool_)
    for j in range(1, players):
        left[j] = int(round(row[_SIZES + j] * hand_size))
        any_known[j] = _known_cards(row, j, known[j])
    for t in range(n // players + 2):
        if t == my_turn:
            return ME, t
        for j in range(1, players):
            i = first + t * players + (j - 1)
            if i < n and _helps(row, j, seq[i], known[j], any_known[j]):
                left[j] -= 1
                if left[j] <= 0:
                    return OPPONENT, t
    return NOBODY, NEVER


@njit(cache=True, nogil=True)
def _known_sequence(row, seq, key):
    """Write the known sequence of observation ``row`` into ``seq``, next card first: the
    stock turned over from the pile (R-7), or, with the stock empty, the pile a draw turns
    over (earliest discard first, the top discard last). Returns its length and whether it
    is a turned stock."""
    turned = row[_PASSES] > 0 and row[_STOCK] > 0
    part = _ORDER if turned else _RECENCY
    n = 0
    for c in range(NUM_CARDS):
        if row[part + c] > 0:
            key[n] = row[part + c]
            seq[n] = c
            n += 1
    seq[:n] = seq[:n][np.argsort(key[:n], kind="mergesort")]
    return n, turned


@njit(cache=True, nogil=True)
def _outlook_kernel(obs, rows, players, deal, out):
    hand = np.zeros(NUM_SUITS, np.int64)
    fits = np.zeros(NUM_SUITS, np.int64)
    seq = np.empty(NUM_CARDS, np.int64)
    mine = np.empty(NUM_CARDS, np.int64)
    key = np.empty(NUM_CARDS, np.float64)
    for i in range(rows.size):
        row = obs[rows[i]]
        melded = row[_MELDED] > 0.5
        top = -1
        hand[:] = 0
        fits[:] = 0
        for c in range(NUM_CARDS):
            if row[_TOP + c] > 0.5:
                top = c
            if melded and row[_FITS + c] > 0.5:
                fits[c // NUM_RANKS] |= 1 << (c % NUM_RANKS)
        for c in range(NUM_CARDS):
            s, r = c // NUM_RANKS, c % NUM_RANKS
            if row[_HAND + c] > 0.5 and not (fits[s] >> r) & 1:
                hand[s] |= 1 << r
        n, turned = _known_sequence(row, seq, key)
        ordered = seq[:n]
        # draw: cards 0, P, 2P, ... of the sequence
        k = 0
        for j in range(0, n, players):
            mine[k] = ordered[j]
            k += 1
        out[i, 0] = _play_out(hand, fits, mine, k)
        out[i, 1], out[i, 2] = _race(row, ordered, n, 1, players, out[i, 0], deal[i])
        # take: the top discard, then cards P-1, 2P-1, ... of the sequence without it
        rest = ordered if turned else ordered[ordered != top]
        mine[0] = top
        k = 1
        for j in range(players - 1, rest.size, players):
            mine[k] = rest[j]
            k += 1
        out[i, 3] = _play_out(hand, fits, mine, k)
        out[i, 4], out[i, 5] = _race(row, rest, rest.size, 0, players, out[i, 3], deal[i])


def known_sequence(observation: np.ndarray) -> np.ndarray:
    """The cards a stock draw would give, next first, as the player at a known-stock draw
    (``rummyrl.agents.split.stock_rows``) reads them from its observation: the turned-over
    stock, or the pile that drawing would turn over (R-7)."""
    seq = np.empty(NUM_CARDS, np.int64)
    n, _ = _known_sequence(np.ascontiguousarray(observation, dtype=np.float32), seq, np.empty(NUM_CARDS))
    return seq[:n].copy()


def known_stock_outlook(observations: np.ndarray, rows: np.ndarray, num_players: int,
                        hand_size: int | None = None) -> np.ndarray:
    """``(len(rows), 6)`` int64 for the observations ``rows`` (known-stock draws, see
    ``rummyrl.agents.split.stock_rows``) of a game of ``num_players`` dealt ``hand_size``
    cards each (the observation gives hand sizes as fractions of it; ``None``: read it off
    each observation, :func:`rummyrl.rummy.deal_sizes`): after drawing from the
    stock, the player's turn of going out (:data:`NEVER`: not within the known stock), how
    the race ends (:data:`ME`, :data:`OPPONENT` or :data:`NOBODY` first out) and on which
    turn (:data:`NEVER` for nobody); then the same three after taking the top discard
    (module docstring)."""
    if num_players < 2:
        raise ValueError(f"num_players must be at least 2, got {num_players}")
    if hand_size is not None and hand_size < 1:
        raise ValueError(f"hand_size must be at least 1, got {hand_size}")
    obs = np.ascontiguousarray(observations, dtype=np.float32)
    if obs.ndim != 2 or obs.shape[1] != rummy.OBS_DIM:
        raise ValueError(f"observations must be (B, {rummy.OBS_DIM}) Rummy observations, got shape {obs.shape}")
    rows = np.ascontiguousarray(rows, dtype=np.int64).reshape(-1)
    if rows.size and (rows.min() < 0 or rows.max() >= len(obs)):
        raise ValueError(f"rows must index the {len(obs)} observations, got {rows.min()}..{rows.max()}")
    deal = rummy.deal_sizes(obs[rows]) if hand_size is None else np.full(rows.size, float(hand_size))
    out = np.zeros((rows.size, 6), np.int64)
    _outlook_kernel(obs, rows, num_players, deal, out)
    return out


#: how each end of the race is worth to the player, by :data:`ME`, :data:`OPPONENT`, :data:`NOBODY`
RACE_WORTH = np.array([1.0, -1.0, 0.0])


def plan_preference(outlook: np.ndarray) -> np.ndarray:
    """``(n,)`` float32: how much better taking the top discard looks than drawing, from
    :func:`known_stock_outlook`: 10 points per step of :data:`RACE_WORTH` between the two
    races' ends, at most 12 (first out instead of an opponent); where both races end with
    the player out first, 5 points for the sooner, and where both end with an opponent out
    first, 5 points for the later (the race knows only part of the opponents' hands: the
    longer it runs, the likelier it turns); 0 otherwise."""
    o = np.asarray(outlook, np.int64)
    draw, take = o[:, 1], o[:, 4]
    pref = np.clip(10.0 * (RACE_WORTH[take] - RACE_WORTH[draw]), -12.0, 12.0)
    sooner = np.sign(o[:, 2] - o[:, 5]) * 5.0  # taking ends the race sooner: +5
    pref = np.where((draw == take) & (draw == ME), sooner, pref)
    pref = np.where((draw == take) & (draw == OPPONENT), -sooner, pref)
    return pref.astype(np.float32)
