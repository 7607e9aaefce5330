"""What both batched engines share: the state base class, config loading, the explicit
deal schedule, new games and resets, the pile moves of the step kernels, action checks,
and the arguments of ``step`` and ``observe``.

The engines call these with their own names where they differ: Gin Rummy deals *hands*
(``hand_no``, ``hand_ended``) to 2 players, Rummy deals *rounds* (``round_no``,
``round_ended``) to 2..6.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np
from numba import njit

from .cards import NUM_CARDS, check_deck
from .settings import build
from .deals import first_dealer, shuffled_decks


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


class BatchConfig:
    """Base of the engines' frozen settings classes (:func:`rummyrl.settings.settings`):
    :meth:`from_dict`."""

    #: the game's name in error messages (a class attribute, not a dataclass field)
    game_name = "card game"

    @classmethod
    def from_dict(cls, d: dict):
        """Build from a mapping of option names; an unknown one is an error naming it and the
        known ones, a bad value one naming the option, the value and what is allowed."""
        if not isinstance(d, Mapping):
            raise TypeError(f"{cls.game_name} options must be a mapping of option names to values, "
                            f"got {type(d).__name__}")
        return build(cls, dict(d))


@njit(cache=True, nogil=True)
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
        if a.dtype.kind not in "iu" or a.shape != (B,):
            raise ValueError(f"actions must be an integer array of shape ({B},), got {a.dtype} {a.shape}")
        if a.dtype.kind == "u" and a.size and a.max() > np.iinfo(np.int64).max:
            raise ValueError(f"actions must be action ids 0..{state.mask.shape[1] - 1}, got {a.max()}")
        a = a.astype(np.int64)
    elif a.shape != (B,):
        raise ValueError(f"actions must be an integer array of shape ({B},), got {a.dtype} {a.shape}")
    return a, active_lanes(active, B)


def step_lanes(state, actions, active, inplace: bool):
    """The start of ``step``: the checked ``actions`` and ``active`` (:func:`action_lanes`)
    and the state the step writes, ``state`` itself in place or else a copy."""
    a, lanes = action_lanes(state, actions, active)
    return a, lanes, state if inplace else state.copy()


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
    if not isinstance(out, np.ndarray):
        raise ValueError(f"out must be None or a float32 array of shape ({batch_size}, {obs_dim}), "
                         f"got {type(out).__name__}")
    if out.shape != (batch_size, obs_dim) or out.dtype != np.float32 or not out.flags.writeable:
        raise ValueError(f"out must be a writeable float32 array of shape ({batch_size}, {obs_dim}), got "
                         f"{out.dtype} {out.shape}{'' if out.flags.writeable else ' read-only'}")
    return out


def game_index(b, batch_size: int) -> int:
    """The ``b`` argument of the readable records (``hand_info``, ``game_info``, ...): the
    index of one game, ``0 <= b < B`` (a negative one would silently read another game)."""
    if not isinstance(b, (int, np.integer)) or isinstance(b, bool) or not 0 <= b < batch_size:
        raise ValueError(f"b must be the index of a game, an int in 0..{batch_size - 1}, got {b!r}")
    return int(b)


# --------------------------------------------------------------------------------------
# Deals: the explicit schedule of ``init``, new games, resets
# --------------------------------------------------------------------------------------
def deck_schedule(batch_size: int, num_players: int, decks, dealers, deals: str = "H"):
    """The ``decks`` and ``dealers`` arguments of ``init`` as a schedule: ``(B, H, 52)`` int8
    explicit deck orders for the first H deals of each game (H = 0 without decks) and
    ``(B, H)`` int8 dealers, -1 where the rule picks the dealer. ``deals`` names H in the
    error messages. Raises ``ValueError`` saying what is wrong."""
    B, P = batch_size, num_players
    if decks is None:
        if dealers is not None:
            raise ValueError("dealers were given without decks: pass the decks they deal")
        return np.zeros((B, 0, NUM_CARDS), np.int8), np.zeros((B, 0), np.int8)
    arr = check_deck(decks, "decks")
    if arr.ndim == 1:
        arr = np.broadcast_to(arr, (B, 1, NUM_CARDS))
    elif arr.ndim == 2:
        arr = arr[:, None, :]
    if arr.ndim != 3 or arr.shape[0] != B:
        raise ValueError(f"decks must be (52,), (B, 52) or (B, {deals}, 52) with B = {B}, got {np.shape(decks)}")
    H = arr.shape[1]
    dl = np.full((B, H), -1, np.int8)
    if dealers is not None:
        d = np.asarray(dealers)
        if not np.issubdtype(d.dtype, np.integer) or d.size == 0 or d.min() < -1 or d.max() >= P:
            raise ValueError(f"dealers must be seats 0..{P - 1} (or -1 for the rule), got {dealers!r}")
        if d.ndim == 0:
            d = np.full((B, 1), int(d))
        elif d.ndim == 1:
            if d.shape[0] != B:
                raise ValueError(f"dealers must have one entry per game ({B}), got {d.shape[0]}")
            d = d[:, None]
        if d.ndim != 2 or d.shape[0] != B or d.shape[1] > H:
            raise ValueError(f"dealers shape {np.shape(dealers)} does not match decks shape {arr.shape}")
        dl[:, : d.shape[1]] = d
    return np.ascontiguousarray(arr, dtype=np.int8), dl


def init_args(batch_size, config, config_cls):
    """The checked ``batch_size`` (as an int) and ``config`` (``config_cls()`` when None)
    of ``init``."""
    if not isinstance(batch_size, (int, np.integer)) or isinstance(batch_size, bool) or batch_size < 1:
        raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
    config = config_cls() if config is None else config
    if not isinstance(config, config_cls):
        raise ValueError(f"config must be a {config_cls.__name__}, got {type(config).__name__}")
    return int(batch_size), config


def deal_orders(state, rows: np.ndarray, deal_no: np.ndarray, rule_dealer: np.ndarray):
    """The deck orders ``(n, 52)`` int8 and dealers ``(n,)`` int64 of deal number ``deal_no``
    (the hand or round of the game) of the games ``rows``: the schedule's where ``init`` was
    given one (only in a lane's first game, ``game_no`` 0; a schedule dealer of -1 keeps
    ``rule_dealer``), else a shuffle of the game's seed, game and deal number with the
    dealer ``rule_dealer``."""
    decks = shuffled_decks(state.seed[rows], state.game_no[rows], deal_no)
    dealer = rule_dealer.astype(np.int64)
    H = state.schedule.shape[1]
    if H:
        sched = (deal_no < H) & (state.game_no[rows] == 0)
        if sched.any():
            sr = np.flatnonzero(sched)
            decks[sr] = state.schedule[rows[sr], deal_no[sr]]
            d = state.schedule_dealer[rows[sr], deal_no[sr]]
            dealer[sr] = np.where(d >= 0, d, dealer[sr])
    return decks, dealer


def new_game(state, rows: np.ndarray, fresh: dict, deal, num_players: int) -> None:
    """Start a game in ``rows``: set each game-level field named in ``fresh`` to its value
    there, then ``deal(state, rows, dealer)`` the first hand or round with the seeded first
    dealer (G-3, R-2)."""
    for name, value in fresh.items():
        getattr(state, name)[rows] = value
    deal(state, rows, first_dealer(state.seed[rows], state.game_no[rows], num_players))


def lane_rows(rows, batch_size: int, name: str = "rows") -> np.ndarray:
    """An index array of games as int64, after checking that it is one (a bool mask or an
    index out of ``0..B-1`` would pick other games)."""
    arr = np.asarray(rows)
    if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
        raise ValueError(f"{name} must be a 1-d array of game indices, got {arr.dtype} {arr.shape}")
    arr = arr.astype(np.int64)
    if arr.size and (arr.min() < 0 or arr.max() >= batch_size):
        raise ValueError(f"{name} must index games 0..{batch_size - 1}, got {arr.min()}..{arr.max()}")
    return arr


def reset_lanes(state, rows, new_game_rows) -> np.ndarray:
    """``reset_done`` of both engines: ``new_game_rows(state, rows)`` in every lane whose
    episode is over (or in ``rows``), after counting the lane's game number up by one, so
    that its deals stay reproducible. Returns the rows."""
    if rows is None:
        if not state.game_over.any():
            return np.empty(0, np.int64)
        rows = np.flatnonzero(state.game_over)
    else:
        rows = lane_rows(rows, state.phase.shape[0])
    if rows.size:
        state.game_no[rows] += 1
        new_game_rows(state, rows)
    return rows


# --------------------------------------------------------------------------------------
# Pile moves of the step kernels (one game ``b``, player ``p``)
# --------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def take_top_discard(b, p, hands, pile, pile_from, pile_len, known, taken):
    """Move the top discard into ``p``'s hand; the others now know ``p`` holds it, and it
    is the card taken this turn (C-4). Returns it."""
    n = pile_len[b] - 1
    c = pile[b, n]
    pile[b, n] = -1
    pile_from[b, n] = -1
    pile_len[b] = n
    hands[b, p, c] = True
    known[b, p, c] = True
    taken[b] = c
    return c


@njit(cache=True, nogil=True)
def throw_card(b, p, c, hands, pile, pile_from, pile_len, known, thrown, taken):
    """Move card ``c`` from ``p``'s hand onto the discard pile, thrown by ``p``."""
    hands[b, p, c] = False
    known[b, p, c] = False
    thrown[b, p, c] = True
    n = pile_len[b]
    pile[b, n] = c
    pile_from[b, n] = p
    pile_len[b] = n + 1
    taken[b] = -1
