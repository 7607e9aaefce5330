"""The Rummy environments: PettingZoo ``rummy_v0`` (API, seeds, max_cycles), Gymnasium
``rummyrl/Rummy-v0`` (check_env, opponents per seat), the batched self-play interface and
the VectorEnv; rewards on a scripted round (R-6 going out, R-8 scoring, R-4 a lay-off onto
another player's meld) and zero-sum over random play at 2, 4 and 6 players; explicit deals,
option errors, rendering."""

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
from rummyrl.agents import Agent, RandomAgent
from rummyrl.envs import rummy_v0
from rummyrl.envs.gym_rummy import RummyEnv
from rummyrl.envs.render import meld_ids
from rummyrl.envs.rummy_rewards import GAME_POINTS_SCALE, ROUND_POINTS_SCALE
from rummyrl.envs.rummy_vector import RummySelfPlay, RummyVectorEnv
from rummyrl import rummy
from rummyrl.cards import VALUE, card_str, parse_cards
from rummyrl.random_play import random_actions

from env_checks import assert_same_game_everywhere, random_legal
from rummy_deals import (DEALER, OUT_ACTIONS, OUT_DECK, OUT_POINTS, OUT_VALUES, QUICK_ACTIONS, QUICK_DECK,
                         QUICK_VALUES)

AGENTS4 = [f"player_{p}" for p in range(4)]
#: round_points rewards of OUT_DEAL: +85 to player_0, each other its own hand's value
OUT_REWARDS = [OUT_POINTS * ROUND_POINTS_SCALE] + [-v * ROUND_POINTS_SCALE for v in OUT_VALUES[1:]]


def out_env(**kwargs):
    """A raw env reset to OUT_DEAL (player_3 deals, player_0 acts first)."""
    kwargs.setdefault("episode", "round")
    env = rummy_v0.raw_env(**kwargs)
    env.reset(seed=0, options={"deck": OUT_DECK, "dealer": DEALER})
    return env


def play_out(env):
    for seat, action in OUT_ACTIONS:
        assert env.agent_selection == f"player_{seat}"
        env.step(action)


class Scripted:
    """Plays a fixed list of actions, then the first legal one; counts its calls."""

    def __init__(self, actions=()):
        self.actions = list(actions)
        self.calls = 0

    def __call__(self, observation, action_mask):
        assert observation.shape == (rummy.OBS_DIM,) and action_mask.dtype == bool
        self.calls += 1
        return self.actions.pop(0) if self.actions else int(np.flatnonzero(action_mask)[0])


# --------------------------------------------------------------------------------------
# PettingZoo
# --------------------------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("num_players, episode", [(2, "game"), (4, "game"), (6, "round")])
def test_pettingzoo_api_test(num_players, episode):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(rummy_v0.env(num_players=num_players, episode=episode), num_cycles=10_000)
        if num_players == 4:
            api_test(rummy_v0.raw_env(num_players=num_players, episode=episode), num_cycles=10_000)


@pytest.mark.slow
def test_pettingzoo_seed_test():
    seed_test(rummy_v0.env, num_cycles=1000)
    seed_test(lambda: rummy_v0.raw_env(num_players=3, episode="round", reward="game"), num_cycles=1000)


@pytest.mark.parametrize("num_players", [2, 6])
def test_agents_spaces_wrappers_and_first_observation(num_players):
    env = rummy_v0.env(num_players=num_players)
    layers, e = [], env
    while hasattr(e, "env"):
        layers.append(e)
        e = e.env
    standard = [pz_wrappers.OrderEnforcingWrapper, pz_wrappers.AssertOutOfBoundsWrapper,
                pz_wrappers.TerminateIllegalWrapper]
    assert len(layers) == 3 and all(isinstance(x, cls) for x, cls in zip(layers, standard))
    env.reset(seed=3)
    assert env.possible_agents == [f"player_{p}" for p in range(num_players)]
    for agent in env.possible_agents:
        assert env.action_space(agent) == gymnasium.spaces.Discrete(rummy.NUM_ACTIONS)
        assert env.observation_space(agent)["observation"].shape == (rummy.OBS_DIM,)
    obs, reward, term, trunc, info = env.last()
    assert obs["action_mask"].dtype == np.int8
    assert np.flatnonzero(obs["action_mask"]).tolist() == [rummy.DRAW_STOCK, rummy.TAKE_DISCARD]
    o = rummy.observation_dict(obs["observation"])
    assert o["hand"].sum() == 7 and o["seat_present"].sum() == num_players
    assert o["my_turn"] == 1 and o["stock_size"] == pytest.approx((52 - 7 * num_players - 1) / 52)
    for other in env.possible_agents:
        if other != env.agent_selection:
            assert not env.observe(other)["action_mask"].any()
    assert (reward, term, trunc, info["deal_over"], info["round"], info["winner"]) == (0, False, False, 0, -1, -1)
    assert info["hands"].shape == (num_players, 52) and not info["hands"].any()
    assert env.deal_info() is None and env.game_info() is None


