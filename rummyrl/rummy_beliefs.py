"""Beliefs over the hidden cards of Rummy (2-6 players): full game states consistent with
what one player knows, built from that player's observation alone.

A player's observation (:func:`rummyrl.rummy.observe`) holds everything it knows about the
round: its hand, the table (slots, owners, who laid off what), the discard pile in order
and who threw each card, the cards each seat took from the pile or drew from a stock
turned over from the pile (R-7: everyone saw that stock's order) and still holds, what
each seat threw and declined, the order of a turned-over stock, the hand sizes, the seat
to act, the card it took this turn, scores and counters. What it does not know is the
opponents' other cards and, before the pile was turned over, the order of the stock.
:func:`sample_worlds` deals those, ``n`` times per observation, into full
:class:`~rummyrl.rummy.RummyState` games that a search can play on (determinized search).
In every world the observer's observation is exactly the real one, every card is in one
place, every card the observer knows the place of is there, and the legal actions are the
real ones.

Worlds
------
The observer sits at absolute seat 0 of every world (relative seat ``r`` of the
observation is seat ``r`` of the world); world ``j`` of observation ``b`` is row
``b * n + j``. Worlds are one-round episodes (``episode="round"``) with the scores, target
and rules of the observation's game, so a rollout ends with the round. What no
observation tells is filled in without effect on the round: ``deck`` (the deal order) is
-1, the round and game numbers are 0, the seeds are drawn from ``rng``; before the pile was
turned over the stock sits at the end of its first-deal positions, after it at
``[0, stock size)``.

Models
------
``"uniform"``: every consistent assignment of the hidden cards is equally likely. The
hidden cards (those in no known place) are shuffled uniformly (Fisher-Yates on ``rng``'s
numbers); opponent 1 gets the first of them up to its count of hidden cards (its hand size
minus the cards known to be in it), then opponent 2, ..., and the rest form the unknown
stock, top first.

``"weighted"``: ``oversample * n`` uniform worlds per observation, each weighted by the
likelihood of the opponents' observed actions under the opponent model below, and ``n`` of
them resampled (systematic resampling) with probability proportional to the weight, so the
returned worlds are equally weighted draws from the weighted belief (as ``oversample``
grows). The model, for each opponent seat ``q`` with hand ``H`` in the world (its known and
its sampled hidden cards):

* ``dw(G)`` is the lowest unmelded value (C-2, C-3) of a set of cards ``G``
  (:func:`rummyrl.melds.deadwood_one`) and the usefulness of card ``x`` to ``G`` is
  ``u(x, G) = dw(G) - dw(G + x) + PARTIAL_POINTS * partners(x, G)``: the value it would
  take out of the unmelded cards, plus a bonus per card of ``G`` it forms a partial meld
  with (the same rank, or the same suit within two ranks).
* A card ``c`` that ``q`` threw this round (R-3): it chose it among the cards of
  ``H' = H + c`` with probability ``exp(-beta * u(c, H' - c)) / sum over x in H' of
  exp(-beta * u(x, H' - x))`` (a softmin over how much each card helps the rest).
* A top discard ``c`` that ``q`` declined by drawing from the stock: it declined with
  probability ``sigmoid(-beta * u(c, H))`` (it takes a card that helps its hand more than
  the card costs).
* Melds kept back: a seat that has finished a turn this round (it has thrown a card) and
  is not in the middle of one holds, in a world, melds worth ``pts`` points (its value
  minus its deadwood); it chose not to lay them down (R-4) with probability
  ``2 * sigmoid(-beta * pts)`` (``1 - tanh(beta * pts / 2)``: 1 when it holds no meld).

The opponent's *current* hand stands in for its hand at the time of each throw and
decline (the cards it drew since are not known to have been there, and the ones it
played since are ignored); cards it threw or declined and holds again are not judged.
``beta = 0`` is the uniform model. The defaults :data:`DEFAULT_BETA` = 0.2 and
:data:`PARTIAL_POINTS` = 3 maximise the mean log-probability of the opponents' true hidden
cards, log P(card in that opponent's hand), at the decisions of games between ``expert``
players, with 2, 4 and 6 players, over a range of ``beta`` and with and without the
partial-meld bonus. ``tests/engines/test_rummy_beliefs.py`` measures the gain over the
uniform model that way (``test_weighted_puts_more_probability_on_the_true_hidden_cards``
prints it with ``-s``). The kept-melds term (``expert`` lays down every meld it holds) and
the declines carry most of the information; the throws alone carry little, and help in
combination with them.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from numba import njit

from . import rummy as R
from .cards import NUM_CARDS, NUM_RANKS, NUM_SUITS, VALUE
from .deals import game_seeds
from .melds import deadwood_one, suit_masks_one

MODELS = ("uniform", "weighted")
#: the opponent model's default sharpness, per point of usefulness (module docstring:
#: chosen by the log-probability of the true hidden cards in games between experts)
DEFAULT_BETA = 0.2
#: points of usefulness per card a card forms a partial meld with (module docstring)
PARTIAL_POINTS = 3.0

_L = R.OBS_LAYOUT
_C = NUM_CARDS
_O_HAND = _L["hand"].start
_O_TABLE_BY = _L["table_by_seat"].start
_O_SLOTS = _L["table_slots"].start
_O_TOP = _L["top_discard"].start
_O_PILE = _L["pile"].start
_O_RECENCY = _L["pile_recency"].start
_O_KNOWN = _L["known"].start
_O_THROWN = _L["thrown"].start
_O_PASSED = _L["passed"].start
_O_DRAWN = _L["drawn_seen"].start
_O_PILE_BY = _L["pile_by"].start
_O_LAID_BY = _L["laid_off_by"].start
_O_STOCK_ORDER = _L["stock_order"].start
_O_ACTOR_TAKEN = _L["actor_taken"].start
_O_SIZES = _L["hand_sizes"].start
_O_MELDED = _L["melded"].start
_O_SCORES = _L["scores"].start
_O_DEALER = _L["dealer"].start
_O_TO_ACT = _L["to_act"].start
_O_STOCK = _L["stock_size"].start
_O_PASSES = _L["stock_passes"].start
_O_LEFT = _L["passes_left"].start
_O_PHASE = _L["phase"].start
_O_TURN = _L["my_turn"].start
_O_ACTIONS = _L["round_actions"].start
_K = R.MAX_TABLE_MELDS
_MAXP = R.MAX_PLAYERS
_VALUE = np.ascontiguousarray(VALUE, dtype=np.int64)
_LOG2 = float(np.log(2.0))

#: what _decode_kernel found wrong in an observation, by code
_PROBLEMS = (
    "ok",
    "phase, to_act or dealer is not a one-hot of the seats present (or my_turn disagrees with to_act)",
    "the hand does not hold hand_sizes[0] * hand_size cards (is config.hand_size the game's?)",
    "a card is in two places (hand, table slots, pile, a turned-over stock, a seat's known cards)",
    "a seat is known to hold more cards than its hand size, or a known card of the player is not in its hand",
    "the table slots are not numbered 0..k-1, a slot's cards are not a meld, or its owner is not one seat",
    "laid_off_by marks a card that is not on the table",
    "pile_recency is not an order of the pile's cards, or top_discard / pile_by disagree with it",
    "the stock size or stock_order is inconsistent (stock_order must order the whole stock once the pile "
    "was turned over, and be empty before)",
    "actor_taken is not a card the player to act took this turn (it holds it or melded it; none in the DRAW "
    "phase)",
    "the cards in no known place are not as many as the opponents' hidden cards plus the unknown stock",
)


@dataclass
class Worlds:
    """``n`` sampled full states per observation (see the module docstring)."""

    state: R.RummyState
    """``B * n`` one-round games; world ``j`` of observation ``b`` is row ``b * n + j``; the
    observer is seat 0."""
    n: int
    """Worlds per observation."""
    log_weight: np.ndarray
    """``(B * n,)`` float64: the opponent model's log-likelihood of the opponents' observed
    actions in each world (zeros for ``"uniform"``; after resampling the worlds are equally
    weighted draws either way)."""


@dataclass
class _Known:
    """What B observations say, as engine arrays (observer at seat 0). ``hands`` holds the
    known cards only; ``hidden[b, :n_hidden[b]]`` are the cards in no known place, dealt
    ``slots[b, q]`` to each opponent ``q`` and the rest to the stock from ``stock_pos``."""

    config: R.RummyConfig
    hands: np.ndarray
    hand_size: np.ndarray
    known: np.ndarray
    drawn_seen: np.ndarray
    thrown: np.ndarray
    passed: np.ndarray
    melded: np.ndarray
    scores: np.ndarray
    table_slot: np.ndarray
    table_by: np.ndarray
    laid_off: np.ndarray
    n_melds: np.ndarray
    slot_owner: np.ndarray
    slot_is_run: np.ndarray
    slot_ext: np.ndarray
    pile: np.ndarray
    pile_from: np.ndarray
    pile_len: np.ndarray
    stock: np.ndarray
    stock_pos: np.ndarray
    stock_len: np.ndarray
    passes: np.ndarray
    last_stock: np.ndarray
    phase: np.ndarray
    current: np.ndarray
    dealer: np.ndarray
    taken: np.ndarray
    round_actions: np.ndarray
    hidden: np.ndarray
    n_hidden: np.ndarray
    slots: np.ndarray


# --------------------------------------------------------------------------------------
# Observation -> what is known
# --------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _nint(x):
    return int(np.floor(x + 0.5))


@njit(cache=True, nogil=True)
def _one_hot(row, start, P):
    """The index of the single 1 among ``row[start:start+P]`` (and 0 up to MAX_PLAYERS), or -1."""
    idx = -1
    for j in range(_MAXP):
        if row[start + j] > 0.5:
            if idx >= 0 or j >= P:
                return -1
            idx = j
    return idx


@njit(cache=True, nogil=True)
def _decode_kernel(obs, P, hand_len, target, cap, stock_start, stock_passes,
                   hands, hand_size, known, drawn_seen, thrown, passed, melded, scores,
                   table_slot, table_by, laid_off, n_melds, slot_owner, slot_is_run, slot_ext,
                   pile, pile_from, pile_len, stock, stock_pos, stock_len, passes, last_stock,
                   phase, current, dealer, taken, round_actions, hidden, n_hidden, slots, err):
    C = _C
    places = np.zeros(C, np.int64)
    for b in range(obs.shape[0]):
        row = obs[b]
        err[b] = 0
        places[:] = 0
        # phase, seat to act, dealer
        ph = -1
        for i in range(3):
            if row[_O_PHASE + i] > 0.5:
                ph = i if ph < 0 else 9
        cur = _one_hot(row, _O_TO_ACT, P)
        dl = _one_hot(row, _O_DEALER, P)
        if ph < 0 or ph > R.PHASE_PLAY or cur < 0 or dl < 0 or (row[_O_TURN] > 0.5) != (cur == 0):
            err[b] = 1
            continue
        phase[b], current[b], dealer[b] = ph, cur, dl
        for q in range(P):
            hand_size[b, q] = _nint(row[_O_SIZES + q] * hand_len)
            melded[b, q] = row[_O_MELDED + q] > 0.5
            scores[b, q] = _nint(row[_O_SCORES + q] * target)
        round_actions[b] = _nint(row[_O_ACTIONS] * cap)
        # the player's hand, and the cards each seat is known to hold
        own = 0
        for c in range(C):
            if row[_O_HAND + c] > 0.5:
                hands[b, 0, c] = True
                places[c] += 1
                own += 1
        if own != hand_size[b, 0]:
            err[b] = 2
            continue
        for q in range(P):
            held = 0
            for c in range(C):
                j = q * C + c
                kn = row[_O_KNOWN + j] > 0.5
                ds = row[_O_DRAWN + j] > 0.5
                known[b, q, c] = kn
                drawn_seen[b, q, c] = ds
                thrown[b, q, c] = row[_O_THROWN + j] > 0.5
                passed[b, q, c] = row[_O_PASSED + j] > 0.5
                if kn or ds:
                    held += 1
                    if q == 0:
                        if not hands[b, 0, c]:
                            err[b] = 4
                    else:
                        hands[b, q, c] = True
                        places[c] += 1
            if held > hand_size[b, q]:
                err[b] = 4
            slots[b, q] = 0 if q == 0 else hand_size[b, q] - held
        if err[b]:
            continue
        # the table: slot contents, owners, runs and sets (C-3), what fits them
        nm = 0
        for k in range(_K):
            lo, hi, cnt, suits, ranks = 99, -1, 0, 0, 0
            owner = -2
            for c in range(C):
                if row[_O_SLOTS + k * C + c] > 0.5:
                    if table_slot[b, c] >= 0:
                        err[b] = 3
                    table_slot[b, c] = k
                    places[c] += 1
                    cnt += 1
                    lo = min(lo, c)
                    hi = max(hi, c)
                    suits |= 1 << (c // NUM_RANKS)
                    ranks |= 1 << (c % NUM_RANKS)
                    o = -1
                    for j in range(P):
                        if row[_O_TABLE_BY + j * C + c] > 0.5:
                            o = j if o == -1 else -3
                    if owner == -2:
                        owner = o
                    elif owner != o:
                        owner = -3
            if cnt == 0:
                continue
            if k != nm or owner < 0:
                err[b] = 5
                break
            nm += 1
            slot_owner[b, k] = owner
            is_run = suits & (suits - 1) == 0
            if cnt < 3 or (is_run and hi - lo + 1 != cnt) or (not is_run and ranks & (ranks - 1) != 0):
                err[b] = 5
                break
            slot_is_run[b, k] = is_run
            if is_run:  # a run's ends, which do not wrap (C-1)
                slot_ext[b, k, 0] = lo - 1 if lo % NUM_RANKS > 0 else -1
                slot_ext[b, k, 1] = hi + 1 if hi % NUM_RANKS < NUM_RANKS - 1 else -1
            elif cnt == 3:  # a set of three takes the fourth card of its rank
                for s in range(NUM_SUITS):
                    if not (suits >> s) & 1:
                        slot_ext[b, k, 0] = s * NUM_RANKS + lo % NUM_RANKS
        if err[b]:
            continue
        n_melds[b] = nm
        for c in range(C):
            by = _nint(row[_O_LAID_BY + c] * _MAXP) - 1
            k = table_slot[b, c]
            if by >= 0:
                if k < 0 or by >= P:
                    err[b] = 6
                laid_off[b, c] = True
                table_by[b, c] = by
            elif k >= 0:
                table_by[b, c] = slot_owner[b, k]
            # (cards outside any slot in table_by_seat are caught by the count of places)
        if err[b]:
            continue
        # the discard pile, bottom first, and who threw each card
        n = 0
        for c in range(C):
            if row[_O_PILE + c] > 0.5:
                n += 1
        pile_len[b] = n
        for c in range(C):
            if row[_O_PILE + c] > 0.5:
                i = _nint(row[_O_RECENCY + c] * n) - 1
                if i < 0 or i >= n or pile[b, i] >= 0:
                    err[b] = 7
                    break
                pile[b, i] = c
                by = _nint(row[_O_PILE_BY + c] * _MAXP) - 1
                if by >= P:
                    err[b] = 7
                pile_from[b, i] = by
                places[c] += 1
        if err[b] or (n > 0 and row[_O_TOP + pile[b, n - 1]] < 0.5):
            err[b] = 7
            continue
        # the stock: its order is known once the pile was turned over
        size = _nint(row[_O_STOCK] * C)
        pas = _nint(row[_O_PASSES])
        passes[b] = pas
        if pas > 0:
            stock_pos[b], stock_len[b] = 0, size
            got = 0
            for c in range(C):
                if row[_O_STOCK_ORDER + c] > 0:
                    i = _nint(row[_O_STOCK_ORDER + c] * size) - 1
                    if i < 0 or i >= size or stock[b, i] >= 0:
                        err[b] = 8
                        break
                    stock[b, i] = c
                    places[c] += 1
                    got += 1
            if got != size:
                err[b] = 8
        else:
            if size > stock_start:
                err[b] = 8
            stock_pos[b], stock_len[b] = stock_start - size, stock_start
            for c in range(C):
                if row[_O_STOCK_ORDER + c] > 0:
                    err[b] = 8
        if err[b]:
            continue
        # the last card of the last stock allowed was drawn in this turn
        last_stock[b] = ph == R.PHASE_PLAY and size == 0 and pas >= stock_passes
        # the card the player to act took from the pile this turn
        t = -1
        for c in range(C):
            if row[_O_ACTOR_TAKEN + c] > 0.5:
                t = c if t < 0 else 99
        # (it is still in the player's hand, as a known card, or it went onto the table)
        if t == 99 or (t >= 0 and (ph != R.PHASE_PLAY or not (known[b, cur, t] or table_slot[b, t] >= 0))):
            err[b] = 9
            continue
        taken[b] = t
        # the cards in no known place: the opponents' hidden cards and the unknown stock
        m = 0
        for c in range(C):
            if places[c] == 0:
                hidden[b, m] = c
                m += 1
            elif places[c] > 1:
                err[b] = 3
        if err[b]:
            continue
        n_hidden[b] = m
        need = size if pas == 0 else 0
        for q in range(1, P):
            need += slots[b, q]
        if m != need:
            err[b] = 10


def _check_args(n, model, beta, oversample):
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n (worlds per observation) must be a positive int, got {n!r}")
    if model not in MODELS:
        raise ValueError(f"unknown belief model {model!r}; choose one of {list(MODELS)}")
    if isinstance(beta, bool) or not isinstance(beta, (int, float, np.integer, np.floating)) \
            or not np.isfinite(beta) or beta < 0:
        raise ValueError(f"beta must be a finite number >= 0, got {beta!r}")
    if not isinstance(oversample, (int, np.integer)) or isinstance(oversample, bool) or oversample < 1:
        raise ValueError(f"oversample must be a positive int, got {oversample!r}")


def _observations(observations) -> np.ndarray:
    obs = np.asarray(observations)
    if obs.dtype.kind not in "fiub":
        raise ValueError(f"observations must be a float array from rummy.observe, got dtype {obs.dtype}")
    obs = np.ascontiguousarray(obs, np.float32)
    if obs.ndim == 1:
        obs = obs[None]
    if obs.ndim != 2 or obs.shape[1] != R.OBS_DIM or obs.shape[0] < 1:
        raise ValueError(f"observations must be ({R.OBS_DIM},) or (B, {R.OBS_DIM}) Rummy observations "
                         f"(rummy.OBS_DIM), got shape {np.shape(observations)}")
    if not np.isfinite(obs).all():
        raise ValueError("observations hold NaN or infinite values")
    return obs


def _config(obs: np.ndarray, config, num_players) -> R.RummyConfig:
    """The rules of the observations' games: ``config`` checked against them, or (None)
    the default rules with the observations' player count, target and hand size."""
    present = obs[:, _L["seat_present"]] > 0.5
    P = present.sum(1)
    prefix = (present == (np.arange(_MAXP)[None, :] < P[:, None])).all(1)
    if not prefix.all() or (P != P[0]).any() or not R.MIN_PLAYERS <= P[0] <= R.MAX_PLAYERS:
        raise ValueError(f"seat_present must mark seats 0..P-1 with the same P ({R.MIN_PLAYERS}..{R.MAX_PLAYERS}) "
                         f"in every observation, got player counts {sorted(set(P.tolist()))}")
    P = int(P[0])
    if num_players is not None and num_players != P:
        raise ValueError(f"num_players={num_players!r} but the observations are of {P}-player games")
    phase = obs[:, _L["phase"]].argmax(1)
    if (phase == R.PHASE_DONE).any():
        raise ValueError(f"observations {np.flatnonzero(phase == R.PHASE_DONE).tolist()} are of finished "
                         "episodes (phase DONE): there is nothing hidden to sample")
    target = np.rint(obs[:, _L["target"].start].astype(np.float64) * 200.0).astype(np.int64)
    own = (obs[:, _L["hand"]] > 0.5).sum(1)
    rel = obs[:, _O_SIZES].astype(np.float64)
    if config is None:
        if (target != target[0]).any():
            raise ValueError(f"the observations come from games with different targets {sorted(set(target.tolist()))}")
        hand = np.rint(own / np.maximum(rel, 1e-9)).astype(np.int64)
        if (hand != hand[0]).any() or hand[0] < 1:
            raise ValueError("the observations' hand sizes disagree: pass the RummyConfig the games are played with")
        config = R.RummyConfig(num_players=P, episode="round", target=int(target[0]), hand_size=int(hand[0]))
    else:
        if not isinstance(config, R.RummyConfig):
            raise ValueError(f"config must be a RummyConfig, got {type(config).__name__}")
        if config.num_players != P:
            raise ValueError(f"config.num_players is {config.num_players} but the observations are of "
                             f"{P}-player games")
        if (target != config.target).any():
            raise ValueError(f"the observations' target {sorted(set(target.tolist()))} differs from the config's "
                             f"({config.target}): pass the RummyConfig the games are played with")
        config = dataclasses.replace(config, episode="round")
    passes = np.rint(obs[:, _O_PASSES]).astype(np.int64)
    left = obs[:, _O_LEFT] > 0.5
    if (left != (passes < config.stock_passes)).any():
        raise ValueError(f"passes_left disagrees with stock_passes={config.stock_passes}: pass the RummyConfig "
                         "the games are played with")
    actions = obs[:, _O_ACTIONS].astype(np.float64) * config.action_cap
    if (np.abs(actions - np.rint(actions)) > 1e-3).any() or (np.rint(actions) >= config.action_cap).any():
        raise ValueError(f"round_actions is not a count of actions under the move cap {config.action_cap}: "
                         "pass the RummyConfig (max_actions, stock_passes) the games are played with")
    return config


