"""``expert``: the strongest rule-based Gin Rummy player of the project.

It keeps the meld arithmetic exact and looks one draw ahead:

* **Expected deadwood after the next draw.** For a 10-card hand H, ``E(H)`` is the mean,
  over the cards it has not seen (stock or the opponent's hidden hand), of the best
  deadwood after drawing that card and discarding (``min_d dw(H + u - d)``). A partial
  meld with many live cards completing it lowers ``E``; one whose cards are dead does not.
* **Discard**: the allowed card ``c`` with the lowest ``E(H - c) + danger * w_danger``
  (the look-ahead is spent on the ``lookahead`` best cards by deadwood plus danger), less
  ``w_gin`` times the share of unseen cards that would give gin at the next draw (0 in the
  baseline: ``expert:w_gin=30`` races for gin).
  ``danger`` estimates how likely the opponent can use ``c``: certain when it melds with
  cards the opponent is known to hold (taken from the pile), otherwise the chance that its
  hidden cards complete a set or run with ``c``, discounted when the opponent already
  threw or passed cards of that rank or next to it.
* **Draw**: take the face-up card when the deadwood after taking it (and the best
  discard) beats the expected deadwood of a stock draw by ``take_margin``.
* **Knock**: gin whenever possible; otherwise knock only with deadwood at most a
  threshold that starts at ``knock_early`` and falls by ``knock_slope`` per card drawn
  from the stock, so after the first few draws it plays on for gin (and for undercuts
  when the opponent knocks); always knock when it should end the game in our favour.

The knock schedule matters most of the weights; how the defaults were tuned is in
``docs/research/baselines.md``.

All of it runs compiled over the batch (one decision per game, no Python loop).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from rummyrl import gin
from rummyrl.settings import Field, Float, Int, settings
from rummyrl.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS, RANK_VALUE
from rummyrl.melds import BIT_INDEX13 as _BIT_INDEX
from rummyrl.melds import MELDABLE13
from rummyrl.melds import min_after_discard_one as _min_after_discard
from rummyrl.melds import set_ranks_one as _three

from .base import PreferenceAgent
from .card_kernels import card_count as _card_count
from .card_kernels import danger as _danger
from .card_kernels import deadwood as _dw
from .card_kernels import suit_masks as _masks
from .params import kernel_array, parse_fields


@settings(frozen=True, label="expert parameters")
class ExpertParams:
    """Tunable weights of the expert (defaults tuned against ``simple``), each with its range."""

    w_danger: Float[Field(ge=0)] = 4.0
    """Deadwood points one unit of danger is worth when choosing a discard."""
    take_margin: Float[Field()] = 0.0
    """Take the face-up card when it beats the stock's expected deadwood by more than this."""
    knock_early: Float[Field()] = 10.0
    """Knock threshold at the start of a hand."""
    knock_slope: Float[Field(ge=0)] = 2.5
    """How much the threshold falls per card drawn from the stock."""
    knock_floor: Float[Field(ge=0)] = 0.0
    """The threshold never falls below this (0: late in a hand, only gin)."""
    lookahead: Int[Field(ge=0, le=11)] = 2
    """Discards (the best by deadwood plus danger) that get the one-draw look-ahead (a hand
    holds 11 cards to discard from; each one looked at costs a draw's worth of deadwood
    counts)."""

    w_gin: Float[Field(ge=0)] = 0.0
    """Deadwood points that a sure gin at the next draw is worth to a discard in the
    look-ahead: its score falls by ``w_gin`` times the share of the unseen cards that would
    give gin: with 30 (and ``lookahead=4,w_danger=3``) the expert races for gin
    (docs/research/baselines.md). The baseline keeps 0."""

    def as_array(self) -> np.ndarray:
        """The values in the order the kernel reads them (:data:`KERNEL_ORDER`)."""
        return kernel_array(self, KERNEL_ORDER)


#: the order in which :func:`_pref_one` reads the parameters from its array
KERNEL_ORDER = ("w_danger", "take_margin", "knock_early", "knock_slope", "knock_floor", "lookahead", "w_gin")


def parse_params(text: str) -> ExpertParams:
    """``"lookahead=4,w_danger=3"`` -> :class:`ExpertParams` (as in ``expert:lookahead=4`` and a
    Gin network's ``net.expert_params``); the fields not named keep their defaults, and each
    value must be in its field's range."""
    return parse_fields(ExpertParams, text)


_L = gin.OBS_LAYOUT
_P_HAND, _P_TOP, _P_KNOWN = _L["hand"].start, _L["top_discard"].start, _L["opp_known"].start
_P_THROWN, _P_PASSED, _P_UNSEEN = _L["opp_thrown"].start, _L["opp_passed"].start, _L["unseen"].start
_S_STOCK, _S_MY, _S_OPP, _S_TARGET = (_L[k].start for k in ("stock_size", "my_score", "opp_score", "target"))
_FULL = (1 << NUM_RANKS) - 1