def test_scripted_round_rewards_and_round_info():
    """R-6 / R-8: player_0 goes out with 85 points; each other player gives its own hand's
    value; only the step that ended the round carries rewards; the turn is several actions."""
    env = out_env()
    seen = []
    for seat, action in OUT_ACTIONS:
        seen.append(env.agent_selection)
        env.step(action)
        if len(seen) < len(OUT_ACTIONS):
            assert all(r == 0 for r in env.rewards.values()) and all(i["deal_over"] == 0 for i in env.infos.values())
    assert seen == [f"player_{s}" for s, _ in OUT_ACTIONS]
    assert [env.rewards[a] for a in AGENTS4] == pytest.approx(OUT_REWARDS)
    assert sum(env.rewards.values()) == pytest.approx(0, abs=1e-12)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    rnd = env.deal_info()
    assert (rnd["end"], rnd["winner"], rnd["points"]) == ("out", 0, OUT_POINTS)
    assert rnd["hand_values"] == list(OUT_VALUES) and rnd["hands"][1] == ["4s", "Ac", "8c"]
    assert rnd["table"][0]["laid_off"] == [["7h", 1]] and rnd["table"][0]["owner"] == 0
    assert env.game_info()["winner"] == 0
    i = env.infos["player_2"]  # the same as arrays
    assert (i["deal_over"], i["round"], i["end"], i["winner"], i["points"]) == (1, 0, rummy.END_OUT, 0, OUT_POINTS)
    assert i["hand_values"].tolist() == list(OUT_VALUES) and np.flatnonzero(i["hands"][1]).tolist() == \
        sorted(parse_cards("4s Ac 8c"))
    assert np.flatnonzero(i["laid_off"][1]).tolist() == parse_cards("7h") and i["laid_off"].sum() == 1
    for p in range(4):  # each player's melds on the table, as the words list them
        mine = [c for m in rnd["table"] if m["owner"] == p for c in m["cards"]
                if c not in [x for x, _ in m["laid_off"]]]
        assert np.flatnonzero(i["melds"][p]).tolist() == sorted(parse_cards(" ".join(mine)))
    assert (i["game_over"], i["game_winner"]) == (1, 0) and i["game_total"].tolist() == rnd["scores"]
    for _ in range(4):  # each agent steps once more with None, then the episode is empty
        obs, cum, term, trunc, _ = env.last()
        assert term and not obs["action_mask"].any()
        env.step(None)
    assert env.agents == []


@pytest.mark.parametrize("reward, expected", [
    ("round_points", OUT_REWARDS),
    ("game", [1.0, -1 / 3, -1 / 3, -1 / 3]),
    ("game_points", [OUT_POINTS * GAME_POINTS_SCALE] + [-OUT_POINTS / 3 * GAME_POINTS_SCALE] * 3),
    ("round_points+game", [r + g for r, g in zip(OUT_REWARDS, [1.0, -1 / 3, -1 / 3, -1 / 3])]),
])
def test_reward_schemes_one_round_episode(reward, expected):
    env = out_env(reward=reward)
    play_out(env)
    assert [env.rewards[a] for a in AGENTS4] == pytest.approx(expected)
    assert sum(env.rewards.values()) == pytest.approx(0, abs=1e-12)


def test_reward_scales_and_game_episode_delivery():
    """In a game to 200 the round's rewards wait in each agent's cumulative reward until it
    acts; the next round is dealt by player_0 (R-2), so player_1 opens it."""
    env = out_env(episode="game", round_points_scale=0.1)
    play_out(env)
    assert env._cumulative_rewards == pytest.approx({"player_0": 8.5, "player_1": -1.3, "player_2": -4.3,
                                                     "player_3": -2.9})
    assert not any(env.terminations.values()) and env.infos["player_0"]["game_over"] == 0
    assert env.game_info() is None
    assert env.agent_selection == "player_1"
    obs, cum, *_ = env.last()
    assert cum == pytest.approx(-1.3) and obs["observation"][rummy.OBS_LAYOUT["scores"]][3] == pytest.approx(85 / 200)
    env.step(rummy.DRAW_STOCK)
    assert env._cumulative_rewards["player_1"] == 0.0 and env._cumulative_rewards["player_0"] == pytest.approx(8.5)
    assert env.rewards == dict.fromkeys(AGENTS4, 0.0) and all(i["deal_over"] == 0 for i in env.infos.values())


def eager(mask, rng) -> int:
    """A random legal meld or lay-off when there is one, else a random legal action: rounds of
    purely random play mostly end drawn (nearly all of them with six players)."""
    plays = np.flatnonzero(mask[rummy.MELD:]) + rummy.MELD
    return int(plays[int(rng.random() * plays.size)]) if plays.size else random_legal(mask, rng)