def _decode(obs: np.ndarray, config: R.RummyConfig) -> _Known:
    B, P, C = obs.shape[0], config.num_players, NUM_CARDS

    def z(shape, dtype=np.int64, fill=0):
        return np.full(shape, fill, dtype)

    k = _Known(
        config=config, hands=z((B, P, C), bool), hand_size=z((B, P), np.int8), known=z((B, P, C), bool),
        drawn_seen=z((B, P, C), bool), thrown=z((B, P, C), bool), passed=z((B, P, C), bool),
        melded=z((B, P), bool), scores=z((B, P), np.int32), table_slot=z((B, C), np.int8, -1),
        table_by=z((B, C), np.int8, -1), laid_off=z((B, C), bool), n_melds=z(B, np.int8),
        slot_owner=z((B, _K), np.int8, -1), slot_is_run=z((B, _K), bool), slot_ext=z((B, _K, 2), np.int8, -1),
        pile=z((B, C), np.int8, -1), pile_from=z((B, C), np.int8, -1), pile_len=z(B, np.int16),
        stock=z((B, C), np.int8, -1), stock_pos=z(B, np.int16), stock_len=z(B, np.int16), passes=z(B, np.int8),
        last_stock=z(B, bool), phase=z(B, np.int8), current=z(B, np.int8), dealer=z(B, np.int8),
        taken=z(B, np.int8, -1), round_actions=z(B, np.int16), hidden=z((B, C), np.int8, -1),
        n_hidden=z(B), slots=z((B, P)),
    )
    err = np.zeros(B, np.int64)
    _decode_kernel(obs, P, float(config.hand_size), float(config.target), float(config.action_cap),
                   config.stock_start, config.stock_passes, k.hands, k.hand_size, k.known, k.drawn_seen,
                   k.thrown, k.passed, k.melded, k.scores, k.table_slot, k.table_by, k.laid_off, k.n_melds,
                   k.slot_owner, k.slot_is_run, k.slot_ext, k.pile, k.pile_from, k.pile_len, k.stock,
                   k.stock_pos, k.stock_len, k.passes, k.last_stock, k.phase, k.current, k.dealer, k.taken,
                   k.round_actions, k.hidden, k.n_hidden, k.slots, err)
    bad = np.flatnonzero(err)
    if bad.size:
        raise ValueError(f"observation {bad[0]} is not a consistent Rummy observation of a {P}-player game: "
                         f"{_PROBLEMS[err[bad[0]]]}" + (f" (and {bad.size - 1} more)" if bad.size > 1 else ""))
    return k


