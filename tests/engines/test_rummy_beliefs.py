"""Rummy belief sampling (rummyrl/rummy_beliefs.py): worlds rebuilt from one player's
observation alone.

Positions come from many random-play rounds with 2, 4 and 6 players, at every kind of
decision point (DRAW and PLAY phases, the observer to act or not), including rounds after
the pile was turned over into a new stock (R-7) and after melds and lay-offs (R-4). For
every sampled world:

(a) the observer's observation is exactly the real one;
(b) every card is in exactly one place and the hand sizes are the real ones;
(c) every card whose place the observer knows is there (its hand, the pile in order, the
    table, the cards opponents took or drew from a turned-over stock, the turned-over
    stock's order), and the hidden cards are the real hidden cards;
(d) the legal actions are the real ones, and random play to the end of the round works.

Then the distributions: (e) the uniform model against exact enumeration of every
consistent assignment on small positions (chi-square at 1e-4; a biased shuffle fails the
same test); (f) the weighted model likewise, against the enumeration weighted by an
independent reference of the opponent model; (g) over positions of games between
``expert`` players, the weighted model gives the opponents' true hidden cards a higher
log-probability than the uniform one.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
import pytest

from rummyrl import rummy as R
from rummyrl import rummy_beliefs as RB
from rummyrl.agents import load_agent
from rummyrl.random_play import random_actions
from rummy_checks import check_state

SIG = 1e-4  # significance of the distribution tests: a correct sampler fails 1 run in 10,000


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------
def take(s, rows):
    return dataclasses.replace(s, **{f.name: getattr(s, f.name)[rows] for f in dataclasses.fields(s)
                                     if f.name != "config"})


def concat(states):
    return dataclasses.replace(states[0], **{f.name: np.concatenate([getattr(x, f.name) for x in states])
                                             for f in dataclasses.fields(states[0]) if f.name != "config"})


def random_positions(P, games, seed, every=0.08, **options):
    """Snapshots of random-play rounds (each live game is kept with probability ``every``
    after each step) and an observer seat for each: any seat, to act or not."""
    config = R.RummyConfig(num_players=P, episode="round", **options)
    s = R.init(games, seed=seed, config=config)
    rng = np.random.default_rng(seed)
    snaps = []
    while (s.phase != R.PHASE_DONE).any():
        live = s.phase != R.PHASE_DONE
        s = R.step(s, np.where(live, random_actions(s.mask, rng), 0), inplace=True)
        rows = np.flatnonzero((s.phase != R.PHASE_DONE) & (rng.random(games) < every))
        if rows.size:
            snaps.append(take(s, rows))
    real = concat(snaps)
    return real, rng.integers(0, P, real.batch_size)


def seat_view(real, o):
    """The real states re-seated so that seat ``o[b]`` is seat 0 (the worlds' seating)."""
    P = real.num_players
    idx = (o[:, None] + np.arange(P)[None, :]) % P
    rows = np.arange(real.batch_size)[:, None]

    def seat(v):  # a seat number, -1 for none
        return np.where(v >= 0, (v.astype(np.int64) - o.reshape((-1,) + (1,) * (v.ndim - 1))) % P, -1)

    v = real.copy()
    for name in ("hands", "hand_size", "known", "drawn_seen", "thrown", "passed", "melded", "scores"):
        setattr(v, name, getattr(real, name)[rows, idx])
    for name in ("table_by", "pile_from", "slot_owner", "current", "dealer"):
        setattr(v, name, seat(getattr(real, name)).astype(np.int8))
    return v


def card_places(s):
    """(B, 52) number of places each card is in: hands, stock, pile, table."""
    n = s.hands.sum(1).astype(np.int64) + (s.table_slot >= 0)
    B = s.batch_size
    for arr, lo, hi in ((s.pile, 0, s.pile_len), (s.stock, s.stock_pos, s.stock_len)):
        i = np.arange(52)[None, :]
        live = (i >= np.asarray(lo).reshape(-1, 1)) & (i < hi[:, None])
        b, j = np.nonzero(live)
        np.add.at(n, (b, arr[b, j].astype(np.int64)), 1)
        assert (arr[~live] == -1).all() and (arr[live] >= 0).all()
    assert n.shape == (B, 52)
    return n


def stock_seq(s, b):
    return s.stock[b, s.stock_pos[b]:s.stock_len[b]]


def chi2_sf(x, df):
    """P(chi-square with ``df`` degrees of freedom > x) (regularized upper gamma)."""
    a, z = df / 2.0, x / 2.0
    if z <= 0:
        return 1.0
    lead = math.exp(-z + a * math.log(z) - math.lgamma(a))
    if z < a + 1:  # series for the lower function
        ap, term = a, 1.0 / a
        total = term
        while term > total * 1e-16:
            ap += 1
            term *= z / ap
            total += term
        return max(0.0, 1.0 - total * lead)
    tiny = 1e-300  # continued fraction for the upper function (Lentz)
    b = z + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 100000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return lead * h


def chi2_test(counts, probs):
    """p-value of observed ``counts`` against ``probs``; cells expected below 5 are pooled."""
    counts, probs = np.asarray(counts, float), np.asarray(probs, float) / np.sum(probs)
    expected = probs * counts.sum()
    small = expected < 5
    obs_c = np.append(counts[~small], counts[small].sum())
    exp_c = np.append(expected[~small], expected[small].sum())
    keep = exp_c > 0
    assert (obs_c[~keep] == 0).all(), "a draw fell where the target has no mass"
    stat = float((((obs_c - exp_c) ** 2)[keep] / exp_c[keep]).sum())
    return chi2_sf(stat, keep.sum() - 1)


def test_chi2_sf_matches_tables():
    assert chi2_sf(3.841, 1) == pytest.approx(0.05, abs=2e-4)
    assert chi2_sf(18.307, 10) == pytest.approx(0.05, abs=2e-4)
    assert chi2_sf(124.342, 100) == pytest.approx(0.05, abs=2e-4)
    assert chi2_sf(35.56, 10) == pytest.approx(1e-4, rel=0.02)


# --------------------------------------------------------------------------------------
# (a)-(d): consistency of every world, over many positions
# --------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("P", [2, 4, 6])
def test_worlds_match_observation_conserve_cards_and_play_on(P):
    real, o = random_positions(P, 48, seed=10 + P)
    B, n = real.batch_size, 6
    # the positions cover what the sampler must handle
    assert B >= 150
    assert (real.passes > 0).sum() >= 15, "too few positions after the pile was turned over (R-7)"
    assert (real.n_melds > 0).sum() >= 20 and real.laid_off.any(1).sum() >= 5, "too few melds / lay-offs"
    assert ((real.phase == R.PHASE_PLAY) & (real.taken >= 0)).sum() >= 5
    assert (real.current == o).sum() >= 20 and (real.current != o).sum() >= 20
    obs = R.observe(real, player=o)
    worlds = RB.sample_worlds(obs, n, np.random.default_rng(P))
    w = worlds.state
    assert w.batch_size == B * n and worlds.n == n and w.config.episode == "round"
    assert (worlds.log_weight == 0).all()
    rep = np.repeat(np.arange(B), n)
    v = take(seat_view(real, o), rep)
    # (a) the observer's observation, exactly
    assert np.array_equal(R.observe(w, player=0), obs[rep])
    # (b) one place per card; the hand sizes
    assert (card_places(w) == 1).all()
    assert np.array_equal(w.hands.sum(2), w.hand_size) and np.array_equal(w.hand_size, v.hand_size)
    check_state(w)
    # (c) every card whose place the observer knows is there
    for name in ("known", "drawn_seen", "thrown", "passed", "melded", "scores", "table_slot", "table_by",
                 "laid_off", "n_melds", "slot_owner", "slot_is_run", "slot_ext", "pile", "pile_from",
                 "pile_len", "passes", "last_stock", "phase", "current", "dealer", "taken", "round_actions"):
        assert np.array_equal(getattr(w, name), getattr(v, name)), name
    assert np.array_equal(w.hands[:, 0], v.hands[:, 0])
    assert (w.hands[:, 1:] >= (v.known | v.drawn_seen)[:, 1:]).all()
    assert np.array_equal(w.stock_size, v.stock_size)
    turned = np.flatnonzero(w.passes > 0)
    for i in turned:
        assert np.array_equal(stock_seq(w, i), stock_seq(v, i))  # the whole stock's order
    # the hidden cards are the real hidden cards, dealt in the real numbers
    def hidden(s):
        h = s.hands[:, 1:] & ~(s.known | s.drawn_seen)[:, 1:]
        in_stock = np.zeros((s.batch_size, 52), bool)
        for i in np.flatnonzero(s.passes == 0):
            in_stock[i, stock_seq(s, i)] = True
        return h.any(1) | in_stock, h.sum(2)
    (wh, wn), (vh, vn) = hidden(w), hidden(v)
    assert np.array_equal(wh, vh) and np.array_equal(wn, vn)
    # (d) the observer's legal actions (and an opponent's draw: public), then play on to
    # the end of the round; an opponent's plays depend on its hidden cards
    mine = (v.current == 0) | (v.phase == R.PHASE_DRAW)
    assert mine.sum() >= B * n // 2 and np.array_equal(w.mask[mine], v.mask[mine])
    rng = np.random.default_rng(1)
    for _ in range(2000):
        live = w.phase != R.PHASE_DONE
        if not live.any():
            break
        w = R.step(w, np.where(live, random_actions(w.mask, rng), 0), inplace=True)
        check_state(w)
    assert (w.phase == R.PHASE_DONE).all()


def test_weighted_worlds_are_consistent_and_probabilities_sum_to_hand_sizes():
    P = 4
    real, o = random_positions(P, 16, seed=3)
    real, o = take(real, slice(0, 60)), o[:60]
    obs = R.observe(real, player=o)
    n = 8
    worlds = RB.sample_worlds(obs, n, np.random.default_rng(0), model="weighted", oversample=3)
    rep = np.repeat(np.arange(real.batch_size), n)
    assert np.array_equal(R.observe(worlds.state, player=0), obs[rep])
    assert (card_places(worlds.state) == 1).all()
    mine = np.repeat((o == real.current) | (real.phase == R.PHASE_DRAW), n)
    assert np.array_equal(worlds.state.mask[mine], real.mask[rep][mine])
    # the reported log-weights are the model's log-likelihoods of the worlds
    assert np.allclose(worlds.log_weight, RB.log_likelihood(worlds.state, RB.DEFAULT_BETA))
    assert (worlds.log_weight < 0).any()
    for model in RB.MODELS:
        pr = RB.opponent_card_probabilities(obs, 32, np.random.default_rng(0), model=model)
        v = seat_view(real, o)
        assert pr.shape == (real.batch_size, R.MAX_PLAYERS, 52)
        assert np.array_equal(pr[:, 0], v.hands[:, 0].astype(float))
        assert np.allclose(pr[:, :P].sum(2), v.hand_size) and (pr[:, P:] == 0).all()
        assert (pr[:, 1:P][(v.known | v.drawn_seen)[:, 1:]] == 1).all()
        assert ((pr >= 0) & (pr <= 1 + 1e-9)).all()


def test_same_seed_same_worlds():
    real, o = random_positions(4, 8, seed=5)
    obs = R.observe(real, player=o)[:20]
    for model in RB.MODELS:
        a = RB.sample_worlds(obs, 16, np.random.default_rng(7), model=model)
        b = RB.sample_worlds(obs, 16, np.random.default_rng(7), model=model)
        c = RB.sample_worlds(obs, 16, np.random.default_rng(8), model=model)
        for f in dataclasses.fields(a.state):
            if f.name != "config":
                assert np.array_equal(getattr(a.state, f.name), getattr(b.state, f.name)), f.name
        assert np.array_equal(a.log_weight, b.log_weight)
        assert not np.array_equal(a.state.hands, c.state.hands)
        pa = RB.opponent_card_probabilities(obs, 16, np.random.default_rng(7), model=model)
        assert np.array_equal(pa, RB.opponent_card_probabilities(obs, 16, np.random.default_rng(7), model=model))
    # one observation as a (OBS_DIM,) vector: the same as a batch of one
    one = RB.sample_worlds(obs[3], 4, np.random.default_rng(1))
    assert np.array_equal(one.state.hands, RB.sample_worlds(obs[3:4], 4, np.random.default_rng(1)).state.hands)


def test_bad_input_is_refused_with_a_reason():
    real, o = random_positions(4, 8, seed=6)
    obs = R.observe(real, player=o)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="observations must be"):
        RB.sample_worlds(obs[:, :100], 4, rng)
    with pytest.raises(ValueError, match="observations must be"):
        RB.sample_worlds(obs[None], 4, rng)
    with pytest.raises(ValueError, match="positive int"):
        RB.sample_worlds(obs, 0, rng)
    with pytest.raises(ValueError, match="unknown belief model 'exact'"):
        RB.sample_worlds(obs, 4, rng, model="exact")
    with pytest.raises(ValueError, match="beta"):
        RB.sample_worlds(obs, 4, rng, model="weighted", beta=-1.0)
    with pytest.raises(ValueError, match="target"):
        RB.sample_worlds(obs, 4, rng, config=R.RummyConfig(num_players=4, target=100))
    with pytest.raises(ValueError, match="num_players"):
        RB.sample_worlds(obs, 4, rng, config=R.RummyConfig(num_players=3))
    with pytest.raises(ValueError, match="num_players=2"):
        RB.sample_worlds(obs, 4, rng, num_players=2)
    with pytest.raises(ValueError, match="stock_passes"):
        RB.sample_worlds(obs, 4, rng, config=R.RummyConfig(num_players=4, stock_passes=3))
    # a finished episode has nothing hidden
    done = real.copy()
    done.phase[:] = R.PHASE_DONE
    with pytest.raises(ValueError, match="phase DONE"):
        RB.sample_worlds(R.observe(done, player=o), 4, rng)
    # a card in two places (the top discard also known to be held by seat 1); a hand that
    # disagrees with its size
    bad = obs.copy()
    c = int(np.flatnonzero(bad[0, R.OBS_LAYOUT["top_discard"]])[0])
    bad[0, R.OBS_LAYOUT["known"].start + 52 + c] = 1.0
    with pytest.raises(ValueError, match="observation 0 is not a consistent .*two places"):
        RB.sample_worlds(bad, 4, rng)
    bad = obs.copy()
    bad[1, R.OBS_LAYOUT["hand"].start + c] = 1.0
    with pytest.raises(ValueError, match="observation 1 is not .*hand_sizes"):
        RB.sample_worlds(bad, 4, rng, config=R.RummyConfig(num_players=4))
    with pytest.raises(ValueError, match="hand sizes disagree"):
        RB.sample_worlds(bad, 4, rng)
    bad = obs.copy()
    bad[2, R.OBS_LAYOUT["to_act"]] = 0.0
    with pytest.raises(ValueError, match="observation 2 .*one-hot"):
        RB.sample_worlds(bad, 4, rng)
    # the DONE check also holds for opponent_card_probabilities, and the rng must be a Generator
    with pytest.raises(ValueError, match="Generator"):
        RB.opponent_card_probabilities(obs, 4, 0)