@pytest.mark.parametrize("num_players", [2, 4, 6])
def test_zero_sum_rewards_over_random_games(num_players):
    env = rummy_v0.env(num_players=num_players, reward="round_points+game+game_points", target=150)
    agents = env.possible_agents
    rng = np.random.default_rng(num_players)
    total = dict.fromkeys(agents, 0.0)
    steps = ends = 0
    biggest = 0.0
    for seed in range(3):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, cum, term, trunc, info = env.last()
            total[agent] += cum
            env.step(None if term or trunc else eager(obs["action_mask"], rng))
            assert abs(sum(env.rewards.values())) < 1e-9
            steps += 1
            ends += env.infos[agent]["winner"] >= 0 if agent in env.infos else 0
            biggest = max([biggest, *(abs(r) for r in env.rewards.values())])
    assert abs(sum(total.values())) < 1e-9
    assert ends >= 5 and steps > 500 and biggest > 1.0  # rounds and games were won


def test_truncated_round_gives_no_reward():
    """A one-round episode cut off by the move cap is truncated; nobody scores."""
    env = rummy_v0.raw_env(num_players=3, episode="round", reward="round_points+game+game_points", max_actions=9)
    env.reset(seed=1)
    rng = np.random.default_rng(0)
    n = 0
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(random_legal(env.observe(env.agent_selection)["action_mask"], rng))
        n += 1
    assert n == 9 and all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {f"player_{p}": 0.0 for p in range(3)}
    assert env.deal_info()["end"] == "truncated" and env.infos["player_0"]["end"] == rummy.END_TRUNCATED


@pytest.mark.parametrize("num_players", [3, 5])
def test_max_cycles_truncates_after_cycles_of_actions(num_players):
    """max_cycles=N: every agent is truncated after N * P actions (PettingZoo's
    max_cycles_test cannot run: see the module docstring); each then steps once with None."""
    env = rummy_v0.env(num_players=num_players, max_cycles=5)
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    actions, dead = 0, []
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            assert trunc and not term
            dead.append(agent)
            env.step(None)
        else:
            actions += 1
            env.step(random_legal(obs["action_mask"], rng))
    assert actions == 5 * num_players and sorted(dead) == env.possible_agents


def test_raw_env_illegal_action_raises_clear_error():
    env = out_env()
    with pytest.raises(rummy.IllegalActionError, match=r"player_0: action 2 \(discard As\) is not legal in phase "
                                                       r"DRAW; legal: \[0 \(draw_stock\), 1 \(take_discard\)\]"):
        env.step(rummy.DISCARD + parse_cards("As")[0])
    with pytest.raises(ValueError, match="must be an int"):
        env.step("draw")
    play_out(env)  # nothing changed: the scripted round still plays


def test_env_illegal_move_ends_game_with_penalty():
    env = rummy_v0.env(illegal_reward=-2)
    env.reset(seed=0, options={"deck": OUT_DECK, "dealer": DEALER})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        env.step(rummy.DISCARD)  # illegal in DRAW
    assert all(env.terminations.values())
    assert env.rewards == {"player_0": -2.0, "player_1": 0.0, "player_2": 0.0, "player_3": 0.0}


def test_reset_deck_schedule_dealers_and_card_text():
    """options={"decks", "dealers"}: round 2 is OUT_DECK dealt by player_2 this time, so the
    hands move one seat back: player_3 holds player_0's hand and opens."""
    env = rummy_v0.raw_env(episode="game")
    env.reset(seed=4, options={"decks": [OUT_DECK, OUT_DECK], "dealers": [DEALER, "player_2"]})
    play_out(env)
    assert env.agent_selection == "player_3"
    hand = env.observe("player_3")["observation"][rummy.OBS_LAYOUT["hand"]]
    assert np.flatnonzero(hand).tolist() == sorted(OUT_DECK[:7].tolist())
    text = " ".join(card_str(c) for c in OUT_DECK)
    env.reset(options={"deck": text, "dealer": 1})  # player_2 opens with the first 7 cards
    assert env.agent_selection == "player_2"
    hand = env.observe("player_2")["observation"][rummy.OBS_LAYOUT["hand"]]
    assert np.flatnonzero(hand).tolist() == sorted(parse_cards("2h 3h 4h 5h 6h Qs Qc"))


def test_seeded_resets_replay_and_unseeded_reset_moves_on():
    env = rummy_v0.raw_env(num_players=5)

    def first_obs(**kw):
        env.reset(**kw)
        return env.agent_selection, env.observe(env.agent_selection)["observation"].copy()

    a = first_obs(seed=8)
    b = first_obs()
    again_a, again_b = first_obs(seed=8), first_obs()
    assert a[0] == again_a[0] and np.array_equal(a[1], again_a[1])
    assert b[0] == again_b[0] and np.array_equal(b[1], again_b[1])
    assert not np.array_equal(a[1], b[1])


def test_same_game_in_every_wrapper():
    """reset(seed=s) deals the same game in the AEC env, the Gymnasium env and lane 0 of the
    batched interface; the same actions give the same observations."""
    P = 3
    assert_same_game_everywhere(rummy_v0.raw_env(num_players=P), RummySelfPlay(3, num_players=P),
                                lambda seat: RummyEnv(seat=seat, num_players=P), seed=21, steps=150)


