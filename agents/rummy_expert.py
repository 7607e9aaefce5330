"""``expert`` for Rummy: keep the cards live cards can complete, feed nobody.

A card's *keep value* is ``w_outs`` times its outs (unseen cards that would make a meld
with it and one more card of the hand: the rest of a pair's rank, the ends of a two-card
run, the gap of a split run; a card that fits a table meld counts once more while the
player cannot lay off yet) minus its value (C-2: what it costs when someone else goes
out, R-8).

* **Draw**: take the top discard when it completes a meld or goes straight onto the
  table (once the player may lay off, R-4), or when keeping it instead of the hand's
  worst card gains more than ``swap_margin``; otherwise draw from the stock.
* **Play**: lay down every meld, first the one that leaves the lowest deadwood; then lay
  off every card that fits.
* **Discard**: the lowest keep value minus ``w_danger`` times the card's danger: certain
  when the next player has melded and the card fits the table (it would take it and lay
  it off) or when it melds with cards the next player took from the pile; otherwise the
  chance that the next player's hidden cards complete a set or run with it.

Three options read the table further; they are off in the baseline and on in the default
Rummy run's network features (``configs/rummy.yaml``): ``fit_outs`` counts as an out each
unseen card next to a card in its suit that would go onto a table meld (drawn, both would go);
``hold_outs`` keeps a card that could be laid off while it has that many outs in the hand and
laying off would not let the player go out (it can go at any later turn); ``w_danger_close``
weighs the danger of a discard while the next player holds at most ``close_cards`` cards.
How these options and the weights' defaults were measured is in the research record
(``docs/research/rummy.md``, ``docs/research/baselines.md``). Compiled over the batch;
:func:`expert_preferences` scores every action (the expert plays the argmax) and serves trained agents as a prior.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rummyrl import rummy
from rummyrl.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS, RANK_VALUE
from rummyrl.melds import MELDS, NUM_MELDS
from rummyrl.settings import Field, Float, Int, settings

from .base import PreferenceAgent
from .card_kernels import card_count as _card_count
from .card_kernels import danger as _danger
from .card_kernels import deadwood as _dw
from .card_kernels import suit_masks as _masks
from .params import kernel_array, parse_fields
from .rummy_simple import would_meld

_L = rummy.OBS_LAYOUT
_P_HAND, _P_TOP, _P_FITS = _L["hand"].start, _L["top_discard"].start, _L["table_fits"].start
_P_KNOWN_NEXT = _L["known"].start + NUM_CARDS  # relative seat 1: the next player
_P_UNSEEN = _L["unseen"].start
_S_SIZE_ME, _S_SIZE_NEXT = _L["hand_sizes"].start, _L["hand_sizes"].start + 1
_S_MELDED_ME, _S_MELDED_NEXT = _L["melded"].start, _L["melded"].start + 1
#: a lay-off kept back (``hold_outs``): below every discard, above illegal
_HELD = -1000.0
#: each catalogue meld as four suit masks
_MELD_MASKS = np.zeros((NUM_MELDS, NUM_SUITS), np.int64)
for _m, _cards in enumerate(MELDS):
    for _c in _cards:
        _MELD_MASKS[_m, _c // NUM_RANKS] |= 1 << (_c % NUM_RANKS)


@settings(frozen=True, label="expert parameters")
class RummyExpertParams:
    """Tunable weights of the Rummy expert (``expert:w_outs=10``, ``planner:swap_margin=24``);
    the defaults are the ``expert`` baseline's."""

    w_danger: Float[Field(ge=0)] = 4.0
    """Points one unit of danger is worth when choosing a discard."""
    w_outs: Float[Field(ge=0)] = 12.0
    """Points one live card that would complete a meld with a card is worth."""
    swap_margin: Float[Field()] = 12.0
    """Also take the top discard when keeping it instead of the hand's worst card gains
    more than this (in the discard score's points)."""

    fit_outs: Float[Field(ge=0)] = 0.0
    """Outs (in ``w_outs``) of each unseen card next to a card in its suit that would go onto
    the table: drawn, it would be laid off and the card after it (once the player may lay
    off). 0, the baseline: such cards are not outs."""
    hold_outs: Float[Field(ge=0)] = 0.0
    """Keep a card that could be laid off in the hand while it has at least this many outs
    and laying off every such card would not let the player go out this turn. 0, the
    baseline: lay off every card that fits."""
    w_danger_close: Float[Field(ge=0)] = 4.0
    """``w_danger`` while the next player holds at most ``close_cards`` cards."""
    close_cards: Int[Field(ge=0, le=NUM_CARDS)] = 0
    """See ``w_danger_close``; 0, the baseline: never."""

    def as_array(self) -> np.ndarray:
        """The values in the order the kernel reads them (:data:`KERNEL_ORDER`)."""
        return kernel_array(self, KERNEL_ORDER)


