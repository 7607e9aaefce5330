"""The PettingZoo and Gymnasium Gin Rummy environments: API compliance, rewards on scripted
deals (G-11 knock with a G-9 lay-off), explicit deals, reproducibility, options, rendering."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils import wrappers as pz_wrappers

from rummyrl import envs
from rummyrl.envs import gin_rummy_v0
from rummyrl.envs.gin_rewards import GAME_POINTS_SCALE, HAND_POINTS_SCALE
from rummyrl.envs.gym_gin import GinRummyEnv
from rummyrl.envs.gin_vector import GinSelfPlay
from rummyrl import gin
from rummyrl.cards import card_str, parse_cards

from env_checks import assert_same_game_everywhere, random_legal
from gin_deals import KNOCK_ACTIONS, KNOCK_DECK, KNOCK_POINTS

P0, P1 = "player_0", "player_1"


def knock_env(**kwargs):
    """A raw env reset to KNOCK_DEAL (player_1 deals, player_0 acts first)."""
    env = gin_rummy_v0.raw_env(**kwargs)
    env.reset(seed=0, options={"deck": KNOCK_DECK, "dealer": 1})
    return env


# --------------------------------------------------------------------------------------
# PettingZoo
# --------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("episode", ["hand", "game"])
def test_pettingzoo_api_test(episode):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(gin_rummy_v0.env(episode=episode), num_cycles=10_000)
        api_test(gin_rummy_v0.raw_env(episode=episode), num_cycles=10_000)


def test_pettingzoo_seed_test():
    seed_test(gin_rummy_v0.env, num_cycles=1000)
    seed_test(lambda: gin_rummy_v0.raw_env(episode="hand", reward="game"), num_cycles=1000)


def test_env_uses_the_standard_wrappers():
    env = gin_rummy_v0.env()
    layers = []
    e = env
    while hasattr(e, "env"):
        layers.append(e)
        e = e.env
    standard = [pz_wrappers.OrderEnforcingWrapper, pz_wrappers.AssertOutOfBoundsWrapper,
                pz_wrappers.TerminateIllegalWrapper]
    assert len(layers) == 3 and all(isinstance(x, cls) for x, cls in zip(layers, standard))
    assert isinstance(e, gin_rummy_v0.raw_env)
    with pytest.raises(AttributeError, match="before reset"):
        _ = env.agent_selection
    with pytest.raises(AssertionError, match="reset"):
        env.step(0)


def test_spaces_and_first_observation():
    env = gin_rummy_v0.env()
    env.reset(seed=3)
    for agent in env.possible_agents:
        assert env.action_space(agent) == gymnasium.spaces.Discrete(gin.NUM_ACTIONS)
        space = env.observation_space(agent)
        assert space["observation"].shape == (gin.OBS_DIM,)
        assert space["action_mask"].dtype == np.int8
    obs, reward, term, trunc, info = env.last()
    assert obs["action_mask"].dtype == np.int8
    assert np.flatnonzero(obs["action_mask"]).tolist() == [gin.TAKE_DISCARD, gin.PASS]  # G-2
    other = env.observe(P1 if env.agent_selection == P0 else P0)
    assert not other["action_mask"].any()  # not its turn
    assert obs["observation"][gin.OBS_LAYOUT["hand"]].sum() == 10  # G-1
    assert (reward, term, trunc, info["deal_over"], info["winner"], info["hands"].sum()) == (0, False, False, 0, -1, 0)
    assert env.deal_info() is None and env.game_info() is None


def test_knock_rewards_and_hand_info_game_episode():
    """G-11 + G-9: player_0 knocks with 2, player_1 lays off 4♠ and keeps 75 -> 73 points;
    the game goes on and each seat's reward waits in its cumulative reward."""
    env = knock_env(episode="game")
    assert env.agent_selection == P0
    env.step(KNOCK_ACTIONS[0])
    assert env.agent_selection == P0  # it took the upcard: it discards (or knocks) next
    env.step(KNOCK_ACTIONS[1])
    pts = KNOCK_POINTS * HAND_POINTS_SCALE
    assert env.rewards == pytest.approx({P0: pts, P1: -pts})
    assert sum(env.rewards.values()) == 0
    assert env._cumulative_rewards == pytest.approx({P0: pts, P1: -pts})
    hand = env.deal_info()
    assert (hand["end"], hand["knocker"], hand["winner"], hand["points"]) == ("knock", 0, 0, KNOCK_POINTS)
    assert hand["deadwood"] == [2, 75] and hand["laid_off"] == ["4s"]
    for a in (P0, P1):  # the same facts as arrays in both seats' infos
        i = env.infos[a]
        assert (i["deal_over"], i["end"], i["knocker"], i["winner"], i["points"]) == \
            (1, gin.END_KNOCK, 0, 0, KNOCK_POINTS)
        assert i["deadwood"].tolist() == [2, 75] and i["scores"].tolist() == [KNOCK_POINTS, 0]
        assert np.flatnonzero(i["laid_off"][1]).tolist() == parse_cards("4s") and not i["laid_off"][0].any()
        assert i["hands"].sum(1).tolist() == [10, 10]  # the knocker's discard is not in its hand
        for p in (0, 1):  # the melds' cards, as the words say them
            assert np.flatnonzero(i["melds"][p]).tolist() == sorted(parse_cards(" ".join(sum(hand["melds"][p], []))))
        assert (i["melds"] <= i["hands"]).all() and i["melds"][0].sum() == 9  # the 2 of deadwood left out
        assert i["game_over"] == 0 and i["game_winner"] == -1
    assert env.game_info() is None
    assert not any(env.terminations.values())
    # hand 2: the deal alternates (G-3) to player_0, so player_1 opens the offer
    assert env.agent_selection == P1
    env.step(gin.PASS)
    assert env.rewards == {P0: 0.0, P1: 0.0}
    assert all(i["deal_over"] == 0 and i["end"] == 0 and not i["hands"].any() for i in env.infos.values())
    assert env.deal_info()["end"] == "knock"  # still the last hand that ended
    assert env._cumulative_rewards[P1] == 0.0  # it acted: its reward was handed over
    assert env._cumulative_rewards[P0] == pytest.approx(pts)  # not yet acted