def test_bad_options_raise_value_errors_naming_them():
    with pytest.raises(ValueError, match=r"rummy_v0: unknown option\(s\) \['num_player'\]"):
        rummy_v0.raw_env(num_player=3)
    with pytest.raises(ValueError, match="num_players must be in 2..6, got 7"):
        rummy_v0.raw_env(num_players=7)
    with pytest.raises(ValueError, match=r"unknown reward scheme\(s\) \['hand_points'\].*'round_points'"):
        rummy_v0.raw_env(reward="hand_points")
    with pytest.raises(ValueError, match="round_points_scale must be a positive number"):
        rummy_v0.raw_env(round_points_scale=0)
    with pytest.raises(ValueError, match="max_cycles"):
        rummy_v0.raw_env(max_cycles=0)
    with pytest.raises(ValueError, match="render_mode"):
        rummy_v0.raw_env(render_mode="rgb_array")
    env = rummy_v0.raw_env(num_players=4)
    bad = OUT_DECK.copy()
    bad[1] = bad[0]
    with pytest.raises(ValueError, match="deck.*not a permutation"):
        env.reset(options={"deck": bad})
    with pytest.raises(ValueError, match=r"'dealer' must be 0, 1, 2, 3, 'player_0'.*got 4"):
        env.reset(options={"deck": OUT_DECK, "dealer": 4})
    with pytest.raises(ValueError, match=r"'dealers' must be .*got 'player_5'"):
        env.reset(options={"decks": [OUT_DECK], "dealers": ["player_5"]})
    with pytest.warns(UserWarning, match=r"unknown reset option\(s\) \['dek'\]"):
        env.reset(options={"dek": OUT_DECK})
    with pytest.raises(ValueError, match=r"unknown reset option\(s\) \['dek'\]"):
        RummyEnv().reset(options={"dek": OUT_DECK})


def test_docstring_documents_every_observation_field_and_scheme():
    doc = rummy_v0.__doc__
    for name, size, _ in rummy.OBS_PARTS:
        sl = rummy.OBS_LAYOUT[name]
        where = f"{sl.start}" if size == 1 else f"{sl.start}-{sl.stop - 1}"
        assert f"| {where}" in doc and f"`{name}`" in doc, name
    for name in ("round_points", "game_points", "`game`", "Version history", "max_cycles", "num_players",
                 f"Discrete({rummy.NUM_ACTIONS})", f"({rummy.OBS_DIM},)"):
        assert name in doc


# --------------------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------------------
def test_render_table_owners_layoffs_and_round_end():
    env = out_env(render_mode="ansi")
    text = env.render()
    assert "Rummy (4 players, one round) · round 1 · dealer player_3" in text
    assert "stock: 23 cards (pile turned over 0 of 1) · discard pile (1): top 7♦" in text
    assert ("player_0 [2♥ 3♥ 4♥ 5♥ 6♥] · Q♠ Q♣   7 cards, value 40   ← to act: draw from the stock or "
            "take the discard") in text
    assert "player_1 [K♠ K♦ K♣] · 4♠ 7♥ A♣ 8♣   7 cards, value 50\n" in text
    for _, a in OUT_ACTIONS[:7]:
        env.step(a)
    text = env.render()
    assert "  meld 0: [2♥ 3♥ 4♥ 5♥ 6♥] by player_0 + laid off 7♥ (player_1)" in text
    assert "  meld 1: [K♠ K♦ K♣] by player_1" in text
    assert "player_1 · 4♠ A♣ 8♣   3 cards, value 13 · has melded" in text
    assert "top T♥ (below: 9♦ 7♦)" in text
    for _, a in OUT_ACTIONS[7:]:
        env.step(a)
    text = env.render()
    assert "Round ended: player_0 went out (R-6) and scores 85 (player_1 13, player_2 43, player_3 29, R-8)" in text
    assert "  meld 2: [Q♠ Q♥ Q♣] by player_0" in text and "player_0 (no cards)   ← went out" in text
    assert "Game over: player_0 wins the round with 85; player_1 0, player_2 0, player_3 0 (margin 85)" in text


def test_render_drawn_round_and_game_end():
    env = rummy_v0.raw_env(render_mode="ansi", num_players=6, episode="round")
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        mask = env.observe(env.agent_selection)["action_mask"]
        mask[rummy.MELD:] = 0  # never meld: nobody goes out, the stocks run out
        env.step(random_legal(mask, rng))
    assert env.deal_info()["end"] == "draw" and env.infos["player_0"]["end"] == rummy.END_DRAWN
    text = env.render()
    assert "Round ended in a draw: the last stock ran out and nobody went out (R-7); nobody scores" in text
    assert "Game over: no winner (the one-round episode ended in a draw)" in text


def test_render_human_prints_each_step(capsys):
    env = rummy_v0.raw_env(render_mode="human", num_players=3)
    env.reset(seed=0)
    env.step(rummy.DRAW_STOCK)
    out = capsys.readouterr().out
    assert out.count("Rummy (3 players, game to 200)") == 2
    assert "← to act: meld" in out


