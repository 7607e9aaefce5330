"""The batched Gin Rummy interfaces: seat-reward bookkeeping checked against an independent
replay on the core, auto-reset with final results, and the single-agent VectorEnv."""

from __future__ import annotations

import numpy as np
import pytest

from rummyrl.agents import RandomAgent
from rummyrl.envs.gin_rewards import HAND_POINTS_SCALE
from rummyrl.envs.batched import SeatRewards
from rummyrl.envs.gin_vector import GinRummyVectorEnv, GinSelfPlay
from rummyrl import gin
from rummyrl.cards import parse_cards
from rummyrl.random_play import random_actions

from gin_deals import KNOCK_ACTIONS, KNOCK_DECK, KNOCK_POINTS


def test_seat_rewards_deliver_to_the_seat_that_acts_next_and_all_at_the_end():
    seats = SeatRewards(num_envs=2, num_players=3)
    out = np.zeros((2, 3))
    r = np.array([[1.0, -0.5, -0.5], [2.0, 0.0, -2.0]])
    seats.add(r, np.array([0, 1]))
    seats.deliver(np.array([1, 2]), np.array([False, False]), out)
    assert out.tolist() == [[0, -0.5, 0], [0, 0, -2.0]]
    seats.add(r, np.array([0]))
    seats.deliver(np.array([0, 0]), np.array([False, True]), out)
    assert out.tolist() == [[2.0, 0, 0], [2.0, 0, 0]]  # game 1 ended: every seat's remainder
    assert seats.pending.tolist() == [[0, -0.5, -1.0], [0, 0, 0]]


def test_selfplay_rewards_match_an_independent_replay():
    """Every reward the batched interface delivers, summed per seat, equals the hand points
    (G-11..G-14) read off a plain core replay of the same seed and actions; what is not yet
    delivered is exactly what each seat earned since it last acted."""
    B, steps = 48, 1500
    env = GinSelfPlay(B, episode="game", target=30, reward="hand_points")
    batch = env.reset(seed=9)
    ref = gin.init(B, seed=9, config=gin.GinConfig(episode="game", target=30))
    rng = np.random.default_rng(0)
    delivered = np.zeros((B, 2))
    earned = np.zeros((B, 2))
    since_acted = np.zeros((B, 2))
    games = 0
    rows = np.arange(B)
    for _ in range(steps):
        assert np.array_equal(batch.player, ref.current) and np.array_equal(batch.mask, ref.mask)
        actions = random_actions(batch.mask, rng)
        since_acted[rows, ref.current] = 0.0
        ref = gin.step(ref, actions, inplace=True)
        won = ref.hand_ended & (ref.last_winner >= 0)
        for b in np.flatnonzero(won):
            w, pts = ref.last_winner[b], ref.last_points[b] * HAND_POINTS_SCALE
            earned[b, w] += pts
            earned[b, 1 - w] -= pts
            since_acted[b, w] += pts
            since_acted[b, 1 - w] -= pts
        batch = env.step(actions)
        delivered += batch.rewards
        assert np.array_equal(batch.done, ref.game_over)
        ended = np.flatnonzero(ref.game_over)
        since_acted[ended] = 0.0
        games += ended.size
        gin.reset_done(ref)
    assert games > 10
    np.testing.assert_allclose(delivered + env.seats.pending, earned, atol=1e-9)
    np.testing.assert_allclose(env.seats.pending, since_acted, atol=1e-9)
    np.testing.assert_allclose(delivered.sum(1) + env.seats.pending.sum(1), 0, atol=1e-9)


