"""Beliefs over the hidden cards of Gin Rummy: full game states consistent with what one
player knows, built from that player's observation alone.

A player's observation (:func:`rummyrl.gin.observe`) holds everything it knows: its hand,
the discard pile in order, the cards the opponent took from the pile and still holds, what
each side threw and declined, the stock size, scores and the phase. What it does not know
is the opponent's other cards and the order of the stock. :func:`sample_worlds` deals
those, ``n`` times per observation, into full :class:`~rummyrl.gin.GinState` games that a
search can play on (determinized search): in every world the observer's observation is
exactly the real one, every card is in one place, and the legal actions are the real ones.

Worlds
------
The observer sits at seat 0 of every world and its opponent at seat 1; world ``j`` of
observation ``b`` is row ``b * n + j``. Worlds are one-hand episodes (``episode="hand"``)
with the scores, hands won and target of the observation, so a rollout ends with the hand
and its points are the game's. What no observation tells (the hand number, the game's
seed) is set to 0 / drawn at random; neither affects the hand being played.

Models
------
``"uniform"``: every consistent assignment of the unknown cards (the opponent's hidden
cards and the stock order) is equally likely.

``"weighted"``: the opponent's hidden cards follow an opponent model,

    log P(hand) = -gamma * turns * deadwood(hand) - beta * sum over evidence cards of u(card, hand)

(up to a constant), sampled by Metropolis steps from a uniform start (``steps`` swaps of
one hidden card with one unknown stock card per world; the stock order stays uniform).
What it assumes:

* A player who has played ``turns`` turns of the hand (the cards it threw) has improved its
  hand: its deadwood is lower the longer the hand has gone on. Uniform hands hold about
  50 deadwood at every stage, while an expert's hand holds about 45 after its first turns
  and 7 after ten; with ``gamma = 0.04`` the sampled hands follow that fall
  (``benchmarks/bench_beliefs.py`` prints both).
* A player throws or declines a card with probability proportional to ``exp(-beta * u)``,
  where ``u`` is how much that card would have lowered its deadwood (best deadwood with the
  card added and another thrown, against its deadwood without it; 0 for a card that does
  not help). Every thrown and declined card is judged against the opponent's *current*
  hand in the world, a proxy for the hand it held when it acted, and the normalising sum
  over the alternatives it had is ignored. Cards it threw and later took back are not
  counted.

* With ``knock = K`` (>= 0), a player who has played a turn of the hand would already have
  knocked with deadwood ``K`` or less (``simple`` knocks at 10, the knock limit; every
  baseline goes gin when it can, ``K = 0``): such hands lose :data:`KNOCK_PENALTY` nats.
  ``knock = -1`` (the default) assumes nothing about knocking.

``beta = gamma = 0``, ``knock = -1`` is the uniform model.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from . import gin
from .cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from .melds import deadwood_one, min_after_discard_one, suit_masks_one

MODELS = ("uniform", "weighted")
#: the opponent model's weight per deadwood point a thrown or declined card would have saved
DEFAULT_BETA = 0.1
#: its weight per deadwood point of the hand and per turn the opponent has played this hand;
#: both chosen by the log-probability of true hands in benchmarks/bench_beliefs.py
DEFAULT_GAMMA = 0.04
#: Metropolis steps per world of the weighted model
DEFAULT_STEPS = 40

_L = gin.OBS_LAYOUT


@dataclass
class Worlds:
    """``n`` sampled full states per observation (see the module docstring)."""

    state: gin.GinState
    """``B * n`` one-hand games; world ``j`` of observation ``b`` is row ``b * n + j``."""
    n: int
    """Worlds per observation."""
    log_weight: np.ndarray
    """``(B * n,)`` float64: the opponent model's log-probability of each world's opponent
    hand, up to a constant (zeros for ``"uniform"``); the worlds are equally weighted draws
    from the model either way."""


@dataclass
class _Known:
    """What B observations say, as engine arrays (the observer is seat 0)."""

    hand: np.ndarray  # (B, 52) bool
    opp_known: np.ndarray  # (B, 52) bool
    pile: np.ndarray  # (B, 52) int8, bottom first, -1 past the end
    pile_len: np.ndarray  # (B,)
    unknown: np.ndarray  # (B, 52) bool: the opponent's hidden cards and the stock
    hidden: np.ndarray  # (B,) int: the opponent's cards not known to the observer
    stock_top: np.ndarray  # (B,)
    phase: np.ndarray
    current: np.ndarray
    evidence: np.ndarray  # (B, 52) bool: cards the opponent threw or declined, not held again


def _check_shape(obs: np.ndarray) -> None:
    if obs.ndim != 2 or obs.shape[1] != gin.OBS_DIM or obs.shape[0] == 0:
        raise ValueError(f"observations must be ({gin.OBS_DIM},) or (B, {gin.OBS_DIM}) Gin observations "
                         f"with B >= 1, got shape {obs.shape}")


def _parse(obs: np.ndarray, config: gin.GinConfig) -> _Known:
    _check_shape(obs)
    part = {name: obs[:, sl] for name, sl in _L.items()}
    phase = np.argmax(np.concatenate([part[k] for k in ("phase_offer", "phase_draw", "phase_discard",
                                                         "phase_done")], 1), 1)
    if (phase == gin.PHASE_DONE).any():
        raise ValueError(f"observations {np.flatnonzero(phase == gin.PHASE_DONE).tolist()} are of finished "
                         "episodes (phase DONE): there is nothing hidden to sample")
    target = np.rint(part["target"][:, 0] * 100.0)
    if (target != config.target).any():
        raise ValueError(f"the observations' target {sorted(set(target.astype(int).tolist()))} differs from "
                         f"the config's ({config.target}): pass the GinConfig the games are played with")
    hand = part["hand"] > 0.5
    opp_known = part["opp_known"] > 0.5
    in_pile = part["pile"] > 0.5
    pile_len = in_pile.sum(1)
    B = obs.shape[0]
    pile = np.full((B, NUM_CARDS), -1, np.int8)
    b, c = np.nonzero(in_pile)
    pos = np.rint(part["pile_recency"][b, c] * pile_len[b]).astype(np.int64) - 1
    pile[b, pos] = c
    current = np.where(part["my_turn"][:, 0] > 0.5, 0, 1)
    stock_top = NUM_CARDS - np.rint(part["stock_size"][:, 0] * (NUM_CARDS - gin.STOCK_START)).astype(np.int64)
    holding = gin.HAND_SIZE + ((phase == gin.PHASE_DISCARD) & (current == 1))
    hidden = holding - opp_known.sum(1)
    unknown = ~(hand | in_pile | opp_known)
    bad = unknown.sum(1) != hidden + (NUM_CARDS - stock_top)
    if bad.any() or (pile >= 0).sum(1).tolist() != pile_len.tolist():
        raise ValueError(f"observations {np.flatnonzero(bad).tolist()} are inconsistent: the unseen cards do "
                         "not match the opponent's hidden cards plus the stock")
    evidence = ((part["opp_thrown"] > 0.5) | (part["opp_passed"] > 0.5)) & ~opp_known
    return _Known(hand, opp_known, pile, pile_len, unknown, hidden, stock_top, phase, current, evidence)


def _deal_hidden(k: _Known, m: int, rng: np.random.Generator) -> np.ndarray:
    """``m`` uniform assignments of the unknown cards per observation, ``(B, m, 52)``: the
    rank of each unknown card in a random order. Cards ranked below ``k.hidden`` are the
    opponent's hidden cards, the others go to the stock in rank order."""
    B = k.hand.shape[0]
    keys = rng.random((B, m, NUM_CARDS))
    keys[~np.broadcast_to(k.unknown[:, None, :], keys.shape)] = 2.0  # known cards sort last
    return np.argsort(np.argsort(keys, axis=2), axis=2)