@pytest.mark.parametrize("reward, expected", [
    ("hand_points", KNOCK_POINTS * HAND_POINTS_SCALE),
    ("game", 1.0),
    ("game_points", KNOCK_POINTS * GAME_POINTS_SCALE),
    ("hand_points+game", KNOCK_POINTS * HAND_POINTS_SCALE + 1.0),
])
def test_reward_schemes_one_hand_episode(reward, expected):
    env = knock_env(episode="hand", reward=reward)
    for a in KNOCK_ACTIONS:
        env.step(a)
    assert env.rewards == pytest.approx({P0: expected, P1: -expected})
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.game_info()["winner"] == 0 and env.game_info()["margin"] == KNOCK_POINTS
    i = env.infos[P1]
    assert (i["game_over"], i["game_winner"], i["game_margin"]) == (1, 0, KNOCK_POINTS)
    assert i["game_total"].tolist() == [env.game_info()["total"][0], 0]
    # each agent steps once more with None, then the episode is empty
    for _ in range(2):
        obs, cum, term, trunc, _ = env.last()
        assert term and not obs["action_mask"].any()
        env.step(None)
    assert env.agents == []


def test_game_reward_is_zero_on_truncation():
    """A one-hand episode cut off by the move cap (G-10a) is truncated; nobody scores."""
    env = gin_rummy_v0.raw_env(episode="hand", reward="hand_points+game", max_actions=6)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    n = 0
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
        assert sum(env.rewards.values()) == 0
        n += 1
    assert n == 6 and all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {P0: 0.0, P1: 0.0}


def test_zero_sum_rewards_over_random_games():
    env = gin_rummy_v0.env(reward="hand_points+game_points", target=50)
    rng = np.random.default_rng(5)
    total = {P0: 0.0, P1: 0.0}
    for seed in range(3):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, cum, term, trunc, info = env.last()
            total[agent] += cum
            env.step(None if term or trunc else random_legal(obs["action_mask"], rng))
            assert abs(sum(env.rewards.values())) < 1e-9
    assert total[P0] == pytest.approx(-total[P1])
    assert total[P0] != 0  # games to 50 with random play always score something