# --------------------------------------------------------------------------------------
# Dealing the hidden cards
# --------------------------------------------------------------------------------------
@njit(cache=True, nogil=True)
def _shuffle_kernel(hidden, n_hidden, m, u, perm):
    """``perm[w]``: the hidden cards of observation ``w // m`` in a uniformly random order
    (Fisher-Yates driven by the uniforms ``u[w]``)."""
    for w in range(perm.shape[0]):
        b = w // m
        h = n_hidden[b]
        for i in range(h):
            perm[w, i] = hidden[b, i]
        for i in range(h - 1, 0, -1):
            j = int(u[w, i] * (i + 1))
            if j > i:  # u < 1 always; a guard against rounding
                j = i
            x = perm[w, i]
            perm[w, i] = perm[w, j]
            perm[w, j] = x


@njit(cache=True, nogil=True)
def _deal_kernel(perm, n, slots, stock_pos, hands, stock):
    """Give world ``w`` (of observation ``w // n``) its hidden cards from ``perm[w]``:
    opponents 1, 2, ... their ``slots``, the rest to the stock from ``stock_pos``."""
    P = slots.shape[1]
    for w in range(perm.shape[0]):
        b = w // n
        i = 0
        for q in range(1, P):
            for _ in range(slots[b, q]):
                hands[w, q, perm[w, i]] = True
                i += 1
        x = stock_pos[w]
        while i < perm.shape[1] and perm[w, i] >= 0:
            stock[w, x] = perm[w, i]
            i += 1
            x += 1


