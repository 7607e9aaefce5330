"""Gin Rummy for two players, B games at once as numpy arrays.

Rules: ``docs/rules.md`` ids C-1..C-4 and G-1..G-19 (G-10a); the code that implements a
rule cites its id. Every open point of the rule book is a :class:`GinConfig` field.

Design (after Pgx): a :class:`GinState` holds fixed-shape arrays with the batch axis
first; :func:`init`, :func:`step`, :func:`legal_mask` and :func:`observe` are functions
of it. ``step`` returns a new state; ``step(..., inplace=True)`` updates the given one
(what the batched training interface uses). No Python loop runs over games.

Actions
-------
======================  =========  ======================================================
name                    ids        meaning
======================  =========  ======================================================
``DRAW_STOCK``          0          draw the top card of the stock (G-4)
``TAKE_DISCARD``        1          take the top of the discard pile; in the upcard offer,
                                   take the upcard (G-2, G-4)
``PASS``                2          decline the upcard (G-2)
``DISCARD + c``         3..54      discard card ``c`` (G-5)
``KNOCK + c``           55..106    knock with final discard ``c`` (G-6); it is gin when the
                                   ten cards left have no deadwood (G-7)
``BIG_GIN``             107        big gin: all eleven cards melded, no discard (G-7,
                                   only with ``big_gin_bonus`` set)
======================  =========  ======================================================

Phases: ``OFFER`` (take the upcard or pass), ``DRAW``, ``DISCARD`` (discard or knock),
``DONE`` (the episode is over). After both players pass the upcard the non-dealer is in
``DRAW`` with ``must_draw_stock`` set: only ``DRAW_STOCK`` is legal.

Deals
-----
A deal is a 52-card order and a dealer. ``deck[0:10]`` is the non-dealer's hand,
``deck[10:20]`` the dealer's, ``deck[20]`` the upcard, and ``deck[21:52]`` the stock,
``deck[21]`` drawn first (G-1). :func:`init` takes explicit decks and dealers, one per
game or a schedule of several hands per game; without them each hand's deck is a
shuffle derived from the game's seed, the game number and the hand number, so a game
depends only on its seed, not on the batch it is played in.

Episodes
--------
``GinConfig.episode = "hand"`` ends the episode with the hand; ``"game"`` plays hands
until a player reaches the target (G-15) and deals the next hand inside the same
``step`` that ended the previous one. ``state.hand_ended`` marks the games whose hand
ended in the last step, and the ``last_*`` fields describe that hand (how it ended,
deadwoods, melds, lay-offs, points). :func:`game_result` itemizes the final totals.

Observation (:func:`observe`; the flat layout is :data:`OBS_LAYOUT`)
---------------------------------------------------------------------
Everything a player may know: its hand, the discard pile in order with its top, the
cards the opponent is known to hold (taken from the pile and not thrown since), what the
opponent threw and passed on, stock size, phase, whose turn, dealer, scores, target, and
after a hand ends in a ``DONE`` state the revealed hands, melds and lay-offs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numba import njit

from . import melds as M
from .deals import game_seeds
from .batch import (BatchConfig, BatchState, deal_orders, deck_schedule, first_illegal, game_index,
                    illegal_action_error, init_args, lane_rows, new_game, observation_buffer,
                    player_array, reset_lanes, step_lanes, take_top_discard, throw_card)
from .melds import deadwood_one, knock_bits_one, suit_masks_one
from .cards import NUM_CARDS, NUM_RANKS, card_str
from .settings import Field, Int, settings

# --------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------
DRAW_STOCK = 0
TAKE_DISCARD = 1
PASS = 2
DISCARD = 3
KNOCK = DISCARD + NUM_CARDS
BIG_GIN = KNOCK + NUM_CARDS
NUM_ACTIONS = BIG_GIN + 1

PHASE_OFFER, PHASE_DRAW, PHASE_DISCARD, PHASE_DONE = 0, 1, 2, 3
PHASE_NAMES = ("OFFER", "DRAW", "DISCARD", "DONE")

#: how a hand ended (``state.last_end``)
END_NONE, END_KNOCK, END_GIN, END_BIG_GIN, END_UNDERCUT, END_DEAD, END_TRUNCATED = range(7)
END_NAMES = ("none", "knock", "gin", "big_gin", "undercut", "dead", "truncated")

HAND_SIZE = 10
UPCARD_POS = 2 * HAND_SIZE
STOCK_START = UPCARD_POS + 1
NUM_PLAYERS = 2
#: the most points a target or a bonus may be (GinConfig)
MAX_POINTS = 1_000_000


_ACTION_WORDS = {DRAW_STOCK: "draw_stock", TAKE_DISCARD: "take_discard", PASS: "pass", BIG_GIN: "big_gin"}


def action_name(action: int) -> str:
    """``57`` -> ``"knock Ks"``-style text for an action id."""
    a = int(action)
    if DISCARD <= a < KNOCK:
        return f"discard {card_str(a - DISCARD)}"
    if KNOCK <= a < BIG_GIN:
        return f"knock {card_str(a - KNOCK)}"
    return _ACTION_WORDS.get(a, f"<invalid action {a}>")


class IllegalActionError(ValueError):
    """An action that is not legal in its game's current state."""


