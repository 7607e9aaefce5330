"""Step infos of one fixed shape (envs/step_info.py): every info of every step, in the
PettingZoo and the Gymnasium environments of both games, has the same keys, shapes and
dtypes and holds numbers only, so that a library can stack them (Tianshou's buffer crashed
on the ragged dicts they replaced); and at each deal's end the arrays say what the words of
``deal_info()`` say, over hands of every kind (gin, knock, undercut, dead) and Rummy rounds
won with melds on the table and without. And a space prints in one short line."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from rummyrl import gin, rummy
from rummyrl.agents import load_agent
from rummyrl.cards import parse_cards
from rummyrl.envs import gin_rummy_v0, rummy_v0
from rummyrl.envs.gym_gin import GinRummyEnv
from rummyrl.envs.gym_rummy import RummyEnv


def signature(info: dict) -> dict:
    """Each key's shape and dtype; also checks that every value is a number or an array of them."""
    out = {}
    for k, v in info.items():
        a = np.asarray(v)
        assert a.dtype.kind in "biu", (k, a.dtype)  # bool or integer: no strings, lists or dicts
        out[k] = (a.shape, a.dtype)
    return out


def mask_of(cards: list[str]) -> list[int]:
    return sorted(parse_cards(" ".join(cards))) if cards else []


def check_gin_hand(i: dict, words: dict) -> None:
    """The arrays of an ended Gin hand against ``gin.hand_info``'s words."""
    assert gin.END_NAMES[i["end"]] == words["end"]
    assert (i["knocker"], i["winner"], i["points"]) == (words["knocker"], words["winner"], words["points"])
    assert i["deadwood"].tolist() == words["deadwood"] and i["scores"].tolist() == words["scores"]
    for p in range(2):
        assert np.flatnonzero(i["hands"][p]).tolist() == mask_of(words["hands"][p])
        assert np.flatnonzero(i["melds"][p]).tolist() == mask_of(sum(words["melds"][p], []))
    assert np.flatnonzero(i["laid_off"].any(0)).tolist() == mask_of(words["laid_off"])
    if words["laid_off"]:  # only the defender lays off (G-9)
        assert not i["laid_off"][words["knocker"]].any()


def check_rummy_round(i: dict, words: dict) -> None:
    """The arrays of an ended Rummy round against ``rummy.round_info``'s words."""
    assert rummy.END_NAMES[i["end"]] == words["end"] and i["round"] == words["round"]
    assert (i["winner"], i["points"], i["dealer"]) == (words["winner"], words["points"], words["dealer"])
    assert i["hand_values"].tolist() == words["hand_values"] and i["scores"].tolist() == words["scores"]
    for p, hand in enumerate(words["hands"]):
        assert np.flatnonzero(i["hands"][p]).tolist() == mask_of(hand)
    laid = {c: by for m in words["table"] for c, by in m["laid_off"]}
    for p in range(i["hands"].shape[0]):
        assert np.flatnonzero(i["laid_off"][p]).tolist() == mask_of([c for c, by in laid.items() if by == p])
    melded = set(np.flatnonzero(i["melds"].any(0)))
    assert melded == set(mask_of([c for m in words["table"] for c in m["cards"] if c not in laid]))
    assert not (i["melds"] & i["laid_off"]).any() and not (i["melds"] & i["hands"]).any()


def play_aec(env, seeds, policy) -> tuple[list[dict], list[str]]:
    """Every info of every step of whole games (env.infos after each step, all agents); the
    ends seen, each deal's arrays checked against its words."""
    infos, ends = [], []
    for seed in seeds:
        env.reset(seed=seed)
        infos += list(env.infos.values())
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            env.step(None if term or trunc else policy(agent, obs))
            infos += list(env.infos.values())
            if agent in env.infos and env.infos[agent]["deal_over"]:
                words = env.deal_info()
                ends.append((words["end"], bool(words.get("table"))))
                (check_gin_hand if "knocker" in words else check_rummy_round)(env.infos[agent], words)
    return infos, ends


def agents_policy(game: str, spec: str, players: int, seed: int = 0):
    """Each seat played by its own rule agent."""
    seats = {f"player_{p}": load_agent(spec, game=game, seed=seed + p) for p in range(players)}
    return lambda agent, obs: seats[agent](obs["observation"], obs["action_mask"].astype(bool))


def assert_one_shape(infos: list[dict]) -> None:
    first = signature(infos[0])
    assert all(signature(i) == first for i in infos)
    for k in first:  # what a library's buffer does with them
        assert np.stack([np.asarray(i[k]) for i in infos]).shape == (len(infos), *first[k][0])