def test_max_cycles_truncates_after_cycles_of_actions():
    """max_cycles=N: both agents are truncated after 2N actions (as in PettingZoo's
    max_cycles_test, each agent then steps once more with None)."""
    env = gin_rummy_v0.env(max_cycles=5)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    actions, dead_steps = 0, 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            assert trunc and not term
            dead_steps += 1
            env.step(None)
        else:
            actions += 1
            env.step(random_legal(obs["action_mask"], rng))
    assert actions == 10 and dead_steps == 2


def test_raw_env_illegal_action_raises_clear_error():
    env = knock_env()
    with pytest.raises(gin.IllegalActionError, match=r"player_0: action 0 \(draw_stock\) is not legal in "
                                                     r"phase OFFER; legal: \[1 \(take_discard\), 2 \(pass\)\]"):
        env.step(gin.DRAW_STOCK)
    with pytest.raises(ValueError, match="must be an int"):
        env.step(1.5)
    env.step(gin.TAKE_DISCARD)  # nothing changed: the offer is still open


def test_env_illegal_move_ends_game_with_penalty():
    env = gin_rummy_v0.env(illegal_reward=-2)
    env.reset(seed=0, options={"deck": KNOCK_DECK, "dealer": 1})
    env.last()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(gin.DRAW_STOCK)  # illegal in the upcard offer
    assert all(env.terminations.values())
    assert env.rewards == {P0: -2.0, P1: 0.0}


def test_reset_deck_schedule_and_dealers():
    """options={"decks", "dealers"} fix the first hands of a game: hand 2 here is the
    mirror deal, dealt by player_0, so player_1 holds the knocking hand and opens."""
    mirror = KNOCK_DECK.copy()
    env = gin_rummy_v0.raw_env(episode="game")
    env.reset(seed=4, options={"decks": [KNOCK_DECK, mirror], "dealers": [1, 0]})
    for a in KNOCK_ACTIONS:
        env.step(a)
    assert env.agent_selection == P1
    hand = env.observe(P1)["observation"][gin.OBS_LAYOUT["hand"]]
    assert np.flatnonzero(hand).tolist() == sorted(KNOCK_DECK[:10].tolist())
    for a in KNOCK_ACTIONS:
        env.step(a)
    assert env.deal_info()["winner"] == 1 and env.infos[P1]["winner"] == 1
    assert env.deal_info()["scores"] == [KNOCK_POINTS, KNOCK_POINTS]
    assert env.infos[P1]["scores"].tolist() == [KNOCK_POINTS, KNOCK_POINTS]


def test_reset_deck_as_card_text():
    text = " ".join(card_str(c) for c in KNOCK_DECK)
    env = gin_rummy_v0.raw_env()
    env.reset(options={"deck": text, "dealer": "player_1"})
    assert env.agent_selection == P0
    hand = env.observe(P0)["observation"][gin.OBS_LAYOUT["hand"]]
    assert np.flatnonzero(hand).tolist() == sorted(parse_cards("As 2s 3s 4h 5h 6h 7d 8d 9d Kc"))


def test_seeded_resets_replay_and_unseeded_reset_moves_on():
    env = gin_rummy_v0.raw_env()

    def first_obs(**kw):
        env.reset(**kw)
        return env.observe(env.agent_selection)["observation"].copy()

    a = first_obs(seed=8)
    b = first_obs()
    assert np.array_equal(first_obs(seed=8), a)
    assert np.array_equal(first_obs(), b)
    assert not np.array_equal(a, b)


def test_same_game_in_every_wrapper():
    """reset(seed=s) deals the same game in the AEC env, the Gymnasium env and lane 0 of
    the batched interface; the same actions give the same observations."""
    assert_same_game_everywhere(gin_rummy_v0.raw_env(), GinSelfPlay(3), lambda seat: GinRummyEnv(seat=seat),
                                seed=21, steps=60)