def test_meld_grouping_of_a_hand_beyond_the_deadwood_solver():
    """A 16-card hand with five ranks held three times (the solver takes four): every such
    rank is a set, the rest by runs."""
    hand = np.zeros((1, 52), bool)
    hand[0, parse_cards("As Ah Ad 2s 2h 2d 3s 3h 3d 4s 4h 4d 5s 5h 5d Kc")] = True
    ids = meld_ids(hand)[0]
    groups = [sorted(card_str(c) for c in np.flatnonzero(ids == j)) for j in range(ids.max() + 1)]
    assert len(groups) == 5 and all(len(g) == 3 and len({c[0] for c in g}) == 1 for g in groups)
    assert ids[parse_cards("Kc")[0]] == -1


# --------------------------------------------------------------------------------------
# Gymnasium
# --------------------------------------------------------------------------------------
def test_gymnasium_check_env_and_registration():
    env = gymnasium.make(envs.RUMMY_ENV_ID)
    check_env(env.unwrapped)
    check_env(gymnasium.make(envs.RUMMY_ENV_ID, num_players=6, episode="round", render_mode="ansi",
                             opponent=["random", "simple", "expert", "random", "simple"]).unwrapped)
    obs, info = env.reset(seed=0)
    assert np.array_equal(info["action_mask"], obs["action_mask"]) and info["action_mask"] is not obs["action_mask"]
    assert np.array_equal(env.unwrapped.action_masks(), obs["action_mask"].astype(bool))
    assert env.unwrapped.num_players == 4 and len(env.unwrapped.opponents) == 3