#: log-probability taken off a hand the opponent would already have knocked with (a soft
#: constraint, so a Metropolis chain that starts in such a hand still walks out of it)
KNOCK_PENALTY = 30.0


@njit(cache=True, nogil=True)
def _log_prob(hand, evidence, beta, gamma, limit, m):
    """The opponent model's log-probability (up to a constant) of the opponent's hand
    ``hand`` (52 bool): ``-gamma * deadwood - beta * sum of the deadwood each evidence card
    (thrown or declined, not held) would have saved it``, less :data:`KNOCK_PENALTY` when
    the deadwood is at most ``limit`` (-1: no limit). ``m``: scratch of 4 ints."""
    suit_masks_one(hand, m)
    base = deadwood_one(m[0], m[1], m[2], m[3])
    lp = -gamma * base
    if base <= limit:
        lp -= KNOCK_PENALTY
    if beta > 0:
        for c in range(NUM_CARDS):
            if not evidence[c] or hand[c]:
                continue
            s, r = c // NUM_RANKS, c % NUM_RANKS
            m[s] |= 1 << r
            gain = base - min_after_discard_one(m, s, r)
            m[s] &= ~(1 << r)
            if gain > 0:
                lp -= beta * gain
    return lp


@njit(cache=True, nogil=True)
def _log_prob_kernel(hands, evidence, beta, gamma, limit, out):
    m = np.zeros(NUM_SUITS, np.int64)
    for i in range(hands.shape[0]):
        out[i] = _log_prob(hands[i], evidence[i], beta, gamma[i], limit[i], m)


