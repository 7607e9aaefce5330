"""Baselines: legal play over many games, simple's documented choices in scripted positions,
single-game use as a PettingZoo policy, loading by name and its errors."""

from __future__ import annotations

import numpy as np
import pytest

from rummyrl.agents import agent_names, load_agent
from rummyrl import gin, rummy
from rummyrl.cards import NUM_CARDS, parse_card, parse_cards


def _play_checked(eng, state, agents, steps):
    """Step with the agents seat by seat; assert every chosen action is legal."""
    decisions = 0
    for _ in range(steps):
        obs = eng.observe(state)
        actions = np.zeros(state.phase.shape[0], np.int64)
        live = ~state.game_over
        for seat, ag in enumerate(agents):
            rows = np.flatnonzero(live & (state.current == seat))
            if rows.size:
                a = ag.act(obs[rows], state.mask[rows])
                assert state.mask[rows, a].all(), f"{ag.name} played an illegal action"
                actions[rows] = a
                decisions += rows.size
        eng.step(state, actions, inplace=True)
        eng.reset_done(state)
    return decisions


@pytest.mark.slow
@pytest.mark.parametrize("names", [("random", "simple"), ("simple", "expert"), ("expert", "random")])
def test_gin_baselines_only_play_legal_actions(names):
    state = gin.init(256, seed=11, config=gin.GinConfig(episode="hand"))
    agents = [load_agent(n, "gin", seed=1) for n in names]
    assert _play_checked(gin, state, agents, 300) > 60_000


@pytest.mark.parametrize("players", [2, 4, 6])
def test_rummy_baselines_only_play_legal_actions(players):
    cfg = rummy.RummyConfig(num_players=players, episode="round")
    state = rummy.init(128, seed=5, config=cfg)
    names = ["random", "simple", "expert"]
    agents = [load_agent(names[i % 3], "rummy", seed=i) for i in range(players)]
    assert _play_checked(rummy, state, agents, 300) > 30_000


# ------------------------------------------------------------------ Gin simple, scripted
def _gin_deal(non_dealer: str, dealer: str, upcard: str, stock_first: str = "") -> np.ndarray:
    nd, de, up = parse_cards(non_dealer), parse_cards(dealer), parse_card(upcard)
    head = nd + de + [up] + parse_cards(stock_first)
    rest = [c for c in range(NUM_CARDS) if c not in head]
    return np.array(head + rest)


def _gin_state(non_dealer, dealer, upcard, stock_first="", actions=()):
    deck = _gin_deal(non_dealer, dealer, upcard, stock_first)
    state = gin.init(1, decks=deck, dealers=1, config=gin.GinConfig(episode="hand"))
    for a in actions:
        gin.step(state, np.array([a]), inplace=True)
    return state


SIMPLE = load_agent("simple", "gin")


def _simple_act(state):
    return int(SIMPLE.act(gin.observe(state), state.mask)[0])


def test_simple_takes_the_upcard_only_when_it_melds():
    # player 0 holds 5h 6h: the 7h upcard completes a run
    s = _gin_state("As 3s 5h 6h 8d Tc Qc Kd 9s 2c", "Ac 3c 5c 7c 9c Jc 2d 4d 6d 8s", "7h")
    assert _simple_act(s) == gin.TAKE_DISCARD
    # the Kh upcard melds with nothing in that hand: pass
    s = _gin_state("As 3s 5h 6h 8d Tc Qc 2h 9s 2c", "Ac 3c 5c 7c 9c Jc 2d 4d 6d 8s", "Kh")
    assert _simple_act(s) == gin.PASS


def test_simple_draws_from_the_stock_unless_the_discard_melds():
    # both pass the upcard; player 0 draws 4c, throws; player 1 then sees a top card that
    # melds with its 5c 6c (4c): it takes it
    nd = "As 3s 5h 7h 8d Tc Qc Kd 9s Jh"
    de = "5c 6c Ah 3h 9h 2d 4d 2s 4s 6s"
    s = _gin_state(nd, de, "Kh", "4c", [gin.PASS, gin.PASS, gin.DRAW_STOCK, gin.DISCARD + parse_card("4c")])
    assert s.current[0] == 1 and s.phase[0] == gin.PHASE_DRAW
    assert _simple_act(s) == gin.TAKE_DISCARD
    # the same, but player 0 throws Kd (melds with nothing of player 1's): draw from the stock
    s = _gin_state(nd, de, "Kh", "4c", [gin.PASS, gin.PASS, gin.DRAW_STOCK, gin.DISCARD + parse_card("Kd")])
    assert _simple_act(s) == gin.DRAW_STOCK


def test_simple_discards_the_lowest_deadwood_ties_to_the_highest_rank():
    # after drawing 5c, player 0 holds As2s3s 4h5h6h + Kc Qs 9d 5c 2d: throwing Kc or Qs both
    # leave 26 deadwood; the tie goes to the higher rank, Kc; no knock at 26
    s = _gin_state("As 2s 3s 4h 5h 6h Kc Qs 9d 2d", "Ac 3c 7c 9c Jc 2h 4d 6d 8s Th", "Jh", "5c",
                   [gin.PASS, gin.PASS, gin.DRAW_STOCK])
    assert _simple_act(s) == gin.DISCARD + parse_card("Kc")