def test_registration_does_not_import_torch():
    code = ("import sys, gymnasium, rummyrl.envs, rummyrl.envs.gym_rummy, rummyrl.envs.rummy_vector, rummyrl.envs.rummy_v0; "
            "assert 'rummyrl/Rummy-v0' in gymnasium.registry; "
            "assert 'torch' not in sys.modules, 'torch was imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(envs.__file__).parents[1])


def test_gym_learner_goes_out_against_scripted_opponents():
    """The learner is player_0 of OUT_DEAL; the opponents play their scripted turns inside
    its steps; a list gives each relative seat its own opponent."""
    script = {s: [a for q, a in OUT_ACTIONS if q == s] for s in range(1, 4)}
    opps = [Scripted(script[s]) for s in (1, 2, 3)]
    env = RummyEnv(opponent=opps, seat=0, episode="round")
    obs, info = env.reset(seed=0, options={"deck": OUT_DECK, "dealer": DEALER})
    assert info["seat"] == 0 and info["skipped_episodes"] == 0
    mine = [a for q, a in OUT_ACTIONS if q == 0]
    for a in mine[:2]:
        obs, r, term, trunc, info = env.step(a)
        assert (r, term, trunc) == (0.0, False, False) and sum(o.calls for o in opps) == 0
    obs, r, term, trunc, info = env.step(mine[2])  # the discard: the opponents play a turn each
    assert [o.calls for o in opps] == [4, 2, 2] and r == 0.0
    by_seat = rummy.observation_dict(obs["observation"])["table_by_seat"]  # relative to the learner
    assert np.flatnonzero(by_seat[0]).tolist() == sorted(parse_cards("2h 3h 4h 5h 6h 7h"))  # 7♥ laid off on it
    assert np.flatnonzero(by_seat[1]).tolist() == sorted(parse_cards("Ks Kd Kc"))
    obs, r, term, trunc, info = env.step(mine[3])
    obs, r, term, trunc, info = env.step(mine[4])
    assert r == pytest.approx(OUT_POINTS * ROUND_POINTS_SCALE)
    assert term and not trunc and not obs["action_mask"].any()
    assert env.deal_infos()[0]["points"] == OUT_POINTS and env.game_info()["winner"] == 0
    assert (info["deals_ended"], info["points"], info["game_over"], info["game_winner"]) == (1, OUT_POINTS, 1, 0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_gym_reward_before_the_learner_acts_is_carried_or_skipped():
    """QUICK_DEAL: player_1 goes out in the first turn, before the learner (player_0) acts.
    In a game the -50 points reach the learner with its first step; a one-round episode that
    ends before the learner acts is skipped."""
    first, second = Scripted(QUICK_ACTIONS), Scripted()
    env = RummyEnv(opponent=[first, second], seat=0, num_players=3, episode="game")
    obs, info = env.reset(seed=0, options={"deck": QUICK_DECK, "dealer": 0})
    assert first.calls == 3 and env.deal_infos()[0]["hand_values"] == list(QUICK_VALUES)
    assert info["deals_ended"] == 1 and info["hand_values"].tolist() == list(QUICK_VALUES)
    assert obs["observation"][rummy.OBS_LAYOUT["scores"]][1] == pytest.approx(96 / 200)
    assert second.calls > 0  # round 2: player_1 deals, player_2 opens before the learner
    obs, r, *_ = env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert r == pytest.approx(-QUICK_VALUES[0] * ROUND_POINTS_SCALE)
    env = RummyEnv(opponent=[Scripted(QUICK_ACTIONS), Scripted()], seat=0, num_players=3, episode="round")
    obs, info = env.reset(seed=0, options={"deck": QUICK_DECK, "dealer": 0})
    assert info["skipped_episodes"] == 1 and env.skipped_episodes == 1 and obs["action_mask"].any()


def test_gym_illegal_action_modes():
    env = RummyEnv(seat=0, illegal_reward=-3)
    env.reset(seed=0, options={"deck": OUT_DECK, "dealer": DEALER})
    obs, r, term, trunc, info = env.step(rummy.DISCARD)
    assert (r, term, trunc, info["illegal_action"]) == (-3.0, True, False, True)
    env = RummyEnv(seat=0, illegal_action="raise")
    env.reset(seed=0, options={"deck": OUT_DECK, "dealer": DEALER})
    with pytest.raises(rummy.IllegalActionError, match="RummyEnv: action 2 .* phase DRAW; legal"):
        env.step(rummy.DISCARD)


def test_gym_seats_and_opponent_arguments():
    env = RummyEnv(num_players=3)
    assert {env.reset(seed=s)[1]["seat"] for s in range(15)} == {0, 1, 2}
    env = RummyEnv(seat="player_2", num_players=3)
    assert all(env.reset(seed=s)[1]["seat"] == 2 for s in range(3))
    assert env.reset(seed=0, options={"seat": 1})[1]["seat"] == 1
    shared = RummyEnv(opponent="simple").opponents
    assert len(shared) == 3 and shared[0] is shared[1] is shared[2] and shared[0].game == "rummy"
    with pytest.raises(ValueError, match="one per other seat .3 for 4 players., got 2"):
        RummyEnv(opponent=["random", "simple"])
    with pytest.raises(ValueError, match="opponent must be"):
        RummyEnv(opponent=42)
    with pytest.raises(ValueError, match="plays 'gin', not 'rummy'"):
        RummyEnv(opponent=RandomAgent(game="gin"))
    with pytest.raises(ValueError, match="unknown agent"):
        RummyEnv(opponent="grandmaster")
    with pytest.raises(ValueError, match=r"seat must be None \(random each episode\), 0, 1, 2, 'player_0'"):
        RummyEnv(seat=3, num_players=3)


def test_gym_seeded_episode_replays_with_random_opponents():
    def episode(seed):
        env = RummyEnv(opponent=["random", "simple", "random"], episode="round")
        obs, info = env.reset(seed=seed)
        rng = np.random.default_rng(1)
        trace = [obs["observation"].copy()]
        while True:
            obs, r, term, trunc, info = env.step(random_legal(obs["action_mask"], rng))
            trace.append(obs["observation"].copy())
            if term or trunc:
                return trace, r, info["seat"]

    a, b = episode(5), episode(5)
    assert len(a[0]) == len(b[0]) > 5 and a[1:] == b[1:]
    assert all(np.array_equal(x, y) for x, y in zip(a[0], b[0]))


def test_maskable_ppo_trains_on_the_gym_env():
    """sb3-contrib's MaskablePPO runs unchanged on the env (it reads env.action_masks());
    with illegal_action="raise", a single unmasked action would abort training."""
    pytest.importorskip("sb3_contrib")
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = RummyEnv(opponent="random", num_players=3, episode="round", illegal_action="raise")
    model = MaskablePPO("MultiInputPolicy", env, n_steps=256, batch_size=128, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [32]}, verbose=0, device="cpu")
    model.learn(total_timesteps=512)
    assert model.num_timesteps >= 512
    obs, _ = env.reset(seed=123)
    for _ in range(1000):
        action, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
        obs, r, term, trunc, _ = env.step(int(action))
        if term or trunc:
            break
    assert term or trunc


# --------------------------------------------------------------------------------------
# Batched self-play
# --------------------------------------------------------------------------------------
def test_selfplay_rewards_match_an_independent_replay():
    """Every reward the batched interface delivers, summed per seat, equals the round points
    (R-8: +points to the player who went out, -its hand's value to each other) read off a
    plain core replay of the same seed and actions; what is not yet delivered is exactly what
    each seat earned since it last acted: each reward reaches its seat exactly once."""
    B, P, steps = 32, 4, 1500
    env = RummySelfPlay(B, num_players=P, target=60, reward="round_points")
    batch = env.reset(seed=9)
    ref = rummy.init(B, seed=9, config=rummy.RummyConfig(num_players=P, target=60))
    rng = np.random.default_rng(0)
    delivered, earned, since_acted = np.zeros((B, P)), np.zeros((B, P)), np.zeros((B, P))
    games = rounds = 0
    rows = np.arange(B)
    for _ in range(steps):
        assert np.array_equal(batch.player, ref.current) and np.array_equal(batch.mask, ref.mask)
        actions = random_actions(batch.mask, rng)
        since_acted[rows, ref.current] = 0.0
        rummy.step(ref, actions, inplace=True)
        for b in np.flatnonzero(ref.round_ended & (ref.last_winner >= 0)):
            held = ref.last_hands[b]
            gain = -(held * VALUE).sum(1) * ROUND_POINTS_SCALE
            gain[ref.last_winner[b]] = -gain.sum()
            earned[b] += gain
            since_acted[b] += gain
            rounds += 1
        batch = env.step(actions)
        delivered += batch.rewards
        assert np.array_equal(batch.done, ref.game_over)
        ended = np.flatnonzero(ref.game_over)
        since_acted[ended] = 0.0
        games += ended.size
        rummy.reset_done(ref)
    assert games >= 5 and rounds >= 20
    np.testing.assert_allclose(delivered + env.seats.pending, earned, atol=1e-5)  # rewards are float32
    np.testing.assert_allclose(env.seats.pending, since_acted, atol=1e-9)
    np.testing.assert_allclose(delivered.sum(1) + env.seats.pending.sum(1), 0, atol=1e-5)


def test_selfplay_delivery_order_on_the_scripted_round():
    """OUT_DEAL in every lane of a game to 200: each seat's round reward is credited when it
    next acts, once; player_1 opens round 2 and gets its -13 at once."""
    B = 3
    env = RummySelfPlay(B, num_players=4)
    batch = env.reset(seed=0, options={"decks": OUT_DECK, "dealers": DEALER})
    for _, a in OUT_ACTIONS:
        assert not batch.rewards.any()
        batch = env.step(np.full(B, a))
    assert (batch.player == 1).all() and not batch.done.any()
    np.testing.assert_allclose(batch.rewards, [[0, OUT_REWARDS[1], 0, 0]] * B, rtol=1e-6)
    np.testing.assert_allclose(env.seats.pending, [[OUT_REWARDS[0], 0, *OUT_REWARDS[2:]]] * B, rtol=1e-9)
    credited = batch.rewards.copy()
    rng = np.random.default_rng(0)
    while env.seats.pending.any() and not batch.done.any():
        batch = env.step(random_actions(batch.mask, rng))
        credited += batch.rewards
        nonzero = np.flatnonzero(batch.rewards[0])
        assert nonzero.size <= 1 and (nonzero.size == 0 or nonzero[0] == batch.player[0])
    np.testing.assert_allclose(credited, [OUT_REWARDS] * B, rtol=1e-6)


def test_selfplay_autoreset_final_info_and_final_observations():
    B = 2
    env = RummySelfPlay(B, num_players=4, episode="round", reward="game", final_observations=True)
    batch = env.reset(seed=0, options={"decks": OUT_DECK, "dealers": DEALER})
    for _, a in OUT_ACTIONS:
        batch = env.step(np.full(B, a))
    assert batch.done.all() and batch.terminated.all() and not batch.truncated.any()
    np.testing.assert_allclose(batch.rewards, [[1.0, -1 / 3, -1 / 3, -1 / 3]] * B, rtol=1e-6)
    f = batch.final
    assert f["winner"].tolist() == [0] * B and f["margin"].tolist() == [OUT_POINTS] * B
    assert f["total"].tolist() == [[OUT_POINTS, 0, 0, 0]] * B and f["round_points"].tolist() == f["total"].tolist()
    assert f["rounds_won"].tolist() == [[1, 0, 0, 0]] * B and f["rounds_played"].tolist() == [1] * B
    assert batch.final_obs.shape == (B, 4, rummy.OBS_DIM)
    fo = rummy.observation_dict(batch.final_obs)
    assert (fo["phase"][..., rummy.PHASE_DONE] == 1).all()
    assert fo["hand"][0, 1].nonzero()[0].tolist() == sorted(parse_cards("4s Ac 8c"))
    assert (fo["hand_sizes"][0, 0, :4] * 7).round().tolist() == [0, 3, 7, 7]  # seen by player_0
    # the lanes already play their next game (a shuffled deal of game number 1)
    assert (batch.obs[:, rummy.OBS_LAYOUT["hand"]].sum(1) == 7).all() and env.state.game_no.tolist() == [1] * B
    batch = env.step(random_actions(batch.mask, np.random.default_rng(0)))
    assert not batch.done.any() and batch.final["winner"].tolist() == [-1] * B  # no stale results
    assert not batch.final["total"].any() and not batch.final_obs.any()


def test_selfplay_errors_and_spaces():
    env = RummySelfPlay(2, num_players=5)
    assert env.num_players == 5 and env.batch.rewards.shape == (2, 5)
    assert env.single_observation_space["observation"].shape == (rummy.OBS_DIM,)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(2, np.int64))
    batch = env.reset(seed=0)
    with pytest.raises(rummy.IllegalActionError, match="game 1"):
        env.step(np.where(np.arange(2) == 1, rummy.DISCARD, np.argmax(batch.mask, 1)))
    with pytest.raises(ValueError, match=r"RummySelfPlay: unknown reset option\(s\) \['deck'\]"):
        env.reset(seed=0, options={"deck": OUT_DECK})
    with pytest.raises(ValueError, match=r"unknown option\(s\) \['players'\]"):
        RummySelfPlay(2, players=3)
    with pytest.raises(ValueError, match="num_envs"):
        RummySelfPlay(0)