# --------------------------------------------------------------------------------------
# (e), (f): the distributions against exact enumeration on small positions
# --------------------------------------------------------------------------------------
def small_position(P, seed, passes, hidden_per_seat, stock_cards=None):
    """A real position of random play, edited so that few cards are hidden: each opponent
    keeps ``hidden_per_seat[r-1]`` cards the observer (seat 0) does not know, the others are
    marked as known (as if taken from the pile; a legal state). Returns the one-game state."""
    config = R.RummyConfig(num_players=P, episode="round")
    s = R.init(64, seed=seed, config=config)
    rng = np.random.default_rng(seed)
    need = np.array(hidden_per_seat)
    while True:
        live = s.phase != R.PHASE_DONE
        assert live.any(), "no game reached the wanted position"
        s = R.step(s, np.where(live, random_actions(s.mask, rng), 0), inplace=True)
        free = (s.hands & ~(s.known | s.drawn_seen)).sum(2)[:, 1:]
        ok = (s.phase != R.PHASE_DONE) & (s.passes == passes) & (free >= need).all(1) & s.thrown[:, 1:].any(2).all(1)
        if stock_cards is not None:
            ok &= s.stock_size == stock_cards
        if ok.any():
            one = take(s, np.flatnonzero(ok)[:1])
            break
    for q in range(1, P):
        free = np.flatnonzero(one.hands[0, q] & ~(one.known[0, q] | one.drawn_seen[0, q]))
        keep = rng.choice(free, need[q - 1], replace=False)
        one.known[0, q, np.setdiff1d(free, keep)] = True
    return one