def _shuffles(k: _Known, m: int, rng: np.random.Generator) -> np.ndarray:
    """``(B * m, H)`` int8: ``m`` uniformly random orders of each observation's hidden cards
    (-1 past the end), world ``j`` of observation ``b`` at row ``b * m + j``."""
    B = k.hidden.shape[0]
    H = max(int(k.n_hidden.max()), 1)
    u = rng.random((B * m, H))
    perm = np.full((B * m, H), -1, np.int8)
    _shuffle_kernel(k.hidden, k.n_hidden, m, u, perm)
    return perm


# --------------------------------------------------------------------------------------
# The opponent model
# --------------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _dw(m):
    return deadwood_one(m[0], m[1], m[2], m[3])


@njit(cache=True, nogil=True)
def _partners(m, s, r):
    """Cards of the hand ``m`` that form a partial meld with card (s, r): the same rank, or
    the same suit within two ranks."""
    n = 0
    for t in range(NUM_SUITS):
        if t != s:
            n += (m[t] >> r) & 1
    for d in (-2, -1, 1, 2):
        x = r + d
        if 0 <= x < NUM_RANKS:
            n += (m[s] >> x) & 1
    return n


@njit(cache=True, inline="always")
def _log_sigmoid(x):
    if x >= 0:
        return -np.log1p(np.exp(-x))
    return x - np.log1p(np.exp(x))