def test_selfplay_reproducible_and_independent_of_batch_size():
    """Lane b of reset(seed=s) plays game b of seed s at any batch size; the same seed and
    actions replay exactly."""
    def run(B):
        env = RummySelfPlay(B, num_players=3, target=50, reward="round_points+game")
        batch = env.reset(seed=11)
        rng = np.random.default_rng(3)
        trace = []
        for _ in range(400):
            acts = random_actions(batch.mask, rng)
            acts[0] = eager(batch.mask[0], np.random.default_rng(len(trace)))
            batch = env.step(acts)
            trace.append((batch.obs[0].copy(), batch.rewards[0].copy(), bool(batch.done[0])))
        return trace

    a, b, c = run(2), run(2), run(5)
    for (o1, r1, d1), (o2, r2, d2), (o3, r3, d3) in zip(a, b, c):
        assert np.array_equal(o1, o2) and np.array_equal(r1, r2) and d1 == d2
        assert np.array_equal(o1, o3) and np.array_equal(r1, r3) and d1 == d3
    assert any(r.any() for _, r, _ in a)


# --------------------------------------------------------------------------------------
# Single-agent VectorEnv
# --------------------------------------------------------------------------------------
def test_vector_env_returns_match_final_results():
    """One-round episodes, game_points: each finished episode's return is the learner's
    (total - the mean of the others' totals) / 200, opponents' wins included; every lane
    waits for the learner."""
    B, P = 12, 4
    env = RummyVectorEnv(B, num_players=P, opponent="simple", episode="round", reward="game_points")
    obs, infos = env.reset(seed=3)
    rng = np.random.default_rng(0)
    ret = np.zeros(B)
    checked = won = 0
    for _ in range(400):
        obs, r, term, trunc, infos = env.step(random_actions(obs["action_mask"].astype(bool), rng))
        ret += r
        done = term | trunc
        if done.any():
            f = infos["final_info"]
            assert np.array_equal(infos["_final_info"], done)
            for b in np.flatnonzero(done):
                t, seat = f["total"][b].astype(float), f["seat"][b]
                expected = (t[seat] - (t.sum() - t[seat]) / (P - 1)) * GAME_POINTS_SCALE
                assert ret[b] == pytest.approx(expected if f["winner"][b] >= 0 else 0.0)
                won += f["winner"][b] >= 0
                ret[b] = 0.0
                checked += 1
            assert (infos["final_obs"]["observation"][done][:, OBS_DONE] == 1).all()
        assert (env.state.current == env.seat).all() and obs["action_mask"].any(1).all()
    assert checked > 20 and won > 10