def outcome_keys(s):
    """A key per world for the hidden part: the opponents' hands and the stock order."""
    return [s.hands[i, 1:].tobytes() + stock_seq(s, i).tobytes() for i in range(s.batch_size)]


def hidden_cards(real):
    """The hidden cards of ``real`` (one game, observer at seat 0) in dealing order: each
    opponent's, then the unknown stock's (top first)."""
    fixed = real.known[0] | real.drawn_seen[0]
    opp = [np.flatnonzero(real.hands[0, q] & ~fixed[q]) for q in range(1, real.num_players)]
    stock = stock_seq(real, 0) if real.passes[0] == 0 else np.array([], np.int8)
    return np.concatenate(opp + [stock]).astype(np.int64), [len(h) for h in opp]


def enumerate_outcomes(real):
    """Every consistent assignment of the hidden cards of ``real``: a state per distinct
    assignment, and the outcome number of every order of the hidden cards (dealt as the
    sampler deals them: each opponent its count, the rest to the stock in order)."""
    P = real.num_players
    fixed = real.known[0] | real.drawn_seen[0]
    cards, sizes = hidden_cards(real)
    states, seen, of_order = [], {}, {}
    for perm in itertools.permutations(cards):
        s = real.copy()
        i = 0
        for q in range(1, P):
            s.hands[0, q] = fixed[q]
            s.hands[0, q, list(perm[i:i + sizes[q - 1]])] = True
            i += sizes[q - 1]
        if real.passes[0] == 0:
            s.stock[0, s.stock_pos[0]:s.stock_len[0]] = perm[i:]
        key = outcome_keys(s)[0]
        if key not in seen:
            seen[key] = len(states)
            states.append(s)
        of_order[perm] = seen[key]
    return states, of_order