def log_likelihood(opp_hands: np.ndarray, evidence: np.ndarray, beta: float = DEFAULT_BETA,
                   gamma=0.0, limit=-1) -> np.ndarray:
    """The opponent model's log-probability (up to a constant) of the opponent's hands
    ``(K, 52)`` bool, given the cards it threw or declined ``evidence`` ``(K, 52)`` bool, the
    deadwood weight ``gamma`` and the knock limit ``limit`` (numbers or ``(K,)``)."""
    opp_hands = np.ascontiguousarray(opp_hands, bool)
    out = np.empty(opp_hands.shape[0], np.float64)
    g = np.broadcast_to(np.asarray(gamma, np.float64), out.shape).copy()
    lim = np.broadcast_to(np.asarray(limit, np.float64), out.shape).copy()
    _log_prob_kernel(opp_hands, np.ascontiguousarray(evidence, bool), float(beta), g, lim, out)
    return out


@njit(cache=True, nogil=True)
def _mcmc_rows(rank, n, hidden, unknown, opp_known, evidence, beta, gamma, limit, rand, out, lo, hi):
    hand = np.zeros(NUM_CARDS, np.bool_)
    m = np.zeros(NUM_SUITS, np.int64)
    hid = np.zeros(NUM_CARDS, np.int64)
    sto = np.zeros(NUM_CARDS, np.int64)
    for w in range(lo, hi):
        b = w // n
        h, u = hidden[b], unknown[b]
        nh = 0
        ns = 0
        for c in range(NUM_CARDS):
            hand[c] = opp_known[b, c]
            if rank[w, c] < h:
                hand[c] = True
                hid[nh] = c
                nh += 1
            elif rank[w, c] < u:
                sto[ns] = c
                ns += 1
        cur = _log_prob(hand, evidence[b], beta, gamma[b], limit[b], m)
        if nh > 0 and ns > 0:
            for t in range(rand.shape[1]):
                i = int(rand[w, t, 0] * nh)
                j = int(rand[w, t, 1] * ns)
                a, c = hid[i], sto[j]
                hand[a] = False
                hand[c] = True
                new = _log_prob(hand, evidence[b], beta, gamma[b], limit[b], m)
                if np.log(rand[w, t, 2]) < new - cur:  # Metropolis: the swap is symmetric
                    cur = new
                    hid[i], sto[j] = c, a
                    rank[w, a], rank[w, c] = rank[w, c], rank[w, a]
                else:
                    hand[a] = True
                    hand[c] = False
        out[w] = cur


#: worlds per chunk of the compiled sampler's work, spread over the cores
_CHUNK = 512