@njit(cache=True, nogil=True)
def _seat_log_likelihood(m, thrown, passed, beta, partial, judge_melds, scores):
    """Log-likelihood of one opponent's throws and declines (``thrown``, ``passed``: (52,)
    bool) and, with ``judge_melds``, of the melds it keeps, given its hand as suit masks
    ``m`` (the module docstring's model). ``scores``: scratch space for 53 floats."""
    ll = 0.0
    base = _dw(m)
    for c in range(NUM_CARDS):
        if not (thrown[c] or passed[c]):
            continue
        s, r = c // NUM_RANKS, c % NUM_RANKS
        bit = 1 << r
        if m[s] & bit:  # it holds the card again: its hand changed too much to judge
            continue
        m[s] |= bit
        with_c = _dw(m)
        if thrown[c]:
            # softmin over the cards of H + c of how much each helps the others
            n = 0
            best = 1e300
            mine = 0.0
            for t in range(NUM_SUITS):
                v = m[t]
                while v:
                    low = v & -v
                    v &= v - 1
                    x_r = 0
                    while (low >> x_r) != 1:
                        x_r += 1
                    m[t] &= ~low
                    u = _dw(m) - with_c + partial * _partners(m, t, x_r)
                    m[t] |= low
                    scores[n] = beta * u
                    if t == s and x_r == r:
                        mine = beta * u
                    if scores[n] < best:
                        best = scores[n]
                    n += 1
            total = 0.0
            for i in range(n):
                total += np.exp(best - scores[i])
            ll += best - mine - np.log(total)
        m[s] &= ~bit
        if passed[c]:
            u = base - with_c + partial * _partners(m, s, r)
            ll += _log_sigmoid(-beta * u)
    if judge_melds:
        value = 0
        for t in range(NUM_SUITS):
            v = m[t]
            for x_r in range(NUM_RANKS):
                if (v >> x_r) & 1:
                    value += _VALUE[t * NUM_RANKS + x_r]
        pts = value - base
        if pts > 0:
            ll += _LOG2 + _log_sigmoid(-beta * pts)
    return ll


