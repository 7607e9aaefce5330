"""Basic Rummy for 2-6 players, B games at once as numpy arrays.

Rules: ``docs/rules.md`` ids C-1..C-4 and R-1..R-9; the code that implements a rule
cites its id. Every open point of the rule book is a :class:`RummyConfig` field.

Design (as :mod:`rummyrl.gin`): a :class:`RummyState` holds fixed-shape arrays with the
batch axis first; :func:`init`, :func:`step`, :func:`legal_mask` and :func:`observe` are
functions of it. The rules of one game are small compiled functions (the legal actions
by phase, and one "apply" function per kind of action), looped over the batch by a
kernel; ``step(..., inplace=True)`` updates the given state. No Python loop runs over
games; only the deal of a new round runs as numpy over the games that need one.

Seats and turns
---------------
Players are seats ``0..P-1``; "clockwise" is ``p -> (p + 1) % P``, so the player left of
the dealer ``d`` is ``(d + 1) % P``. That player starts (R-2) and the deal moves one seat
clockwise each round, drawn and truncated rounds included.

Actions
-------
A turn is several actions (R-3): a draw, then any number of plays, then a discard. The
action space is the same for every number of players (:data:`NUM_ACTIONS` = 1267):

=========================  ===========  =================================================
name                       ids          meaning
=========================  ===========  =================================================
``DRAW_STOCK``             0            draw the top stock card; with the stock empty,
                                        first turn the discard pile over (R-3, R-7)
``TAKE_DISCARD``           1            take the top card of the discard pile (R-3)
``DISCARD + c``            2..53        discard card ``c``: ends the turn, or the round
                                        when it was the last card (R-3, R-5, R-6)
``MELD + m``               54..382      lay down meld ``m`` of :data:`rummyrl.melds.MELDS`
                                        from the hand (R-4)
``LAYOFF + k * 52 + c``    383..1266    lay off card ``c`` onto table meld slot ``k``
                                        (R-4); ``k < MAX_TABLE_MELDS`` = 17
=========================  ===========  =================================================

Discards come before melds and lay-offs so that the usual actions of the play phase sit
at the front of the mask (a uniformly random pick scans less of it).

Table meld slots are numbered in the order the melds were laid down this round (slot
``k`` is the ``k``-th meld); a slot keeps its number while cards are laid off onto it.
Seventeen slots are enough: every meld holds at least three of the 52 cards.

Phases: ``DRAW``; ``PLAY`` (after the draw: meld, lay off or discard); ``DONE`` (the
episode is over). The mask is exact:

* ``DRAW``: ``TAKE_DISCARD`` when the pile is not empty; ``DRAW_STOCK`` when the stock is
  not empty, or when it is empty, a pass is left and the pile is not empty (R-7). (The
  pile is never empty at a draw: every turn ends with a discard.)
* ``PLAY``: ``MELD + m`` for every catalogue meld the hand holds; ``LAYOFF + k*52 + c``
  for every held card that fits slot ``k`` (a set of three of its rank; one rank below or
  above a run of its suit, runs do not wrap, C-1), only once the player has laid a meld
  of its own this round (R-4); ``DISCARD + c`` for every held card except the one just
  taken from the pile, unless it is the only card left (R-5, C-4).

Going out (R-6): the round ends as soon as the player's hand is empty, after a meld or a
lay-off (no discard) or after discarding the last card.

Stock (R-7): when the stock is empty, ``DRAW_STOCK`` turns the discard pile over as the
new stock, the earliest discard on top, unshuffled; ``stock_passes`` times per round
(default once). Once the last card of the last stock allowed has been drawn, the round
ends in a draw at the end of that turn (its discard) unless the drawer goes out.

Deals
-----
A deal is a 52-card order and a dealer ``d``. With ``h`` = ``hand_size`` (7, R-1):
``deck[h*i : h*i + h]`` is the hand of the player ``i + 1`` seats left of the dealer
(seat ``(d + 1 + i) % P``; ``i = 0`` starts), ``deck[h*P]`` is the upcard that starts the
discard pile, and ``deck[h*P + 1:]`` is the stock in draw order (4 players: 23 cards).
:func:`init` takes explicit decks and dealers (one per game, or a schedule of several
rounds per game); otherwise each round's deck is a shuffle derived from the game's seed,
the game number and the round number (:mod:`rummyrl.deals`), and the first dealer is
seeded (:func:`rummyrl.deals.first_dealer`).

Episodes and scoring
--------------------
``episode = "round"`` ends the episode with the round; ``"game"`` plays rounds until a
player's total reaches ``target`` (R-9), dealing the next round inside the ``step`` that
ended the previous one. Only the round winner scores: the sum of the card values (C-2)
of every opponent's hand (R-8); a drawn or truncated round scores nothing.
``state.round_ended`` marks the games whose round ended in the last step and the
``last_*`` fields describe that round; ``round_winners`` / ``round_points`` keep each
round of the game. :func:`round_info` and :func:`game_info` give readable records.

Move cap: a round that reaches ``config.action_cap`` actions without ending is cut off,
scores nothing and is reported as truncated (as G-10a); in one-round episodes the
episode is then truncated, in whole games play goes on with the next round.

Observation (:func:`observe`; the flat layout is :data:`OBS_LAYOUT`)
---------------------------------------------------------------------
From the viewpoint of one player, seats relative to it: relative seat 0 is the player,
1 the next to act after it, and so on. Per-seat parts are sized for the most players
(:data:`MAX_PLAYERS` = 6), so :data:`OBS_DIM` is one number for every player count;
seats beyond the game's players are zero (``seat_present`` says which exist).
:data:`OBS_DIM` = 3061 floats (58 planes of 52 cards, then 45 numbers). It holds everything the
player knows about the round, so that :mod:`rummyrl.rummy_beliefs` can rebuild full states
whose observation is exactly this one: who threw, declined and laid off what, and the order
of a stock turned over from the pile (R-7), which every player saw.

================  ==========  ===========================================================
part              size        content
================  ==========  ===========================================================
hand              52          cards the player holds
table_by_seat     6 x 52      cards in the melds laid down by each relative seat
                              (cards laid off onto them included)
table_slots       17 x 52     cards in each table meld slot ``k`` (as in ``LAYOFF``)
table_fits        52          cards that could be laid off onto some table meld
top_discard       52          the top card of the discard pile
pile              52          cards in the discard pile
pile_recency      52          for a pile card, (position from the bottom + 1) / pile size
known             6 x 52      cards each relative seat took from the pile and has not
                              played since (seat 0: what the others know of the player)
taken             52          the card the player took from the pile this turn (R-5)
unseen            52          cards not in the hand, on the table, in the pile, or known
                              to be held by another seat
thrown            6 x 52      cards each relative seat discarded this round (R-3)
passed            6 x 52      top discards each relative seat declined by drawing from
                              the stock this round
drawn_seen        6 x 52      cards each relative seat drew from a stock turned over from
                              the pile and has not played since (R-7: everyone saw it)
pile_by           52          for a pile card, (relative seat that threw it + 1) / 6; 0
                              for the upcard
laid_off_by       52          for a card laid off onto a table meld, (relative seat that
                              laid it off + 1) / 6 (R-4)
stock_order       52          once the pile was turned over (R-7), for each stock card
                              (draws until it comes up) / stock size
actor_taken       52          the card the player to act, whoever it is, took from the
                              pile this turn (R-5)
hand_sizes        6           cards held by each relative seat / hand_size
melded            6           1 where the seat laid down a meld this round (R-4)
scores            6           each seat's points in this game / target
seat_present      6           1 for the seats in the game
dealer            6           one-hot relative seat of the dealer
to_act            6           one-hot relative seat of the player to act (0 when over)
stock_size        1           cards in the stock / 52
stock_passes      1           times the pile was turned over this round (R-7)
passes_left       1           1 while the stock may still be renewed from the pile
phase             3           one-hot DRAW, PLAY, DONE
my_turn           1           1 when the player is to act
target            1           target / 200
round_actions     1           actions so far this round / action_cap
================  ==========  ===========================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal  # the choices of an option

import numpy as np
from numba import njit

from .cards import NUM_CARDS, NUM_RANKS, NUM_SUITS, VALUE, card_str, cards_str
from . import melds as M
from .settings import Field, Int, settings
from .deals import game_seeds
from .batch import (BatchConfig, BatchState, deal_orders, deck_schedule, first_illegal, game_index,
                    illegal_action_error, init_args, lane_rows, new_game, observation_buffer,
                    player_array, reset_lanes, step_lanes, take_top_discard, throw_card)

# --------------------------------------------------------------------------------------
# Constants
# --------------------------------------------------------------------------------------
MIN_PLAYERS, MAX_PLAYERS = 2, 6
#: most melds the table can hold: every meld has at least three of the 52 cards
MAX_TABLE_MELDS = NUM_CARDS // 3

DRAW_STOCK = 0
TAKE_DISCARD = 1
DISCARD = 2
MELD = DISCARD + NUM_CARDS
LAYOFF = MELD + M.NUM_MELDS
NUM_ACTIONS = LAYOFF + MAX_TABLE_MELDS * NUM_CARDS

PHASE_DRAW, PHASE_PLAY, PHASE_DONE = 0, 1, 2
PHASE_NAMES = ("DRAW", "PLAY", "DONE")

#: how a round ended (``state.last_end``)
END_NONE, END_OUT, END_DRAWN, END_TRUNCATED = range(4)
END_NAMES = ("none", "out", "draw", "truncated")

#: the highest target (RummyConfig.target): scores stay in the state's int32
MAX_TARGET = 1_000_000
#: default move cap per stock card a round may draw (see RummyConfig.max_actions)
ACTIONS_PER_STOCK_CARD = 10


def action_name(action: int) -> str:
    """``452`` -> ``"lay off 5h on slot 1"``-style text for an action id."""
    a = int(action)
    if a == DRAW_STOCK:
        return "draw_stock"
    if a == TAKE_DISCARD:
        return "take_discard"
    if DISCARD <= a < MELD:
        return f"discard {card_str(a - DISCARD)}"
    if MELD <= a < LAYOFF:
        return f"meld {cards_str(M.MELDS[a - MELD])}"
    if LAYOFF <= a < NUM_ACTIONS:
        k, c = divmod(a - LAYOFF, NUM_CARDS)
        return f"lay off {card_str(c)} on slot {k}"
    return f"<invalid action {a}>"


class IllegalActionError(ValueError):
    """An action that is not legal in its game's current state."""