def test_selfplay_knock_delivery_order_in_a_game():
    """KNOCK_DEAL in every lane: player_0 knocks (+73 points); in hand 2 player_1 opens and
    receives its -73 at once; player_0 receives its +73 when it next acts."""
    B = 4
    env = GinSelfPlay(B, episode="game")
    batch = env.reset(seed=0, options={"decks": KNOCK_DECK, "dealers": 1})
    assert (batch.player == 0).all()
    batch = env.step(np.full(B, KNOCK_ACTIONS[0]))
    assert (batch.player == 0).all() and not batch.rewards.any()
    batch = env.step(np.full(B, KNOCK_ACTIONS[1]))
    pts = KNOCK_POINTS * HAND_POINTS_SCALE
    assert (batch.player == 1).all() and not batch.done.any()
    np.testing.assert_allclose(batch.rewards, [[0.0, -pts]] * B)
    batch = env.step(np.full(B, gin.PASS))  # player_1 passes the upcard; player_0 is offered it
    assert (batch.player == 0).all()
    np.testing.assert_allclose(batch.rewards, [[pts, 0.0]] * B)


def test_selfplay_autoreset_final_info_and_final_observations():
    B = 3
    env = GinSelfPlay(B, episode="hand", reward="game", final_observations=True)
    batch = env.reset(seed=0, options={"decks": KNOCK_DECK, "dealers": 1})
    for a in KNOCK_ACTIONS:
        batch = env.step(np.full(B, a))
    assert batch.done.all() and batch.terminated.all() and not batch.truncated.any()
    np.testing.assert_allclose(batch.rewards, [[1.0, -1.0]] * B)
    assert batch.final["winner"].tolist() == [0] * B
    assert batch.final["margin"].tolist() == [KNOCK_POINTS] * B
    assert batch.final["total"].tolist() == [[KNOCK_POINTS, 0]] * B
    # the ended hand's last observation: phase DONE, the opponent's hand revealed
    fo = batch.final_obs
    assert (fo[:, :, gin.OBS_LAYOUT["phase_done"]] == 1).all()
    revealed = np.flatnonzero(fo[0, 1, gin.OBS_LAYOUT["opp_revealed"]]).tolist()
    assert revealed == sorted(parse_cards("As 2s 3s 4h 5h 6h 7d 8d 9d 2c"))  # K♣ was the knock discard
    # the lanes already play their next game (a shuffled deal of game number 1)
    assert (batch.obs[:, gin.OBS_LAYOUT["phase_offer"]] == 1).all()
    assert batch.mask[:, [gin.TAKE_DISCARD, gin.PASS]].all()
    batch = env.step(np.full(B, gin.PASS))
    assert not batch.done.any()  # no stale results after the step:
    assert batch.final["winner"].tolist() == [-1] * B and batch.final["margin"].tolist() == [0] * B


def test_selfplay_errors():
    env = GinSelfPlay(2)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, np.int64))
    batch = env.reset(seed=0)
    with pytest.raises(gin.IllegalActionError, match="game 0"):
        env.step(np.where(np.arange(2) == 0, gin.DRAW_STOCK, np.argmax(batch.mask, 1)))
    with pytest.raises(ValueError, match="unknown option"):
        GinSelfPlay(2, knock=3)
    with pytest.raises(ValueError, match="num_envs"):
        GinSelfPlay(0)


def test_vector_env_returns_match_final_results():
    """Single-agent VectorEnv, one-hand episodes, hand_points: each finished episode's
    return is +-margin/25 to the learner, including the rewards of opponent knocks."""
    B = 16
    env = GinRummyVectorEnv(B, opponent="random", episode="hand")
    obs, infos = env.reset(seed=3)
    assert np.array_equal(obs["action_mask"], infos["action_mask"])
    rng = np.random.default_rng(0)
    ret = np.zeros(B)
    checked = 0
    for _ in range(600):
        obs, r, term, trunc, infos = env.step(random_actions(obs["action_mask"].astype(bool), rng))
        ret += r
        done = term | trunc
        if done.any():
            f = infos["final_info"]
            assert np.array_equal(infos["_final_info"], done)
            d = np.flatnonzero(done)
            sign = np.where(f["winner"][d] == f["seat"][d], 1.0, -1.0)
            expected = np.where(f["winner"][d] >= 0, sign * f["margin"][d] * HAND_POINTS_SCALE, 0.0)
            np.testing.assert_allclose(ret[d], expected, atol=1e-9)
            assert (infos["final_obs"]["observation"][d, gin.OBS_LAYOUT["phase_done"]] == 1).all()
            ret[d] = 0.0
            checked += d.size
        # every lane waits for the learner
        assert (env.state.current == env.seat).all() and obs["action_mask"].any(1).all()
    assert checked > 50


