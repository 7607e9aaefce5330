"""Deals: per-game seeds and seeded shuffles shared by both games.

A deck depends only on (game seed, game number in its lane, hand number), never on the
batch a game is played in, so a game replays identically at any batch size.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .cards import NUM_CARDS

_U64 = np.uint64


@njit(cache=True, nogil=True)
def _mix64_kernel(x, out):
    for i in range(x.size):
        z = x[i] + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        out[i] = z ^ (z >> np.uint64(31))


def _mix64(x: np.ndarray) -> np.ndarray:
    """splitmix64 finalizer over uint64 arrays (wrapping arithmetic), elementwise."""
    x = np.asarray(x, dtype=np.uint64)
    out = np.empty(x.shape, np.uint64)
    _mix64_kernel(np.ascontiguousarray(x).reshape(-1), out.reshape(-1))
    return out if out.ndim else out[()]


def _deal_key(seed, game_no, hand_no):
    g = np.asarray(game_no).astype(np.uint64)
    h = np.asarray(hand_no).astype(np.uint64)
    return _mix64(np.asarray(seed, dtype=np.uint64) ^ _mix64(g * _U64(0x100000001B3) + h))


def shuffled_decks(seed: np.ndarray, game_no: np.ndarray, hand_no: np.ndarray) -> np.ndarray:
    """``(n, 52)`` int8 deck orders, one per (seed, game number, hand number)."""
    key = _deal_key(seed, game_no, hand_no)
    keys = _mix64(key[:, None] + np.arange(NUM_CARDS, dtype=np.uint64) * _U64(0xD1B54A32D192ED03))
    return np.argsort(keys, axis=1).astype(np.int8)


def first_dealer(seed: np.ndarray, game_no: np.ndarray, num_players: int) -> np.ndarray:
    """The seeded first dealer of each game (G-3, R-2)."""
    return (_mix64(_deal_key(seed, game_no, 0xFFFF)) % _U64(num_players)).astype(np.int8)


def game_seeds(seed, batch_size: int) -> np.ndarray:
    """Per-game seeds ``(batch_size,)`` uint64 from an int (game i gets a seed derived from
    ``seed`` and ``i``, so it does not depend on the batch size), an array of one seed per
    game (games with equal seeds get equal deals: duplicate play), an
    ``np.random.Generator``, or None (fresh entropy)."""
    if isinstance(seed, np.ndarray) or isinstance(seed, (list, tuple)):
        arr = np.asarray(seed)
        if arr.shape != (batch_size,) or arr.dtype.kind not in "iu" or (arr.dtype.kind == "i" and (arr < 0).any()):
            raise ValueError(f"per-game seeds must be {batch_size} non-negative integers, got shape {arr.shape}")
        return _mix64(arr.astype(np.uint64) ^ _U64(0x5DEECE66D))
    if isinstance(seed, np.random.Generator):
        return seed.integers(0, 2**63, size=batch_size, dtype=np.int64).astype(np.uint64)
    if seed is None:
        seed = int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0] >> np.uint64(1))
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or not 0 <= seed < 2**64:
        raise ValueError(f"seed must be an int in 0 .. 2**64 - 1, an np.random.Generator or None, got {seed!r}")
    base = _mix64(np.array([int(seed)], dtype=np.uint64))
    return _mix64(base ^ np.arange(batch_size, dtype=np.uint64) * _U64(0x9E3779B97F4A7C15))