# --------------------------------------------------------------------------------------
# Config
# --------------------------------------------------------------------------------------
@settings(frozen=True, label="GinConfig")
class GinConfig(BatchConfig):
    """Rule options (docs/rules.md "What the sources leave open") and scoring constants, each
    declared with its range (the upper bounds keep scores in the state's int32 and counters
    in its int16)."""

    game_name = "Gin Rummy"

    episode: Literal["hand", "game"] = "game"
    """``"hand"``: an episode is one hand; ``"game"``: hands until the target (G-15)."""
    target: Int[Field(ge=1, le=MAX_POINTS)] = 100
    """Points that end the game (G-15)."""
    knock_limit: Int[Field(ge=0, le=100)] = 10
    """Highest deadwood a player may knock with (G-6)."""
    gin_bonus: Int[Field(ge=0, le=MAX_POINTS)] = 25
    """Bonus for gin (G-14)."""
    undercut_bonus: Int[Field(ge=0, le=MAX_POINTS)] = 25
    """Bonus for an undercut or a tie (G-12, G-13)."""
    big_gin_bonus: Int[Field(ge=0, le=MAX_POINTS)] | None = None
    """Big gin (G-7): ``None`` = not allowed (default); a number enables it with that bonus
    (31 is usual)."""
    game_bonus: Int[Field(ge=0, le=MAX_POINTS)] = 100
    """Bonus to the game winner (G-16)."""
    box_bonus: Int[Field(ge=0, le=MAX_POINTS)] = 25
    """Bonus per hand won, to the game winner (G-17)."""
    loser_box_bonus: bool = False
    """Give the loser its box bonus too (G-17 option)."""
    dealer_rule: Literal["alternate", "winner"] = "alternate"
    """Who deals the next hand (G-3): ``"alternate"``, or ``"winner"`` (the winner of the
    hand; after a dead hand the same dealer deals again)."""
    stock_floor: Int[Field(ge=0, le=30)] = 2
    """A discard that leaves this many stock cards ends the hand dead (G-10)."""
    max_actions: Int[Field(ge=4, le=30000)] = 300
    """Actions in one hand before it is cut off as truncated (G-10a)."""
    max_hands: Int[Field(ge=1, le=10000)] = 100
    """Hands in one game before the game is cut off as truncated (a safety cap beyond the
    rule book: two players that never knock would otherwise play forever)."""
    forbid_taken_discard: bool = True
    """C-4: the card just taken from the discard pile may not be discarded that turn."""


# --------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------
@dataclass
class GinState(BatchState):
    """B games. Players are 0 and 1; card arrays are indexed by card id (cards.py)."""

    config: GinConfig = field(repr=False)
    hands: np.ndarray  # (B, 2, 52) bool
    deck: np.ndarray  # (B, 52) int8: this hand's deal order
    stock_top: np.ndarray  # (B,) int16: index in deck of the next stock card
    pile: np.ndarray  # (B, 52) int8: discard pile, bottom first, -1 past the end
    pile_from: np.ndarray  # (B, 52) int8: who threw each pile card (-1: the upcard)
    pile_len: np.ndarray  # (B,) int16
    known: np.ndarray  # (B, 2, 52) bool: cards each player took from the pile, not thrown since
    passed: np.ndarray  # (B, 2, 52) bool: top discards each player declined
    thrown: np.ndarray  # (B, 2, 52) bool: cards each player discarded this hand
    phase: np.ndarray  # (B,) int8
    current: np.ndarray  # (B,) int8: player to act
    dealer: np.ndarray  # (B,) int8
    taken: np.ndarray  # (B,) int8: card taken from the pile this turn, -1
    must_draw_stock: np.ndarray  # (B,) bool: both passed the upcard (G-2)
    hand_actions: np.ndarray  # (B,) int16: actions so far in this hand (G-10a)
    hand_no: np.ndarray  # (B,) int16: hands dealt in this game, minus one
    scores: np.ndarray  # (B, 2) int32: hand points so far in this game (G-15)
    hands_won: np.ndarray  # (B, 2) int16 (G-17, G-18)
    seed: np.ndarray  # (B,) uint64: the game's seed (deals without a schedule)
    game_no: np.ndarray  # (B,) int64: games played in this lane before this one
    schedule: np.ndarray  # (B, H, 52) int8 explicit decks for hands 0..H-1 (H may be 0)
    schedule_dealer: np.ndarray  # (B, H) int8, -1: by the dealer rule
    mask: np.ndarray  # (B, NUM_ACTIONS) bool: legal actions now
    # results; hand_ended / game_over describe the last step
    hand_ended: np.ndarray  # (B,) bool: a hand ended in the last step
    game_over: np.ndarray  # (B,) bool: the episode is over (phase DONE)
    truncated: np.ndarray  # (B,) bool: ... by a cap (G-10a in one-hand episodes, max_hands)
    winner: np.ndarray  # (B,) int8: the episode's winner once over; -1 otherwise or none
    last_end: np.ndarray  # (B,) int8 END_*: how the last hand ended
    last_knocker: np.ndarray  # (B,) int8, -1 when nobody knocked
    last_winner: np.ndarray  # (B,) int8, -1 when nobody scored
    last_points: np.ndarray  # (B,) int32: points the winner scored
    last_deadwood: np.ndarray  # (B, 2) int16: final deadwood of each player (defender after lay-offs)
    last_hands: np.ndarray  # (B, 2, 52) bool: both hands as revealed (knocker after its discard)
    last_meld_id: np.ndarray  # (B, 2, 52) int8: each player's melds (Arrangement.meld_id)
    last_laid_off: np.ndarray  # (B, 52) bool: cards the defender laid off (G-9)

    @property
    def stock_size(self) -> np.ndarray:
        return NUM_CARDS - self.stock_top.astype(np.int32)