# --------------------------------------------------------------------------------------
# Meld lookup tables (built once at import; the kernels index them)
# --------------------------------------------------------------------------------------
def _build_meld_tables():
    run_index = np.full((NUM_SUITS, NUM_RANKS, NUM_RANKS + 1), -1, np.int16)  # [suit, start, length]
    set_index = np.full((NUM_RANKS, 1 << NUM_SUITS), -1, np.int16)  # [rank, suit bits]
    cards = np.full((M.NUM_MELDS, NUM_RANKS), -1, np.int8)
    length = np.zeros(M.NUM_MELDS, np.int8)
    ext = np.full((M.NUM_MELDS, 2), -1, np.int8)  # the cards that can be laid off onto it
    for m, meld in enumerate(M.MELDS):
        cs = sorted(meld)
        cards[m, : len(cs)] = cs
        length[m] = len(cs)
        if M.MELD_IS_RUN[m]:
            lo, hi = cs[0], cs[-1]
            run_index[lo // NUM_RANKS, lo % NUM_RANKS, len(cs)] = m
            ext[m, 0] = lo - 1 if lo % NUM_RANKS > 0 else -1
            ext[m, 1] = hi + 1 if hi % NUM_RANKS < NUM_RANKS - 1 else -1
        else:
            rank = cs[0] % NUM_RANKS
            suits = sum(1 << (c // NUM_RANKS) for c in cs)
            set_index[rank, suits] = m
            if len(cs) == 3:
                missing = [s for s in range(NUM_SUITS) if not suits >> s & 1][0]
                ext[m, 0] = missing * NUM_RANKS + rank
    for t in (run_index, set_index, cards, length, ext):
        t.setflags(write=False)
    return run_index, set_index, cards, length, ext


_RUN_INDEX, _SET_INDEX, _MELD_CARDS, _MELD_LEN, _MELD_EXT = _build_meld_tables()
_MELD_IS_RUN = np.ascontiguousarray(M.MELD_IS_RUN)
#: the suit subsets (4-bit) that form a set: the four sets of three and the set of four
_SET_SUITS = np.array([s for s in range(16) if bin(s).count("1") >= 3], np.int64)
_VALUE = np.ascontiguousarray(VALUE, dtype=np.int64)


# --------------------------------------------------------------------------------------
# Config
# --------------------------------------------------------------------------------------
@settings(frozen=True, label="RummyConfig")
class RummyConfig(BatchConfig):
    """Rule options (docs/rules.md "What the sources leave open") and caps."""

    game_name = "Rummy"

    num_players: Int[Field(ge=MIN_PLAYERS, le=MAX_PLAYERS)] = 4
    """Players at the table, 2..6 (R-1)."""
    episode: Literal["round", "game"] = "game"
    """``"round"``: an episode is one round; ``"game"``: rounds until the target (R-9)."""
    target: Int[Field(ge=1, le=MAX_TARGET)] = 200
    """Points that end the game (R-9)."""
    stock_passes: Int[Field(ge=0, le=100)] = 1
    """How many times per round the discard pile may be turned over as a new stock (R-7).
    After the last card of the last stock allowed is drawn the round ends drawn, unless
    the drawer goes out in that turn. 0: the first stock is the only one."""
    hand_size: Int[Field(ge=1)] = 7
    """Cards dealt to each player (R-1)."""
    max_actions: Int[Field(ge=4, le=30000)] | None = None
    """Actions in one round before it is cut off as truncated (move cap, as G-10a).
    ``None`` (default): ``ACTIONS_PER_STOCK_CARD * (stock_start + 1) * (stock_passes + 1)``,
    see :attr:`action_cap` (760 / 480 / 200 actions with 2 / 4 / 6 players). A round
    ends, at the latest, when the stocks it may draw are used up (R-7), so its length
    follows the number of stock cards, not the number of players. Random legal play takes
    a few actions per stock card; the cap, well above what random play takes, cuts only
    rounds in which players keep taking the discard back, which the rules do not stop (a flat ``150 * num_players`` would cut 2-player rounds of
    random play and allow 6-player rounds twelve times their usual length)."""
    max_rounds: Int[Field(ge=1, le=10000)] = 100
    """Rounds in one game before the game is cut off as truncated (a safety cap beyond
    the rule book: players that never go out would otherwise play forever)."""
    forbid_taken_discard: bool = True
    """C-4 / R-5: the card just taken from the discard pile may not be discarded in the
    same turn (unless it is the only card left)."""

    def __post_init__(self):
        """The checks between fields (each field's own type and range are declared)."""
        most = (NUM_CARDS - 2) // self.num_players
        if self.hand_size > most:
            raise ValueError(f"hand_size must be in 1..{most} for {self.num_players} players (the deal "
                             f"must leave an upcard and at least one stock card), got {self.hand_size}")
        if self.action_cap > 30000:
            raise ValueError(f"the default move cap {self.action_cap} for stock_passes="
                             f"{self.stock_passes} exceeds 30000 actions: set max_actions")

    @property
    def action_cap(self) -> int:
        """The move cap in force: ``max_actions``, or by default 10 actions per card the
        stock holds after the deal (plus one, the upcard), times the stocks allowed (R-7)."""
        if self.max_actions is not None:
            return self.max_actions
        return ACTIONS_PER_STOCK_CARD * (self.stock_start + 1) * (self.stock_passes + 1)

    @property
    def stock_start(self) -> int:
        """Cards in the stock right after the deal (R-1)."""
        return NUM_CARDS - self.hand_size * self.num_players - 1


# --------------------------------------------------------------------------------------
# State
# --------------------------------------------------------------------------------------
@dataclass
class RummyState(BatchState):
    """B games of P players. Card arrays are indexed by card id (cards.py); -1 = none."""

    config: RummyConfig = field(repr=False)
    hands: np.ndarray  # (B, P, 52) bool
    hand_size: np.ndarray  # (B, P) int8: cards each player holds
    deck: np.ndarray  # (B, 52) int8: this round's deal order
    stock: np.ndarray  # (B, 52) int8: the stock in draw order at [stock_pos, stock_len), -1 elsewhere
    stock_pos: np.ndarray  # (B,) int16: index in stock of the next card drawn
    stock_len: np.ndarray  # (B,) int16
    passes: np.ndarray  # (B,) int8: times the pile was turned over this round
    last_stock: np.ndarray  # (B,) bool: the last card of the last stock allowed was drawn this turn
    pile: np.ndarray  # (B, 52) int8: discard pile, bottom first, -1 past the end
    pile_from: np.ndarray  # (B, 52) int8: who threw each pile card (-1: the upcard)
    pile_len: np.ndarray  # (B,) int16
    known: np.ndarray  # (B, P, 52) bool: cards each player took from the pile, not played since
    drawn_seen: np.ndarray  # (B, P, 52) bool: cards each player drew from a stock turned over from
    #   the pile (R-7: everyone saw its order, so everyone knows the card), not played since
    thrown: np.ndarray  # (B, P, 52) bool: cards each player discarded this round
    passed: np.ndarray  # (B, P, 52) bool: top discards each player declined by drawing from the stock
    melded: np.ndarray  # (B, P) bool: laid down a meld of its own this round
    table_slot: np.ndarray  # (B, 52) int8: table meld slot of each card on the table, -1
    table_by: np.ndarray  # (B, 52) int8: who put each table card there, -1
    laid_off: np.ndarray  # (B, 52) bool: table cards that were laid off (not part of a meld laid down)
    n_melds: np.ndarray  # (B,) int8: table meld slots in use
    slot_owner: np.ndarray  # (B, 17) int8: who laid down the meld in each slot, -1
    slot_is_run: np.ndarray  # (B, 17) bool
    slot_ext: np.ndarray  # (B, 17, 2) int8: the cards that can be laid off onto each slot, -1
    phase: np.ndarray  # (B,) int8
    current: np.ndarray  # (B,) int8: player to act
    dealer: np.ndarray  # (B,) int8
    taken: np.ndarray  # (B,) int8: card taken from the pile this turn, -1
    round_actions: np.ndarray  # (B,) int16: actions so far in this round (move cap)
    round_no: np.ndarray  # (B,) int16: rounds dealt in this game, minus one
    scores: np.ndarray  # (B, P) int32: points so far in this game
    rounds_won: np.ndarray  # (B, P) int16
    round_winners: np.ndarray  # (B, H) int8: winner of each round of the game, -1: none / not played
    round_points: np.ndarray  # (B, H) int32: the points of each round of the game
    round_ends: np.ndarray  # (B, H) int8 END_*: how each round ended
    seed: np.ndarray  # (B,) uint64: the game's seed (deals without a schedule)
    game_no: np.ndarray  # (B,) int64: games played in this lane before this one
    schedule: np.ndarray  # (B, S, 52) int8 explicit decks for rounds 0..S-1 (S may be 0)
    schedule_dealer: np.ndarray  # (B, S) int8, -1: by the rule (seeded, then R-2)
    mask: np.ndarray  # (B, NUM_ACTIONS) bool: legal actions now
    # results; round_ended / game_over describe the last step
    round_ended: np.ndarray  # (B,) bool: a round ended in the last step
    game_over: np.ndarray  # (B,) bool: the episode is over (phase DONE)
    truncated: np.ndarray  # (B,) bool: ... by a cap (move cap in one-round episodes, max_rounds)
    winner: np.ndarray  # (B,) int8: the episode's winner once over; -1 otherwise or none
    last_end: np.ndarray  # (B,) int8 END_*: how the last round ended
    last_winner: np.ndarray  # (B,) int8: who went out, -1 when nobody
    last_points: np.ndarray  # (B,) int32: points the winner scored
    last_dealer: np.ndarray  # (B,) int8: who dealt the last round
    last_hand_values: np.ndarray  # (B, P) int16: value of the cards left in each hand (C-2)
    last_hands: np.ndarray  # (B, P, 52) bool: the hands at the end of the last round
    last_table_slot: np.ndarray  # (B, 52) int8: the table of the last round (as table_slot)
    last_table_by: np.ndarray  # (B, 52) int8
    last_laid_off: np.ndarray  # (B, 52) bool
    last_slot_owner: np.ndarray  # (B, 17) int8

    @property
    def num_players(self) -> int:
        return self.hands.shape[1]

    @property
    def stock_size(self) -> np.ndarray:
        return self.stock_len.astype(np.int32) - self.stock_pos



# --------------------------------------------------------------------------------------
# Rules, compiled: one game ``b`` at a time, looped over the batch by the kernels
# --------------------------------------------------------------------------------------
# The legal-action functions run for every game at every step: they are inlined into the
# kernels (faster steps than calls that pass sixteen arrays each; a few seconds more to
# compile once).
@njit(cache=True, inline="always")
def _suit_discards(b, hand, suit, t, mask):
    """Mark the discards of the held cards of one suit except ``t``; return the suit's
    13-bit mask (bit r = rank r held)."""
    v = 0
    base = suit * NUM_RANKS
    for r in range(NUM_RANKS):
        c = base + r
        if hand[c]:
            v |= 1 << r
            if c != t:
                mask[b, DISCARD + c] = True
    return v


@njit(cache=True, inline="always")
def _suit_runs(b, v, suit, mask):
    """Mark every run (C-3) held in one suit, given its 13-bit mask ``v``."""
    if v & (v >> 1) & (v >> 2) == 0:
        return
    r = 0
    while r < NUM_RANKS:
        if not (v >> r) & 1:
            r += 1
            continue
        e = r
        while e < NUM_RANKS and (v >> e) & 1:
            e += 1
        for lo in range(r, e - 2):  # the block r..e-1 holds every run lo..hi-1 inside it
            for hi in range(lo + 3, e + 1):
                mask[b, MELD + _RUN_INDEX[suit, lo, hi - lo]] = True
        r = e


@njit(cache=True, inline="always")
def _legal_one(b, hands, hand_size, pile_len, stock_pos, stock_len, passes, phase, current, taken,
               melded, n_melds, slot_ext, mask, stock_passes, forbid_taken):
    """Write game ``b``'s legal actions into ``mask[b]``."""
    mask[b, :] = False
    ph = phase[b]
    if ph == PHASE_DRAW:  # R-3; R-7: an empty stock is renewed from the pile while passes are left
        if pile_len[b] > 0:
            mask[b, TAKE_DISCARD] = True
            mask[b, DRAW_STOCK] = stock_pos[b] < stock_len[b] or passes[b] < stock_passes
        else:
            mask[b, DRAW_STOCK] = stock_pos[b] < stock_len[b]
    elif ph == PHASE_PLAY:
        p = current[b]
        hand = hands[b, p]
        # R-5 / C-4: not the card just taken from the pile, unless it is the last card
        t = taken[b] if forbid_taken and hand_size[b, p] > 1 else -1
        m0 = _suit_discards(b, hand, 0, t, mask)
        m1 = _suit_discards(b, hand, 1, t, mask)
        m2 = _suit_discards(b, hand, 2, t, mask)
        m3 = _suit_discards(b, hand, 3, t, mask)
        # R-4 melds (C-3): every run inside a block of consecutive cards of one suit ...
        _suit_runs(b, m0, 0, mask)
        _suit_runs(b, m1, 1, mask)
        _suit_runs(b, m2, 2, mask)
        _suit_runs(b, m3, 3, mask)
        # ... and every set of three or four held cards of one rank
        three = (m0 & m1 & (m2 | m3)) | (m2 & m3 & (m0 | m1))
        r = 0
        while three:
            if three & 1:
                held = ((m0 >> r) & 1) | (((m1 >> r) & 1) << 1) | (((m2 >> r) & 1) << 2) | (((m3 >> r) & 1) << 3)
                for q in _SET_SUITS:
                    if held & q == q:
                        mask[b, MELD + _SET_INDEX[r, q]] = True
            three >>= 1
            r += 1
        # R-4 lay-offs, only after a meld of the player's own this round
        if melded[b, p]:
            for k in range(n_melds[b]):
                for e in range(2):
                    c = slot_ext[b, k, e]
                    if c >= 0 and hand[c]:
                        mask[b, LAYOFF + k * NUM_CARDS + c] = True


@njit(cache=True, nogil=True)
def _draw_stock_one(b, p, hands, hand_size, stock, stock_pos, stock_len, pile, pile_from, pile_len,
                    passes, last_stock, taken, phase, stock_passes, passed, drawn_seen):
    """Draw the top stock card (R-3); an empty stock is first renewed from the pile (R-7)."""
    if pile_len[b] > 0:  # the player declined the top discard: the others saw it (beliefs)
        passed[b, p, pile[b, pile_len[b] - 1]] = True
    if stock_pos[b] >= stock_len[b]:
        # the pile turned over unshuffled, so its earliest discard is drawn first
        n = pile_len[b]
        for i in range(NUM_CARDS):
            stock[b, i] = pile[b, i] if i < n else -1
            pile[b, i] = -1
            pile_from[b, i] = -1
        stock_pos[b] = 0
        stock_len[b] = n
        pile_len[b] = 0
        passes[b] += 1
    i = stock_pos[b]
    c = stock[b, i]
    stock[b, i] = -1
    stock_pos[b] = i + 1
    hands[b, p, c] = True
    hand_size[b, p] += 1
    if passes[b] > 0:  # a turned-over pile: every player saw its order, so this card is known
        drawn_seen[b, p, c] = True
    taken[b] = -1
    # the last card of the last stock allowed; the round ends with this turn
    if i + 1 >= stock_len[b] and passes[b] >= stock_passes:
        last_stock[b] = True
    phase[b] = PHASE_PLAY


@njit(cache=True, nogil=True)
def _take_one(b, p, hands, hand_size, pile, pile_from, pile_len, known, taken, phase):
    """Take the top discard (R-3); the others now know the player holds it."""
    take_top_discard(b, p, hands, pile, pile_from, pile_len, known, taken)
    hand_size[b, p] += 1
    phase[b] = PHASE_PLAY


@njit(cache=True, nogil=True)
def _discard_one(b, p, c, hands, hand_size, pile, pile_from, pile_len, known, taken, drawn_seen, thrown):
    """Put card ``c`` on the discard pile (R-3)."""
    throw_card(b, p, c, hands, pile, pile_from, pile_len, known, thrown, taken)
    hand_size[b, p] -= 1
    drawn_seen[b, p, c] = False


@njit(cache=True, nogil=True)
def _meld_one(b, p, m, hands, hand_size, known, melded, table_slot, table_by, n_melds, slot_owner,
              slot_is_run, slot_ext, drawn_seen):
    """Lay down catalogue meld ``m`` from the hand into the next free table slot (R-4)."""
    k = n_melds[b]
    for i in range(_MELD_LEN[m]):
        c = _MELD_CARDS[m, i]
        hands[b, p, c] = False
        known[b, p, c] = False
        drawn_seen[b, p, c] = False
        table_slot[b, c] = k
        table_by[b, c] = p
    hand_size[b, p] -= _MELD_LEN[m]
    slot_owner[b, k] = p
    slot_is_run[b, k] = _MELD_IS_RUN[m]
    slot_ext[b, k, 0] = _MELD_EXT[m, 0]
    slot_ext[b, k, 1] = _MELD_EXT[m, 1]
    n_melds[b] = k + 1
    melded[b, p] = True


@njit(cache=True, nogil=True)
def _layoff_one(b, p, k, c, hands, hand_size, known, table_slot, table_by, laid_off, slot_is_run,
                slot_ext, drawn_seen):
    """Lay off card ``c`` onto table slot ``k`` (R-4): a set is then full; a run's end moves."""
    hands[b, p, c] = False
    hand_size[b, p] -= 1
    known[b, p, c] = False
    drawn_seen[b, p, c] = False
    table_slot[b, c] = k
    table_by[b, c] = p
    laid_off[b, c] = True
    if not slot_is_run[b, k]:
        slot_ext[b, k, 0] = -1
    elif slot_ext[b, k, 0] == c:  # one rank below the run; runs do not wrap (C-1)
        slot_ext[b, k, 0] = c - 1 if c % NUM_RANKS > 0 else -1
    else:
        slot_ext[b, k, 1] = c + 1 if c % NUM_RANKS < NUM_RANKS - 1 else -1


@njit(cache=True, nogil=True)
def _end_round_one(b, kind, out_player, hands, hand_size, scores, rounds_won, round_no, dealer,
                   round_winners, round_points, round_ends, last_end, last_winner, last_points,
                   last_dealer, last_hand_values, last_hands, table_slot, table_by, laid_off,
                   slot_owner, last_table_slot, last_table_by, last_laid_off, last_slot_owner):
    """Score the round of game ``b`` (R-8) and record it. Returns the winner's points."""
    P = hands.shape[1]
    points = 0
    for q in range(P):
        v = 0
        for c in range(NUM_CARDS):
            last_hands[b, q, c] = hands[b, q, c]
            if hands[b, q, c]:
                v += _VALUE[c]
        last_hand_values[b, q] = v
        if q != out_player:
            points += v
    if out_player < 0:
        points = 0
    else:
        scores[b, out_player] += points
        rounds_won[b, out_player] += 1
    last_end[b] = kind
    last_winner[b] = out_player
    last_points[b] = points
    last_dealer[b] = dealer[b]
    for c in range(NUM_CARDS):
        last_table_slot[b, c] = table_slot[b, c]
        last_table_by[b, c] = table_by[b, c]
        last_laid_off[b, c] = laid_off[b, c]
    for k in range(slot_owner.shape[1]):
        last_slot_owner[b, k] = slot_owner[b, k]
    h = round_no[b]
    if h < round_winners.shape[1]:
        round_winners[b, h] = out_player
        round_points[b, h] = points
        round_ends[b, h] = kind
    return points


@njit(cache=True, nogil=True)
def _step_kernel(act, hands, hand_size, stock, stock_pos, stock_len, passes, last_stock, pile,
                 pile_from, pile_len, known, melded, table_slot, table_by, laid_off, n_melds,
                 slot_owner, slot_is_run, slot_ext, phase, current, dealer, taken, round_actions,
                 round_no, scores, rounds_won, round_winners, round_points, round_ends, mask,
                 round_ended, active, game_over, truncated, winner, next_round, last_end, last_winner,
                 last_points, last_dealer, last_hand_values, last_hands, last_table_slot,
                 last_table_by, last_laid_off, last_slot_owner, drawn_seen, thrown, passed,
                 stock_passes, forbid_taken, max_actions, one_round, target, max_rounds):
    """Apply the actions; score ended rounds; set ``next_round`` where a new round must be
    dealt. Returns how many games need one, or -1 - g with nothing changed when the action of
    game g is not legal."""
    g = first_illegal(act, phase, PHASE_DONE, mask, active)
    if g >= 0:
        return -1 - g
    P = hands.shape[1]
    n_next = 0
    for b in range(act.shape[0]):
        round_ended[b] = False
        next_round[b] = False
        if phase[b] == PHASE_DONE or not active[b]:
            continue
        a = act[b]
        p = current[b]
        round_actions[b] += 1
        end = END_NONE
        if a == DRAW_STOCK:
            _draw_stock_one(b, p, hands, hand_size, stock, stock_pos, stock_len, pile, pile_from,
                            pile_len, passes, last_stock, taken, phase, stock_passes, passed, drawn_seen)
        elif a == TAKE_DISCARD:
            _take_one(b, p, hands, hand_size, pile, pile_from, pile_len, known, taken, phase)
        elif a < MELD:
            _discard_one(b, p, a - DISCARD, hands, hand_size, pile, pile_from, pile_len, known, taken,
                         drawn_seen, thrown)
            if hand_size[b, p] == 0:  # out by discarding the last card
                end = END_OUT
            elif last_stock[b]:  # the last stock is used up and the drawer is not out
                end = END_DRAWN
            else:
                current[b] = (p + 1) % P  # clockwise
                phase[b] = PHASE_DRAW
        else:
            if a < LAYOFF:
                _meld_one(b, p, a - MELD, hands, hand_size, known, melded, table_slot, table_by,
                          n_melds, slot_owner, slot_is_run, slot_ext, drawn_seen)
            else:
                k = (a - LAYOFF) // NUM_CARDS
                _layoff_one(b, p, k, (a - LAYOFF) % NUM_CARDS, hands, hand_size, known, table_slot,
                            table_by, laid_off, slot_is_run, slot_ext, drawn_seen)
            if hand_size[b, p] == 0:  # out with no discard
                end = END_OUT
        if end == END_NONE and round_actions[b] >= max_actions:
            end = END_TRUNCATED
        if end == END_NONE:
            _legal_one(b, hands, hand_size, pile_len, stock_pos, stock_len, passes, phase, current,
                       taken, melded, n_melds, slot_ext, mask, stock_passes, forbid_taken)
            continue
        mask[b, :] = False
        round_ended[b] = True
        out_player = p if end == END_OUT else -1
        _end_round_one(b, end, out_player, hands, hand_size, scores, rounds_won, round_no, dealer,
                       round_winners, round_points, round_ends, last_end, last_winner, last_points,
                       last_dealer, last_hand_values, last_hands, table_slot, table_by, laid_off,
                       slot_owner, last_table_slot, last_table_by, last_laid_off, last_slot_owner)
        # what comes next: the next round, or the end of the episode
        if one_round:
            over = True
            trunc = end == END_TRUNCATED
            game_winner = out_player
        else:
            reached = out_player >= 0 and scores[b, out_player] >= target
            over = reached or round_no[b] + 1 >= max_rounds
            trunc = not reached and over
            game_winner = out_player if reached else -1
        if over:
            phase[b] = PHASE_DONE
            game_over[b] = True
            truncated[b] = trunc
            winner[b] = game_winner
        else:
            next_round[b] = True
            n_next += 1
    return n_next


@njit(cache=True, nogil=True)
def _deal_kernel(rows, decks, dealers, hand_len, hands, hand_size, deck, stock, stock_pos, stock_len,
                 passes, last_stock, pile, pile_from, pile_len, known, melded, table_slot, table_by,
                 laid_off, n_melds, slot_owner, slot_is_run, slot_ext, phase, current, dealer, taken,
                 round_actions, mask, stock_passes, forbid_taken, drawn_seen, thrown, passed):
    """Deal ``decks[i]`` with dealer ``dealers[i]`` to game ``rows[i]`` (R-1, R-2)."""
    P = hands.shape[1]
    up = hand_len * P
    for i in range(rows.shape[0]):
        b = rows[i]
        d = dealers[i]
        hands[b] = False
        known[b] = False
        drawn_seen[b] = False
        thrown[b] = False
        passed[b] = False
        melded[b] = False
        for j in range(P):  # deck[h*j : h*j + h]: the player j + 1 seats left of the dealer
            q = (d + 1 + j) % P
            for x in range(hand_len):
                hands[b, q, decks[i, hand_len * j + x]] = True
            hand_size[b, q] = hand_len
        for x in range(NUM_CARDS):
            deck[b, x] = decks[i, x]
            pile[b, x] = -1
            pile_from[b, x] = -1
            stock[b, x] = decks[i, up + 1 + x] if up + 1 + x < NUM_CARDS else -1
            table_slot[b, x] = -1
            table_by[b, x] = -1
            laid_off[b, x] = False
        pile[b, 0] = decks[i, up]  # the upcard starts the discard pile
        pile_len[b] = 1
        stock_pos[b] = 0
        stock_len[b] = NUM_CARDS - up - 1
        passes[b] = 0
        last_stock[b] = False
        n_melds[b] = 0
        slot_owner[b] = -1
        slot_is_run[b] = False
        slot_ext[b] = -1
        phase[b] = PHASE_DRAW
        current[b] = (d + 1) % P  # the player left of the dealer starts
        dealer[b] = d
        taken[b] = -1
        round_actions[b] = 0
        _legal_one(b, hands, hand_size, pile_len, stock_pos, stock_len, passes, phase, current, taken,
                   melded, n_melds, slot_ext, mask, stock_passes, forbid_taken)


# --------------------------------------------------------------------------------------
# init, deals and resets
# --------------------------------------------------------------------------------------
def init(
    batch_size: int,
    seed=None,
    config: RummyConfig | None = None,
    decks=None,
    dealers=None,
) -> RummyState:
    """Start ``batch_size`` games.

    ``seed``: int, ``np.random.Generator`` or None (see :func:`rummyrl.deals.game_seeds`).
    ``decks``: explicit deals (positions in the module docstring): ``(52,)`` (the same for
    every game), ``(B, 52)``, or a schedule ``(B, S, 52)`` for the first S rounds of each
    game (later rounds are shuffled from the seed). Each must be a permutation of 0..51.
    ``dealers``: the dealer of each explicit round: an int, ``(B,)`` for the first round,
    or ``(B, S)``; -1 (or omitted) leaves it to the rules (a seeded first dealer, then one
    seat clockwise each round, R-2).
    """
    B, config = init_args(batch_size, config, RummyConfig)
    schedule, schedule_dealer = deck_schedule(B, config.num_players, decks, dealers, "S")
    state = _alloc(B, config, game_seeds(seed, B), schedule, schedule_dealer)
    _new_game(state, np.arange(B))
    return state


def _alloc(B: int, config: RummyConfig, seeds: np.ndarray, schedule: np.ndarray,
           schedule_dealer: np.ndarray) -> RummyState:
    """A state of ``B`` games with every array allocated and nothing dealt (``init`` deals
    it; :mod:`rummyrl.rummy_beliefs` fills it with sampled worlds)."""
    P = config.num_players
    K = MAX_TABLE_MELDS
    H = config.max_rounds if config.episode == "game" else 1
    z = np.zeros

    def full(shape, dtype):
        return np.full(shape, -1, dtype)

    state = RummyState(
        config=config,
        hands=z((B, P, NUM_CARDS), bool), hand_size=z((B, P), np.int8), deck=z((B, NUM_CARDS), np.int8),
        stock=full((B, NUM_CARDS), np.int8), stock_pos=z(B, np.int16), stock_len=z(B, np.int16),
        passes=z(B, np.int8), last_stock=z(B, bool), pile=full((B, NUM_CARDS), np.int8),
        pile_from=full((B, NUM_CARDS), np.int8), pile_len=z(B, np.int16),
        known=z((B, P, NUM_CARDS), bool), drawn_seen=z((B, P, NUM_CARDS), bool),
        thrown=z((B, P, NUM_CARDS), bool), passed=z((B, P, NUM_CARDS), bool), melded=z((B, P), bool),
        table_slot=full((B, NUM_CARDS), np.int8), table_by=full((B, NUM_CARDS), np.int8),
        laid_off=z((B, NUM_CARDS), bool), n_melds=z(B, np.int8), slot_owner=full((B, K), np.int8),
        slot_is_run=z((B, K), bool), slot_ext=full((B, K, 2), np.int8),
        phase=z(B, np.int8), current=z(B, np.int8), dealer=z(B, np.int8), taken=full(B, np.int8),
        round_actions=z(B, np.int16), round_no=z(B, np.int16), scores=z((B, P), np.int32),
        rounds_won=z((B, P), np.int16), round_winners=full((B, H), np.int8),
        round_points=z((B, H), np.int32), round_ends=z((B, H), np.int8),
        seed=seeds, game_no=z(B, np.int64),
        schedule=schedule, schedule_dealer=schedule_dealer, mask=z((B, NUM_ACTIONS), bool),
        round_ended=z(B, bool), game_over=z(B, bool), truncated=z(B, bool), winner=full(B, np.int8),
        last_end=z(B, np.int8), last_winner=full(B, np.int8), last_points=z(B, np.int32),
        last_dealer=full(B, np.int8), last_hand_values=z((B, P), np.int16),
        last_hands=z((B, P, NUM_CARDS), bool), last_table_slot=full((B, NUM_CARDS), np.int8),
        last_table_by=full((B, NUM_CARDS), np.int8), last_laid_off=z((B, NUM_CARDS), bool),
        last_slot_owner=full((B, K), np.int8),
    )
    return state


#: the game-level fields a new game starts from
_FRESH_GAME = {"scores": 0, "rounds_won": 0, "round_no": 0, "round_winners": -1, "round_points": 0,
               "round_ends": END_NONE, "winner": -1, "game_over": False, "truncated": False,
               "round_ended": False}


def _new_game(state: RummyState, rows: np.ndarray) -> None:
    """Reset the game-level counters of ``rows`` and deal their first round (the seeded
    first dealer, R-2); the deal computes the mask."""
    new_game(state, rows, _FRESH_GAME, _deal, state.num_players)


def _deal(state: RummyState, rows: np.ndarray, rule_dealer: np.ndarray) -> None:
    """Deal the round numbered ``state.round_no`` to ``rows`` (R-1)."""
    if rows.size == 0:
        return
    decks, dealer = deal_orders(state, rows, state.round_no[rows], rule_dealer)
    cfg = state.config
    s = state
    _deal_kernel(np.asarray(rows, np.int64), np.ascontiguousarray(decks, np.int8), dealer,
                 cfg.hand_size, s.hands, s.hand_size, s.deck, s.stock, s.stock_pos, s.stock_len,
                 s.passes, s.last_stock, s.pile, s.pile_from, s.pile_len, s.known, s.melded,
                 s.table_slot, s.table_by, s.laid_off, s.n_melds, s.slot_owner, s.slot_is_run,
                 s.slot_ext, s.phase, s.current, s.dealer, s.taken, s.round_actions, s.mask,
                 cfg.stock_passes, cfg.forbid_taken_discard, s.drawn_seen, s.thrown, s.passed)


def reset_done(state: RummyState, rows: np.ndarray | None = None) -> np.ndarray:
    """In place: each lane whose episode is over (or each of ``rows``, game indices) counts
    its game number up and starts that game, dealt from the seed as in ``init``
    (:func:`rummyrl.batch.reset_lanes`). Returns the rows."""
    return reset_lanes(state, rows, _new_game)


@njit(cache=True, nogil=True)
def _mask_kernel(hands, hand_size, pile_len, stock_pos, stock_len, passes, phase, current, taken, melded,
                 n_melds, slot_ext, mask, stock_passes, forbid_taken):
    for b in range(phase.shape[0]):
        if phase[b] == PHASE_DONE:
            mask[b, :] = False
        else:
            _legal_one(b, hands, hand_size, pile_len, stock_pos, stock_len, passes, phase, current, taken,
                       melded, n_melds, slot_ext, mask, stock_passes, forbid_taken)


def update_mask(state: RummyState) -> None:
    """Recompute ``state.mask`` from the rest of the state, in place: for a state whose
    arrays were edited or built outside ``init`` / ``step`` (sampled worlds, tests)."""
    s = state
    _mask_kernel(s.hands, s.hand_size, s.pile_len, s.stock_pos, s.stock_len, s.passes, s.phase, s.current,
                 s.taken, s.melded, s.n_melds, s.slot_ext, s.mask, s.config.stock_passes,
                 s.config.forbid_taken_discard)


def legal_mask(state: RummyState) -> np.ndarray:
    """``(B, NUM_ACTIONS)`` bool: the legal actions of the player to act (all False when
    the episode is over). ``init`` and ``step`` compute it; this returns a copy."""
    return state.mask.copy()


# --------------------------------------------------------------------------------------
# step
# --------------------------------------------------------------------------------------
def step(state: RummyState, actions, inplace: bool = False, active=None) -> RummyState:
    """Apply ``actions[b]`` to game ``b``, for every game; a finished game (phase DONE) or
    one whose ``active`` entry (``(B,)`` bool, default all True) is False ignores its
    entry and is left as it was, but for its ``round_ended`` flag (cleared). A round that
    ends is scored (R-8) and, in whole games, the next one is dealt in the same step.

    Raises :class:`IllegalActionError`, which names the action, the phase and the legal
    actions, when an action is not legal; then nothing changes.
    """
    a, active, s = step_lanes(state, actions, active, inplace)
    cfg = s.config
    B = a.shape[0]
    next_round = np.empty(B, bool)
    n_next = _step_kernel(
        a, s.hands, s.hand_size, s.stock, s.stock_pos, s.stock_len, s.passes, s.last_stock, s.pile,
        s.pile_from, s.pile_len, s.known, s.melded, s.table_slot, s.table_by, s.laid_off, s.n_melds,
        s.slot_owner, s.slot_is_run, s.slot_ext, s.phase, s.current, s.dealer, s.taken,
        s.round_actions, s.round_no, s.scores, s.rounds_won, s.round_winners, s.round_points,
        s.round_ends, s.mask, s.round_ended, active, s.game_over, s.truncated, s.winner, next_round,
        s.last_end, s.last_winner, s.last_points, s.last_dealer, s.last_hand_values, s.last_hands,
        s.last_table_slot, s.last_table_by, s.last_laid_off, s.last_slot_owner, s.drawn_seen, s.thrown,
        s.passed, cfg.stock_passes, cfg.forbid_taken_discard, cfg.action_cap, cfg.episode == "round",
        cfg.target, cfg.max_rounds,
    )
    if n_next < 0:
        raise illegal_action_error(state, a, -1 - n_next, PHASE_NAMES, action_name, IllegalActionError)
    if n_next:
        g = np.flatnonzero(next_round)
        s.round_no[g] += 1
        _deal(s, g, (s.dealer[g].astype(np.int64) + 1) % s.num_players)
    return s


# --------------------------------------------------------------------------------------
# Observation
# --------------------------------------------------------------------------------------
#: parts of the flat observation in order: (name, size, meaning); see the module docstring
OBS_PARTS = (
    ("hand", NUM_CARDS, "cards the player holds"),
    ("table_by_seat", MAX_PLAYERS * NUM_CARDS, "cards in the melds laid down by each relative seat"),
    ("table_slots", MAX_TABLE_MELDS * NUM_CARDS, "cards in each table meld slot k"),
    ("table_fits", NUM_CARDS, "cards that could be laid off onto some table meld"),
    ("top_discard", NUM_CARDS, "the top card of the discard pile"),
    ("pile", NUM_CARDS, "cards in the discard pile"),
    ("pile_recency", NUM_CARDS, "for a pile card, (position from the bottom + 1) / pile size"),
    ("known", MAX_PLAYERS * NUM_CARDS, "cards each relative seat took from the pile, not played since"),
    ("taken", NUM_CARDS, "the card the player took from the pile this turn (R-5)"),
    ("unseen", NUM_CARDS, "cards not in the hand, table or pile, nor known to be held by another seat"),
    ("thrown", MAX_PLAYERS * NUM_CARDS, "cards each relative seat discarded this round (R-3)"),
    ("passed", MAX_PLAYERS * NUM_CARDS, "top discards each relative seat declined by drawing from the stock"),
    ("drawn_seen", MAX_PLAYERS * NUM_CARDS,
     "cards each relative seat drew from a stock turned over from the pile (R-7), not played since"),
    ("pile_by", NUM_CARDS, "for a pile card, (relative seat that threw it + 1) / 6; 0 for the upcard"),
    ("laid_off_by", NUM_CARDS, "for a card laid off onto a table meld, (relative seat that laid it off + 1) / 6"),
    ("stock_order", NUM_CARDS,
     "for a stock card of a turned-over pile (R-7), (draws until it comes up) / stock size"),
    ("actor_taken", NUM_CARDS,
     "the card the player to act, whoever it is, took from the pile this turn (R-5)"),
    ("hand_sizes", MAX_PLAYERS, "cards held by each relative seat / hand_size"),
    ("melded", MAX_PLAYERS, "1 where the seat laid down a meld this round (R-4)"),
    ("scores", MAX_PLAYERS, "each seat's points in this game / target"),
    ("seat_present", MAX_PLAYERS, "1 for the seats in the game"),
    ("dealer", MAX_PLAYERS, "one-hot relative seat of the dealer"),
    ("to_act", MAX_PLAYERS, "one-hot relative seat of the player to act (all 0 once the episode is over)"),
    ("stock_size", 1, "cards in the stock / 52"),
    ("stock_passes", 1, "times the pile was turned over this round (R-7)"),
    ("passes_left", 1, "1 while the stock may still be renewed from the pile"),
    ("phase", 3, "one-hot DRAW, PLAY, DONE"),
    ("my_turn", 1, "1 when the player is to act"),
    ("target", 1, "target / 200"),
    ("round_actions", 1, "actions so far this round / action_cap"),
)
#: name -> slice of the flat observation
OBS_LAYOUT: dict[str, slice] = {}
_o = 0
for _name, _size, _ in OBS_PARTS:
    OBS_LAYOUT[_name] = slice(_o, _o + _size)
    _o += _size
OBS_DIM = _o
del _o, _name, _size

_O_HAND = OBS_LAYOUT["hand"].start
_O_TABLE_BY = OBS_LAYOUT["table_by_seat"].start
_O_SLOTS = OBS_LAYOUT["table_slots"].start
_O_FITS = OBS_LAYOUT["table_fits"].start
_O_TOP = OBS_LAYOUT["top_discard"].start
_O_PILE = OBS_LAYOUT["pile"].start
_O_RECENCY = OBS_LAYOUT["pile_recency"].start
_O_KNOWN = OBS_LAYOUT["known"].start
_O_TAKEN = OBS_LAYOUT["taken"].start
_O_UNSEEN = OBS_LAYOUT["unseen"].start
_O_THROWN = OBS_LAYOUT["thrown"].start
_O_PASSED = OBS_LAYOUT["passed"].start
_O_DRAWN = OBS_LAYOUT["drawn_seen"].start
_O_PILE_BY = OBS_LAYOUT["pile_by"].start
_O_LAID_BY = OBS_LAYOUT["laid_off_by"].start
_O_STOCK_ORDER = OBS_LAYOUT["stock_order"].start
_O_ACTOR_TAKEN = OBS_LAYOUT["actor_taken"].start
_O_SIZES = OBS_LAYOUT["hand_sizes"].start
_O_MELDED = OBS_LAYOUT["melded"].start
_O_SCORES = OBS_LAYOUT["scores"].start
_O_PRESENT = OBS_LAYOUT["seat_present"].start
_O_DEALER = OBS_LAYOUT["dealer"].start
_O_TO_ACT = OBS_LAYOUT["to_act"].start
_O_STOCK = OBS_LAYOUT["stock_size"].start
_O_PASSES = OBS_LAYOUT["stock_passes"].start
_O_LEFT = OBS_LAYOUT["passes_left"].start
_O_PHASE = OBS_LAYOUT["phase"].start
_O_TURN = OBS_LAYOUT["my_turn"].start
_O_TARGET = OBS_LAYOUT["target"].start
_O_ACTIONS = OBS_LAYOUT["round_actions"].start


def obs_dim(num_players: int = 4) -> int:
    """Length of the flat observation: :data:`OBS_DIM` for every player count (per-seat
    parts are sized for :data:`MAX_PLAYERS`)."""
    if (not isinstance(num_players, (int, np.integer)) or isinstance(num_players, bool)
            or not MIN_PLAYERS <= num_players <= MAX_PLAYERS):
        raise ValueError(f"num_players must be in {MIN_PLAYERS}..{MAX_PLAYERS}, got {num_players!r}")
    return OBS_DIM


@njit(cache=True, nogil=True)
def _observe_kernel(players, hands, hand_size, pile, pile_len, known, melded, table_slot,
                    slot_owner, n_melds, slot_ext, stock_pos, stock_len, passes, phase, current,
                    dealer, taken, scores, round_actions, hand_len, target, max_actions,
                    stock_passes, drawn_seen, thrown, passed, pile_from, table_by, laid_off, stock, out):
    P = hands.shape[1]
    C = NUM_CARDS
    for b in range(players.shape[0]):
        p = players[b]
        if p < 0:
            p = current[b]
        row = out[b]
        row[:] = 0.0
        for c in range(C):
            if hands[b, p, c]:
                row[_O_HAND + c] = 1.0
            k = table_slot[b, c]
            if k >= 0:
                j = (slot_owner[b, k] - p) % P
                row[_O_TABLE_BY + j * C + c] = 1.0
                row[_O_SLOTS + k * C + c] = 1.0
                if laid_off[b, c]:
                    row[_O_LAID_BY + c] = ((table_by[b, c] - p) % P + 1) / MAX_PLAYERS
        # per-seat planes: relative seat j outside, so the card loop has no modulo in it
        for j in range(P):
            q = (p + j) % P
            o = j * C
            for c in range(C):  # branch-free copies of the bool planes (they vectorize)
                row[_O_KNOWN + o + c] = known[b, q, c]
                row[_O_DRAWN + o + c] = drawn_seen[b, q, c]
                row[_O_THROWN + o + c] = thrown[b, q, c]
                row[_O_PASSED + o + c] = passed[b, q, c]
        for k in range(n_melds[b]):
            for e in range(2):
                c = slot_ext[b, k, e]
                if c >= 0:
                    row[_O_FITS + c] = 1.0
        n = pile_len[b]
        for i in range(n):
            c = pile[b, i]
            row[_O_PILE + c] = 1.0
            row[_O_RECENCY + c] = (i + 1) / n
            if pile_from[b, i] >= 0:
                row[_O_PILE_BY + c] = ((pile_from[b, i] - p) % P + 1) / MAX_PLAYERS
        if passes[b] > 0:  # the stock is the pile turned over, and everyone saw the pile
            left = stock_len[b] - stock_pos[b]
            for i in range(stock_pos[b], stock_len[b]):
                row[_O_STOCK_ORDER + stock[b, i]] = (i - stock_pos[b] + 1) / left
        if n > 0:
            row[_O_TOP + pile[b, n - 1]] = 1.0
        if taken[b] >= 0 and current[b] == p:
            row[_O_TAKEN + taken[b]] = 1.0
        if taken[b] >= 0 and phase[b] != PHASE_DONE:  # public: everyone saw the take
            row[_O_ACTOR_TAKEN + taken[b]] = 1.0
        for c in range(C):
            seen = row[_O_HAND + c] > 0 or table_slot[b, c] >= 0 or row[_O_PILE + c] > 0
            for j in range(1, P):
                if row[_O_KNOWN + j * C + c] > 0:
                    seen = True
            if not seen:
                row[_O_UNSEEN + c] = 1.0
        for j in range(P):
            q = (p + j) % P
            row[_O_SIZES + j] = hand_size[b, q] / hand_len
            row[_O_MELDED + j] = melded[b, q]
            row[_O_SCORES + j] = scores[b, q] / target
            row[_O_PRESENT + j] = 1.0
        row[_O_DEALER + (dealer[b] - p) % P] = 1.0
        if phase[b] != PHASE_DONE:
            row[_O_TO_ACT + (current[b] - p) % P] = 1.0
        row[_O_STOCK] = (stock_len[b] - stock_pos[b]) / C
        row[_O_PASSES] = passes[b]
        row[_O_LEFT] = passes[b] < stock_passes
        row[_O_PHASE + phase[b]] = 1.0
        row[_O_TURN] = current[b] == p and phase[b] != PHASE_DONE
        row[_O_TARGET] = target / 200.0
        row[_O_ACTIONS] = round_actions[b] / max_actions


def deal_sizes(observations: np.ndarray) -> np.ndarray:
    """``(B,)`` float64: the hand size each observation's game was dealt (R-1,
    ``RummyConfig.hand_size``), read off the observer's own hand, whose cards it sees, and
    its ``hand_sizes`` entry (cards held / hand size); the default 7 where the observer holds
    no cards (a finished round)."""
    obs = np.asarray(observations, dtype=np.float32).reshape(-1, OBS_DIM)
    held = (obs[:, OBS_LAYOUT["hand"]] > 0.5).sum(1)
    frac = obs[:, OBS_LAYOUT["hand_sizes"].start].astype(np.float64)
    return np.where(frac > 0, np.round(held / np.where(frac > 0, frac, 1.0)), float(RummyConfig.hand_size))


def observe(state: RummyState, player=None, out: np.ndarray | None = None) -> np.ndarray:
    """``(B, OBS_DIM)`` float32 observations, layout :data:`OBS_LAYOUT`.

    ``player``: None for the player to act in each game, an int for that seat in every
    game, or a ``(B,)`` array of seats. ``out`` may be a preallocated array to fill.
    """
    B = state.phase.shape[0]
    players = player_array(player, B, state.num_players)
    out = observation_buffer(out, B, OBS_DIM)
    cfg = state.config
    s = state
    _observe_kernel(players, s.hands, s.hand_size, s.pile, s.pile_len, s.known, s.melded, s.table_slot,
                    s.slot_owner, s.n_melds, s.slot_ext, s.stock_pos, s.stock_len, s.passes, s.phase,
                    s.current, s.dealer, s.taken, s.scores, s.round_actions, float(cfg.hand_size),
                    float(cfg.target), float(cfg.action_cap), cfg.stock_passes, s.drawn_seen, s.thrown,
                    s.passed, s.pile_from, s.table_by, s.laid_off, s.stock, out)
    return out


def observation_dict(obs: np.ndarray) -> dict[str, np.ndarray]:
    """Split flat observations ``(..., OBS_DIM)`` into named parts (views); per-seat and
    per-slot card parts are shaped ``(..., n, 52)``."""
    out = {}
    for name, sl in OBS_LAYOUT.items():
        part = obs[..., sl]
        n = sl.stop - sl.start
        if n == 1:
            part = obs[..., sl.start]
        elif n > NUM_CARDS and n % NUM_CARDS == 0:
            part = part.reshape(*obs.shape[:-1], n // NUM_CARDS, NUM_CARDS)
        out[name] = part
    return out


# --------------------------------------------------------------------------------------
# Readable records of one game (for env infos, rendering, logs)
# --------------------------------------------------------------------------------------
def _cards(mask) -> list[str]:
    return [card_str(c) for c in np.flatnonzero(mask)]


def _table(table_slot, table_by, laid_off, slot_owner) -> list[dict]:
    melds = []
    for k in range(MAX_TABLE_MELDS):
        if slot_owner[k] < 0:
            break
        on = table_slot == k
        melds.append({
            "slot": k,
            "owner": int(slot_owner[k]),
            "cards": _cards(on),
            "laid_off": [[card_str(c), int(table_by[c])] for c in np.flatnonzero(on & laid_off)],
        })
    return melds


def table_melds(state: RummyState, b: int) -> list[dict]:
    """The melds on the table of game ``b`` now: per slot its ``owner``, ``cards`` and the
    cards ``laid_off`` onto it as ``[card, player]``."""
    b = game_index(b, state.phase.shape[0])
    return _table(state.table_slot[b], state.table_by[b], state.laid_off[b], state.slot_owner[b])


def round_info(state: RummyState, b: int) -> dict:
    """How the last round of game ``b`` ended: a plain dict (cards as text).

    Keys: ``round`` (its number in the game, from 0), ``end`` (out / draw / truncated),
    ``winner`` (-1 for none), ``points`` (to the winner, R-8), ``dealer``,
    ``hand_values`` and ``hands`` (what each player held at the end), ``table`` (the melds
    as in :func:`table_melds`), ``scores`` (game totals after the round).
    """
    b = game_index(b, state.phase.shape[0])
    P = state.num_players
    # after a round that did not end the game the next one is already dealt
    rnd = int(state.round_no[b]) - (0 if state.game_over[b] else 1)
    return {
        "round": rnd,
        "end": END_NAMES[state.last_end[b]],
        "winner": int(state.last_winner[b]),
        "points": int(state.last_points[b]),
        "dealer": int(state.last_dealer[b]),
        "hand_values": [int(x) for x in state.last_hand_values[b]],
        "hands": [_cards(state.last_hands[b, p]) for p in range(P)],
        "table": _table(state.last_table_slot[b], state.last_table_by[b], state.last_laid_off[b],
                        state.last_slot_owner[b]),
        "scores": [int(x) for x in state.scores[b]],
    }


def round_arrays(state: RummyState, b: int) -> dict:
    """How the last round of game ``b`` ended, in arrays of fixed shape and dtype (what
    :func:`round_info` says in words): a learning library can stack them step after step.

    ``round`` (from 0), ``end`` (an ``END_*`` code), ``winner`` (-1 for none), ``points``,
    ``dealer``, ``hand_values`` (P,), ``scores`` (P,) (game totals after the round), and three
    (P, 52) int8 card masks: ``hands`` (what each player held at the end), ``melds`` (the
    table cards each player laid down in melds), ``laid_off`` (the table cards each player
    laid off onto a meld).
    """
    b = game_index(b, state.phase.shape[0])
    P = state.num_players
    by = state.last_table_by[b][None, :] == np.arange(P)[:, None]
    laid = state.last_laid_off[b].astype(bool)
    return {"round": np.int64(int(state.round_no[b]) - (0 if state.game_over[b] else 1)),
            "end": np.int64(state.last_end[b]), "winner": np.int64(state.last_winner[b]),
            "points": np.int64(state.last_points[b]), "dealer": np.int64(state.last_dealer[b]),
            "hand_values": state.last_hand_values[b].astype(np.int64), "scores": state.scores[b].astype(np.int64),
            "hands": state.last_hands[b].astype(np.int8), "melds": (by & ~laid).astype(np.int8),
            "laid_off": (by & laid).astype(np.int8)}


def game_info(state: RummyState, b: int) -> dict:
    """The totals of game ``b`` and each round's result (R-8, R-9).

    Keys: ``winner`` (-1 while none), ``over``, ``truncated``, ``rounds_played``, ``rounds``
    (per round: ``end``, ``winner``, ``points``), ``rounds_won``, ``scores`` (totals).
    """
    b = game_index(b, state.phase.shape[0])
    n = int(state.round_no[b]) + (1 if state.game_over[b] else 0)
    n = min(n, state.round_winners.shape[1])
    return {
        "winner": int(state.winner[b]),
        "over": bool(state.game_over[b]),
        "truncated": bool(state.truncated[b]),
        "rounds_played": n,
        "rounds": [{"end": END_NAMES[state.round_ends[b, h]], "winner": int(state.round_winners[b, h]),
                    "points": int(state.round_points[b, h])} for h in range(n)],
        "rounds_won": [int(x) for x in state.rounds_won[b]],
        "scores": [int(x) for x in state.scores[b]],
    }


# --------------------------------------------------------------------------------------
# Game result (the same shape as rummyrl.gin.game_result, for tournaments and envs)
# --------------------------------------------------------------------------------------
#: round ends in which nobody scores
NO_WINNER_ENDS = (END_NONE, END_DRAWN, END_TRUNCATED)


@dataclass(frozen=True)
class GameResult:
    """Final totals of finished games: ``winner`` (B,) (-1: none), ``total`` (B, P) (R-9:
    Rummy has no bonuses, the totals are the round points), ``margin`` (B,): the winner's
    total minus the best other total (0 without a winner)."""

    winner: np.ndarray
    total: np.ndarray
    margin: np.ndarray


def game_result(state: RummyState, rows: np.ndarray | None = None) -> GameResult:
    """Totals of the games over with a winner (all games, or only ``rows``)."""
    sel = slice(None) if rows is None else lane_rows(rows, state.phase.shape[0])
    w = state.winner[sel].astype(np.int64)
    has = w >= 0
    total = np.where(has[:, None], state.scores[sel], 0).astype(np.int64)
    rows = np.arange(w.size)
    others = total.copy()
    others[rows[has], w[has]] = np.iinfo(np.int64).min
    margin = np.where(has, total[rows, np.maximum(w, 0)] - others.max(1), 0)
    return GameResult(w, total, margin)