def test_gin_aec_infos_have_one_shape_over_hands_of_every_kind():
    env = gin_rummy_v0.env(episode="game")
    infos, ends = play_aec(env, range(6), agents_policy("gin", "expert", 2))
    rng = np.random.default_rng(0)

    def never_knock(agent, obs):
        mask = obs["action_mask"].copy()
        mask[gin.KNOCK:] = 0  # the stock runs out (G-10)
        legal = np.flatnonzero(mask)
        return int(legal[int(rng.random() * legal.size)])

    more, dead = play_aec(gin_rummy_v0.env(episode="hand"), [0], never_knock)
    infos, ends = infos + more, ends + dead
    kinds = {e for e, _ in ends}
    assert {"gin", "knock", "undercut", "dead"} <= kinds, kinds
    assert_one_shape(infos)
    over = [i for i in infos[:len(infos) - len(more)] if i["game_over"]]  # the experts' games to 100 were won
    assert over and all(i["game_winner"] in (0, 1) and i["game_total"][i["game_winner"]] >= 100 for i in over)
    # the one-hand episode that ended dead is over with nobody winning
    assert more[-1]["game_over"] == 1 and more[-1]["game_winner"] == -1 and not more[-1]["game_total"].any()


@pytest.mark.parametrize("players", [2, 4, 6])
def test_rummy_aec_infos_have_one_shape_over_rounds_with_and_without_melds(players):
    env = rummy_v0.env(num_players=players, episode="game", target=100)
    infos, ends = play_aec(env, range(2), agents_policy("rummy", "simple", players))
    assert ("out", True) in ends, ends  # won with melds on the table
    assert_one_shape(infos)
    assert all(i["hands"].shape == (players, 52) for i in infos)


def test_a_drawn_rummy_round_with_nothing_on_the_table_is_stacked_like_the_others():
    """A round nobody melds in ends drawn with an empty table: its arrays have the shapes of
    every other step, with no melds, no lay-offs and no winner."""
    env = rummy_v0.env(num_players=6, episode="round")
    rng = np.random.default_rng(0)

    def never_meld(agent, obs):
        mask = obs["action_mask"].copy()
        mask[rummy.MELD:] = 0  # nobody goes out: the stocks run out
        legal = np.flatnonzero(mask)
        return int(legal[int(rng.random() * legal.size)])

    infos, ends = play_aec(env, [0], never_meld)
    assert ends == [("draw", False)]
    drawn = [i for i in infos if i["deal_over"]]
    assert drawn and all(not i["melds"].any() and not i["laid_off"].any() and i["winner"] == -1 for i in drawn)
    assert_one_shape(infos)


@pytest.mark.parametrize("make", [lambda: GinRummyEnv(opponent="expert", episode="game"),
                                  lambda: RummyEnv(opponent="simple", num_players=4, episode="game", target=100)],
                         ids=["gin", "rummy"])
def test_gymnasium_infos_have_one_shape_from_reset_to_the_end(make):
    env = make()
    rng = np.random.default_rng(1)
    infos, ended = [], 0
    for seed in range(2):
        obs, info = env.reset(seed=seed)
        infos.append(info)
        done = False
        while not done:
            legal = np.flatnonzero(obs["action_mask"])
            obs, _, term, trunc, info = env.step(int(legal[int(rng.random() * legal.size)]))
            infos.append(info)
            done = term or trunc
            assert info["deals_ended"] == len(env.deal_infos())
            if info["deals_ended"]:
                ended += 1
                words = env.deal_infos()[-1]
                (check_gin_hand if "knocker" in words else check_rummy_round)(info, words)
        assert info["game_over"] == 1 and info["game_winner"] == env.game_info()["winner"]
    assert ended >= 2
    assert_one_shape(infos)


@pytest.mark.parametrize("make", [lambda: gin_rummy_v0.env().observation_space("player_0"),
                                  lambda: rummy_v0.env(num_players=6).observation_space("player_0"),
                                  lambda: GinRummyEnv().observation_space],
                         ids=["gin", "rummy", "gym-gin"])
def test_a_space_prints_in_one_short_line_and_is_the_box_it_was(make):
    """Gymnasium prints every element of a bound that varies (794 numbers in Gin); ours says
    the bound's range, and stays equal to a plain Box of the same bounds."""
    space = make()
    text = repr(space)
    assert "\n" not in text and len(text) < 200, text
    box = space["observation"]
    assert f"<{box.shape[0]} values in [1, " in text
    plain = gymnasium.spaces.Box(box.low, box.high, box.shape, box.dtype)
    assert box == plain and plain.contains(box.sample())
