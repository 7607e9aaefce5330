"""Shared test helpers: a slow, obviously-correct reference for the meld rules.

Nothing here imports the engine's meld solver: the reference enumerates the melds of
C-3 itself and searches every disjoint combination of them, so a test that compares
the engine with it compares two independent implementations.

Hands in the reference are Python ints, bit ``c`` set for card ``c`` (``suit*13+rank``).
The ``ref`` fixture hands the functions to the tests. ``ray_session``: the one Ray of a test
session (2 CPUs, this machine only), for the tests of Ray workers and of RLlib's example.
"""

from __future__ import annotations

import functools
import os
import types

import numpy as np
import pytest

N_CARDS, N_RANKS, N_SUITS = 52, 13, 4
# C-2: Ace 1, 2..10 face value, J Q K 10 (written out, not taken from cards.VALUE)
VALUE_BY_RANK = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
CARD_VALUE = tuple(VALUE_BY_RANK[c % N_RANKS] for c in range(N_CARDS))


def all_melds() -> set[frozenset[int]]:
    """Every meld of C-3: runs of 3..13 consecutive ranks in one suit, Ace low, no
    wrap-around; sets of 3 or 4 cards of one rank."""
    out = set()
    for suit in range(N_SUITS):
        for lo in range(N_RANKS):
            for hi in range(lo + 2, N_RANKS):  # hi <= King: Q-K-A cannot appear
                out.add(frozenset(suit * N_RANKS + r for r in range(lo, hi + 1)))
    for rank in range(N_RANKS):
        cards = [s * N_RANKS + rank for s in range(N_SUITS)]
        for drop in range(N_SUITS):
            out.add(frozenset(c for i, c in enumerate(cards) if i != drop))
        out.add(frozenset(cards))
    return out


MELDS = sorted(all_melds(), key=lambda m: sorted(m))
MELD_BITS = [sum(1 << c for c in m) for m in MELDS]
# melds by their lowest card: a hand's lowest card can only be in a meld whose lowest card it is
_MELDS_BY_LOW = [[] for _ in range(N_CARDS)]
for _bits in MELD_BITS:
    _MELDS_BY_LOW[(_bits & -_bits).bit_length() - 1].append(_bits)


def bits_of(cards) -> int:
    b = 0
    for c in cards:
        b |= 1 << int(c)
    return b


def cards_of(bits: int) -> list[int]:
    return [c for c in range(N_CARDS) if bits >> c & 1]


def row_bits(row: np.ndarray) -> int:
    """A (52,) bool hand as an int."""
    return bits_of(np.flatnonzero(row))


def value_of(bits: int) -> int:
    return sum(CARD_VALUE[c] for c in cards_of(bits))


@functools.lru_cache(maxsize=None)
def bf_deadwood(bits: int) -> int:
    """Minimum deadwood over every disjoint combination of melds inside the hand.

    Exhaustive: the hand's lowest card is either deadwood or in one of the melds that
    contain it and fit in the hand; each branch recurses on what is left.
    """
    if bits == 0:
        return 0
    low = (bits & -bits).bit_length() - 1
    best = CARD_VALUE[low] + bf_deadwood(bits & (bits - 1))
    for m in _MELDS_BY_LOW[low]:
        if m & bits == m:
            v = bf_deadwood(bits & ~m)
            if v < best:
                best = v
    return best


def is_meld_ref(cards) -> bool:
    return frozenset(int(c) for c in cards) in _MELD_SET


_MELD_SET = set(MELDS)


def layoff_sets(knocker_melds, defender_bits: int) -> set[int]:
    """Every set of defender cards that can be laid off (G-9) onto ``knocker_melds``.

    Simulates the table: a set of three takes its missing fourth card, a run takes the
    next card at either end; laid cards change the meld, so chains (8h then 9h onto
    5h6h7h) appear. Returns the reachable sets as card bit masks (0 included).
    """
    start = []
    for meld in knocker_melds:
        cards = sorted(int(c) for c in meld)
        ranks = {c % N_RANKS for c in cards}
        if len(ranks) == 1:
            start.append(("set", cards[0] % N_RANKS, frozenset(c // N_RANKS for c in cards)))
        else:
            start.append(("run", cards[0] // N_RANKS, cards[0] % N_RANKS, cards[-1] % N_RANKS))
    start = tuple(start)
    seen, reachable = set(), set()
    stack = [(start, 0)]
    while stack:
        table, laid = stack.pop()
        if (table, laid) in seen:
            continue
        seen.add((table, laid))
        reachable.add(laid)
        for c in cards_of(defender_bits & ~laid):
            rank, suit = c % N_RANKS, c // N_RANKS
            for i, m in enumerate(table):
                new = None
                if m[0] == "set" and m[1] == rank and len(m[2]) == 3 and suit not in m[2]:
                    new = ("set", rank, m[2] | {suit})
                elif m[0] == "run" and m[1] == suit and rank == m[2] - 1:
                    new = ("run", suit, rank, m[3])
                elif m[0] == "run" and m[1] == suit and rank == m[3] + 1:
                    new = ("run", suit, m[2], rank)
                if new is not None:
                    stack.append((table[:i] + (new,) + table[i + 1:], laid | (1 << c)))
    return reachable


def bf_layoff(knocker_melds, defender_bits: int) -> int:
    """The defender's lowest deadwood after its own melds and lay-offs (G-9)."""
    return min(bf_deadwood(defender_bits & ~laid) for laid in layoff_sets(knocker_melds, defender_bits))


def melds_from_ids(meld_id_row: np.ndarray) -> list[list[int]]:
    """The melds of one ``meld_id`` row (cards grouped by id >= 0)."""
    ids = np.asarray(meld_id_row)
    return [np.flatnonzero(ids == j).tolist() for j in sorted(set(ids[ids >= 0].tolist()))]


def check_arrangement(hand_bits: int, meld_id_row: np.ndarray) -> int:
    """Assert that ``meld_id_row`` arranges cards of the hand into valid disjoint melds;
    return the value of the held cards left out (the arrangement's deadwood)."""
    ids = np.asarray(meld_id_row)
    melded = 0
    for meld in melds_from_ids(ids):
        assert is_meld_ref(meld), f"not a meld (C-3): {meld}"
        mb = bits_of(meld)
        assert mb & hand_bits == mb, f"meld {meld} uses cards not in the hand"
        assert mb & melded == 0, f"meld {meld} shares a card with another meld"
        melded |= mb
    return value_of(hand_bits & ~melded)


REF = types.SimpleNamespace(
    VALUE=CARD_VALUE, MELDS=MELDS, all_melds=all_melds, bits_of=bits_of, cards_of=cards_of,
    row_bits=row_bits, value_of=value_of, deadwood=bf_deadwood, is_meld=is_meld_ref,
    layoff_sets=layoff_sets, layoff=bf_layoff, melds_from_ids=melds_from_ids,
    check_arrangement=check_arrangement,
)


@pytest.fixture(scope="session")
def ref():
    """The brute-force reference (see the module docstring)."""
    return REF


@pytest.fixture(scope="session")
def ray_session():
    """One local Ray for the whole session (skips where Ray is not installed), on 127.0.0.1
    only (Ray's switch for machines that are not cluster nodes)."""
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    ray = pytest.importorskip("ray")
    if not ray.is_initialized():
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def pytest_collection_modifyitems(config, items):
    """A test that asks for the session's Ray is of the ``ray`` kind (``--fast`` leaves it
    out), whatever file it is in."""
    for item in items:
        if "ray_session" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.ray)
