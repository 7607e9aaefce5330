"""The known-stock outlook (rummyrl/rummy_outlook.py) and the expert_plan network features:
the sequences it reads against the engine's draws, its play-out against a slow reference,
one scripted position with its exact outlook, and the features it changes."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch

from rummyrl import melds, rummy
from rummyrl.agents import load_agent
from rummyrl.agents.checkpoint import save_weights
from rummyrl.agents.features import EXPERT_FEATURES, check_features, expert_prior
from rummyrl.agents.network import NetConfig, PolicyNet
from rummyrl.agents.neural import NeuralAgent
from rummyrl.agents.rummy_planner import planned_preferences
from rummyrl.agents.split import stock_rows
from rummyrl.cards import NUM_CARDS, RANK_VALUE, parse_cards
from rummyrl.rummy_outlook import (ME, NEVER, NOBODY, OPPONENT, known_sequence, known_stock_outlook,
                                   plan_preference)

L = rummy.OBS_LAYOUT
P = 4


def known_stock_positions(n=64, seed=11, turns=600):
    """(state, observations, masks, rows) at the known-stock draws of expert-vs-simple games."""
    expert, simple = load_agent("expert", game="rummy"), load_agent("simple", game="rummy")
    st = rummy.init(n, seed=seed)
    for _ in range(turns):
        obs, masks = rummy.observe(st), st.mask.copy()
        rows = np.flatnonzero(stock_rows("rummy", obs, masks))
        yield st, obs, masks, rows
        actions = expert.act(obs, masks)
        actions[1::2] = simple.act(obs[1::2], masks[1::2])
        rummy.step(st, actions, inplace=True)
        rummy.reset_done(st)


def received(one, player, first, turns):
    """Play game ``one`` (a one-game state at ``player``'s draw) with ``first`` as that draw,
    then everyone drawing from the stock and throwing its lowest legal card; the cards
    ``player`` gets on its next ``turns`` turns (fewer if the round ends)."""
    got, round_no = [], int(one.round_no[0])
    while len(got) < turns and not one.game_over[0] and int(one.round_no[0]) == round_no:
        p = int(one.current[0])
        before = one.hands[0, p].copy()
        draw = first if (p == player and not got and first is not None) else rummy.DRAW_STOCK
        rummy.step(one, np.array([draw]), inplace=True)
        if int(one.round_no[0]) != round_no or one.game_over[0]:
            break
        if p == player:
            got += np.flatnonzero(one.hands[0, p] & ~before).tolist()
        discards = np.flatnonzero(one.mask[0, rummy.DISCARD:rummy.DISCARD + NUM_CARDS])
        rummy.step(one, np.array([rummy.DISCARD + discards[0]]), inplace=True)
    return got


def test_the_known_sequence_is_what_the_stock_gives_whoever_draws():
    """Against the engine: when everyone draws from the stock, the player gets cards 0, P,
    2P, ... of the sequence its observation names; after taking the top discard it gets the
    top, then cards P-1, 2P-1, ... (of the sequence without the top, when the pile turns)."""
    checked = 0
    for st, obs, masks, rows in known_stock_positions(n=48, seed=5, turns=500):
        for b in rows[:2]:
            seq = known_sequence(obs[b])
            top = int(obs[b, L["top_discard"]].argmax())
            turned = obs[b, L["stock_passes"].start] > 0 and obs[b, L["stock_size"].start] > 0
            assert len(seq) > 0 and len(set(seq.tolist())) == len(seq)
            assert not (obs[b, L["hand"]][seq] > 0).any()  # none of them is in the hand
            player = int(st.current[b])
            got = received(st.take([b]), player, None, 3)
            assert got == seq[0::P][:len(got)].tolist() and got
            rest = seq if turned else seq[seq != top]
            got = received(st.take([b]), player, rummy.TAKE_DISCARD, 3)
            assert got == ([top] + rest[P - 1::P].tolist())[:len(got)] and got[0] == top
            checked += 1
    assert checked > 100


def hand_of(cards):
    h = np.zeros(NUM_CARDS, bool)
    h[list(cards)] = True
    return h


def dw(cards):
    return int(melds.deadwood(hand_of(cards)[None])[0]) if cards else 0


def play_out_reference(hand, fits, cards):
    """The outlook's play-out, written plainly with the slow exact solver (ties of the card
    to throw go to the lowest card id)."""
    hand = [c for c in hand if c not in fits]
    for t, x in enumerate(cards):
        if x not in fits:
            hand = sorted(hand + [x])
            if dw(hand) == 0:
                return t, 0
        after = [dw([c for c in hand if c != y]) for y in hand]
        if min(after, default=0) == 0:
            return t, 0
        hand = [c for c in hand if c != hand[int(np.argmin(after))]]
    return NEVER, dw(hand)


def helps_reference(row, j, x):
    if row[L["melded"].start + j] > 0.5 and row[L["table_fits"].start + x] > 0.5:
        return True
    known = [c for c in range(NUM_CARDS) if row[L["known"].start + j * NUM_CARDS + c] > 0.5
             or row[L["drawn_seen"].start + j * NUM_CARDS + c] > 0.5]
    return bool(known) and dw(known + [x]) < dw(known) + RANK_VALUE[x % 13]


def race_reference(row, mine, theirs, my_turn):
    """Turn by turn: the player's turn first, then opponents 1..P-1 each take their next
    card of ``theirs`` (dealt round the table); each helping card uses one card of its hand."""
    left = {j: round(row[L["hand_sizes"].start + j] * 7) for j in range(1, P)}
    for t in range(len(mine) + len(theirs) + 1):
        if t == my_turn:
            return [ME, t]
        for j in range(1, P):
            i = t * (P - 1) + j - 1
            if i < len(theirs) and helps_reference(row, j, theirs[i]):
                left[j] -= 1
                if left[j] == 0:
                    return [OPPONENT, t]
    return [NOBODY, NEVER]


@pytest.mark.slow
def test_the_outlook_agrees_with_a_plain_reference():
    """known_stock_outlook against a slow restatement over the known-stock draws of many games."""
    done = 0
    races = set()
    for _, obs, _, rows in known_stock_positions(n=32, seed=9, turns=450):
        if not rows.size:
            continue
        got = known_stock_outlook(obs, rows, P)
        for i, b in enumerate(rows[:3]):
            row = obs[b]
            hand = np.flatnonzero(row[L["hand"]] > 0.5).tolist()
            fits = set(np.flatnonzero(row[L["table_fits"]] > 0.5).tolist()) if row[L["melded"].start] > 0.5 else set()
            seq = known_sequence(row).tolist()
            top = int(row[L["top_discard"]].argmax())
            turned = row[L["stock_passes"].start] > 0 and row[L["stock_size"].start] > 0
            rest = seq if turned else [c for c in seq if c != top]
            # the cards the player gets, and those the opponents get (seat 1, 2, 3, 1, ...)
            mine_draw, theirs_draw = seq[0::P], [c for k, c in enumerate(seq) if k % P]
            mine_take = [top] + rest[P - 1::P]
            theirs_take = [c for k, c in enumerate(rest) if k % P != P - 1]
            turn_draw = play_out_reference(hand, fits, mine_draw)[0]
            turn_take = play_out_reference(hand, fits, mine_take)[0]
            want = [turn_draw, *race_reference(row, mine_draw, theirs_draw, turn_draw),
                    turn_take, *race_reference(row, mine_take, theirs_take, turn_take)]
            assert got[i].tolist() == want
            races.update((want[1], want[4]))
            done += 1
    assert done > 60 and races == {ME, OPPONENT, NOBODY}


def scripted_position():
    """Player holds 5H 6H KS; the top discard is 2C; the stock, turned over, is 9D 8C 4S 7H
    JD. Drawing gives it 9D then JD: no meld, it never goes out. Taking gives it 2C now
    and then 7H (stock card P-1 = 3): 5H 6H 7H is a meld and it goes out on that turn, its
    second. The opponents hold 3 cards each, have not melded and are known to hold nothing,
    so no card helps them: the draw's race ends with nobody out, the take's with the player."""
    row = np.zeros(rummy.OBS_DIM, np.float32)
    row[L["hand"].start + np.array(parse_cards("5H 6H KS"))] = 1
    row[L["top_discard"].start + parse_cards("2C")[0]] = 1
    stock = parse_cards("9D 8C 4S 7H JD")
    for i, c in enumerate(stock):
        row[L["stock_order"].start + c] = (i + 1) / len(stock)
    row[L["stock_size"].start] = len(stock) / NUM_CARDS
    row[L["stock_passes"].start] = 1
    row[L["seat_present"].start:L["seat_present"].start + P] = 1
    row[L["hand_sizes"].start:L["hand_sizes"].start + P] = 3 / 7
    mask = np.zeros(rummy.NUM_ACTIONS, bool)
    mask[[rummy.DRAW_STOCK, rummy.TAKE_DISCARD]] = True
    return row[None], mask[None]


def test_a_scripted_position_has_its_exact_outlook_and_the_plan_takes():
    obs, mask = scripted_position()
    assert stock_rows("rummy", obs, mask).tolist() == [True]
    assert known_sequence(obs[0]).tolist() == parse_cards("9D 8C 4S 7H JD")
    out = known_stock_outlook(obs, np.array([0]), P)
    assert out.tolist() == [[NEVER, NOBODY, NEVER, 1, ME, 1]]
    assert plan_preference(out).tolist() == [10.0]
    # the expert draws here (2C makes no meld and is worth little); the plan takes it
    assert expert_prior("rummy", obs, mask).argmax(1).tolist() == [rummy.DRAW_STOCK]
    assert planned_preferences(obs, mask).argmax(1).tolist() == [rummy.TAKE_DISCARD]
    # with 3 players it is the draw that brings 7H (stock card 3) on the second turn; the
    # take brings 2C, then 4S (stock card 2): no meld
    assert known_stock_outlook(obs, np.array([0]), 3).tolist() == [[1, ME, 1, NEVER, NOBODY, NEVER]]
    # the next player has melded and holds one card, and 8C fits the table: after a draw it
    # gets 8C (stock card 1) and goes out first; after a take it gets 9D, seat 2 gets 8C
    # (seat 2 has not melded), and the player goes out on its second turn
    obs[0, L["table_fits"].start + parse_cards("8C")[0]] = 1
    obs[0, L["melded"].start + 1] = 1
    obs[0, L["hand_sizes"].start + 1] = 1 / 7
    assert known_stock_outlook(obs, np.array([0]), P).tolist() == [[NEVER, OPPONENT, 0, 1, ME, 1]]
    assert plan_preference(known_stock_outlook(obs, np.array([0]), P)).tolist() == [12.0]
    # with seat 2 the one that has melded, the take feeds it 8C before the player's second turn
    obs[0, L["melded"].start + 1], obs[0, L["hand_sizes"].start + 1] = 0, 3 / 7
    obs[0, L["melded"].start + 2], obs[0, L["hand_sizes"].start + 2] = 1, 1 / 7
    assert known_stock_outlook(obs, np.array([0]), P).tolist() == [[NEVER, NOBODY, NEVER, 1, OPPONENT, 0]]
    assert plan_preference(known_stock_outlook(obs, np.array([0]), P)).tolist() == [-10.0]


def test_the_plan_prefers_the_better_end_of_the_race_then_the_better_time():
    o = np.array([[NEVER, NOBODY, NEVER, 1, ME, 1],          # nobody -> the player out: take
                  [0, ME, 0, NEVER, OPPONENT, 2],            # the player -> an opponent: draw
                  [NEVER, OPPONENT, 1, NEVER, NOBODY, NEVER],
                  [2, ME, 2, 1, ME, 1],                      # out sooner by taking
                  [NEVER, OPPONENT, 0, NEVER, OPPONENT, 2],  # an opponent out later by taking
                  [NEVER, OPPONENT, 2, NEVER, OPPONENT, 0],
                  [NEVER, NOBODY, NEVER, NEVER, NOBODY, NEVER],
                  [1, ME, 1, 1, ME, 1]])
    assert plan_preference(o).tolist() == [10.0, -12.0, 10.0, 5.0, 5.0, -5.0, 0.0, 0.0]


def test_expert_plan_changes_only_the_draws_at_a_known_stock():
    changed = kept = 0
    for _, obs, masks, rows in known_stock_positions(n=32, seed=3, turns=300):
        plain = expert_prior("rummy", obs, masks)
        planned = planned_preferences(obs, masks)
        other = np.ones(masks.shape, bool)
        other[rows, rummy.DRAW_STOCK] = other[rows, rummy.TAKE_DISCARD] = False
        assert (planned[other] == plain[other]).all()
        if rows.size:
            plan = plan_preference(known_stock_outlook(obs, rows, P))
            d = plan != 0
            assert (planned[rows[d], rummy.TAKE_DISCARD] == plan[d]).all()
            assert (planned[rows[d], rummy.DRAW_STOCK] == 0).all()
            assert (planned[rows[~d]] == plain[rows[~d]]).all()
            changed, kept = changed + d.sum(), kept + (~d).sum()
    assert changed > 100 and kept > 10


def test_an_untrained_expert_plan_network_plays_the_plan():
    net = PolicyNet("rummy", NetConfig(hidden=32, features="expert_plan", prior_scale=2.0))
    agent = NeuralAgent(net)
    obs, mask = scripted_position()
    assert agent.act(obs, mask).tolist() == [rummy.TAKE_DISCARD]
    assert NeuralAgent(PolicyNet("rummy", NetConfig(hidden=32, prior_scale=2.0))).act(obs, mask).tolist() == [
        rummy.DRAW_STOCK]


def test_expert_plan_is_refused_for_gin_and_without_its_game():
    with pytest.raises(ValueError, match="expert_plan' needs the 'planner' rule agent, which Gin Rummy has not"):
        PolicyNet("gin", NetConfig(features="expert_plan"))
    with pytest.raises(ValueError, match="expert_plan' needs the 'planner' rule agent, which Gin Rummy has not"):
        check_features("expert_plan", "gin")
    with pytest.raises(ValueError, match="num_players must be at least 2"):
        known_stock_outlook(np.zeros((1, rummy.OBS_DIM), np.float32), np.array([0]), 1)
    with pytest.raises(ValueError, match="rows must index the 1 observations"):
        known_stock_outlook(np.zeros((1, rummy.OBS_DIM), np.float32), np.array([1]), P)
    with pytest.raises(ValueError, match=r"observations must be \(B, 3061\)"):
        known_stock_outlook(np.zeros((1, 100), np.float32), np.array([0]), P)
    from rummyrl.training.config import ConfigError, load_config

    with pytest.raises(ConfigError, match=r"expert_plan' needs the 'planner' rule agent, which Gin Rummy has not; use one of \['expert', 'engine', 'none'\]"):
        load_config(None, ["net.features=expert_plan"])
    assert load_config("configs/rummy.yaml", ["net.features=expert_plan"]).net.uses_expert


@pytest.mark.slow
def test_training_with_expert_plan_keeps_the_expert_opponents_the_expert(tmp_path, monkeypatch):
    """The learner's features plan the known-stock draws; the ``expert`` seats of training
    must still play the expert baseline, whose preference the rollout hands the pool."""
    from pathlib import Path

    from rummyrl import training
    from rummyrl.training import pool

    seen = []
    act = pool.OpponentPool.act

    def spy(self, kind, snap, obs, mask, prior):
        rows = kind == self.expert
        seen.append((obs[rows], mask[rows], prior[rows]))
        return act(self, kind, snap, obs, mask, prior)

    monkeypatch.setattr(pool.OpponentPool, "act", spy)
    root = Path(__file__).resolve().parents[2]
    cfg = training.load_config(root / "configs" / "rummy.yaml", [
        "name=plan", "net.features=expert_plan", "num_envs=32", "rollout_steps=128", "total_steps=16384",
        "minibatch_size=256", "net.hidden=16", "net.layers=1", "opponents.self_play=0", "opponents.snapshots=0",
        "opponents.simple=0", "opponents.expert=1", "eval.every_minutes=0", "eval.games=4", "eval.final_games=0",
        "checkpoint_every_minutes=0", "time_limit_minutes=0"])
    training.train(cfg, run_dir=tmp_path / "plan", progress=False)
    obs = np.concatenate([o for o, _, _ in seen])
    masks = np.concatenate([m for _, m, _ in seen])
    prior = np.concatenate([p for _, _, p in seen])
    planned = planned_preferences(obs, masks)
    assert (planned != prior).any(1).sum() >= 5  # positions where the learner's features differ
    assert np.array_equal(prior, expert_prior("rummy", obs, masks))


def test_the_planner_agent_plays_the_plan_and_refuses_gin():
    planner = load_agent("planner", game="rummy")
    obs, mask = scripted_position()
    assert planner.act(obs, mask).tolist() == [rummy.TAKE_DISCARD]
    for _, o, m, rows in known_stock_positions(n=16, seed=4, turns=120):
        assert (planner.act(o, m) == planned_preferences(o, m).argmax(1)).all()
    with pytest.raises(ValueError, match=r"Gin Rummy has no 'planner' agent; its rule agents: \['expert', 'simple'\]"):
        load_agent("planner", game="gin")


def test_a_higher_swap_margin_only_drops_takes_that_are_swaps():
    # planner:swap_margin=24 takes the top discard at a subset of the draws where the default
    # (12) does, plays the same everywhere else, and differs somewhere: the option is read
    tight = load_agent("planner:swap_margin=24", game="rummy")
    assert tight.params.swap_margin == 24.0 and tight.params.w_outs == 12.0
    default = load_agent("planner", game="rummy")
    st = rummy.init(64, seed=21)
    dropped = 0
    for _ in range(400):
        obs, mask = rummy.observe(st), rummy.legal_mask(st)
        a, b = default.act(obs, mask), tight.act(obs, mask)
        draw = mask[:, rummy.DRAW_STOCK] & mask[:, rummy.TAKE_DISCARD]
        assert np.array_equal(a[~draw], b[~draw])
        assert not ((b == rummy.TAKE_DISCARD) & (a != rummy.TAKE_DISCARD)).any()
        dropped += int(((a == rummy.TAKE_DISCARD) & (b == rummy.DRAW_STOCK)).sum())
        st = rummy.step(st, a)
        rummy.reset_done(st)
    assert dropped >= 5


@pytest.mark.parametrize("spec, message", [
    ("planner:swap=3", "unknown config key 'swap'; known keys: \\['close_cards'"),
    ("planner:w_outs=-1", "w_outs must be >= 0, got -1"),
    ("planner:swap_margin=nan", "swap_margin must be finite, got nan"),
    ("expert:lookahead=4", "unknown config key 'lookahead'; known keys: \\['close_cards'"),
])
def test_planner_options_are_checked(spec, message):
    with pytest.raises(ValueError, match=message):
        load_agent(spec, game="rummy")


@pytest.mark.slow
@pytest.mark.parametrize("game, features, params, rule", [
    ("rummy", "expert_plan", "swap_margin=24", "planner"),
    ("gin", "expert", "lookahead=4,w_danger=3", "expert"),
])
def test_a_network_with_expert_params_plays_the_tuned_rule_and_keeps_them_in_its_checkpoint(
        tmp_path, game, features, params, rule):
    # net.expert_params puts the tuned rule into the expert's features (Rummy: the planner
    # with swap_margin=24; Gin: the expert with a longer look-ahead): the untrained network
    # plays that rule move for move (and not the default one), also once saved and loaded
    from rummyrl import gin

    eng, players = (rummy, P) if game == "rummy" else (gin, 2)
    tuned = PolicyNet(game, NetConfig(hidden=16, features=features, prior_scale=4.0, expert_params=params))
    path = tmp_path / "tuned.pt"
    save_weights(path, game, players, dataclasses.asdict(tuned.cfg), tuned.state_dict())
    loaded = load_agent(str(path), game=game)
    assert loaded.net.cfg.expert_params == params
    planner, default = load_agent(f"{rule}:{params}", game=game), load_agent(rule, game=game)
    st = eng.init(64, seed=21)
    differs = 0
    for _ in range(300):
        obs, mask = eng.observe(st), eng.legal_mask(st)
        a = loaded.act(obs, mask)
        assert np.array_equal(a, NeuralAgent(tuned).act(obs, mask))
        assert np.array_equal(a, planner.act(obs, mask))
        differs += int((a != default.act(obs, mask)).sum())
        st = eng.step(st, a)
        eng.reset_done(st)
    assert differs >= 5


@pytest.mark.parametrize("game, features, params, message", [
    ("rummy", "expert_plan", "swap=3", "unknown config key 'swap'; known keys: \\['close_cards'"),
    ("rummy", "expert_plan", "w_danger=-2", "w_danger must be >= 0, got -2"),
    ("rummy", "none", "swap_margin=24", "net.expert_params is for the expert's features"),
    ("gin", "expert", "swap_margin=24", "unknown config key 'swap_margin'; known keys: \\['knock_early'"),
    ("gin", "expert", "lookahead=12", "lookahead must be in 0..11, got 12"),
    ("gin", "engine", "lookahead=4", "net.expert_params is for the expert's features"),
])
def test_bad_expert_params_are_refused_by_the_network_and_the_config(game, features, params, message):
    with pytest.raises(ValueError, match=message):
        PolicyNet(game,
                  NetConfig(features=features, prior_scale=1.0 if features in EXPERT_FEATURES else 0.0,
                            expert_params=params))
    from rummyrl.training.config import ConfigError, load_config

    with pytest.raises(ConfigError, match="expert_params"):
        load_config("configs/rummy.yaml" if game == "rummy" else "configs/gin_rummy.yaml",
                    [f"net.features={features}", f"net.expert_params={params}"]
                    + ([] if features in EXPERT_FEATURES else ["net.prior_scale=0"]))


def test_the_expert_and_the_plan_read_hand_sizes_against_the_deal_they_were_dealt():
    # hand sizes are observed as fractions of the deal's hand size (R-1, an option); the
    # expert's danger and the race count the opponents' cards from them. Dealt 10, the same
    # positions written as fractions of 7 must give the same preferences and the same races
    st = rummy.init(64, seed=5, config=rummy.RummyConfig(num_players=P, hand_size=10))
    sizes = rummy.OBS_LAYOUT["hand_sizes"]
    seen = races = 0
    for _ in range(200):
        obs, mask = rummy.observe(st), rummy.legal_mask(st)
        held = (obs[:, rummy.OBS_LAYOUT["hand"]] > 0.5).sum(1)
        live = held > 0
        assert (rummy.deal_sizes(obs)[live] == 10).all()
        as_seven = obs.copy()
        as_seven[:, sizes] *= 10 / 7
        assert (rummy.deal_sizes(as_seven)[live] == 7).all()
        assert np.array_equal(planned_preferences(obs, mask),
                              planned_preferences(as_seven, mask))
        rows = np.flatnonzero(stock_rows("rummy", obs, mask))
        if rows.size:
            assert np.array_equal(known_stock_outlook(obs, rows, P), known_stock_outlook(obs, rows, P, hand_size=10))
            races += rows.size
        seen += int(live.sum())
        a = planned_preferences(obs, mask).argmax(1)
        st = rummy.step(st, a)
        rummy.reset_done(st)
    assert seen > 5000 and races > 50
