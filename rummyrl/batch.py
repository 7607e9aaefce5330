"""What both batched engines share: the state base class, config loading, action checks,
and the arguments of ``step`` and ``observe``."""

from __future__ import annotations

import dataclasses

import numpy as np
from numba import njit


class BatchState:
    """Base of the engines' state dataclasses: B games of fixed-shape arrays plus a config."""

    @property
    def batch_size(self) -> int:
        return self.phase.shape[0]

    def take(self, rows):
        """A new state of the games ``rows`` (an index array; repeats make copies)."""
        rows = np.asarray(rows)
        return dataclasses.replace(
            self, **{f.name: getattr(self, f.name)[rows] for f in dataclasses.fields(self) if f.name != "config"}
        )

    def copy(self):
        """A deep copy (the config is shared: it is frozen)."""
        return dataclasses.replace(
            self, **{f.name: getattr(self, f.name).copy() for f in dataclasses.fields(self)
                     if f.name != "config"}
        )


def config_from_dict(cls, d: dict, game: str):
    """``cls(**d)``, with an error naming unknown keys and the known ones."""
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(d) - known)
    if unknown:
        raise ValueError(f"unknown {game} option(s) {unknown}; known: {sorted(known)}")
    return cls(**d)


@njit(cache=True)
def first_illegal(act, phase, done_phase, mask, active):
    """The first game whose action is not legal (games over or inactive are skipped), or -1.
    The step kernels call it before they change anything."""
    for b in range(act.shape[0]):
        if phase[b] == done_phase or not active[b]:
            continue
        a = act[b]
        if a < 0 or a >= mask.shape[1] or not mask[b, a]:
            return b
    return -1


def action_lanes(state, actions, active):
    """The ``actions`` and ``active`` arguments of ``step`` as int64 and bool arrays, after
    checking their shapes and types (legality is checked by the step kernel)."""
    a = actions
    B = state.phase.shape[0]
    if type(a) is not np.ndarray or a.dtype != np.int64:
        a = np.asarray(a)
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions must be an integer array of shape ({B},), got {a.dtype} {a.shape}")
        a = a.astype(np.int64)
    if a.shape != (B,):
        raise ValueError(f"actions must be an integer array of shape ({B},), got {a.dtype} {a.shape}")
    return a, active_lanes(active, B)


def illegal_action_error(state, a, g: int, phase_names, action_name, error):
    """``error`` naming game ``g``, its action, the phase, the player to act and the legal
    actions."""
    bad = int(a[g])
    legal = ", ".join(f"{x} ({action_name(x)})" for x in np.flatnonzero(state.mask[g]))
    name = action_name(bad) if 0 <= bad < state.mask.shape[1] else "out of range"
    return error(f"action {bad} ({name}) is not legal in game {g}, phase {phase_names[state.phase[g]]}, "
                 f"player {int(state.current[g])} to act; legal: [{legal}]")


_ALL_ACTIVE: dict[int, np.ndarray] = {}
_TO_ACT: dict[int, np.ndarray] = {}


def active_lanes(active, batch_size: int) -> np.ndarray:
    """The ``active`` argument of ``step``: None (every game) or a ``(B,)`` bool array."""
    if active is None:  # one shared all-True array per batch size (the kernels only read it)
        lanes = _ALL_ACTIVE.get(batch_size)
        if lanes is None:
            lanes = _ALL_ACTIVE[batch_size] = np.ones(batch_size, bool)
        return lanes
    arr = np.asarray(active)
    if arr.shape != (batch_size,) or arr.dtype != bool:
        raise ValueError(f"active must be a bool array of shape ({batch_size},), got {arr.dtype} {arr.shape}")
    return arr


def player_array(player, batch_size: int, num_players: int) -> np.ndarray:
    """The ``player`` argument of ``observe``: None (-1: the player to act in each game), a
    seat for every game, or a ``(B,)`` array of seats."""
    if player is None:  # one shared array of -1 per batch size (the kernels only read it)
        lanes = _TO_ACT.get(batch_size)
        if lanes is None:
            lanes = _TO_ACT[batch_size] = np.full(batch_size, -1, np.int64)
        return lanes
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


def observation_buffer(out, batch_size: int, obs_dim: int) -> np.ndarray:
    """The ``out`` argument of ``observe``: None (a new array) or a float32 ``(B, D)`` array."""
    if out is None:
        return np.empty((batch_size, obs_dim), np.float32)
    if out.shape != (batch_size, obs_dim) or out.dtype != np.float32:
        raise ValueError(f"out must be float32 of shape ({batch_size}, {obs_dim}), got {out.dtype} {out.shape}")
    return out