def test_simple_never_discards_the_card_the_mask_forbids():
    s = _gin_state("As 2s 3s 4h 5h 6h Kc Qs 9d 2d", "Ac 3c 7c 9c Jc 2h 4d 6d 8s Th", "Jh", "5c",
                   [gin.PASS, gin.PASS, gin.DRAW_STOCK])
    mask = s.mask.copy()
    mask[0, gin.DISCARD + parse_card("Kc")] = False  # as if Kc had just been taken (C-4)
    assert int(SIMPLE.act(gin.observe(s), mask)[0]) == gin.DISCARD + parse_card("Qs")


def test_simple_knocks_as_soon_as_it_can_and_goes_gin():
    # draws Td: As2s3s 4h5h6h 7d8d9dTd + Kc: throwing Kc leaves no deadwood: gin
    s = _gin_state("As 2s 3s 4h 5h 6h 7d 8d 9d Kc", "Ac 3c 7c 9c Jc 2h 4d 6d 8s Th", "Jh", "Td",
                   [gin.PASS, gin.PASS, gin.DRAW_STOCK])
    a = _simple_act(s)
    assert a == gin.KNOCK + parse_card("Kc")
    gin.step(s, np.array([a]), inplace=True)
    assert gin.END_NAMES[s.last_end[0]] == "gin"
    # draws 5c: As2s3s 4h5h6h 7d8d9d + Kc 5c: Kc out leaves 5: knock at once
    s = _gin_state("As 2s 3s 4h 5h 6h 7d 8d 9d Kc", "Ac 3c 7c 9c Jc 2h 4d 6d 8s Th", "Jh", "5c",
                   [gin.PASS, gin.PASS, gin.DRAW_STOCK])
    assert _simple_act(s) == gin.KNOCK + parse_card("Kc")


def test_expert_goes_gin_when_it_can():
    s = _gin_state("As 2s 3s 4h 5h 6h 7d 8d 9d Kc", "Ac 3c 7c 9c Jc 2h 4d 6d 8s Th", "Jh", "Td",
                   [gin.PASS, gin.PASS, gin.DRAW_STOCK])
    expert = load_agent("expert", "gin")
    assert int(expert.act(gin.observe(s), s.mask)[0]) == gin.KNOCK + parse_card("Kc")


def test_expert_asked_about_a_finished_game_is_a_clear_error():
    st = gin.init(3, seed=0)
    obs, mask = gin.observe(st), st.mask.copy()
    mask[1] = False  # as for a game that has ended
    with pytest.raises(ValueError, match=r"row\(s\) \[1\] of the batch have no legal action"):
        load_agent("expert", "gin").act(obs, mask)


def test_expert_with_options_plays_its_parameters_and_only_where_they_matter():
    # expert:lookahead=4,w_danger=3 is the expert with those parameters: move for move the
    # agent built from them, the baseline at every draw, and a different discard in some
    # positions (the look-ahead and the danger weight are the discard's terms)
    from rummyrl.agents.gin_expert import ExpertGinAgent, ExpertParams

    tuned = load_agent("expert:lookahead=4,w_danger=3", "gin")
    assert tuned.params == ExpertParams(lookahead=4, w_danger=3.0)
    built, base = ExpertGinAgent(params=ExpertParams(lookahead=4, w_danger=3.0)), load_agent("expert", "gin")
    st = gin.init(128, seed=5, config=gin.GinConfig(episode="hand"))
    differs = 0
    for _ in range(200):
        obs, mask = gin.observe(st), st.mask
        a, b = tuned.act(obs, mask), base.act(obs, mask)
        assert np.array_equal(a, built.act(obs, mask))
        drawing = mask[:, gin.DRAW_STOCK] | mask[:, gin.PASS]
        assert np.array_equal(a[drawing], b[drawing])
        differs += int((a != b).sum())
        gin.step(st, a, inplace=True)
        gin.reset_done(st)
    assert differs >= 20