def uniform_cases():
    return [
        # before the turnover: three hidden in two hands, two unknown stock cards (60 outcomes)
        small_position(3, seed=21, passes=0, hidden_per_seat=(2, 1), stock_cards=2),
        # after it: the stock is known, five hidden cards in three hands (30 outcomes)
        small_position(4, seed=22, passes=1, hidden_per_seat=(2, 2, 1)),
    ]


def counts_of(keys, index):
    counts = np.zeros(len(index), np.int64)
    for k in keys:
        assert k in index, "a sampled world is not a consistent assignment"
        counts[index[k]] += 1
    return counts


def test_uniform_matches_exact_enumeration_and_a_biased_shuffle_fails():
    N = 20_000
    for real in uniform_cases():
        states, of_order = enumerate_outcomes(real)
        K = len(states)
        assert K in (60, 30)
        index = {k: i for i, k in enumerate(outcome_keys(concat(states)))}
        obs = R.observe(real, player=0)
        # every enumerated assignment has the real observation: they are all consistent
        assert (R.observe(concat(states), player=0) == obs).all()
        worlds = RB.sample_worlds(obs, N, np.random.default_rng(K))
        counts = counts_of(outcome_keys(worlds.state), index)
        p = chi2_test(counts, np.ones(K))
        print(f"uniform, {K} outcomes: p = {p:.3g}")
        assert p > SIG
        # the same statistic rejects a biased sampler: the naive shuffle (swap each card
        # with any position) on the same cards, dealt by the same rule
        cards, _ = hidden_cards(real)
        perm = np.tile(cards, (N, 1))
        rows = np.arange(N)
        for i, j in enumerate(np.random.default_rng(0).integers(0, len(cards), (len(cards), N))):
            perm[rows, i], perm[rows, j] = perm[rows, j], perm[rows, i].copy()
        biased = [of_order[tuple(p)] for p in perm.tolist()]
        pb = chi2_test(np.bincount(biased, minlength=K), np.ones(K))
        print(f"naive shuffle, {K} outcomes: p = {pb:.3g}")
        assert pb < SIG