@njit(cache=True, nogil=True)
def _two(m):
    """Ranks held in at least two suits."""
    a, b, c, d = m[0], m[1], m[2], m[3]
    return (a & (b | c | d)) | (b & (c | d)) | (c & d)


@njit(cache=True, nogil=True)
def _best_loose_discard(m):
    """Deadwood of hand ``m`` after throwing its highest card in no meld (the usual best
    discard after a useful draw; the whole hand's solve when every card is in a meld)."""
    full = _dw(m)
    three = _three(m)
    top_value = 0
    for s in range(NUM_SUITS):
        loose = m[s] & ~(MELDABLE13[m[s]] | (m[s] & three))
        while loose:
            b = loose & -loose
            loose &= loose - 1
            v = RANK_VALUE[_BIT_INDEX[b]]
            if v > top_value:
                top_value = v
    if top_value == 0:
        return _min_after_discard(m, -1, -1)
    return full - top_value


@njit(cache=True, nogil=True)
def _expected_next(m, unseen):
    """For a 10-card hand ``m``: the mean over the unseen cards u of ``min_d dw(m + u - d)``,
    and the share of them after which that is 0 (gin at the next draw)."""
    dw0 = _dw(m)
    three = _three(m)
    two = _two(m)
    nm_max = 0  # highest value among the hand's cards in no meld
    m1 = 1 << 20  # lowest deadwood without one of its meldable cards
    for s in range(NUM_SUITS):
        meld = MELDABLE13[m[s]] | (m[s] & three)
        loose = m[s] & ~meld
        for r in range(NUM_RANKS):
            b = 1 << r
            if loose & b:
                if RANK_VALUE[r] > nm_max:
                    nm_max = RANK_VALUE[r]
            elif meld & b:
                m[s] &= ~b
                v = _dw(m)
                m[s] |= b
                if v < m1:
                    m1 = v
    total = 0.0
    n = 0
    zeros = 0
    for s in range(NUM_SUITS):
        h = m[s]
        # ranks that would complete a run with two held cards of this suit, or a set
        run = ((h >> 1) & (h >> 2)) | ((h << 1) & (h >> 1)) | ((h << 1) & (h << 2))
        useful = (run | two) & _FULL
        u = unseen[s]
        while u:
            b = u & -u
            u &= u - 1
            r = _BIT_INDEX[b]
            n += 1
            if useful & b:
                m[s] |= b
                v = _best_loose_discard(m)
                m[s] &= ~b
            else:
                v = dw0
                x = dw0 + RANK_VALUE[r] - nm_max
                if nm_max > 0 and x < v:
                    v = x
                y = m1 + RANK_VALUE[r]
                if y < v:
                    v = y
            total += v
            if v == 0:
                zeros += 1
    if n == 0:
        return float(dw0), 0.0
    return total / n, zeros / n


#: preference of an action the expert never wants (illegal ones get -inf)
_UNWANTED = -50.0
#: extra preference for gin and for a knock that wins the game
_SURE_KNOCK = 20.0