def test_bad_options_raise_value_errors_naming_them():
    with pytest.raises(ValueError, match="knock_limt"):
        gin_rummy_v0.raw_env(knock_limt=5)
    with pytest.raises(ValueError, match="knock_limit must be in 0..100"):
        gin_rummy_v0.raw_env(knock_limit=-1)
    with pytest.raises(ValueError, match="unknown reward scheme.*'points'"):
        gin_rummy_v0.raw_env(reward="points")
    with pytest.raises(ValueError, match="max_cycles"):
        gin_rummy_v0.raw_env(max_cycles=0)
    with pytest.raises(ValueError, match="render_mode"):
        gin_rummy_v0.raw_env(render_mode="rgb_array")
    env = gin_rummy_v0.raw_env()
    bad = KNOCK_DECK.copy()
    bad[1] = bad[0]
    with pytest.raises(ValueError, match="deck.*not a permutation"):
        env.reset(options={"deck": bad})
    with pytest.raises(ValueError, match="'dealer' must be 0, 1"):
        env.reset(options={"deck": KNOCK_DECK, "dealer": 2})
    with pytest.raises(ValueError, match="exclude each other"):
        env.reset(options={"deck": KNOCK_DECK, "decks": [KNOCK_DECK]})
    with pytest.warns(UserWarning, match=r"unknown reset option\(s\) \['dek'\]"):
        env.reset(options={"dek": KNOCK_DECK})
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['dek'\]"):
        GinRummyEnv().reset(options={"dek": KNOCK_DECK})


def test_docstring_documents_every_observation_field_and_scheme():
    doc = gin_rummy_v0.__doc__
    for name in gin.OBS_LAYOUT:
        assert f"`{name}`" in doc, name
    for name in ("hand_points", "game_points", "`game`", "Version history", "max_cycles"):
        assert name in doc


# --------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------
def test_render_ansi_table_and_hand_end():
    env = knock_env(render_mode="ansi", episode="hand")
    text = env.render()
    assert "stock: 31 cards" in text and "top 2♣" in text
    assert "player_0 [A♠ 2♠ 3♠] [4♥ 5♥ 6♥] [7♦ 8♦ 9♦] · K♣   deadwood 10" in text
    assert "← to act: take the upcard or pass" in text
    for a in KNOCK_ACTIONS:
        env.step(a)
    text = env.render()
    assert "player_0 knocked with 2; player_1 has 75 after laying off 4♠ → player_0 scores 73" in text
    assert "player_1 + laid off 4♠ · 7♠ T♠ K♠ 9♥ Q♥ 5♦ J♦ 6♣ 8♣   deadwood 75" in text
    assert "Game over: player_0 wins 73 to 0" in text


def test_render_dead_hand():
    env = gin_rummy_v0.raw_env(render_mode="ansi", episode="hand")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while not env.terminations[env.agent_selection]:
        mask = env.observe(env.agent_selection)["action_mask"]
        mask[gin.KNOCK:] = 0  # never knock: the stock runs out (G-10)
        env.step(random_legal(mask, rng))
    assert env.deal_info()["end"] == "dead" and env.infos[P0]["end"] == gin.END_DEAD
    assert env.infos[P0]["winner"] == -1 and env.infos[P0]["knocker"] == -1 and env.infos[P0]["points"] == 0
    text = env.render()
    assert "dead hand: the stock is down to 2 cards (G-10); nobody scores" in text
    assert "Game over: no winner" in text


def test_render_human_prints_each_step(capsys):
    env = gin_rummy_v0.raw_env(render_mode="human")
    env.reset(seed=0)
    env.step(gin.PASS)
    out = capsys.readouterr().out
    assert out.count("Gin Rummy (game to 100)") == 2
    assert "♠" in out or "♥" in out


# --------------------------------------------------------------------------------------
# Gymnasium
# --------------------------------------------------------------------------------------
def test_gymnasium_check_env_and_registration():
    env = gymnasium.make(envs.GIN_ENV_ID)
    check_env(env.unwrapped)
    check_env(gymnasium.make(envs.GIN_ENV_ID, episode="hand", render_mode="ansi").unwrapped)
    obs, info = env.reset(seed=0)
    assert np.array_equal(info["action_mask"], obs["action_mask"])
    assert info["action_mask"] is not obs["action_mask"]
    assert np.array_equal(env.unwrapped.action_masks(), obs["action_mask"].astype(bool))