OBS_DONE = rummy.OBS_LAYOUT["phase"].start + rummy.PHASE_DONE


class SeatChecker(Agent):
    """A batched random opponent that checks it is asked only for its relative seats."""

    game = "rummy"

    def __init__(self, env_ref, seats, seed):
        self.env_ref, self.seats, self.rows = env_ref, set(seats), 0
        self.rng = np.random.default_rng(seed)

    def act(self, observations, action_masks):
        env = self.env_ref[0]
        st = env.state
        hands = observations[:, rummy.OBS_LAYOUT["hand"]] > 0
        acting = st.hands[np.arange(env.num_envs), st.current]
        for h in hands:
            b = np.flatnonzero((acting == h).all(1) & (st.current != env.seat))
            assert b.size >= 1
            assert {int((st.current[x] - env.seat[x]) % env.num_players) for x in b} <= self.seats
        self.rows += len(observations)
        return random_actions(action_masks, self.rng)


def test_vector_env_opponents_per_relative_seat():
    ref = [None]
    near, far = SeatChecker(ref, {1}, 0), SeatChecker(ref, {2, 3}, 1)
    env = RummyVectorEnv(8, num_players=4, opponent=[near, far, far], episode="round")
    ref[0] = env
    obs, _ = env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(150):
        obs, *_ = env.step(random_actions(obs["action_mask"].astype(bool), rng))
    assert near.rows > 50 and far.rows > 2 * 50


def test_vector_env_spaces_errors_and_make_vec():
    env = gymnasium.make_vec(envs.RUMMY_ENV_ID, num_envs=3, vectorization_mode="vector_entry_point",
                             num_players=6, seat=5, episode="round")
    assert isinstance(env.unwrapped, RummyVectorEnv) and env.num_envs == 3
    obs, infos = env.reset(seed=0)
    assert obs["observation"].shape == (3, rummy.OBS_DIM) and (infos["seat"] == 5).all()
    assert env.observation_space.contains(obs)
    u = env.unwrapped
    with pytest.raises(rummy.IllegalActionError, match="learner"):
        u.step(np.full(3, rummy.NUM_ACTIONS - 1))
    with pytest.raises(ValueError, match="shape"):
        u.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="seat must be"):
        RummyVectorEnv(2, num_players=3, seat=3)
    with pytest.raises(ValueError, match="one per other seat"):
        RummyVectorEnv(2, num_players=3, opponent=["random"])