@njit(cache=True, nogil=True)
def _pref_one(row, mk, out, params, cand_dw, cand_danger, cand_score, cand_card, hand, known, thrown,
              passed, unseen):
    """One game of :func:`_pref_kernel`."""
    w_danger, take_margin, k_early, k_slope, k_floor = params[0], params[1], params[2], params[3], params[4]
    n_look, w_gin = int(params[5]), params[6]
    out[:] = -np.inf
    _masks(row, _P_HAND, hand)
    _masks(row, _P_KNOWN, known)
    _masks(row, _P_THROWN, thrown)
    _masks(row, _P_PASSED, passed)
    _masks(row, _P_UNSEEN, unseen)
    if mk[gin.TAKE_DISCARD] or mk[gin.PASS] or mk[gin.DRAW_STOCK]:
        fallback = gin.PASS if mk[gin.PASS] else gin.DRAW_STOCK
        out[fallback] = 0.0
        top = -1
        for c in range(NUM_CARDS):
            if row[_P_TOP + c] > 0.5:
                top = c
        if mk[gin.TAKE_DISCARD] and top >= 0:
            ts, tr = top // NUM_RANKS, top % NUM_RANKS
            hand[ts] |= 1 << tr
            take_val = _min_after_discard(hand, ts, tr)
            hand[ts] &= ~(1 << tr)
            out[gin.TAKE_DISCARD] = _expected_next(hand, unseen)[0] - take_val - take_margin
        elif mk[gin.TAKE_DISCARD]:
            out[gin.TAKE_DISCARD] = _UNWANTED
        return
    if mk[gin.BIG_GIN]:
        out[gin.BIG_GIN] = 2 * _SURE_KNOCK
    n_hidden = 10 - _card_count(known)
    # every allowed discard: deadwood and danger (cheap)
    n_cand = 0
    for c in range(NUM_CARDS):
        if not mk[gin.DISCARD + c]:
            continue
        s, r = c // NUM_RANKS, c % NUM_RANKS
        hand[s] &= ~(1 << r)
        cand_dw[n_cand] = _dw(hand)
        hand[s] |= 1 << r
        cand_card[n_cand] = c
        cand_danger[n_cand] = w_danger * _danger(s, r, known, thrown, passed, unseen, n_hidden)
        cand_score[n_cand] = cand_dw[n_cand] + cand_danger[n_cand]
        n_cand += 1
    # the one-draw look-ahead for the most promising few
    order = np.argsort(cand_score[:n_cand])
    for j in range(min(n_cand, n_look)):
        i = order[j]
        c = cand_card[i]
        s, r = c // NUM_RANKS, c % NUM_RANKS
        hand[s] &= ~(1 << r)
        expected, gin_share = _expected_next(hand, unseen)
        cand_score[i] = expected - w_gin * gin_share + cand_danger[i]
        hand[s] |= 1 << r
    best = cand_score[:n_cand].min()
    drawn = 31.0 - row[_S_STOCK] * 31.0
    threshold = max(k_floor, k_early - k_slope * drawn)
    target = row[_S_TARGET] * 100.0
    ends_game = row[_S_MY] * target + 10 >= target  # even a small knock likely ends it
    for i in range(n_cand):
        c = cand_card[i]
        out[gin.DISCARD + c] = best - cand_score[i]
        if mk[gin.KNOCK + c]:
            k = out[gin.DISCARD + c] + threshold - cand_dw[i] + 0.5
            if cand_dw[i] == 0 or ends_game:
                k += _SURE_KNOCK
            out[gin.KNOCK + c] = k


@njit(cache=True, nogil=True)
def _pref_rows(obs, mask, params, pref, lo, hi):
    """:func:`_pref_kernel` for games ``lo .. hi - 1``, with scratch space of its own."""
    cand_dw = np.zeros(12, np.float64)
    cand_danger = np.zeros(12, np.float64)
    cand_score = np.zeros(12, np.float64)
    cand_card = np.zeros(12, np.int64)
    hand = np.zeros(4, np.int64)
    known = np.zeros(4, np.int64)
    thrown = np.zeros(4, np.int64)
    passed = np.zeros(4, np.int64)
    unseen = np.zeros(4, np.int64)
    for b in range(lo, hi):
        _pref_one(obs[b], mask[b], pref[b], params, cand_dw, cand_danger, cand_score, cand_card, hand,
                  known, thrown, passed, unseen)


#: games per chunk of work: a batch this small or smaller runs on one thread
_CHUNK = 256


@njit(cache=True, parallel=True)
def _pref_kernel(obs, mask, params, pref):
    """The expert's preference for every action of every game, in deadwood points: the
    expert plays the argmax. Illegal actions get -inf. Chunks of games run on all cores
    (search rolls out thousands of games at once with this policy).

    Draw: 0 for the stock (or pass), ``stock_val - take_val - take_margin`` for taking the
    face-up card. Discard c: minus its score (expected deadwood after the next draw plus
    danger) relative to the best discard. Knock with c: the discard's preference plus how
    far the deadwood is under the knock threshold (+0.5), and ``_SURE_KNOCK`` more for
    gin or a knock that should end the game.
    """
    B = obs.shape[0]
    chunks = (B + _CHUNK - 1) // _CHUNK
    for i in prange(chunks):
        _pref_rows(obs, mask, params, pref, i * _CHUNK, min(B, (i + 1) * _CHUNK))


def expert_preferences(observations: np.ndarray, action_masks: np.ndarray,
                       params: "ExpertParams | None" = None) -> np.ndarray:
    """``(B, NUM_ACTIONS)`` float32: the expert's preference for each action (see
    :func:`_pref_kernel`); the expert plays the argmax. Used as a prior by trained agents."""
    obs = np.ascontiguousarray(observations, dtype=np.float32)
    mask = np.ascontiguousarray(action_masks, dtype=bool)
    idle = np.flatnonzero(~mask.any(1))
    if idle.size:
        raise ValueError(f"row(s) {idle[:5].tolist()} of the batch have no legal action (a finished game?): "
                         f"the expert decides only where some action is legal")
    pref = np.empty(mask.shape, np.float32)
    p = kernel_array(params or ExpertParams(), KERNEL_ORDER)
    if len(obs) <= _CHUNK:  # one chunk: no threads to start
        _pref_rows(obs, mask, p, pref, 0, len(obs))
    else:
        _pref_kernel(obs, mask, p, pref)
    return pref


class ExpertGinAgent(PreferenceAgent):
    name = "expert"
    game = "gin"
    preference = staticmethod(expert_preferences)