def reference_log_likelihood(s, beta, ref):
    """The opponent model of rummy_beliefs' docstring, written out slowly with the
    independent meld reference of conftest.py (observer at seat 0)."""
    partial = RB.PARTIAL_POINTS

    def dw(cards):
        return ref.deadwood(ref.bits_of(cards))

    def partners(x, G):
        return sum(1 for y in G if (y % 13 == x % 13 and y != x) or (y // 13 == x // 13 and 0 < abs(y - x) <= 2))

    def u(x, G):
        return dw(G) - dw(G | {x}) + partial * partners(x, G)

    def log_sigmoid(z):
        return -math.log1p(math.exp(-z)) if z >= 0 else z - math.log1p(math.exp(z))

    out = []
    for b in range(s.batch_size):
        ll = 0.0
        for q in range(1, s.num_players):
            H = set(np.flatnonzero(s.hands[b, q]).tolist())
            for c in range(52):
                if c in H:
                    continue
                if s.thrown[b, q, c]:
                    Hc = H | {c}
                    z = {x: -beta * u(x, Hc - {x}) for x in Hc}
                    top = max(z.values())
                    ll += z[c] - top - math.log(sum(math.exp(v - top) for v in z.values()))
                if s.passed[b, q, c]:
                    ll += log_sigmoid(-beta * u(c, H))
            mid_turn = s.current[b] == q and s.phase[b] == R.PHASE_PLAY
            pts = sum(ref.VALUE[c] for c in H) - dw(H)
            if s.thrown[b, q].any() and not mid_turn:
                ll += math.log(1 - math.tanh(beta * pts / 2))
        out.append(ll)
    return np.array(out)


@pytest.mark.slow
def test_weighted_matches_enumeration_weighted_by_the_reference_model(ref):
    N = 20_000
    for real, beta in zip(uniform_cases(), (0.5, 0.1)):
        states = concat(enumerate_outcomes(real)[0])
        K = states.batch_size
        index = {k: i for i, k in enumerate(outcome_keys(states))}
        ll = reference_log_likelihood(states, beta, ref)
        assert np.allclose(RB.log_likelihood(states, beta), ll, rtol=1e-9, atol=1e-9)
        target = np.exp(ll - ll.max())
        target /= target.sum()
        ess = 1 / (target ** 2).sum()
        print(f"weighted target over {K} outcomes: effective number {ess:.1f}, "
              f"log-weights {ll.min():.2f}..{ll.max():.2f}")
        assert 2 < ess < 0.9 * K, "the evidence should make the target neither flat nor a point"
        obs = R.observe(real, player=0)
        # oversample 20: the importance-sampling noise of the candidates is a small part of
        # the multinomial noise the chi-square test allows for N draws
        worlds = RB.sample_worlds(obs, N, np.random.default_rng(K), model="weighted", beta=beta, oversample=20)
        keys = outcome_keys(worlds.state)
        counts = counts_of(keys, index)
        assert np.allclose(worlds.log_weight, ll[[index[k] for k in keys]], rtol=1e-9, atol=1e-9)
        p = chi2_test(counts, target)
        print(f"weighted, {K} outcomes: p = {p:.3g}")
        assert p > SIG
        # the statistic tells the weighted target from the uniform belief
        uniform = counts_of(outcome_keys(RB.sample_worlds(obs, N, np.random.default_rng(1)).state), index)
        assert chi2_test(uniform, target) < SIG


# --------------------------------------------------------------------------------------
# (g): the weighted model knows more about expert opponents than the uniform one
# --------------------------------------------------------------------------------------
def expert_positions(P, games, seed, every=3):
    """Observations of the player to act at its DRAW decisions in games between ``expert``
    players, and each opponent's true hidden cards ``(K, P, 52)`` by relative seat."""
    agent = load_agent("expert", game="rummy")
    s = R.init(games, seed=seed, config=R.RummyConfig(num_players=P, episode="round"))
    rng = np.random.default_rng(seed)
    obs, hidden = [], []
    while (s.phase != R.PHASE_DONE).any():
        live = s.phase != R.PHASE_DONE
        o = R.observe(s)
        pick = np.flatnonzero(live & (s.phase == R.PHASE_DRAW) & (rng.random(games) < 1 / every))
        rel = (s.current[pick, None] + np.arange(P)[None, :]) % P
        h = s.hands[pick[:, None], rel] & ~(s.known | s.drawn_seen)[pick[:, None], rel]
        h[:, 0] = False
        obs.append(o[pick])
        hidden.append(h)
        s = R.step(s, np.where(live, agent.act(o, s.mask), 0), inplace=True)
    return np.concatenate(obs), np.concatenate(hidden)


def true_card_log_prob(obs, hidden, n, model, beta, seed=0):
    """Mean over the true hidden cards of log P(card in its opponent's hand); estimates
    from m worlds are smoothed as (m p + 1/2) / (m + 1)."""
    pr = RB.opponent_card_probabilities(obs, n, np.random.default_rng(seed), model=model, beta=beta)
    m = n * (4 if model == "weighted" else 1)
    p = (pr[:, : hidden.shape[1]] * m + 0.5) / (m + 1)
    return float(np.log(p[hidden]).mean())


@pytest.mark.slow
@pytest.mark.parametrize("P", [2, 4])
def test_weighted_puts_more_probability_on_the_true_hidden_cards(P):
    obs, hidden = expert_positions(P, 48, seed=100 + P)
    assert obs.shape[0] >= 250
    n = 256
    uniform = true_card_log_prob(obs, hidden, n, "uniform", 0.0)
    gains = {beta: true_card_log_prob(obs, hidden, n, "weighted", beta) - uniform
             for beta in (0.1, RB.DEFAULT_BETA, 0.5)}
    print(f"{P} players, {obs.shape[0]} positions, {int(hidden.sum())} hidden cards: uniform "
          f"{uniform:.4f} per card; weighted gain " + ", ".join(f"beta {b}: {g:+.4f}" for b, g in gains.items()))
    assert gains[RB.DEFAULT_BETA] > 0.03


def test_beta_zero_weights_every_world_alike():
    real, o = random_positions(4, 8, seed=9)
    obs = R.observe(real, player=o)[:10]
    worlds = RB.sample_worlds(obs, 64, np.random.default_rng(0), model="weighted", beta=0.0)
    ll = worlds.log_weight.reshape(10, 64)
    assert np.allclose(ll, ll[:, :1])
