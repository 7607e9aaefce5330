"""Meld combinatorics shared by both games: the meld catalogue, deadwood, best melds, lay-offs.

Stateless and vectorized: every function takes a batch of hands as ``(B, 52)`` bool
(card layout in :mod:`rummyrl.cards`) and loops over no hand in Python.

How the deadwood solver works
-----------------------------
A hand is packed into four 13-bit suit masks (bit ``r`` of mask ``s`` = card of rank ``r``,
suit ``s``). Runs (C-3) live inside one suit, and when only runs are allowed the best
a suit can do is to meld every maximal block of >= 3 consecutive ranks: that is a table
lookup, ``DW13[mask]``. Sets couple the suits, but only at ranks held three or four
times ("set ranks"); a hand of at most 14 cards has at most four of them. For each set
rank the solver tries every way it can be used: no set, the whole rank as a set, or
(with all four held) the set of three that leaves out one suit, whose card stays free
for a run. Each choice removes bits from the suit masks; the deadwood of a choice is
the sum of the four ``DW13`` lookups, and the answer is the minimum over the choices.
Hands are grouped by their number of set ranks (0 for most hands, a single table
lookup per suit), so the work is a few array passes per group.

Ties (G-8): among arrangements with equal deadwood the first in this order is chosen:
set ranks in ascending order, the first one varying slowest; for each, the options in
the order no set, full set, set without the spade, ... without the club (suit order).
Within a suit every maximal block of three or more consecutive cards is one run.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from numba import njit

from .cards import NUM_CARDS, NUM_RANKS, NUM_SUITS, RANK_VALUE, VALUE, parse_cards

_FULL13 = (1 << NUM_RANKS) - 1
_SHIFT13 = np.arange(NUM_RANKS, dtype=np.int64)
_SUIT_IDX = np.arange(NUM_SUITS)
#: the most set ranks a hand may have (a hand of 14 cards or fewer never has more)
MAX_SET_RANKS = 4
#: deadwood reported for a card that is not in the hand, in per-card tables
NOT_HELD = 999


# --------------------------------------------------------------------------------------
# Meld catalogue (C-3)
# --------------------------------------------------------------------------------------
def _build_catalogue():
    melds = []
    for suit in range(NUM_SUITS):
        for length in range(3, NUM_RANKS + 1):
            for start in range(NUM_RANKS - length + 1):
                melds.append(tuple(suit * NUM_RANKS + r for r in range(start, start + length)))
    for rank in range(NUM_RANKS):
        for size in (3, 4):
            for suits in itertools.combinations(range(NUM_SUITS), size):
                melds.append(tuple(s * NUM_RANKS + rank for s in suits))
    mask = np.zeros((len(melds), NUM_CARDS), dtype=bool)
    for i, cards in enumerate(melds):
        mask[i, list(cards)] = True
    return tuple(melds), mask


#: every meld of C-3 as a tuple of card ids: all runs (by suit, length, start), then all
#: sets (by rank; the four sets of three, then the set of four)
MELDS, MELD_MASKS = _build_catalogue()
NUM_MELDS = len(MELDS)
#: True where the catalogue entry is a run
MELD_IS_RUN = np.array([len({c // NUM_RANKS for c in m}) == 1 for m in MELDS])
MELD_MASKS.setflags(write=False)


# --------------------------------------------------------------------------------------
# Per-suit tables over the 8192 13-bit masks, built once at import
# --------------------------------------------------------------------------------------
def _build_suit_tables():
    m = np.arange(1 << NUM_RANKS, dtype=np.int64)
    bits = (m[:, None] >> _SHIFT13) & 1
    starts = m & (m >> 1) & (m >> 2)  # bit r set: ranks r, r+1, r+2 all held
    meldable = (starts | (starts << 1) | (starts << 2)) & m
    value = bits @ RANK_VALUE
    melded_value = ((meldable[:, None] >> _SHIFT13) & 1) @ RANK_VALUE
    popcount = bits.sum(1)
    # trailing ones: length of the unbroken run of set bits from bit 0 upwards
    trail = np.zeros_like(m)
    for r in range(NUM_RANKS):
        trail += ((m >> np.arange(r + 1)[:, None]) & 1).all(0)
    rev = (bits[:, ::-1] << _SHIFT13).sum(1)
    # run blocks (length >= 3) of each mask: lo/hi ranks, at most 3 in 13 ranks
    block_lo = np.full((m.size, 3), -1, dtype=np.int64)
    block_hi = np.full((m.size, 3), -1, dtype=np.int64)
    block_of = np.full((m.size, NUM_RANKS), -1, dtype=np.int8)
    for mask in range(m.size):
        nb, r, mm = 0, 0, int(meldable[mask])
        while r < NUM_RANKS:
            if mm >> r & 1:
                lo = r
                while r < NUM_RANKS and mm >> r & 1:
                    block_of[mask, r] = nb
                    r += 1
                block_lo[mask, nb], block_hi[mask, nb] = lo, r - 1
                nb += 1
            else:
                r += 1
    tables = dict(
        MELDABLE13=meldable, DW13=value - melded_value, VALUE13=value, POPCOUNT13=popcount,
        TRAIL13=trail, REV13=rev, BLOCK_LO13=block_lo, BLOCK_HI13=block_hi, BLOCK_OF13=block_of,
    )
    for t in tables.values():
        t.setflags(write=False)
    return tables


_T = _build_suit_tables()
#: bits of a suit mask that lie in some run of >= 3 inside that mask
MELDABLE13 = _T["MELDABLE13"]
#: deadwood of a suit mask when only runs may be formed
DW13 = _T["DW13"]
VALUE13 = _T["VALUE13"]
POPCOUNT13 = _T["POPCOUNT13"]
TRAIL13 = _T["TRAIL13"]
REV13 = _T["REV13"]
BLOCK_LO13, BLOCK_HI13, BLOCK_OF13 = _T["BLOCK_LO13"], _T["BLOCK_HI13"], _T["BLOCK_OF13"]


def _build_set_options():
    """For k set ranks: every choice of options, as (option per slot, pattern per suit).

    Option 0 = no set, 1 = full set, 2 + s = set without suit s. The pattern of suit s is
    a k-bit number whose bit j says that slot j's rank is removed from suit s.
    """
    out = {}
    for k in range(1, MAX_SET_RANKS + 1):
        opts = np.array(list(itertools.product(range(2 + NUM_SUITS), repeat=k)), dtype=np.int64)
        removed = (opts[:, :, None] == 1) | (
            (opts[:, :, None] >= 2) & (opts[:, :, None] - 2 != _SUIT_IDX[None, None, :])
        )  # (C, k, 4)
        pattern = (removed * (1 << np.arange(k))[None, :, None]).sum(1)  # (C, 4)
        out[k] = (opts, pattern)
    return out


_SET_OPTIONS = _build_set_options()
#: (k, 2**k): which of the k set ranks each removal pattern removes
_PATTERN_BITS = {
    k: ((np.arange(1 << k)[None, :] >> np.arange(k)[:, None]) & 1) for k in range(1, MAX_SET_RANKS + 1)
}


# --------------------------------------------------------------------------------------
# Packing
# --------------------------------------------------------------------------------------
#: index t -> mask of the ranks whose card value is >= t (t = 0..11)
_RANKS_VALUED_AT_LEAST = np.array(
    [sum(1 << r for r in range(NUM_RANKS) if RANK_VALUE[r] >= t) for t in range(12)], dtype=np.int64
)
_SUIT_SHIFTS = np.array([0, 13, 26, 39], dtype=np.uint64)


def suit_masks(hands: np.ndarray) -> np.ndarray:
    """``(B, 52)`` bool -> ``(B, 4)`` int64 suit masks (bit r = rank r held)."""
    hands = np.ascontiguousarray(hands, dtype=bool).reshape(-1, NUM_CARDS)
    n = hands.shape[0]
    # Pack all hands into one bit string (fast), then read each hand's 52 bits as one
    # uint64: two hands fill 13 bytes, the odd one starting 4 bits into byte 6.
    pairs = (n + 1) // 2
    buf = np.zeros(pairs * 13 + 8, dtype=np.uint8)
    buf[: (n * NUM_CARDS + 7) // 8] = np.packbits(hands.reshape(-1), bitorder="little")
    words = np.empty(pairs * 2, dtype=np.uint64)
    words[0::2] = np.ndarray((pairs,), dtype="<u8", buffer=buf, offset=0, strides=(13,))
    words[1::2] = np.ndarray((pairs,), dtype="<u8", buffer=buf, offset=5, strides=(13,)) >> np.uint64(12)
    return ((words[:n, None] >> _SUIT_SHIFTS) & np.uint64(_FULL13)).astype(np.int64)


def unpack_masks(masks: np.ndarray) -> np.ndarray:
    """``(B, 4)`` suit masks -> ``(B, 52)`` bool."""
    masks = np.asarray(masks, dtype=np.int64)
    return (((masks[..., None] >> _SHIFT13) & 1) != 0).reshape(*masks.shape[:-1], NUM_CARDS)


def _set_ranks_mask(masks):
    """Bit r set where rank r is held in at least three suits; and where in all four."""
    a, b, c, d = masks[:, 0], masks[:, 1], masks[:, 2], masks[:, 3]
    three = (a & b & (c | d)) | (c & d & (a | b))
    return three, a & b & c & d


# --------------------------------------------------------------------------------------
# The solver
# --------------------------------------------------------------------------------------
def _solve(masks: np.ndarray, arrangement: bool = False):
    """Minimum deadwood of each row of ``masks`` ``(n, 4)``.

    With ``arrangement``, also the set-card masks and run-card masks ``(n, 4)`` of the
    chosen arrangement (see the module docstring for the tie order).
    """
    d = DW13[masks]
    dw = d[:, 0] + d[:, 1] + d[:, 2] + d[:, 3]
    set_masks = np.zeros_like(masks) if arrangement else None
    three, four = _set_ranks_mask(masks)
    k = POPCOUNT13[three]
    if k.max(initial=0) > MAX_SET_RANKS:
        raise ValueError(
            f"a hand holds {int(k.max())} ranks three or more times; the solver handles at most "
            f"{MAX_SET_RANKS} (hands of up to 14 cards)"
        )
    for kk in range(1, MAX_SET_RANKS + 1):
        idx = np.flatnonzero(k == kk)
        if idx.size == 0:
            continue
        m = masks[idx]  # (g, 4)
        if kk == 1 and not arrangement:
            # one set rank: no set, the full set, or (four held) the set without suit s
            bit = three[idx]
            a = d[idx]
            b = DW13[m & ~bit[:, None]]
            full = b[:, 0] + b[:, 1] + b[:, 2] + b[:, 3]
            best = np.minimum(dw[idx], full)
            drop = full + (a - b).min(1)
            dw[idx] = np.where((four[idx] & bit) != 0, np.minimum(best, drop), best)
            continue
        rbit = np.empty((idx.size, kk), dtype=np.int64)
        rest = three[idx]
        for j in range(kk):  # the set ranks' bits, lowest first
            rbit[:, j] = rest & -rest
            rest = rest & (rest - 1)
        removed = rbit @ _PATTERN_BITS[kk]  # (g, P): bits removed by each pattern
        v = DW13[m[:, :, None] & ~removed[:, None, :]]  # (g, 4, P)
        opts, pattern = _SET_OPTIONS[kk]
        cost = v[:, _SUIT_IDX[None, :], pattern].sum(-1)  # (g, C)
        has_four = (four[idx, None] & rbit) != 0  # (g, kk)
        invalid = ((opts >= 2)[None, :, :] & ~has_four[:, None, :]).any(-1)
        cost[invalid] = 1 << 20
        best = cost.argmin(1)
        dw[idx] = cost[np.arange(idx.size), best]
        if arrangement:
            chosen = pattern[best]  # (g, 4): pattern bits per suit
            rem = removed[np.arange(idx.size)[:, None], chosen]  # (g, 4) bits removed per suit
            set_masks[idx] = rem & m
    if not arrangement:
        return dw
    run_masks = MELDABLE13[masks & ~set_masks]
    return dw, set_masks, run_masks


def deadwood(hands: np.ndarray) -> np.ndarray:
    """Exact minimum deadwood (C-2, C-3) of each hand in a ``(B, 52)`` bool batch -> ``(B,)``."""
    return _solve(suit_masks(hands))


@dataclass(frozen=True)
class Arrangement:
    """One best arrangement of melds for each hand of a batch.

    ``meld_id[b, c]`` is the meld card ``c`` belongs to in hand ``b`` (melds numbered
    0, 1, ... per hand: runs by suit then rank, then sets by rank), or -1 when the card
    is deadwood or not held. ``set_masks`` / ``run_masks`` are the ``(B, 4)`` suit masks
    of the cards in sets and in runs.
    """

    deadwood: np.ndarray
    meld_id: np.ndarray
    set_masks: np.ndarray
    run_masks: np.ndarray

    @property
    def melded(self) -> np.ndarray:
        return self.meld_id >= 0

    def melds(self, b: int) -> list[list[int]]:
        """The melds of hand ``b`` as lists of card ids."""
        ids = self.meld_id[b]
        return [np.flatnonzero(ids == j).tolist() for j in range(int(ids.max(initial=-1)) + 1)]

    def take(self, rows) -> "Arrangement":
        """The arrangements of some hands (a slice or an index array)."""
        return Arrangement(self.deadwood[rows], self.meld_id[rows], self.set_masks[rows], self.run_masks[rows])


def _meld_ids(set_masks: np.ndarray, run_masks: np.ndarray) -> np.ndarray:
    """Number the melds of an arrangement: run blocks by suit and rank, then sets by rank."""
    n = set_masks.shape[0]
    block_of = BLOCK_OF13[run_masks].astype(np.int64)  # (n, 4, 13)
    nblocks = (BLOCK_LO13[run_masks] >= 0).sum(-1)  # (n, 4)
    offset = np.cumsum(nblocks, axis=1) - nblocks
    ids = np.where(block_of >= 0, block_of + offset[:, :, None], -1)
    set_ranks = np.bitwise_or.reduce(set_masks, axis=1)  # (n,)
    set_bits = (set_ranks[:, None] >> _SHIFT13) & 1  # (n, 13)
    set_ord = np.cumsum(set_bits, axis=1) - 1 + nblocks.sum(1)[:, None]
    in_set = ((set_masks[:, :, None] >> _SHIFT13) & 1).astype(bool)
    ids = np.where(in_set, set_ord[:, None, :], ids)
    return ids.reshape(n, NUM_CARDS).astype(np.int8)


def best_melds(hands: np.ndarray) -> Arrangement:
    """Minimum deadwood and one best arrangement (G-8 tie order in the module docstring)."""
    return _arrangement_of(suit_masks(hands))


def _arrangement_of(masks: np.ndarray) -> Arrangement:
    dw, set_masks, run_masks = _solve(masks, arrangement=True)
    return Arrangement(dw, _meld_ids(set_masks, run_masks), set_masks, run_masks)


def arrangement_from_melds(melds_per_hand) -> Arrangement:
    """Build an :class:`Arrangement` from explicit melds: a list (one entry per hand) of
    lists of melds, each a list of card ids or a card string such as ``"5h 6h 7h"``.

    Every meld must be valid (C-3) and no card may be used twice. The deadwood field is 0
    (it depends on the rest of the hand, which is not given).
    """
    n = len(melds_per_hand)
    set_masks = np.zeros((n, NUM_SUITS), dtype=np.int64)
    run_masks = np.zeros((n, NUM_SUITS), dtype=np.int64)
    meld_id = np.full((n, NUM_CARDS), -1, dtype=np.int8)
    for b, melds in enumerate(melds_per_hand):
        for j, meld in enumerate(melds):
            cards = parse_cards(meld) if isinstance(meld, str) else [int(c) for c in meld]
            if not is_meld(cards):
                raise ValueError(f"not a meld (C-3): {meld!r}")
            for c in cards:
                if meld_id[b, c] >= 0:
                    raise ValueError(f"card {c} is used in two melds of hand {b}")
                meld_id[b, c] = j
                target = run_masks if len({x // NUM_RANKS for x in cards}) == 1 else set_masks
                target[b, c // NUM_RANKS] |= 1 << (c % NUM_RANKS)
    # two runs that touch in one suit share a block in run_masks: lay-offs treat them alike
    return Arrangement(np.zeros(n, dtype=np.int64), meld_id, set_masks, run_masks)


def is_meld(cards) -> bool:
    """True when the card ids form a set or a run (C-3)."""
    cards = sorted(int(c) for c in cards)
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return False
    ranks = [c % NUM_RANKS for c in cards]
    suits = [c // NUM_RANKS for c in cards]
    if len(set(ranks)) == 1:
        return len(cards) <= 4
    return len(set(suits)) == 1 and ranks == list(range(ranks[0], ranks[0] + len(cards)))


# --------------------------------------------------------------------------------------
# Deadwood after each possible discard
# --------------------------------------------------------------------------------------
def _meldable(masks: np.ndarray) -> np.ndarray:
    """``(n, 4)`` masks of the cards that lie in at least one meld inside the hand."""
    three, _ = _set_ranks_mask(masks)
    return MELDABLE13[masks] | (masks & three[:, None])


def meldable(hands: np.ndarray) -> np.ndarray:
    """``(B, 52)`` bool: the cards of each hand (``(B, 52)`` bool) that lie in at least one
    meld (C-3) inside it."""
    return unpack_masks(_meldable(suit_masks(hands)))


def deadwood_after_discard(hands: np.ndarray, limit: int | None = None) -> np.ndarray:
    """``(B, 52)``: the minimum deadwood of each hand without card ``c``, for each held ``c``.

    Cards not held get :data:`NOT_HELD`. A card in no meld of the hand can be dropped
    without changing the best melds, so its entry is ``deadwood - value``; only the
    cards that lie in some meld need a solve of their own. With ``limit``, entries that
    are certainly above it may be any number above it (this skips solves that cannot
    reach the limit, as the knock mask needs).
    """
    masks = suit_masks(hands)
    return _deadwood_after_discard(masks, limit)


def _deadwood_after_discard(masks: np.ndarray, limit: int | None) -> np.ndarray:
    held = unpack_masks(masks)
    dw = _solve(masks)
    out = np.where(held, dw[:, None] - VALUE[None, :], NOT_HELD)
    meld = _meldable(masks)
    if limit is not None:
        # without a meldable card the unmeldable cards are still deadwood: when they alone
        # exceed the limit, that lower bound is the answer we report
        floor = VALUE13[masks & ~meld].sum(1)
        hopeless = floor > limit
        out = np.where(hopeless[:, None] & unpack_masks(meld), floor[:, None], out)
        meld = np.where(hopeless[:, None], 0, meld)
    rows, cards = np.nonzero(unpack_masks(meld))
    if rows.size:
        sub = masks[rows]
        sub[np.arange(rows.size), cards // NUM_RANKS] &= ~(1 << (cards % NUM_RANKS))
        out[rows, cards] = _solve(sub)
    return out


def knock_discards(hands: np.ndarray, limit: int) -> np.ndarray:
    """``(B, 52)`` bool: the held cards whose discard leaves deadwood <= ``limit`` (G-6)."""
    return unpack_masks(knock_masks(suit_masks(hands), limit))


def knock_masks(masks: np.ndarray, limit: int) -> np.ndarray:
    """:func:`knock_discards` on suit masks, returning suit masks: the fast path of the
    knock mask. A card in no meld of the hand can go with the best melds unchanged, so it
    is a knocking discard when its value is at least ``deadwood - limit``; a card in some
    meld needs a solve, and only where the unmeldable cards alone stay within the limit.
    """
    dw = _solve(masks)
    meld = _meldable(masks)
    loose = masks & ~meld
    need = np.clip(dw - limit, 0, 11)
    out = loose & _RANKS_VALUED_AT_LEAST[need][:, None]
    floor = VALUE13[loose].sum(1)
    rows = np.flatnonzero(floor <= limit)
    if rows.size:
        sub_meld = unpack_masks(meld[rows])
        r, cards = np.nonzero(sub_meld)
        sub = masks[rows[r]]
        suit, bit = cards // NUM_RANKS, 1 << (cards % NUM_RANKS)
        sub[np.arange(r.size), suit] &= ~bit
        ok = _solve(sub) <= limit
        np.bitwise_or.at(out, (rows[r[ok]], suit[ok]), bit[ok])
    return out


# --------------------------------------------------------------------------------------
# Lay-offs (G-9)
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Layoff:
    """The defender's best result after a knock, for each game of a batch.

    ``deadwood``: the defender's lowest deadwood after its own melds and lay-offs.
    ``meld_id``: the defender's own melds (as in :class:`Arrangement`).
    ``laid_off``: ``(B, 52)`` bool, the cards laid off onto the knocker's melds.
    """

    deadwood: np.ndarray
    meld_id: np.ndarray
    laid_off: np.ndarray


_MAX_RUN_BLOCKS = 3


def _layoff_directions(knocker: Arrangement, dmasks: np.ndarray):
    """Every place the defender can lay cards off, with the chain of cards it holds there.

    Returns ``kind (n, D)`` (0 up from a run, 1 down from a run, 2 onto a set), ``suit``,
    ``anchor`` (the first rank laid there) and ``length`` (how many defender cards in a row
    can be laid there).
    """
    n = dmasks.shape[0]
    run = knocker.run_masks
    lo = BLOCK_LO13[run]  # (n, 4, 3)
    hi = BLOCK_HI13[run]
    d = dmasks[:, :, None]
    exists = lo >= 0
    up_len = np.where(exists & (hi < NUM_RANKS - 1), TRAIL13[d >> np.clip(hi + 1, 0, 12)], 0)
    down_len = np.where(
        exists & (lo > 0), TRAIL13[REV13[d] >> np.clip(NUM_RANKS - lo, 0, 12)], 0
    )
    # a set of three: the missing suit's card
    set_bits = (knocker.set_masks[:, :, None] >> _SHIFT13) & 1  # (n, 4, 13)
    set_count = set_bits.sum(1)  # (n, 13)
    missing_suit = np.argmin(set_bits, axis=1)  # (n, 13): a set of three lacks this suit
    held_missing = (dmasks[np.arange(n)[:, None], missing_suit] >> _SHIFT13) & 1
    set_len = np.where(set_count == 3, held_missing, 0)
    suit_b = np.broadcast_to(_SUIT_IDX[None, :, None], lo.shape)
    kind = np.concatenate(
        [np.zeros((n, 12), np.int64), np.ones((n, 12), np.int64), np.full((n, 13), 2, np.int64)], 1
    )
    suit = np.concatenate([suit_b.reshape(n, -1), suit_b.reshape(n, -1), missing_suit], 1)
    anchor = np.concatenate(
        [(hi + 1).reshape(n, -1), (lo - 1).reshape(n, -1), np.broadcast_to(_SHIFT13, (n, 13))], 1
    )
    length = np.concatenate([up_len.reshape(n, -1), down_len.reshape(n, -1), set_len], 1)
    return kind, suit, anchor, length


def layoff(knocker: Arrangement, defender_hands: np.ndarray) -> Layoff:
    """The defender's best own melds and lay-offs onto the knocker's melds (G-9).

    Lay-offs are a fourth card on a set of three, or cards extending a run at either
    end, chains included (8h then 9h onto 5h6h7h). A card may serve in the defender's
    own meld or be laid off, not both; every combination of chain lengths is tried and
    the lowest deadwood kept (ties: the fewest cards laid off, first directions first).
    """
    dmasks = suit_masks(defender_hands)
    n = dmasks.shape[0]
    kind, suit, anchor, length = _layoff_directions(knocker, dmasks)
    radix = length + 1
    combos = np.prod(radix, axis=1)  # (n,)
    game = np.repeat(np.arange(n), combos)
    local = np.arange(game.size) - np.repeat(np.cumsum(combos) - combos, combos)
    strides = np.cumprod(radix, axis=1) // radix  # (n, D)
    take = (local[:, None] // strides[game]) % radix[game]  # (rows, D) chain length used
    shift = np.where(kind[game] == 1, anchor[game] - take + 1, anchor[game])
    bits = np.where(take > 0, ((1 << take) - 1) << np.clip(shift, 0, 12), 0)
    laid = np.zeros((game.size, NUM_SUITS), dtype=np.int64)
    for s in range(NUM_SUITS):
        laid[:, s] = np.bitwise_or.reduce(np.where(suit[game] == s, bits, 0), axis=1)
    rest = dmasks[game] & ~laid
    cost = _solve(rest)
    ncards = POPCOUNT13[laid].sum(1)
    # first row with the lowest (deadwood, cards laid) in each game
    order = np.lexsort((ncards, cost, game))
    first = np.ones(order.size, dtype=bool)
    first[1:] = game[order][1:] != game[order][:-1]
    pick = order[first]
    arr = _arrangement_of(rest[pick])
    return Layoff(arr.deadwood, arr.meld_id, unpack_masks(laid[pick]))


# --------------------------------------------------------------------------------------
# One hand at a time, compiled: used inside the game kernels (same algorithm as _solve)
# --------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _removed_by(o, bit, suit):
    """Bits of set rank ``bit`` that option ``o`` takes out of suit ``suit``."""
    if o == 1 or (o >= 2 and o - 2 != suit):
        return bit
    return 0


@njit(cache=True, nogil=True)
def deadwood_one(m0: int, m1: int, m2: int, m3: int) -> int:
    """Minimum deadwood of one hand given as four suit masks (compiled; the algorithm of
    _solve: each set rank is unused, a full set, or a set without one suit's card).
    Returns -1 for a hand with more than MAX_SET_RANKS set ranks."""
    d = DW13[m0] + DW13[m1] + DW13[m2] + DW13[m3]
    three = (m0 & m1 & (m2 | m3)) | (m2 & m3 & (m0 | m1))
    if three == 0:
        return d
    four = m0 & m1 & m2 & m3
    # up to four set ranks as scalars (no allocation on this hot path)
    b0 = three & -three
    rest = three & (three - 1)
    b1 = rest & -rest
    rest &= rest - 1
    b2 = rest & -rest
    rest &= rest - 1
    b3 = rest & -rest
    rest &= rest - 1
    if rest:
        return -1
    n0 = 6 if four & b0 else 2
    n1 = 1 if b1 == 0 else (6 if four & b1 else 2)
    n2 = 1 if b2 == 0 else (6 if four & b2 else 2)
    n3 = 1 if b3 == 0 else (6 if four & b3 else 2)
    best = d
    for i in range(n0 * n1 * n2 * n3):
        o0 = i % n0
        i1 = i // n0
        o1 = i1 % n1
        i2 = i1 // n1
        o2 = i2 % n2
        o3 = i2 // n2
        r0 = _removed_by(o0, b0, 0) | _removed_by(o1, b1, 0) | _removed_by(o2, b2, 0) | _removed_by(o3, b3, 0)
        r1 = _removed_by(o0, b0, 1) | _removed_by(o1, b1, 1) | _removed_by(o2, b2, 1) | _removed_by(o3, b3, 1)
        r2 = _removed_by(o0, b0, 2) | _removed_by(o1, b1, 2) | _removed_by(o2, b2, 2) | _removed_by(o3, b3, 2)
        r3 = _removed_by(o0, b0, 3) | _removed_by(o1, b1, 3) | _removed_by(o2, b2, 3) | _removed_by(o3, b3, 3)
        c = DW13[m0 & ~r0] + DW13[m1 & ~r1] + DW13[m2 & ~r2] + DW13[m3 & ~r3]
        if c < best:
            best = c
    return best


@njit(cache=True, nogil=True)
def knock_bits_one(m, limit, out):
    """Suit masks (into ``out``, 4 ints) of the cards whose discard leaves deadwood <= limit:
    the compiled twin of :func:`knock_masks` for one hand ``m`` (4 suit masks)."""
    m0, m1, m2, m3 = m[0], m[1], m[2], m[3]
    dw = deadwood_one(m0, m1, m2, m3)
    three = (m0 & m1 & (m2 | m3)) | (m2 & m3 & (m0 | m1))
    need = dw - limit
    if need < 0:
        need = 0
    if need > 11:
        need = 11
    floor = 0
    for s in range(NUM_SUITS):
        meld = MELDABLE13[m[s]] | (m[s] & three)
        loose = m[s] & ~meld
        out[s] = loose & _RANKS_VALUED_AT_LEAST[need]
        floor += VALUE13[loose]
    if floor > limit:
        return
    for s in range(NUM_SUITS):
        meld = MELDABLE13[m[s]] | (m[s] & three)
        while meld:
            b = meld & -meld
            meld &= meld - 1
            sub0 = m0 & ~b if s == 0 else m0
            sub1 = m1 & ~b if s == 1 else m1
            sub2 = m2 & ~b if s == 2 else m2
            sub3 = m3 & ~b if s == 3 else m3
            if deadwood_one(sub0, sub1, sub2, sub3) <= limit:
                out[s] |= b


@njit(cache=True, nogil=True)
def suit_masks_one(hand, out):
    """Write the four suit masks of one ``(52,)`` bool hand into ``out`` (compiled)."""
    for s in range(NUM_SUITS):
        v = 0
        for r in range(NUM_RANKS):
            if hand[s * NUM_RANKS + r]:
                v |= 1 << r
        out[s] = v


#: bit -> its index, for single bits of a 13-bit mask
BIT_INDEX13 = np.zeros(1 << NUM_RANKS, np.int64)
for _r in range(NUM_RANKS):
    BIT_INDEX13[1 << _r] = _r


@njit(cache=True, nogil=True)
def set_ranks_one(m):
    """Ranks held in at least three suits of hand ``m`` (4 suit masks): the possible sets."""
    return (m[0] & m[1] & (m[2] | m[3])) | (m[2] & m[3] & (m[0] | m[1]))


@njit(cache=True, nogil=True)
def min_after_discard_one(m, forbid_s, forbid_r):
    """Lowest deadwood of hand ``m`` (4 suit masks, changed in place and restored) minus one
    card, not the forbidden one (suit ``forbid_s``, rank ``forbid_r``; -1 for none).

    A card in no possible meld of the hand goes without changing the best melds (deadwood
    minus its value), so among those only the highest matters; each meldable card needs a
    solve.
    """
    full = deadwood_one(m[0], m[1], m[2], m[3])
    three = set_ranks_one(m)
    best = 1 << 20
    for s in range(NUM_SUITS):
        meld = (MELDABLE13[m[s]] | (m[s] & three)) & m[s]
        loose = m[s] & ~meld
        if s == forbid_s:
            loose &= ~(1 << forbid_r)
            meld &= ~(1 << forbid_r)
        if loose:
            top = loose
            while top & (top - 1):  # the highest loose card of this suit
                top &= top - 1
            v = full - RANK_VALUE[BIT_INDEX13[top]]
            if v < best:
                best = v
        while meld:
            b = meld & -meld
            meld &= meld - 1
            m[s] &= ~b
            v = deadwood_one(m[0], m[1], m[2], m[3])
            m[s] |= b
            if v < best:
                best = v
    return best