# --------------------------------------------------------------------------------------
# init
# --------------------------------------------------------------------------------------
def init(batch_size: int, seed=None, config: GinConfig | None = None, decks=None, dealers=None) -> GinState:
    """Start ``batch_size`` games.

    ``seed``: int, ``np.random.Generator`` or None (see :func:`game_seeds`).
    ``decks``: explicit deals, ``(52,)`` (the same for every game), ``(B, 52)``, or a
    schedule ``(B, H, 52)`` for the first H hands of each game (later hands are shuffled
    from the seed). Each must be a permutation of 0..51.
    ``dealers``: the dealer of each explicit hand: an int, ``(B,)`` for the first hand, or
    ``(B, H)``; -1 (or omitted) leaves it to G-3 (seeded first dealer, then the dealer
    rule).
    """
    B, config = init_args(batch_size, config, GinConfig)
    schedule, schedule_dealer = deck_schedule(B, NUM_PLAYERS, decks, dealers, "H")
    z = np.zeros
    state = GinState(
        config=config,
        hands=z((B, 2, NUM_CARDS), bool), deck=z((B, NUM_CARDS), np.int8),
        stock_top=z(B, np.int16), pile=np.full((B, NUM_CARDS), -1, np.int8),
        pile_from=np.full((B, NUM_CARDS), -1, np.int8), pile_len=z(B, np.int16),
        known=z((B, 2, NUM_CARDS), bool), passed=z((B, 2, NUM_CARDS), bool),
        thrown=z((B, 2, NUM_CARDS), bool), phase=z(B, np.int8), current=z(B, np.int8),
        dealer=z(B, np.int8), taken=np.full(B, -1, np.int8), must_draw_stock=z(B, bool),
        hand_actions=z(B, np.int16), hand_no=z(B, np.int16), scores=z((B, 2), np.int32),
        hands_won=z((B, 2), np.int16), seed=game_seeds(seed, B), game_no=z(B, np.int64),
        schedule=schedule, schedule_dealer=schedule_dealer,
        mask=z((B, NUM_ACTIONS), bool), hand_ended=z(B, bool), game_over=z(B, bool),
        truncated=z(B, bool), winner=np.full(B, -1, np.int8), last_end=z(B, np.int8),
        last_knocker=np.full(B, -1, np.int8), last_winner=np.full(B, -1, np.int8),
        last_points=z(B, np.int32), last_deadwood=z((B, 2), np.int16),
        last_hands=z((B, 2, NUM_CARDS), bool), last_meld_id=np.full((B, 2, NUM_CARDS), -1, np.int8),
        last_laid_off=z((B, NUM_CARDS), bool),
    )
    _new_game(state, np.arange(B))
    return state


#: the game-level fields a new game starts from
_FRESH_GAME = {"scores": 0, "hands_won": 0, "hand_no": 0, "winner": -1, "game_over": False, "truncated": False}


def _new_game(state: GinState, rows: np.ndarray) -> None:
    """Reset the game-level counters of ``rows``, deal their first hand and compute the mask."""
    new_game(state, rows, _FRESH_GAME, _deal, NUM_PLAYERS)
    _update_mask(state, rows)


def _deal(state: GinState, rows: np.ndarray, rule_dealer: np.ndarray) -> None:
    """Deal the hand numbered ``state.hand_no`` to ``rows`` (G-1)."""
    if rows.size == 0:
        return
    decks, dealer = deal_orders(state, rows, state.hand_no[rows], rule_dealer)
    dealer = dealer.astype(np.int8)
    n = rows.size
    state.deck[rows] = decks
    state.dealer[rows] = dealer
    nondealer = 1 - dealer
    hands = np.zeros((n, 2, NUM_CARDS), bool)
    r = np.arange(n)[:, None]
    hands[r, nondealer[:, None], decks[:, :HAND_SIZE]] = True
    hands[r, dealer[:, None], decks[:, HAND_SIZE:UPCARD_POS]] = True
    state.hands[rows] = hands
    state.pile[rows] = -1
    state.pile_from[rows] = -1
    state.pile[rows, 0] = decks[:, UPCARD_POS]
    state.pile_len[rows] = 1
    state.stock_top[rows] = STOCK_START
    state.known[rows] = False
    state.passed[rows] = False
    state.thrown[rows] = False
    state.phase[rows] = PHASE_OFFER
    state.current[rows] = nondealer
    state.taken[rows] = -1
    state.must_draw_stock[rows] = False
    state.hand_actions[rows] = 0