def test_the_look_ahead_counts_the_draws_that_give_gin_exactly():
    # the share of unseen cards after which the expert's look-ahead sees gin (w_gin's term)
    # against brute force: every unseen card drawn, every card of the 11 thrown, an exact
    # deadwood of 0 for some throw. Hands hold one or three runs of three (three: one card
    # short of gin, so many draws give it) and random cards
    from rummyrl import melds
    from rummyrl.agents.gin_expert import _expected_next

    rng = np.random.default_rng(3)
    near = 0
    for i in range(300):
        suits = rng.permutation(4)[:1 + 2 * (i % 2)]
        base = [s * 13 + start + k for s, start in zip(suits, rng.integers(0, 11, len(suits))) for k in range(3)]
        rest = rng.permutation([c for c in range(NUM_CARDS) if c not in base])
        hand = base + list(rest[:10 - len(base)])
        unseen = list(rest[10 - len(base):10 - len(base) + int(rng.integers(20, 42))])
        masks = np.zeros(4, np.int64)
        for c in hand:
            masks[c // 13] |= 1 << (c % 13)
        unseen_masks = np.zeros(4, np.int64)
        for c in unseen:
            unseen_masks[c // 13] |= 1 << (c % 13)
        gins = 0
        for u in unseen:
            eleven = np.zeros((11, NUM_CARDS), bool)
            eleven[:, hand + [u]] = True
            eleven[np.arange(11), hand + [u]] = False  # each card thrown in turn
            gins += int((melds.deadwood(eleven) == 0).any())
        _, share = _expected_next(masks.copy(), unseen_masks)
        assert share == pytest.approx(gins / len(unseen))
        near += gins > 0
    assert near >= 100


@pytest.mark.parametrize("spec, message", [
    ("expert:lookahead=12", "lookahead must be in 0..11, got 12"),
    ("expert:lookahead=2.5", "lookahead must be an integer, got 2.5"),
    ("expert:w_danger=-1", "w_danger must be >= 0, got -1"),
    ("expert:swap_margin=24", "unknown config key 'swap_margin'; known keys: \\['knock_early'"),
    ("simple:lookahead=4", "agent 'simple' takes no options"),
])
def test_bad_gin_expert_options_are_clear_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        load_agent(spec, "gin")


# ------------------------------------------------------------------ Rummy simple, scripted
def _rummy_state(starter_hand: str, upcard: str, stock_first: str = ""):
    """4 players, dealer 0: seat 1 starts with ``starter_hand``; the upcard on the pile;
    ``stock_first`` are the first stock cards."""
    hand, up, stock = parse_cards(starter_hand), parse_card(upcard), parse_cards(stock_first)
    others = [c for c in range(NUM_CARDS) if c not in hand and c != up and c not in stock]
    deck = hand + others[:21] + [up] + stock + others[21:]
    return rummy.init(1, decks=np.array(deck), dealers=0, config=rummy.RummyConfig(episode="round"))


def test_rummy_simple_takes_a_melding_discard_then_melds_largest_first_then_discards_high():
    agent = load_agent("simple", "rummy")
    s = _rummy_state("Qc Qs 5h 6h 7h Kd 2c", "Qh")
    assert s.current[0] == 1

    def act():
        return int(agent.act(rummy.observe(s), s.mask)[0])

    assert act() == rummy.TAKE_DISCARD
    rummy.step(s, np.array([rummy.TAKE_DISCARD]), inplace=True)
    first = act()  # two melds of three: the queens are worth more
    assert rummy.action_name(first).startswith("meld") and "Q" in rummy.action_name(first)
    rummy.step(s, np.array([first]), inplace=True)
    second = act()
    assert rummy.action_name(second) == "meld 5h 6h 7h"
    rummy.step(s, np.array([second]), inplace=True)
    assert act() == rummy.DISCARD + parse_card("Kd")  # Kd and 2c are loose: the higher value


def test_rummy_simple_keeps_partial_melds():
    agent = load_agent("simple", "rummy")
    # the 5c upcard melds with nothing: draw the 4d. Then Kh Ks (a pair) and Jd 9d (a split
    # run) are partial melds; of the loose 8c 3s 2h 4d it throws the highest, 8c
    s = _rummy_state("Kh Ks Jd 9d 8c 3s 2h", "5c", "4d")
    a = int(agent.act(rummy.observe(s), s.mask)[0])
    assert a == rummy.DRAW_STOCK
    rummy.step(s, np.array([a]), inplace=True)
    assert s.hands[0, 1, parse_card("4d")]
    assert int(agent.act(rummy.observe(s), s.mask)[0]) == rummy.DISCARD + parse_card("8c")


# ------------------------------------------------------------------ single game, loading
def test_an_agent_plays_a_pettingzoo_game_as_a_policy():
    from rummyrl.envs import gin_rummy_v0

    env = gin_rummy_v0.env(episode="hand")
    env.reset(seed=4)
    policies = {"player_0": load_agent("expert", "gin"), "player_1": load_agent("simple", "gin")}
    steps = 0
    for name in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        action = None if term or trunc else policies[name](obs["observation"], obs["action_mask"])
        if action is not None:
            assert obs["action_mask"][action] == 1
            steps += 1
        env.step(action)
    assert steps > 4


def test_load_agent_by_name_and_errors(tmp_path):
    assert {"random", "simple", "expert"} <= set(agent_names())
    for game in ("gin", "rummy"):
        for name in ("random", "simple", "expert"):
            ag = load_agent(name, game)
            assert ag.game == game
    with pytest.raises(ValueError, match="unknown agent 'wizard'"):
        load_agent("wizard")
    with pytest.raises(ValueError, match="unknown game"):
        load_agent("simple", "poker")
    with pytest.raises(FileNotFoundError, match="does not exist"):
        load_agent(str(tmp_path / "missing.pt"))
    gin_agent = load_agent("simple", "gin")
    with pytest.raises(ValueError, match="plays 'gin'"):
        load_agent(gin_agent, game="rummy")