def test_vector_env_batched_and_per_game_opponent_agree():
    """An Agent opponent is called once per move for all games; a plain callable game by
    game. With the same random stream both give the same play."""

    class PerGame:
        def __init__(self):
            self.agent = RandomAgent(seed=0)
            self.calls = 0

        def reset(self, seed=None):
            self.agent.reset(seed)

        def __call__(self, observation, action_mask):
            self.calls += 1
            return self.agent(observation, action_mask)

    per_game = PerGame()
    runs = []
    for opp in (RandomAgent(seed=0), per_game):
        env = GinRummyVectorEnv(6, opponent=opp, episode="hand")
        obs, _ = env.reset(seed=1)
        rng = np.random.default_rng(2)
        trace = []
        for _ in range(150):
            obs, r, term, trunc, _ = env.step(random_actions(obs["action_mask"].astype(bool), rng))
            trace.append((obs["observation"].copy(), r.copy(), term.copy()))
        runs.append(trace)
    assert per_game.calls > 100
    for (o1, r1, t1), (o2, r2, t2) in zip(*runs):
        assert np.array_equal(o1, o2) and np.array_equal(r1, r2) and np.array_equal(t1, t2)


def test_vector_env_spaces_and_errors():
    env = GinRummyVectorEnv(4, seat=0)
    assert env.action_space.shape == (4,)
    assert env.observation_space["observation"].shape == (4, gin.OBS_DIM)
    obs, infos = env.reset(seed=0)
    assert (infos["seat"] == 0).all()
    assert env.observation_space.contains(obs)
    with pytest.raises(gin.IllegalActionError, match="learner"):
        env.step(np.full(4, 107))
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(3, np.int64))


def test_vector_env_game_returns_are_the_hand_point_difference():
    """Games to 30: the learner's return over a game is (its hand points - the opponent's)
    / 25, rewards of hands the opponent ended before the learner's first action included."""
    B = 8
    env = GinRummyVectorEnv(B, opponent="random", episode="game", target=30, final_observations=False)
    obs, _ = env.reset(seed=4)
    rng = np.random.default_rng(1)
    ret = np.zeros(B)
    checked = 0
    for _ in range(1500):
        obs, r, term, trunc, infos = env.step(random_actions(obs["action_mask"].astype(bool), rng))
        ret += r
        done = term | trunc
        for b in np.flatnonzero(done):
            f = infos["final_info"]
            hp, seat = f["hand_points"][b], f["seat"][b]
            assert ret[b] == pytest.approx((hp[seat] - hp[1 - seat]) * HAND_POINTS_SCALE)
            assert "final_obs" not in infos
            ret[b] = 0.0
            checked += 1
    assert checked >= 5


def test_vector_env_seat_option_holds_until_next_reset():
    env = GinRummyVectorEnv(4, episode="hand")
    _, infos = env.reset(seed=0, options={"seat": 1})
    assert (infos["seat"] == 1).all()
    rng = np.random.default_rng(0)
    for _ in range(200):
        *_, infos = env.step(random_actions(env.state.mask, rng))
        assert (infos["seat"] == 1).all()
    seats = set()
    for s in range(4):
        seats |= set(env.reset(seed=s)[1]["seat"].tolist())
    assert seats == {0, 1}


def test_make_vec_builds_the_batched_env():
    import gymnasium

    from rummyrl import envs

    env = gymnasium.make_vec(envs.GIN_ENV_ID, num_envs=3, vectorization_mode="vector_entry_point",
                             episode="hand", seat=0)
    assert isinstance(env.unwrapped, GinRummyVectorEnv) and env.num_envs == 3
    obs, infos = env.reset(seed=0)
    assert obs["observation"].shape == (3, gin.OBS_DIM) and (infos["seat"] == 0).all()