#: the order in which :func:`_pref_kernel` reads the parameters from its array
KERNEL_ORDER = ("w_danger", "w_outs", "swap_margin", "fit_outs", "hold_outs", "w_danger_close", "close_cards")


def parse_params(text: str) -> RummyExpertParams:
    """``"swap_margin=24,w_danger=4"`` -> :class:`RummyExpertParams`; the fields not named keep
    their defaults, and each value must be in its field's range."""
    return parse_fields(RummyExpertParams, text)


@njit(cache=True, nogil=True)
def _pref_kernel(obs, mask, meld_masks, params, pref):
    w_danger, w_outs, swap_margin = params[0], params[1], params[2]
    fit_outs, hold_outs, w_danger_close, close_cards = params[3], params[4], params[5], params[6]
    hand = np.zeros(4, np.int64)
    fits = np.zeros(4, np.int64)
    work = np.zeros(4, np.int64)
    known = np.zeros(4, np.int64)
    unseen = np.zeros(4, np.int64)
    zero = np.zeros(4, np.int64)
    for b in range(obs.shape[0]):
        row, mk, out = obs[b], mask[b], pref[b]
        out[:] = -np.inf
        _masks(row, _P_HAND, hand)
        _masks(row, _P_FITS, fits)
        _masks(row, _P_KNOWN_NEXT, known)
        _masks(row, _P_UNSEEN, unseen)
        # may this player lay off? it has melded, or it holds a meld it will lay down
        can_lay = row[_S_MELDED_ME] > 0.5
        if not can_lay:
            for m in range(NUM_MELDS):
                mm = meld_masks[m]
                if (hand[0] & mm[0]) == mm[0] and (hand[1] & mm[1]) == mm[1] and \
                        (hand[2] & mm[2]) == mm[2] and (hand[3] & mm[3]) == mm[3]:
                    can_lay = True
                    break
        if not can_lay:
            fits[:] = 0
        if mk[rummy.DRAW_STOCK] or mk[rummy.TAKE_DISCARD]:
            if mk[rummy.DRAW_STOCK]:
                out[rummy.DRAW_STOCK] = 0.0
            if mk[rummy.TAKE_DISCARD]:
                top = -1
                for c in range(NUM_CARDS):
                    if row[_P_TOP + c] > 0.5:
                        top = c
                if top < 0 or not mk[rummy.DRAW_STOCK]:
                    out[rummy.TAKE_DISCARD] = 0.0
                    continue
                ts, tr = top // NUM_RANKS, top % NUM_RANKS
                # progress for sure: it completes a meld, or it goes straight onto the table
                useful = would_meld(row, _P_HAND, top) or (can_lay and (fits[ts] >> tr) & 1)
                if useful:
                    out[rummy.TAKE_DISCARD] = 1.0 + RANK_VALUE[tr] * 0.1
                else:
                    # or it is worth more to keep than the card we would throw for it
                    hand[ts] |= 1 << tr
                    keep_top = w_outs * _outs(hand, unseen, ts, tr) - RANK_VALUE[tr]
                    worst = 1e18
                    for c in range(NUM_CARDS):
                        cs, cr = c // NUM_RANKS, c % NUM_RANKS
                        if c != top and (hand[cs] >> cr) & 1:
                            k = w_outs * _outs(hand, unseen, cs, cr) - RANK_VALUE[cr]
                            if k < worst:
                                worst = k
                    hand[ts] &= ~(1 << tr)
                    out[rummy.TAKE_DISCARD] = keep_top - worst - swap_margin
            continue
        # play phase: melds first (lowest deadwood left), then lay-offs, then a discard
        any_play = False
        for m in range(NUM_MELDS):
            if mk[rummy.MELD + m]:
                mm = meld_masks[m]
                for s in range(NUM_SUITS):
                    work[s] = hand[s] & ~mm[s]
                out[rummy.MELD + m] = 40.0 - _dw(work) * 0.1
                any_play = True
        # a card that fits the table can go at any later turn: keep one with outs in the hand
        # (hold_outs), unless laying off every such card would leave one card to throw
        hold = hold_outs > 0 and not any_play
        if hold:
            for s in range(NUM_SUITS):
                work[s] = hand[s] & fits[s]
            hold = _card_count(hand) - _card_count(work) >= 2
        for a in range(rummy.LAYOFF, rummy.NUM_ACTIONS):
            if mk[a]:
                c = (a - rummy.LAYOFF) % NUM_CARDS
                if hold and _outs(hand, unseen, c // NUM_RANKS, c % NUM_RANKS) >= hold_outs:
                    out[a] = _HELD
                    continue
                out[a] = 20.0 + (c % NUM_RANKS) * 0.1
                any_play = True
        if any_play:
            for c in range(NUM_CARDS):  # discarding while a play is open: worst but legal
                if mk[rummy.DISCARD + c]:
                    out[rummy.DISCARD + c] = -50.0
            continue
        # the observation gives hand sizes over the deal's hand size (R-1, an option): read it
        # off the player's own hand, whose cards it sees (its suit masks, read above)
        held = _card_count(hand)
        deal = held / row[_S_SIZE_ME] if row[_S_SIZE_ME] > 0 else 7.0
        hidden = int(round(row[_S_SIZE_NEXT] * deal))
        next_melded = row[_S_MELDED_NEXT] > 0.5
        best = -1e18
        for c in range(NUM_CARDS):
            if not mk[rummy.DISCARD + c]:
                continue
            s, r = c // NUM_RANKS, c % NUM_RANKS
            # keep cards with live cards that would complete a meld; throw high, loose ones
            outs = _outs(hand, unseen, s, r)
            if not can_lay and (row[_P_FITS + c] > 0.5):
                outs += 1.0  # it will go onto the table once we have melded
            if fit_outs > 0 and can_lay:
                outs += fit_outs * _table_outs(row, unseen, s, r)
            in_fits = row[_P_FITS + c] > 0.5
            danger = 1.0 if (in_fits and next_melded) else _danger(s, r, known, zero, zero, unseen, hidden)
            wd = w_danger_close if hidden <= close_cards else w_danger
            score = RANK_VALUE[r] - w_outs * outs - wd * danger
            out[rummy.DISCARD + c] = score
            if score > best:
                best = score
        for c in range(NUM_CARDS):
            if mk[rummy.DISCARD + c]:
                out[rummy.DISCARD + c] -= best


@njit(cache=True, nogil=True)
def _table_outs(row, unseen, s, r):
    """Unseen cards next to card (s, r) in its suit that would go onto the table (then the
    card itself would follow them)."""
    n = 0.0
    c = s * NUM_RANKS + r
    if r > 0 and row[_P_FITS + c - 1] > 0.5 and (unseen[s] >> (r - 1)) & 1:
        n += 1.0
    if r < NUM_RANKS - 1 and row[_P_FITS + c + 1] > 0.5 and (unseen[s] >> (r + 1)) & 1:
        n += 1.0
    return n


@njit(cache=True, nogil=True)
def _outs(hand, unseen, s, r):
    """Live (unseen) cards that would make a meld with card (s, r) and one more card of the
    hand: the rest of a pair's rank, the ends of a two-card run, the gap of a split run."""
    n = 0.0
    same = 0
    live_same = 0
    for t in range(NUM_SUITS):
        if t != s:
            same += (hand[t] >> r) & 1
            live_same += (unseen[t] >> r) & 1
    if same >= 1:
        n += live_same
    h, u = hand[s], unseen[s]

    def bit(m, x):
        return 0 <= x < NUM_RANKS and (m >> x) & 1

    if bit(h, r + 1):
        n += bit(u, r - 1) + bit(u, r + 2)
    if bit(h, r - 1):
        n += bit(u, r + 1) + bit(u, r - 2)
    if bit(h, r + 2):
        n += bit(u, r + 1)
    if bit(h, r - 2):
        n += bit(u, r - 1)
    return n


def expert_preferences(observations: np.ndarray, action_masks: np.ndarray,
                       params: RummyExpertParams | None = None) -> np.ndarray:
    """``(B, NUM_ACTIONS)`` float32 preference of the Rummy expert (-inf where illegal)."""
    obs = np.ascontiguousarray(observations, dtype=np.float32)
    mask = np.ascontiguousarray(action_masks, dtype=bool)
    pref = np.empty(mask.shape, np.float32)
    _pref_kernel(obs, mask, _MELD_MASKS, kernel_array(params or RummyExpertParams(), KERNEL_ORDER), pref)
    return pref


class ExpertRummyAgent(PreferenceAgent):
    name = "expert"
    game = "rummy"
    preference = staticmethod(expert_preferences)