# --------------------------------------------------------------------------------------
# Rules per phase, compiled: one game ``b`` at a time, looped over the batch by the kernels
# --------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _legal_one(b, hands, pile_len, phase, current, taken, must_draw, mask,
               knock_limit, forbid_taken, big_gin, scratch):
    """Write game ``b``'s legal actions into ``mask[b]``."""
    mask[b, :] = False
    ph = phase[b]
    if ph == PHASE_OFFER:  # G-2: take the upcard or pass
        mask[b, TAKE_DISCARD] = True
        mask[b, PASS] = True
    elif ph == PHASE_DRAW:  # G-4; after both passed the upcard, the stock only (G-2)
        mask[b, DRAW_STOCK] = True
        mask[b, TAKE_DISCARD] = not must_draw[b] and pile_len[b] > 0
    elif ph == PHASE_DISCARD:  # G-5, G-6, C-4
        p = current[b]
        hand = hands[b, p]
        suit_masks_one(hand, scratch[0])
        knock_bits_one(scratch[0], knock_limit, scratch[1])
        t = taken[b] if forbid_taken else -1
        for c in range(NUM_CARDS):
            if hand[c] and c != t:
                mask[b, DISCARD + c] = True
                if (scratch[1, c // NUM_RANKS] >> (c % NUM_RANKS)) & 1:
                    mask[b, KNOCK + c] = True
        if big_gin:  # G-7
            m = scratch[0]
            mask[b, BIG_GIN] = deadwood_one(m[0], m[1], m[2], m[3]) == 0


@njit(cache=True, nogil=True)
def _take_one(b, p, hands, pile, pile_from, pile_len, known, taken, phase):
    """Take the top discard (G-4), or the upcard in the offer (G-2)."""
    take_top_discard(b, p, hands, pile, pile_from, pile_len, known, taken)
    phase[b] = PHASE_DISCARD


@njit(cache=True, nogil=True)
def _pass_one(b, p, pile, passed, dealer, current, phase, must_draw):
    """Decline the upcard (G-2): the dealer is offered it next; after both passed the
    non-dealer must draw from the stock."""
    passed[b, p, pile[b, 0]] = True
    current[b] = 1 - p
    if p != dealer[b]:
        phase[b] = PHASE_OFFER
    else:
        phase[b] = PHASE_DRAW
        must_draw[b] = True


@njit(cache=True, nogil=True)
def _draw_one(b, p, hands, deck, stock_top, pile, pile_len, passed, taken, phase, must_draw):
    """Draw the top stock card (G-4); the top discard counts as passed on."""
    if pile_len[b] > 0:
        passed[b, p, pile[b, pile_len[b] - 1]] = True
    c = deck[b, stock_top[b]]
    stock_top[b] += 1
    hands[b, p, c] = True
    taken[b] = -1
    must_draw[b] = False
    phase[b] = PHASE_DISCARD


@njit(cache=True, nogil=True)
def _throw_one(b, p, c, hands, pile, pile_from, pile_len, known, thrown, taken, current, phase):
    """Put card ``c`` on the discard pile (G-5); the other player is to draw."""
    throw_card(b, p, c, hands, pile, pile_from, pile_len, known, thrown, taken)
    current[b] = 1 - p
    phase[b] = PHASE_DRAW


# what ended a hand inside the step kernel (scored afterwards by _end_hands)
_ENDS_NOTHING, _ENDS_KNOCK, _ENDS_BIG_GIN, _ENDS_DEAD, _ENDS_CAPPED = 0, 1, 2, 3, 4


@njit(cache=True, nogil=True)
def _step_kernel(act, hands, deck, stock_top, pile, pile_from, pile_len, known, passed, thrown,
                 phase, current, dealer, taken, must_draw, hand_actions, mask, ends, hand_ended, active,
                 knock_limit, forbid_taken, big_gin, stock_floor, max_actions):
    """Apply the actions; mark in ``ends`` the games whose hand ended. Returns their count,
    or -1 - g with nothing changed when the action of game g is not legal."""
    g = first_illegal(act, phase, PHASE_DONE, mask, active)
    if g >= 0:
        return -1 - g
    scratch = np.zeros((2, 4), np.int64)
    n_ended = 0
    for b in range(act.shape[0]):
        ends[b] = _ENDS_NOTHING
        hand_ended[b] = False
        if not active[b] or phase[b] == PHASE_DONE:
            continue
        a = act[b]
        p = current[b]
        hand_actions[b] += 1
        if a == TAKE_DISCARD:
            _take_one(b, p, hands, pile, pile_from, pile_len, known, taken, phase)
        elif a == PASS:
            _pass_one(b, p, pile, passed, dealer, current, phase, must_draw)
        elif a == DRAW_STOCK:
            _draw_one(b, p, hands, deck, stock_top, pile, pile_len, passed, taken, phase, must_draw)
        elif a < BIG_GIN:
            c = a - DISCARD if a < KNOCK else a - KNOCK
            _throw_one(b, p, c, hands, pile, pile_from, pile_len, known, thrown, taken, current, phase)
            if a >= KNOCK:
                ends[b] = _ENDS_KNOCK
            elif NUM_CARDS - stock_top[b] <= stock_floor:  # G-10 dead hand
                ends[b] = _ENDS_DEAD
        else:
            ends[b] = _ENDS_BIG_GIN
        if ends[b] == _ENDS_NOTHING and hand_actions[b] >= max_actions:  # G-10a
            ends[b] = _ENDS_CAPPED
        if ends[b] == _ENDS_NOTHING:
            _legal_one(b, hands, pile_len, phase, current, taken, must_draw, mask,
                       knock_limit, forbid_taken, big_gin, scratch)
        else:
            mask[b, :] = False
            n_ended += 1
    return n_ended


@njit(cache=True, nogil=True)
def _mask_kernel(rows, hands, pile_len, phase, current, taken, must_draw, mask,
                 knock_limit, forbid_taken, big_gin):
    scratch = np.zeros((2, 4), np.int64)
    for i in range(rows.shape[0]):
        _legal_one(rows[i], hands, pile_len, phase, current, taken, must_draw, mask,
                   knock_limit, forbid_taken, big_gin, scratch)


def _update_mask(state: GinState, rows: np.ndarray) -> None:
    cfg = state.config
    _mask_kernel(np.asarray(rows, np.int64), state.hands, state.pile_len, state.phase, state.current,
                 state.taken, state.must_draw_stock, state.mask, cfg.knock_limit,
                 cfg.forbid_taken_discard, cfg.big_gin_bonus is not None)


def update_mask(state: GinState) -> None:
    """Recompute ``state.mask`` from the rest of the state (for states assembled by hand,
    such as the worlds of :mod:`rummyrl.gin_beliefs`)."""
    _update_mask(state, np.arange(state.phase.shape[0]))


def legal_mask(state: GinState) -> np.ndarray:
    """A copy of ``state.mask``: ``(B, NUM_ACTIONS)`` bool, the legal actions of the player to
    act in each game (all False once its episode is over); ``init`` and ``step`` keep it."""
    return state.mask.copy()


# --------------------------------------------------------------------------------------
# step
# --------------------------------------------------------------------------------------
def step(state: GinState, actions, inplace: bool = False, active=None) -> GinState:
    """Apply one action per game, ``actions[b]`` in game ``b``. A game that is over (phase
    DONE), or whose ``active`` entry (``(B,)`` bool, default all) is False, ignores its
    action and stays as it is but for its ``hand_ended`` flag, cleared. A knock scores the
    hand (G-8 .. G-14) and, in whole games, deals the next one in the same step.

    An action that is not legal raises :class:`IllegalActionError` naming it, its phase
    and the legal actions, and changes nothing.
    """
    a, active, s = step_lanes(state, actions, active, inplace)
    cfg = s.config
    B = a.shape[0]
    ends = np.empty(B, np.int8)
    n_ended = _step_kernel(
        a, s.hands, s.deck, s.stock_top, s.pile, s.pile_from, s.pile_len, s.known, s.passed,
        s.thrown, s.phase, s.current, s.dealer, s.taken, s.must_draw_stock, s.hand_actions,
        s.mask, ends, s.hand_ended, active, cfg.knock_limit, cfg.forbid_taken_discard,
        cfg.big_gin_bonus is not None, cfg.stock_floor, cfg.max_actions,
    )
    if n_ended < 0:
        raise illegal_action_error(state, a, -1 - n_ended, PHASE_NAMES, action_name, IllegalActionError)
    if n_ended:
        g = np.flatnonzero(ends)
        e = ends[g]
        knock = e == _ENDS_KNOCK
        # the knock's discard already passed the turn; big gin did not
        knocker = np.where(knock, 1 - s.current[g], s.current[g]).astype(np.int64)
        _end_hands(s, g, knocker, knock, e == _ENDS_BIG_GIN, e == _ENDS_DEAD, e == _ENDS_CAPPED)
    return s


def _end_hands(s, g, knocker, knock, big_gin, dead, capped):
    """Score the hands of games ``g`` (G-8 .. G-14), then deal the next hand or end the game."""
    cfg = s.config
    n = g.size
    s.hand_ended[g] = True
    s.last_hands[g] = s.hands[g]
    s.last_laid_off[g] = False
    s.last_meld_id[g] = -1
    s.last_knocker[g] = np.where(knock | big_gin, knocker, -1)
    winner = np.full(n, -1, np.int64)
    points = np.zeros(n, np.int64)
    kind = np.where(dead, END_DEAD, np.where(capped, END_TRUNCATED, END_NONE))

    # one solve for every hand whose melds are needed: the knockers', then the defenders'
    # (lay-offs need the knocker's melds first), then both hands of dead and capped hands
    i = np.flatnonzero(knock | big_gin)
    j = np.flatnonzero(~(knock | big_gin))
    gi, k = g[i], knocker[i]
    d = 1 - k
    k_hands, d_hands = s.hands[gi, k], s.hands[gi, d]
    arr = M.best_melds(np.concatenate([k_hands, s.hands[g[j]].reshape(-1, NUM_CARDS)]))
    if i.size:
        r = np.arange(i.size)
        k_arr = arr.take(slice(0, i.size))  # G-8: the knocker's lowest-deadwood melds
        k_dw = k_arr.deadwood
        gin = k_dw == 0  # G-7 (a knock with no deadwood is gin)
        d_dw = np.zeros(i.size, np.int64)
        d_meld = np.full((i.size, NUM_CARDS), -1, np.int8)
        laid = np.zeros((i.size, NUM_CARDS), bool)
        if gin.any():  # after gin: no lay-offs (G-14)
            own = M.best_melds(d_hands[gin])
            d_dw[gin], d_meld[gin] = own.deadwood, own.meld_id
        if (~gin).any():  # G-9: the defender's own melds and lay-offs
            lay = M.layoff(k_arr.take(~gin), d_hands[~gin])
            d_dw[~gin], d_meld[~gin], laid[~gin] = lay.deadwood, lay.meld_id, lay.laid_off
        bonus = np.where(big_gin[i], cfg.big_gin_bonus or 0, cfg.gin_bonus)
        undercut = ~gin & (d_dw <= k_dw)  # G-12, G-13 (a tie goes to the defender)
        w = np.where(undercut, d, k)
        pts = np.where(gin, d_dw + bonus, np.where(undercut, k_dw - d_dw + cfg.undercut_bonus, d_dw - k_dw))
        kind[i] = np.where(gin, np.where(big_gin[i], END_BIG_GIN, END_GIN),
                           np.where(undercut, END_UNDERCUT, END_KNOCK))
        winner[i], points[i] = w, pts
        dws = np.zeros((i.size, 2), np.int64)
        dws[r, k], dws[r, d] = k_dw, d_dw
        s.last_deadwood[gi] = dws
        s.last_meld_id[gi, k] = k_arr.meld_id
        s.last_meld_id[gi, d] = d_meld
        s.last_laid_off[gi] = laid
    if j.size:  # dead or capped: both hands' best melds are shown, nobody scores
        both = arr.take(slice(i.size, None))
        s.last_deadwood[g[j]] = both.deadwood.reshape(-1, 2)
        s.last_meld_id[g[j]] = both.meld_id.reshape(-1, 2, NUM_CARDS)

    s.last_end[g] = kind
    s.last_winner[g] = winner
    s.last_points[g] = points
    won = winner >= 0
    s.scores[g[won], winner[won]] += points[won].astype(np.int32)
    s.hands_won[g[won], winner[won]] += 1

    # --- what comes next: the next hand, or the end of the episode (G-15) ---
    if cfg.episode == "hand":
        over = np.ones(n, bool)
        trunc = capped
        game_winner = winner
    else:
        reached = s.scores[g].max(1) >= cfg.target
        game_winner = np.where(reached, s.scores[g].argmax(1), -1)
        out_of_hands = ~reached & (s.hand_no[g] + 1 >= cfg.max_hands)
        over = reached | out_of_hands
        trunc = out_of_hands
    s.game_over[g] = over
    s.truncated[g] = trunc
    s.winner[g] = np.where(over, game_winner, -1)
    s.phase[g[over]] = PHASE_DONE
    go = np.flatnonzero(~over)
    if go.size:
        gg = g[go]
        s.hand_no[gg] += 1
        prev = s.dealer[gg].astype(np.int64)
        if cfg.dealer_rule == "alternate":  # G-3
            nxt = 1 - prev
        else:
            nxt = np.where(winner[go] >= 0, winner[go], prev)
        _deal(s, gg, nxt)
        _update_mask(s, gg)
    s.mask[g[over]] = False


# --------------------------------------------------------------------------------------
# Resets for the batched interface
# --------------------------------------------------------------------------------------
def reset_done(state: GinState, rows: np.ndarray | None = None) -> np.ndarray:
    """Start a new game, in place, in every lane whose episode is over (or in ``rows``, an
    index array); the lane's game number counts up, so its deals stay reproducible
    (:func:`rummyrl.batch.reset_lanes`). Returns the rows."""
    return reset_lanes(state, rows, _new_game)


# --------------------------------------------------------------------------------------
# Game result (G-16 .. G-19)
# --------------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameResult:
    """Final totals of finished games, itemized. Arrays are ``(B, 2)`` unless noted;
    rows of games with no winner (not over, or truncated) are all zero."""

    winner: np.ndarray  # (B,) int, -1 when there is none
    hand_points: np.ndarray  # points won in hands, gin and undercut bonuses included
    shutout: np.ndarray  # (B,) bool (G-18)
    shutout_points: np.ndarray  # the winner's hand points again when shut out (the doubling)
    game_bonus: np.ndarray  # G-16
    box_bonus: np.ndarray  # G-17
    total: np.ndarray  # the final totals
    margin: np.ndarray  # (B,) winner's total minus loser's (G-19)


def game_result(state: GinState, rows: np.ndarray | None = None) -> GameResult:
    """Itemized final totals (G-16 .. G-19) of the games whose game is over with a winner
    (all games, or only ``rows``: the arrays then have one entry per row).

    With one-hand episodes (``episode="hand"``) there is no game: no bonus is added, the
    totals are the hand points and the margin is the hand's points.
    """
    cfg = state.config
    sel = slice(None) if rows is None else lane_rows(rows, state.phase.shape[0])
    winner, scores, hands_won = state.winner[sel], state.scores[sel], state.hands_won[sel]
    one_hand = cfg.episode == "hand"
    bonus, box = (0, 0) if one_hand else (cfg.game_bonus, cfg.box_bonus)
    B = winner.shape[0]
    w = winner.astype(np.int64)
    has = w >= 0
    r = np.arange(B)
    loser = np.where(has, 1 - w, 0)
    hand_points = np.where(has[:, None], scores, 0).astype(np.int64)
    shutout = has & (hands_won[r, loser] == 0) & (not one_hand)
    win_onehot = np.zeros((B, 2), np.int64)
    win_onehot[r[has], w[has]] = 1
    shutout_points = np.where(shutout[:, None], hand_points * win_onehot, 0)
    game_bonus = win_onehot * bonus
    eligible = np.ones((B, 2), np.int64) if cfg.loser_box_bonus else win_onehot
    box_bonus = np.where(has[:, None], eligible * hands_won * box, 0)
    total = hand_points + shutout_points + game_bonus + box_bonus
    margin = np.where(has, total[r, np.where(has, w, 1)] - total[r, loser], 0)
    return GameResult(w, hand_points, shutout, shutout_points, game_bonus, box_bonus, total, margin)


# --------------------------------------------------------------------------------------
# Observation
# --------------------------------------------------------------------------------------
#: card planes of the flat observation, 52 floats each, in order; "opp" is the other player
OBS_PLANES = (
    ("hand", "cards the player holds"),
    ("top_discard", "the top card of the discard pile"),
    ("pile", "cards in the discard pile"),
    ("pile_recency", "for each pile card, (position from the bottom + 1) / pile size: the top is 1"),
    ("opp_known", "cards the opponent took from the pile and has not thrown since"),
    ("opp_thrown", "cards the opponent discarded this hand"),
    ("opp_passed", "top discards the opponent declined (passed the upcard, drew from the stock)"),
    ("my_thrown", "cards the player discarded this hand"),
    ("unseen", "cards in neither the player's hand, the pile, nor opp_known"),
    ("opp_revealed", "the opponent's final hand, once the episode is over (DONE); else 0"),
    ("melded_revealed", "cards in either player's final melds, once the episode is over"),
    ("laid_off_revealed", "cards the defender laid off, once the episode is over"),
    ("my_known", "cards the player took from the pile and has not thrown since (the opponent knows them)"),
    ("my_passed", "top discards the player declined (the opponent saw it decline them)"),
    ("taken", "the card the player to act took from the pile this turn (it may not be thrown back, C-4)"),
)
#: scalars after the card planes, in order
OBS_SCALARS = (
    ("stock_size", "cards in the stock / 31"),
    ("phase_offer", "1 in the upcard offer"),
    ("phase_draw", "1 in the draw phase"),
    ("phase_discard", "1 in the discard phase"),
    ("phase_done", "1 when the episode is over"),
    ("must_draw_stock", "1 when both passed the upcard and the stock must be drawn"),
    ("my_turn", "1 when the player is to act"),
    ("i_am_dealer", "1 when the player dealt this hand"),
    ("my_score", "the player's points in this game / target"),
    ("opp_score", "the opponent's points in this game / target"),
    ("target", "target / 100"),
    ("my_hands_won", "hands the player won this game / 10"),
    ("opp_hands_won", "hands the opponent won this game / 10"),
    ("hand_actions", "actions so far in this hand / max_actions"),
)
OBS_DIM = len(OBS_PLANES) * NUM_CARDS + len(OBS_SCALARS)
#: name -> slice of the flat observation
OBS_LAYOUT = {name: slice(i * NUM_CARDS, (i + 1) * NUM_CARDS) for i, (name, _) in enumerate(OBS_PLANES)}
OBS_LAYOUT.update(
    {name: slice(len(OBS_PLANES) * NUM_CARDS + i, len(OBS_PLANES) * NUM_CARDS + i + 1)
     for i, (name, _) in enumerate(OBS_SCALARS)}
)


@njit(cache=True, nogil=True)
def _observe_kernel(players, hands, pile, pile_len, known, passed, thrown, phase, current, dealer,
                    must_draw, stock_top, scores, hands_won, hand_actions, last_hands, last_meld_id,
                    last_laid_off, taken, target, max_actions, out):
    C = NUM_CARDS
    S = 15 * C
    for b in range(players.shape[0]):
        p = players[b]
        if p < 0:
            p = current[b]
        o = 1 - p
        row = out[b]
        n = pile_len[b]
        # every entry is written once: the card planes card by card, then the pile order
        for c in range(C):
            h = hands[b, p, c]
            k = known[b, o, c]
            row[c] = h
            row[C + c] = 0.0
            row[2 * C + c] = 0.0
            row[3 * C + c] = 0.0
            row[4 * C + c] = k
            row[5 * C + c] = thrown[b, o, c]
            row[6 * C + c] = passed[b, o, c]
            row[7 * C + c] = thrown[b, p, c]
            row[8 * C + c] = not (h or k)
            row[12 * C + c] = known[b, p, c]
            row[13 * C + c] = passed[b, p, c]
            row[14 * C + c] = 0.0
        for k in range(n):
            c = pile[b, k]
            row[2 * C + c] = 1.0
            row[3 * C + c] = (k + 1) / n
            row[8 * C + c] = 0.0
        if n > 0:
            row[C + pile[b, n - 1]] = 1.0
        if taken[b] >= 0:
            row[14 * C + taken[b]] = 1.0
        done = phase[b] == PHASE_DONE
        for c in range(C):
            if done:
                row[9 * C + c] = last_hands[b, o, c]
                row[10 * C + c] = last_meld_id[b, 0, c] >= 0 or last_meld_id[b, 1, c] >= 0
                row[11 * C + c] = last_laid_off[b, c]
            else:
                row[9 * C + c] = 0.0
                row[10 * C + c] = 0.0
                row[11 * C + c] = 0.0
        row[S + 0] = (C - stock_top[b]) / (C - STOCK_START)
        for i in range(4):
            row[S + 1 + i] = phase[b] == i
        row[S + 5] = must_draw[b]
        row[S + 6] = (current[b] == p) and not done
        row[S + 7] = dealer[b] == p
        row[S + 8] = scores[b, p] / target
        row[S + 9] = scores[b, o] / target
        row[S + 10] = target / 100.0
        row[S + 11] = hands_won[b, p] / 10.0
        row[S + 12] = hands_won[b, o] / 10.0
        row[S + 13] = hand_actions[b] / max_actions


def observe(state: GinState, player=None, out: np.ndarray | None = None) -> np.ndarray:
    """``(B, OBS_DIM)`` float32 observations, layout :data:`OBS_LAYOUT`.

    ``player``: None for the player to act in each game, an int for that seat in every
    game, or a ``(B,)`` array of seats. ``out`` may be a preallocated array to fill.
    """
    B = state.phase.shape[0]
    players = player_array(player, B, NUM_PLAYERS)
    out = observation_buffer(out, B, OBS_DIM)
    cfg = state.config
    _observe_kernel(players, state.hands, state.pile, state.pile_len, state.known, state.passed,
                    state.thrown, state.phase, state.current, state.dealer, state.must_draw_stock,
                    state.stock_top, state.scores, state.hands_won, state.hand_actions,
                    state.last_hands, state.last_meld_id, state.last_laid_off, state.taken,
                    float(cfg.target), float(cfg.max_actions), out)
    return out


def observation_dict(obs: np.ndarray) -> dict[str, np.ndarray]:
    """Split flat observations ``(..., OBS_DIM)`` into named parts (views)."""
    return {name: obs[..., sl] if sl.stop - sl.start > 1 else obs[..., sl.start]
            for name, sl in OBS_LAYOUT.items()}


# --------------------------------------------------------------------------------------
# Readable records of one game (for env infos, rendering, logs)
# --------------------------------------------------------------------------------------
def hand_info(state: GinState, b: int) -> dict:
    """How the last hand of game ``b`` ended: a plain dict (card ids as text).

    Keys: ``end`` (knock / gin / big_gin / undercut / dead / truncated), ``knocker`` and
    ``winner`` (-1 for none), ``points`` (to the winner), ``deadwood`` ([player 0, player 1];
    the defender's after lay-offs), ``hands``, ``melds`` (per player, lists of cards),
    ``laid_off`` (the defender's cards laid off), ``scores`` (game totals after the hand).
    """
    b = game_index(b, state.phase.shape[0])
    melds = []
    for p in range(NUM_PLAYERS):
        ids = state.last_meld_id[b, p]
        melds.append([[card_str(c) for c in np.flatnonzero(ids == j)] for j in range(int(ids.max(initial=-1)) + 1)])
    return {
        "end": END_NAMES[state.last_end[b]],
        "knocker": int(state.last_knocker[b]),
        "winner": int(state.last_winner[b]),
        "points": int(state.last_points[b]),
        "deadwood": [int(x) for x in state.last_deadwood[b]],
        "hands": [[card_str(c) for c in np.flatnonzero(state.last_hands[b, p])] for p in range(NUM_PLAYERS)],
        "melds": melds,
        "laid_off": [card_str(c) for c in np.flatnonzero(state.last_laid_off[b])],
        "scores": [int(x) for x in state.scores[b]],
    }


def hand_arrays(state: GinState, b: int) -> dict:
    """How the last hand of game ``b`` ended, in arrays of fixed shape and dtype (what
    :func:`hand_info` says in words): a learning library can stack them step after step.

    ``end`` (an ``END_*`` code), ``knocker`` and ``winner`` (-1 for none), ``points``,
    ``deadwood`` (2,), ``scores`` (2,) (game totals after the hand), and three (2, 52) int8
    card masks: ``hands`` (what each player held), ``melds`` (the cards each player melded),
    ``laid_off`` (the cards each player laid off: only the defender lays off, G-9).
    """
    b = game_index(b, state.phase.shape[0])
    laid = np.zeros((NUM_PLAYERS, NUM_CARDS), np.int8)
    if state.last_knocker[b] >= 0:
        laid[1 - state.last_knocker[b]] = state.last_laid_off[b]
    return {"end": np.int64(state.last_end[b]), "knocker": np.int64(state.last_knocker[b]),
            "winner": np.int64(state.last_winner[b]), "points": np.int64(state.last_points[b]),
            "deadwood": state.last_deadwood[b].astype(np.int64), "scores": state.scores[b].astype(np.int64),
            "hands": state.last_hands[b].astype(np.int8), "melds": (state.last_meld_id[b] >= 0).astype(np.int8),
            "laid_off": laid}


def game_info(state: GinState, b: int) -> dict:
    """The final totals of game ``b`` with each bonus itemized (G-16 .. G-19)."""
    b = game_index(b, state.phase.shape[0])
    r = game_result(state, np.array([b]))
    return {
        "winner": int(r.winner[0]),
        "truncated": bool(state.truncated[b]),
        "hands_played": int(state.hand_no[b]) + 1,
        "hands_won": [int(x) for x in state.hands_won[b]],
        "hand_points": [int(x) for x in r.hand_points[0]],
        "shutout": bool(r.shutout[0]),
        "shutout_points": [int(x) for x in r.shutout_points[0]],
        "game_bonus": [int(x) for x in r.game_bonus[0]],
        "box_bonus": [int(x) for x in r.box_bonus[0]],
        "total": [int(x) for x in r.total[0]],
        "margin": int(r.margin[0]),
    }