@njit(cache=True, parallel=True)
def _mcmc_kernel(rank, n, hidden, unknown, opp_known, evidence, beta, gamma, limit, rand, out):
    """Metropolis swaps of one hidden card with one unknown stock card per step, for every
    world ``w`` (of observation ``w // n``); ``rank`` is updated in place."""
    W = rank.shape[0]
    for k in prange((W + _CHUNK - 1) // _CHUNK):
        _mcmc_rows(rank, n, hidden, unknown, opp_known, evidence, beta, gamma, limit, rand, out,
                   k * _CHUNK, min(W, (k + 1) * _CHUNK))


def _check(n, model, beta, gamma, steps, knock=-1):
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise ValueError(f"n (worlds per observation) must be a positive int, got {n!r}")
    if model not in MODELS:
        raise ValueError(f"unknown belief model {model!r}; choose one of {list(MODELS)}")
    for name, v in (("beta", beta), ("gamma", gamma)):
        if not (isinstance(v, (int, float)) and np.isfinite(v) and v >= 0):
            raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
    if not isinstance(steps, (int, np.integer)) or steps < 0:
        raise ValueError(f"steps must be an int >= 0, got {steps!r}")
    if not (isinstance(knock, (int, float, np.integer)) and np.isfinite(knock) and knock >= -1):
        raise ValueError(f"knock must be a deadwood limit >= 0, or -1 for none, got {knock!r}")


def _draw(observations, n, rng, config, model, beta, gamma, steps, knock=-1):
    """The opponent's hidden cards of ``n`` worlds per observation: ``(obs, config, known,
    rank (B, n, 52), log_prob (B, n))``; cards ranked below ``known.hidden`` are its hidden
    cards, the other unknown ones go to the stock in rank order."""
    obs = np.asarray(observations, np.float32)
    obs = obs[None] if obs.ndim == 1 else obs
    _check(n, model, beta, gamma, steps, knock)
    _check_shape(obs)
    if config is None:  # the default rules, to the observations' target
        config = gin.GinConfig(target=int(np.rint(obs[0, _L["target"]][0] * 100.0)))
    k = _parse(obs, config)
    B = obs.shape[0]
    rank = _deal_hidden(k, n, rng)
    lp = np.zeros((B, n))
    if model == "weighted":
        rank = np.ascontiguousarray(rank.reshape(B * n, NUM_CARDS))
        turns = (obs[:, _L["opp_thrown"]] > 0.5).sum(1)
        out = np.empty(B * n)
        limit = np.where(turns > 0, float(knock), -1.0)  # no knock before its first turn
        _mcmc_kernel(rank, n, k.hidden.astype(np.int64), k.unknown.sum(1).astype(np.int64), k.opp_known,
                     k.evidence, float(beta), gamma * turns.astype(np.float64), limit,
                     rng.random((B * n, steps, 3)), out)
        rank, lp = rank.reshape(B, n, NUM_CARDS), out.reshape(B, n)
    return obs, config, k, rank, lp


def sample_worlds(observations, n: int, rng: np.random.Generator, config: gin.GinConfig | None = None,
                  model: str = "uniform", beta: float = DEFAULT_BETA, gamma: float = DEFAULT_GAMMA,
                  steps: int = DEFAULT_STEPS, knock: float = -1) -> Worlds:
    """``n`` full states per observation, consistent with it (see the module docstring).

    ``observations``: ``(OBS_DIM,)`` or ``(B, OBS_DIM)`` from :func:`rummyrl.gin.observe`
    (not of finished episodes). ``config``: the rules the games are played with (its
    ``target`` must be the observations'; None: the default rules to that target). ``model``: ``"uniform"`` or ``"weighted"``;
    ``beta``, ``gamma``, ``knock`` and ``steps`` (Metropolis steps per world) are the
    weighted model's.
    """
    obs, config, k, rank, lp = _draw(observations, n, rng, config, model, beta, gamma, steps, knock)
    state = _build(obs, config, k, rank < k.hidden[:, None, None], rank, n, rng)
    return Worlds(state, n, lp.reshape(-1))


def opponent_card_probabilities(observations, n: int, rng: np.random.Generator,
                                config: gin.GinConfig | None = None, model: str = "uniform",
                                beta: float = DEFAULT_BETA, gamma: float = DEFAULT_GAMMA,
                                steps: int = DEFAULT_STEPS, knock: float = -1) -> np.ndarray:
    """``(B, 52)``: the estimated probability that the opponent holds each card, the mean
    over ``n`` sampled worlds per observation. Known cards are 0 or 1."""
    obs, config, k, rank, lp = _draw(observations, n, rng, config, model, beta, gamma, steps, knock)
    return (rank < k.hidden[:, None, None]).mean(1) + k.opp_known


def _build(obs, config, k: _Known, opp_hidden, rank, n, rng) -> gin.GinState:
    B = obs.shape[0]
    K = B * n
    part = {name: obs[:, sl] for name, sl in _L.items()}
    rep = lambda a: np.repeat(a, n, axis=0)  # noqa: E731
    cfg = dataclasses.replace(config, episode="hand")
    st = gin.init(K, seed=rng.integers(2**63), config=cfg)
    hands = np.zeros((K, 2, NUM_CARDS), bool)
    hands[:, 0] = rep(k.hand)
    hands[:, 1] = rep(k.opp_known) | opp_hidden.reshape(K, NUM_CARDS)
    st.hands[:] = hands
    # the deck: the stock in its sampled order at [stock_top, 52), every other card before it
    stock_top = rep(k.stock_top)
    hidden = rep(k.hidden)
    rank = rank.reshape(K, NUM_CARDS)
    unknown = rep(k.unknown)
    in_stock = unknown & (rank >= hidden[:, None])
    deck = np.full((K, NUM_CARDS), -1, np.int64)
    r, c = np.nonzero(in_stock)
    deck[r, stock_top[r] + rank[r, c] - hidden[r]] = c
    r, c = np.nonzero(~in_stock)
    before = np.cumsum(~in_stock, 1) - 1
    deck[r, before[r, c]] = c
    st.deck[:] = deck
    st.stock_top[:] = stock_top
    st.pile[:] = rep(k.pile)
    st.pile_len[:] = rep(k.pile_len)
    my_thrown, opp_thrown = part["my_thrown"] > 0.5, part["opp_thrown"] > 0.5
    pile_from = np.full((B, NUM_CARDS), -1, np.int8)
    b, pos = np.nonzero(k.pile >= 0)
    card = k.pile[b, pos]
    # who threw each pile card is not observed where both did; it is never used by the rules
    pile_from[b, pos] = np.where(my_thrown[b, card], 0, np.where(opp_thrown[b, card], 1, -1))
    st.pile_from[:] = rep(pile_from)
    st.known[:, 0] = rep(part["my_known"] > 0.5)
    st.known[:, 1] = rep(k.opp_known)
    st.passed[:, 0] = rep(part["my_passed"] > 0.5)
    st.passed[:, 1] = rep(part["opp_passed"] > 0.5)
    st.thrown[:, 0] = rep(my_thrown)
    st.thrown[:, 1] = rep(opp_thrown)
    st.phase[:] = rep(k.phase)
    st.current[:] = rep(k.current)
    st.dealer[:] = rep(np.where(part["i_am_dealer"][:, 0] > 0.5, 0, 1))
    taken = part["taken"] > 0.5
    st.taken[:] = rep(np.where(taken.any(1), taken.argmax(1), -1))
    st.must_draw_stock[:] = rep(part["must_draw_stock"][:, 0] > 0.5)
    st.hand_actions[:] = rep(np.rint(part["hand_actions"][:, 0] * cfg.max_actions))
    st.scores[:, 0] = rep(np.rint(part["my_score"][:, 0] * cfg.target))
    st.scores[:, 1] = rep(np.rint(part["opp_score"][:, 0] * cfg.target))
    st.hands_won[:, 0] = rep(np.rint(part["my_hands_won"][:, 0] * 10))
    st.hands_won[:, 1] = rep(np.rint(part["opp_hands_won"][:, 0] * 10))
    gin.update_mask(st)
    return st
