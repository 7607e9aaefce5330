"""Gin Rummy beliefs (rummyrl.gin_beliefs): sampled worlds agree with everything the
observer knows, the uniform mode is uniform and the weighted mode follows its model
(both against exact enumeration), and the opponent model finds the opponent's cards."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from rummyrl import gin, melds
from rummyrl import gin_beliefs as GB
from rummyrl.agents import load_agent
from rummyrl.cards import NUM_CARDS


def positions(games: int = 48, steps: int = 90, seed: int = 0, every: int = 3):
    """Observations (of both seats) and the true states they come from, along expert games."""
    expert = load_agent("expert", game="gin")
    st = gin.init(games, seed=seed)
    out = []
    for t in range(steps):
        obs = gin.observe(st)
        live = ~st.game_over
        if t % every == 0:
            for player in (0, 1):
                rows = np.flatnonzero(live & (st.phase != gin.PHASE_DONE))
                out.append((gin.observe(st, player=player)[rows], st.take(rows), player))
        actions = np.zeros(games, np.int64)
        actions[live] = expert.act(obs[live], st.mask[live])
        gin.step(st, actions, inplace=True)
    return out


@pytest.fixture(scope="module")
def expert_positions():
    return positions()


def stock_cards(st: gin.GinState, b: int) -> list[int]:
    return [int(c) for c in st.deck[b, st.stock_top[b]:]]


@pytest.mark.slow
@pytest.mark.parametrize("model", ["uniform", "weighted"])
def test_worlds_agree_with_the_observation(expert_positions, model):
    rng = np.random.default_rng(1)
    n = 4
    checked = 0
    for obs, real, player in expert_positions:
        w = GB.sample_worlds(obs, n, rng, model=model)
        ws = w.state
        assert ws.batch_size == len(obs) * n and w.log_weight.shape == (len(obs) * n,)
        # the observer's view of every world is its real view, exactly
        assert np.array_equal(gin.observe(ws, player=0), np.repeat(obs, n, axis=0))
        real_rows = np.repeat(np.arange(len(obs)), n)
        opp = 1 - player
        # known cards where they are known to be
        assert np.array_equal(ws.hands[:, 0], real.hands[real_rows, player])
        assert (ws.hands[:, 1] >= real.known[real_rows, opp]).all()
        assert np.array_equal(ws.pile, real.pile[real_rows])
        assert np.array_equal(ws.stock_top, real.stock_top[real_rows])
        assert np.array_equal(ws.hands[:, 1].sum(1), real.hands[real_rows, opp].sum(1))
        # the observer's legal actions are the real ones
        mine = real.current[real_rows] == player
        assert np.array_equal(ws.mask[mine], real.mask[real_rows][mine])
        for b in range(ws.batch_size):  # every card in exactly one place
            places = (np.flatnonzero(ws.hands[b, 0]).tolist() + np.flatnonzero(ws.hands[b, 1]).tolist()
                      + ws.pile[b, : ws.pile_len[b]].tolist() + stock_cards(ws, b))
            assert sorted(places) == list(range(NUM_CARDS))
        checked += ws.batch_size
    assert checked > 4000


def test_worlds_play_on_legally():
    """A world is a state the engine plays on: random play to the end of the hand."""
    rng = np.random.default_rng(2)
    (obs, _, _), *_ = positions(games=16, steps=20, every=20)
    w = GB.sample_worlds(obs, 8, rng, model="weighted")
    st = w.state
    from rummyrl.random_play import random_actions

    while not st.game_over.all():
        gin.step(st, random_actions(st.mask, rng), inplace=True)
    assert st.hand_ended.any() or st.game_over.all()


def test_same_seed_same_worlds(expert_positions):
    obs = expert_positions[5][0]
    a = GB.sample_worlds(obs, 16, np.random.default_rng(7), model="weighted")
    b = GB.sample_worlds(obs, 16, np.random.default_rng(7), model="weighted")
    assert np.array_equal(a.state.hands, b.state.hands) and np.array_equal(a.state.deck, b.state.deck)
    c = GB.sample_worlds(obs, 16, np.random.default_rng(8), model="weighted")
    assert not np.array_equal(a.state.deck, c.state.deck)


def test_bad_input_is_a_clear_error(expert_positions):
    obs = expert_positions[0][0]
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="n .worlds per observation"):
        GB.sample_worlds(obs, 0, rng)
    with pytest.raises(ValueError, match="unknown belief model 'exact'"):
        GB.sample_worlds(obs, 4, rng, model="exact")
    with pytest.raises(ValueError, match=r"\(794,\) or \(B, 794\)"):
        GB.sample_worlds(obs[:, :100], 4, rng)
    with pytest.raises(ValueError, match="target"):
        GB.sample_worlds(obs, 4, rng, config=gin.GinConfig(target=50))
    done = obs[:1].copy()
    done[0, gin.OBS_LAYOUT["phase_draw"]] = 0
    done[0, gin.OBS_LAYOUT["phase_offer"]] = 0
    done[0, gin.OBS_LAYOUT["phase_discard"]] = 0
    done[0, gin.OBS_LAYOUT["phase_done"]] = 1
    with pytest.raises(ValueError, match="phase DONE"):
        GB.sample_worlds(done, 4, rng)


# --------------------------------------------------------------------------------------
# Against exact enumeration on a small position
# --------------------------------------------------------------------------------------
def small_position(evidence: bool):
    """Late in a hand: 3 stock cards, and the opponent (seat 1) known to hold 8 of its 10
    cards, so 5 cards are unknown: 2 hidden in its hand and 3 in the stock (10 ways to
    split them, 6 stock orders). Player 0 is to draw."""
    st = gin.init(1, seed=0)
    cards = np.arange(NUM_CARDS)
    mine = np.array([0, 1, 2, 16, 17, 18, 30, 31, 44, 45])  # A-2-3 spades, 4-5-6 hearts, ...
    opp_known = np.array([6, 7, 8, 19, 20, 21, 33, 34])
    unknown = np.array([9, 10, 22, 35, 47])  # 10s Js 10h 10d 9c
    pile = np.setdiff1d(cards, np.concatenate([mine, opp_known, unknown]))
    st.hands[:] = False
    st.hands[0, 0, mine] = True
    st.hands[0, 1, opp_known] = True
    st.hands[0, 1, unknown[:2]] = True
    st.known[:] = False
    st.known[0, 1, opp_known] = True
    st.pile[0, :] = -1
    st.pile[0, : pile.size] = pile
    st.pile_len[0] = pile.size
    st.stock_top[0] = NUM_CARDS - 3
    st.deck[0] = np.concatenate([mine, opp_known, unknown[:2], pile, unknown[2:]])
    st.thrown[:] = False
    st.passed[:] = False
    if evidence:  # it threw Qs and 10c and declined Jd: cards that fit some of the unknown ones
        for c in (11, 48, 36):
            assert c in pile
        st.thrown[0, 1, [11, 48]] = True
        st.passed[0, 1, 36] = True
    st.phase[0] = gin.PHASE_DRAW
    st.current[0] = 0
    st.taken[0] = -1
    gin.update_mask(st)
    return gin.observe(st, player=0), unknown


def enumerate_worlds(unknown):
    """Every (hidden pair, stock order) assignment of the unknown cards."""
    out = []
    for pair in itertools.combinations(unknown, 2):
        rest = [c for c in unknown if c not in pair]
        for order in itertools.permutations(rest):
            out.append((frozenset(int(c) for c in pair), tuple(int(c) for c in order)))
    return out


def chi2_pvalue(counts, expected) -> float:
    """Upper tail of the chi-square statistic (Wilson-Hilferty normal approximation)."""
    counts, expected = np.asarray(counts, float), np.asarray(expected, float)
    x = ((counts - expected) ** 2 / expected).sum()
    df = len(counts) - 1
    z = ((x / df) ** (1 / 3) - (1 - 2 / (9 * df))) / math.sqrt(2 / (9 * df))
    return 0.5 * math.erfc(z / math.sqrt(2))


def test_uniform_matches_exact_enumeration():
    obs, unknown = small_position(evidence=False)
    cells = enumerate_worlds(unknown)
    index = {c: i for i, c in enumerate(cells)}
    n = 30_000
    w = GB.sample_worlds(obs, n, np.random.default_rng(3), model="uniform")
    hidden = w.state.hands[:, 1].copy()
    hidden[:, [6, 7, 8, 19, 20, 21, 33, 34]] = False
    counts = np.zeros(len(cells))
    for b in range(n):
        counts[index[(frozenset(np.flatnonzero(hidden[b]).tolist()), tuple(stock_cards(w.state, b)))]] += 1
    expected = np.full(len(cells), n / len(cells))
    assert chi2_pvalue(counts, expected) > 1e-4
    # the same test rejects a sampler that favours one card for the opponent's hand
    biased = counts.copy()
    for i, (pair, _) in enumerate(cells):
        biased[i] *= 1.15 if int(unknown[0]) in pair else 0.9
    biased *= n / biased.sum()
    assert chi2_pvalue(biased, expected) < 1e-4


def test_weighted_matches_exact_enumeration():
    obs, unknown = small_position(evidence=True)
    evidence = GB._parse(obs, gin.GinConfig()).evidence
    assert evidence.sum() == 3
    pairs = list(itertools.combinations(unknown.tolist(), 2))
    hands = np.zeros((len(pairs), NUM_CARDS), bool)
    hands[:, [6, 7, 8, 19, 20, 21, 33, 34]] = True
    for i, p in enumerate(pairs):
        hands[i, list(p)] = True
    turns = 2  # the opponent threw two cards: the deadwood weight is gamma * 2
    ll = GB.log_likelihood(hands, np.repeat(evidence, len(pairs), axis=0), beta=0.5, gamma=0.05 * turns)
    exact = np.exp(ll - ll.max())
    exact /= exact.sum()
    assert exact.max() / exact.min() > 2  # the model matters in this position
    n = 20_000
    w = GB.sample_worlds(obs, n, np.random.default_rng(4), model="weighted", beta=0.5, gamma=0.05, steps=30)
    hidden = w.state.hands[:, 1][:, unknown]
    counts = np.zeros(len(pairs))
    for i, p in enumerate(pairs):
        counts[i] = (hidden[:, [unknown.tolist().index(c) for c in p]].all(1)).sum()
    assert counts.sum() == n
    assert chi2_pvalue(counts, exact * n) > 1e-4
    # the uniform sampler fails the same test
    u = GB.sample_worlds(obs, n, np.random.default_rng(4), model="uniform")
    hu = u.state.hands[:, 1][:, unknown]
    cu = np.array([(hu[:, [unknown.tolist().index(c) for c in p]].all(1)).sum() for p in pairs])
    assert chi2_pvalue(cu, exact * n) < 1e-4


@pytest.mark.slow
def test_weighted_puts_more_probability_on_the_true_cards(expert_positions):
    """Mean log-probability of the opponent's true hidden cards, weighted vs uniform, over
    positions from expert-vs-expert games (the gain is printed: pytest -s)."""
    rng = np.random.default_rng(5)
    logs = {"uniform": [], "weighted": []}
    for obs, real, player in expert_positions[::2]:
        truth = real.hands[:, 1 - player] & ~real.known[:, 1 - player]
        for model in logs:
            p = GB.opponent_card_probabilities(obs, 128, rng, model=model)
            logs[model].append(np.log(np.clip(p[truth], 1e-3, 1)))
    u, w = (np.concatenate(logs[m]) for m in ("uniform", "weighted"))
    gain = w.mean() - u.mean()
    print(f"\nlog P(true hidden card): uniform {u.mean():.4f}, weighted {w.mean():.4f}, "
          f"gain {gain:+.4f} nats per card over {u.size} cards")
    assert gain > 0.08


@pytest.mark.slow
def test_knock_limit_matches_exact_enumeration():
    """With ``knock=K`` hands of deadwood <= K (ones the opponent would have knocked with)
    lose KNOCK_PENALTY nats; the sampler follows that model, and the model without the
    limit fails the same test."""
    obs, unknown = small_position(evidence=True)
    evidence = GB._parse(obs, gin.GinConfig()).evidence
    pairs = list(itertools.combinations(unknown.tolist(), 2))
    hands = np.zeros((len(pairs), NUM_CARDS), bool)
    hands[:, [6, 7, 8, 19, 20, 21, 33, 34]] = True
    for i, p in enumerate(pairs):
        hands[i, list(p)] = True
    free = GB.log_likelihood(hands, np.repeat(evidence, len(pairs), axis=0), beta=0.5, gamma=0.1)
    dead = np.array([melds.deadwood(h[None])[0] for h in hands])
    knock = float(np.sort(dead)[3])  # the 4 lowest-deadwood hands (and ties) are ruled out
    ll = GB.log_likelihood(hands, np.repeat(evidence, len(pairs), axis=0), beta=0.5, gamma=0.1, limit=knock)
    assert np.allclose(ll, free - GB.KNOCK_PENALTY * (dead <= knock))
    exact = np.exp(ll - ll.max())
    exact /= exact.sum()
    n = 20_000
    w = GB.sample_worlds(obs, n, np.random.default_rng(6), model="weighted", beta=0.5, gamma=0.05, steps=30,
                         knock=knock)
    hidden = w.state.hands[:, 1][:, unknown]
    counts = np.array([(hidden[:, [unknown.tolist().index(c) for c in p]].all(1)).sum() for p in pairs])
    assert counts[dead <= knock].sum() == 0
    assert chi2_pvalue(counts[dead > knock], exact[dead > knock] * n) > 1e-4
    no_limit = GB.sample_worlds(obs, n, np.random.default_rng(6), model="weighted", beta=0.5, gamma=0.05, steps=30)
    hn = no_limit.state.hands[:, 1][:, unknown]
    assert sum((hn[:, [unknown.tolist().index(c) for c in p]].all(1)).sum() for p, d in zip(pairs, dead)
               if d <= knock) > 1000
    with pytest.raises(ValueError, match="knock must be a deadwood limit"):
        GB.sample_worlds(obs, 4, np.random.default_rng(0), model="weighted", knock=-2)
