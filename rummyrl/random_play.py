"""Uniformly random legal actions for a batch of masks (the ``random`` baseline, benchmarks)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _pick(mask, u, out):
    for b in range(mask.shape[0]):
        n = 0
        for a in range(mask.shape[1]):
            n += mask[b, a]
        if n == 0:
            out[b] = -1
            continue
        k = int(u[b] * n)
        for a in range(mask.shape[1]):
            if mask[b, a]:
                if k == 0:
                    out[b] = a
                    break
                k -= 1


def random_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a ``(B, A)`` bool mask; -1 where none."""
    mask = np.asarray(mask, dtype=bool)
    out = np.empty(mask.shape[0], np.int64)
    _pick(mask, rng.random(mask.shape[0]), out)
    return out