@njit(cache=True, nogil=True)
def _judge_melds(thrown_q, q, current, phase):
    """Whether seat ``q``'s current hand is the one it ended a turn with: it has finished
    a turn this round (thrown a card) and is not in the middle of one."""
    if q == current and phase == R.PHASE_PLAY:
        return False
    for c in range(NUM_CARDS):
        if thrown_q[c]:
            return True
    return False


@njit(cache=True, nogil=True)
def _perm_ll_kernel(perm, m, fixed, slots, thrown, passed, current, phase, beta, partial, out):
    """``out[w]``: log-likelihood of world ``w`` given as a shuffle ``perm[w]`` of the hidden
    cards of observation ``w // m`` (dealt as in _deal_kernel) on top of ``fixed`` hands."""
    P = fixed.shape[1]
    mm = np.zeros(NUM_SUITS, np.int64)
    scratch = np.empty(NUM_CARDS + 1, np.float64)
    for w in range(perm.shape[0]):
        b = w // m
        ll = 0.0
        i = 0
        for q in range(1, P):
            suit_masks_one(fixed[b, q], mm)
            for _ in range(slots[b, q]):
                c = perm[w, i]
                i += 1
                mm[c // NUM_RANKS] |= 1 << (c % NUM_RANKS)
            ll += _seat_log_likelihood(mm, thrown[b, q], passed[b, q], beta, partial,
                                       _judge_melds(thrown[b, q], q, current[b], phase[b]), scratch)
        out[w] = ll


@njit(cache=True, nogil=True)
def _state_ll_kernel(hands, thrown, passed, current, phase, beta, partial, out):
    P = hands.shape[1]
    mm = np.zeros(NUM_SUITS, np.int64)
    scratch = np.empty(NUM_CARDS + 1, np.float64)
    for w in range(hands.shape[0]):
        ll = 0.0
        for q in range(1, P):
            suit_masks_one(hands[w, q], mm)
            ll += _seat_log_likelihood(mm, thrown[w, q], passed[w, q], beta, partial,
                                       _judge_melds(thrown[w, q], q, current[w], phase[w]), scratch)
        out[w] = ll


def log_likelihood(state: R.RummyState, beta: float = DEFAULT_BETA) -> np.ndarray:
    """``(B,)`` float64: the opponent model's log-likelihood (module docstring) of the throws,
    declines and kept melds of seats ``1..P-1`` in each game of ``state``, given their hands
    there (the observer is seat 0, as in sampled worlds)."""
    _check_args(1, "weighted", beta, 1)
    out = np.empty(state.batch_size, np.float64)
    _state_ll_kernel(state.hands, state.thrown, state.passed, state.current, state.phase, float(beta),
                     PARTIAL_POINTS, out)
    return out


def _resample(ll: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """Systematic resampling: ``(B, n)`` indices into the ``m`` draws of each row of ``ll``
    ``(B, m)``, each kept with probability proportional to ``exp(ll)``."""
    B, m = ll.shape
    w = np.exp(ll - ll.max(1, keepdims=True))
    cdf = np.cumsum(w, 1)
    cdf /= cdf[:, -1:]
    cdf[:, -1] = 1.0
    # one search over all rows: row b's cdf and points are shifted by b
    u = (rng.random((B, 1)) + np.arange(n)[None, :]) / n + np.arange(B)[:, None]
    idx = np.searchsorted((cdf + np.arange(B)[:, None]).ravel(), u.ravel(), side="right")
    return np.minimum(idx.reshape(B, n) - np.arange(B)[:, None] * m, m - 1)


# --------------------------------------------------------------------------------------
# The API
# --------------------------------------------------------------------------------------
def _draw(observations, n, rng, config, num_players, model, beta, oversample):
    _check_args(n, model, beta, oversample)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be an np.random.Generator (np.random.default_rng(seed)), got {rng!r}")
    obs = _observations(observations)
    k = _decode(obs, _config(obs, config, num_players))
    m = n * oversample if model == "weighted" else n
    perm = _shuffles(k, m, rng)
    if model == "weighted":
        ll = np.empty(perm.shape[0], np.float64)
        _perm_ll_kernel(perm, m, k.hands, k.slots, k.thrown, k.passed, k.current, k.phase, float(beta),
                        PARTIAL_POINTS, ll)
    else:
        ll = np.zeros(perm.shape[0])
    return k, perm, ll.reshape(-1, m)


def sample_worlds(observations, n: int, rng: np.random.Generator, config: R.RummyConfig | None = None,
                  num_players: int | None = None, model: str = "uniform", beta: float = DEFAULT_BETA,
                  oversample: int = 4) -> Worlds:
    """``n`` full states per observation, consistent with it (see the module docstring).

    ``observations``: ``(OBS_DIM,)`` or ``(B, OBS_DIM)`` from :func:`rummyrl.rummy.observe`,
    not of finished episodes, all of games with the same number of players. ``config``:
    the rules the games are played with (checked against the observations: players,
    target, stock passes, move cap); None takes the default rules with the observations'
    player count, target and hand size. ``num_players``: optional check of the count.
    ``model``: ``"uniform"`` or ``"weighted"`` (``beta``, ``oversample``).
    Same ``rng`` state, same worlds.
    """
    k, perm, ll = _draw(observations, n, rng, config, num_players, model, beta, oversample)
    B, m = ll.shape
    if model == "weighted":
        pick = _resample(ll, n, rng)
        rows = (np.arange(B)[:, None] * m + pick).ravel()
        perm, ll = perm[rows], ll.ravel()[rows]
    state = _build(k, perm, n, rng)
    return Worlds(state, n, ll.reshape(-1).astype(np.float64))


@njit(cache=True, nogil=True)
def _holdings_kernel(perm, m, slots, weight, out):
    """``out[b, q, c]`` += the weight of each world of observation ``b`` in which opponent
    ``q`` is dealt hidden card ``c``."""
    P = slots.shape[1]
    for w in range(perm.shape[0]):
        b = w // m
        i = 0
        for q in range(1, P):
            for _ in range(slots[b, q]):
                out[b, q, perm[w, i]] += weight[w]
                i += 1


def opponent_card_probabilities(observations, n: int, rng: np.random.Generator,
                                config: R.RummyConfig | None = None, num_players: int | None = None,
                                model: str = "uniform", beta: float = DEFAULT_BETA,
                                oversample: int = 4) -> np.ndarray:
    """``(B, MAX_PLAYERS, 52)`` float64: the estimated probability that relative seat ``r``
    holds each card, from ``n`` uniform worlds (``"uniform"``) or ``n * oversample`` uniform
    worlds weighted by the opponent model (``"weighted"``: self-normalised importance
    weights, without the noise of resampling). Seat 0 is the observer's own hand (0/1),
    cards known to be held are 1, seats beyond the game's players are 0. Arguments as in
    :func:`sample_worlds`."""
    k, perm, ll = _draw(observations, n, rng, config, num_players, model, beta, oversample)
    B, m = ll.shape
    w = np.exp(ll - ll.max(1, keepdims=True))
    w /= w.sum(1, keepdims=True)
    out = np.zeros((B, _MAXP, NUM_CARDS), np.float64)
    _holdings_kernel(perm, m, k.slots, w.ravel(), out)
    out[:, : k.hands.shape[1]] += k.hands
    return out


def _build(k: _Known, perm: np.ndarray, n: int, rng: np.random.Generator) -> R.RummyState:
    """The ``B * n`` worlds: the known arrays repeated, the shuffles ``perm`` dealt."""
    B = k.hands.shape[0]
    W = B * n
    cfg = k.config
    st = R._alloc(W, cfg, game_seeds(rng, W), np.zeros((W, 0, NUM_CARDS), np.int8), np.zeros((W, 0), np.int8))
    for name in ("hands", "hand_size", "known", "drawn_seen", "thrown", "passed", "melded", "scores",
                 "table_slot", "table_by", "laid_off", "n_melds", "slot_owner", "slot_is_run", "slot_ext",
                 "pile", "pile_from", "pile_len", "stock", "stock_pos", "stock_len", "passes", "last_stock",
                 "phase", "current", "dealer", "taken", "round_actions"):
        getattr(st, name)[:] = np.repeat(getattr(k, name), n, axis=0)
    st.deck[:] = -1  # the deal order of a sampled world is unknown (and never used in a round)
    _deal_kernel(perm, n, k.slots, st.stock_pos, st.hands, st.stock)
    R.update_mask(st)
    return st
