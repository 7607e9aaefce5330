"""Small helpers shared by the batched engines."""

from __future__ import annotations

import numpy as np


def active_lanes(active, batch_size: int) -> np.ndarray:
    """The ``active`` argument of ``step``: None (every game) or a ``(B,)`` bool array."""
    if active is None:
        return np.ones(batch_size, bool)
    arr = np.asarray(active)
    if arr.shape != (batch_size,) or arr.dtype != bool:
        raise ValueError(f"active must be a bool array of shape ({batch_size},), got {arr.dtype} {arr.shape}")
    return arr


def player_array(player, batch_size: int, num_players: int) -> np.ndarray:
    """The ``player`` argument of ``observe``: None (-1: the player to act in each game), a
    seat for every game, or a ``(B,)`` array of seats."""
    if player is None:
        return np.full(batch_size, -1, np.int64)
    if isinstance(player, (int, np.integer)) and not isinstance(player, bool):
        if not 0 <= player < num_players:
            raise ValueError(f"player must be a seat 0..{num_players - 1} (or None for the player to act), got {player}")
        return np.full(batch_size, int(player), np.int64)
    arr = np.asarray(player)
    if arr.shape != (batch_size,) or arr.dtype.kind not in "iu":
        raise ValueError(f"player must be an int, None or an int array of shape ({batch_size},), got {player!r}")
    arr = arr.astype(np.int64)
    if ((arr < -1) | (arr >= num_players)).any():
        raise ValueError(f"player entries must be seats 0..{num_players - 1} (or -1 for the player to act)")
    return arr
