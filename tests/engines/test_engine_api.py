"""Batch-level API details shared by both engines: stepping a subset of games, results of
some rows, observations of a chosen seat."""

from __future__ import annotations

import numpy as np
import pytest

from rummyrl import gin, rummy
from rummyrl.random_play import random_actions

ENGINES = [(gin, {}), (rummy, {"config": rummy.RummyConfig(num_players=3)})]


@pytest.mark.slow
@pytest.mark.parametrize("eng, kw", ENGINES)
def test_inactive_games_are_left_exactly_as_they_were(eng, kw):
    rng = np.random.default_rng(0)
    state = eng.init(32, seed=1, **kw)
    for _ in range(40):
        eng.step(state, random_actions(state.mask, rng), inplace=True)
        eng.reset_done(state)
    active = rng.random(32) < 0.5
    before = state.copy()
    actions = random_actions(state.mask, rng)
    actions[~active] = -7  # garbage where inactive: must not even be checked
    eng.step(state, actions, inplace=True, active=active)
    ended = state.hand_ended if eng is gin else state.round_ended
    for name in ("hands", "pile", "pile_len", "phase", "current", "mask", "scores"):
        a, b = getattr(before, name), getattr(state, name)
        assert np.array_equal(a[~active], b[~active]), name
    moved = [not np.array_equal(before.mask[i], state.mask[i]) or not np.array_equal(before.hands[i], state.hands[i])
             for i in np.flatnonzero(active)]
    assert any(moved)
    assert not ended[~active].any()
    with pytest.raises(ValueError, match="active"):
        eng.step(state, actions, active=np.ones(5, bool))


@pytest.mark.parametrize("eng, kw", ENGINES)
def test_game_result_of_some_rows_matches_the_whole_batch(eng, kw):
    rng = np.random.default_rng(2)
    state = eng.init(24, seed=3, **kw)
    for _ in range(3000):
        if state.game_over.all():
            break
        eng.step(state, random_actions(state.mask, rng), inplace=True)
    full = eng.game_result(state)
    rows = np.array([5, 0, 17, 17, 3])
    part = eng.game_result(state, rows)
    assert np.array_equal(part.winner, full.winner[rows])
    assert np.array_equal(part.total, full.total[rows])
    assert np.array_equal(part.margin, full.margin[rows])
    assert (full.winner >= 0).any()


@pytest.mark.parametrize("eng, kw", ENGINES)
def test_observe_a_seat_equals_observe_per_game(eng, kw):
    state = eng.init(8, seed=4, **kw)
    for seat in range(state.hands.shape[1]):
        a = eng.observe(state, seat)
        b = eng.observe(state, np.full(8, seat))
        assert np.array_equal(a, b)
    cur = eng.observe(state)
    assert np.array_equal(cur, eng.observe(state, state.current.astype(np.int64)))
    with pytest.raises(ValueError, match="player"):
        eng.observe(state, 9)
    with pytest.raises(ValueError, match="out"):
        eng.observe(state, out=np.zeros((8, 3), np.float32))


def test_compiled_mix64_matches_numpy_splitmix64():
    """Deals hash (seed, game, hand) with splitmix64; the compiled version must give the
    same bits as the plain numpy formula (wrapping uint64 arithmetic), at any shape."""
    from rummyrl import deals

    u = np.uint64

    def reference(x):
        x = np.asarray(x, np.uint64) + u(0x9E3779B97F4A7C15)
        x = (x ^ (x >> u(30))) * u(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> u(27))) * u(0x94D049BB133111EB)
        return x ^ (x >> u(31))

    rng = np.random.default_rng(0)
    x = rng.integers(0, 2**63, size=(300, 52), dtype=np.int64).astype(np.uint64) * u(3)
    x[0, :3] = [0, 2**64 - 1, 2**63]
    with np.errstate(over="ignore"):
        for v in (x, x.T, x[5], u(7)):
            got, want = deals._mix64(v), reference(v)
            assert np.shape(got) == np.shape(want)
            assert np.array_equal(got, want)