def test_registration_does_not_import_torch():
    code = ("import sys, gymnasium, rummyrl.envs, rummyrl.envs.gym_gin, rummyrl.envs.gin_vector, rummyrl.envs.batched, rummyrl.envs.gin_rummy_v0; "
            "assert 'rummyrl/GinRummy-v0' in gymnasium.registry; "
            "assert 'torch' not in sys.modules, 'torch was imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(envs.__file__).parents[1])


def test_gym_learner_knock_reward():
    env = GinRummyEnv(seat=0, episode="hand")
    obs, info = env.reset(seed=0, options={"deck": KNOCK_DECK, "dealer": 1})
    assert info["seat"] == 0 and info["skipped_episodes"] == 0
    obs, r, term, trunc, info = env.step(KNOCK_ACTIONS[0])
    assert (r, term, trunc) == (0.0, False, False)
    obs, r, term, trunc, info = env.step(KNOCK_ACTIONS[1])
    assert r == pytest.approx(KNOCK_POINTS * HAND_POINTS_SCALE)
    assert term and not trunc and not obs["action_mask"].any()
    assert env.deal_infos()[0]["laid_off"] == ["4s"] and env.game_info()["winner"] == 0
    assert (info["deals_ended"], info["deal_over"], info["game_over"], info["game_winner"]) == (1, 1, 1, 0)
    assert np.flatnonzero(info["laid_off"][1]).tolist() == parse_cards("4s")
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


class ScriptedOpponent:
    """Plays a fixed list of actions, then the first legal one."""

    def __init__(self, actions):
        self.actions = list(actions)
        self.calls = 0

    def __call__(self, observation, action_mask):
        assert observation.shape == (gin.OBS_DIM,) and action_mask.dtype == bool
        self.calls += 1
        return self.actions.pop(0) if self.actions else int(np.flatnonzero(action_mask)[0])


def test_gym_opponent_reward_before_first_action_is_carried():
    """The opponent (player_0) opens and knocks before the learner acts: in a game episode
    the -73 points reach the learner with its first step's reward."""
    opp = ScriptedOpponent(KNOCK_ACTIONS)
    env = GinRummyEnv(opponent=opp, seat=1, episode="game")
    obs, info = env.reset(seed=0, options={"deck": KNOCK_DECK, "dealer": 1})
    assert opp.calls == 2 and env.deal_infos()[0]["points"] == KNOCK_POINTS
    assert (info["deals_ended"], info["winner"], info["points"]) == (1, 0, KNOCK_POINTS)
    assert obs["observation"][gin.OBS_LAYOUT["opp_score"]][0] == pytest.approx(KNOCK_POINTS / 100)
    obs, r, *_ = env.step(gin.PASS)  # hand 2: the learner is non-dealer and opens
    assert r == pytest.approx(-KNOCK_POINTS * HAND_POINTS_SCALE)


def test_gym_episode_ending_before_learner_acts_is_skipped():
    opp = ScriptedOpponent(KNOCK_ACTIONS)
    env = GinRummyEnv(opponent=opp, seat=1, episode="hand")
    obs, info = env.reset(seed=0, options={"deck": KNOCK_DECK, "dealer": 1})
    assert info["skipped_episodes"] == 1 and env.skipped_episodes == 1
    assert obs["action_mask"].any() and env._state.hand_no[0] == 0


def test_gym_illegal_action_modes():
    env = GinRummyEnv(seat=0, illegal_reward=-3)
    env.reset(seed=0, options={"deck": KNOCK_DECK, "dealer": 1})
    obs, r, term, trunc, info = env.step(gin.DRAW_STOCK)
    assert (r, term, trunc, info["illegal_action"]) == (-3.0, True, False, True)
    env = GinRummyEnv(seat=0, illegal_action="raise")
    env.reset(seed=0, options={"deck": KNOCK_DECK, "dealer": 1})
    with pytest.raises(gin.IllegalActionError, match="phase OFFER; legal"):
        env.step(gin.DRAW_STOCK)


def test_gym_seats_and_opponents():
    env = GinRummyEnv(opponent="random")
    seats = {env.reset(seed=s)[1]["seat"] for s in range(12)}
    assert seats == {0, 1}
    env = GinRummyEnv(seat="player_1")
    assert all(env.reset(seed=s)[1]["seat"] == 1 for s in range(3))
    assert env.reset(seed=0, options={"seat": 0})[1]["seat"] == 0
    with pytest.raises(ValueError, match="opponent"):
        GinRummyEnv(opponent=42)
    with pytest.raises(ValueError, match="unknown agent"):
        GinRummyEnv(opponent="grandmaster")
    with pytest.raises(ValueError, match="seat"):
        GinRummyEnv(seat=2)
    with pytest.raises(ValueError, match="opponnent"):
        GinRummyEnv(opponnent="random")


def test_gym_seeded_episode_replays_with_random_opponent():
    def episode(seed):
        env = GinRummyEnv(opponent="random", episode="hand")
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(1)
        trace = [obs["observation"].copy()]
        while True:
            obs, r, term, trunc, info = env.step(random_legal(obs["action_mask"], rng))
            trace.append(obs["observation"].copy())
            if term or trunc:
                return trace, r

    a, b = episode(5), episode(5)
    assert len(a[0]) == len(b[0]) and a[1] == b[1]
    assert all(np.array_equal(x, y) for x, y in zip(a[0], b[0]))


@pytest.mark.slow
def test_maskable_ppo_trains_on_the_gym_env():
    """sb3-contrib's MaskablePPO runs unchanged on the env (it reads env.action_masks());
    with illegal_action="raise", a single unmasked action would abort training."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = GinRummyEnv(opponent="random", episode="hand", illegal_action="raise")
    model = MaskablePPO("MultiInputPolicy", env, n_steps=512, batch_size=128, n_epochs=2, seed=0,
                        policy_kwargs={"net_arch": [64]}, verbose=0, device="cpu")
    model.learn(total_timesteps=2048)
    assert model.num_timesteps >= 2048
    obs, _ = env.reset(seed=123)
    for _ in range(400):
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        obs, r, term, trunc, _ = env.step(int(action))
        if term or trunc:
            break
    assert term or trunc


def _stock_wrapped(**kwargs):
    """raw_env in PettingZoo's own classic-env wrappers, without rummyrl.envs.aec_wrappers' fast paths."""
    env = pz_wrappers.TerminateIllegalWrapper(gin_rummy_v0.raw_env(**kwargs), illegal_reward=-1)
    env = pz_wrappers.AssertOutOfBoundsWrapper(env)
    return pz_wrappers.OrderEnforcingWrapper(env)


@pytest.mark.parametrize("seed", range(6))
def test_env_wrappers_match_pettingzoo_wrappers(seed):
    """env()'s wrappers give the same episode as PettingZoo's stock wrappers, step by step:
    legal actions, an occasional illegal one (ends the game with the penalty), np.int64
    actions, and steps without a preceding observe()."""
    runs = []
    for make in (lambda: gin_rummy_v0.env(episode="hand"), lambda: _stock_wrapped(episode="hand")):
        env, rng, trace = make(), np.random.default_rng(seed), []
        env.reset(seed=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for agent in env.agent_iter(max_iter=400):
                if rng.random() < 0.7:
                    obs, reward, term, trunc, _ = env.last()
                    trace.append((agent, reward, term, trunc, obs["action_mask"].tobytes()))
                else:
                    term, trunc = env.terminations[agent], env.truncations[agent]
                if term or trunc:
                    action = None
                elif rng.random() < 0.01:
                    action = int(rng.integers(gin.NUM_ACTIONS))  # most likely illegal
                else:
                    legal = np.flatnonzero(env.unwrapped._state.mask[0])
                    action = legal[rng.integers(legal.size)]
                    action = int(action) if rng.random() < 0.5 else np.int64(action)
                env.step(action)
        trace.append(dict(env.unwrapped._cumulative_rewards))
        runs.append(trace)
    assert runs[0] == runs[1]
