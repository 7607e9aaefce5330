"""PhaseSplitAgent and docs/research/scripts/search_where.py: the draw decisions go to one agent and
every other position to the other, on both games, and the script plays all four."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rummyrl import gin, rummy
from rummyrl.agents import load_agent
from rummyrl.agents.split import PhaseSplitAgent, draw_rows, knock_rows, stock_rows

ROOT = Path(__file__).resolve().parents[2]


def positions(eng, game, n=48, steps=30):
    """Positions of every phase: expert games a varying number of moves in."""
    expert = load_agent("expert", game=game)
    st = eng.init(n, seed=3)
    obs, masks = [], []
    for _ in range(steps):
        live = ~st.game_over
        o = eng.observe(st)
        obs.append(o[live])
        masks.append(st.mask[live])
        a = np.zeros(n, np.int64)
        a[live] = expert.act(o[live], st.mask[live])
        eng.step(st, a, inplace=True, active=live)
    return np.concatenate(obs), np.concatenate(masks)


@pytest.mark.parametrize("eng, game, draws", [(gin, "gin", (gin.DRAW_STOCK, gin.TAKE_DISCARD, gin.PASS)),
                                               (rummy, "rummy", (rummy.DRAW_STOCK, rummy.TAKE_DISCARD))])
def test_the_draw_goes_to_one_agent_and_the_rest_of_the_turn_to_the_other(eng, game, draws):
    obs, masks = positions(eng, game)
    drawing = draw_rows(game, masks)
    assert 0.2 < drawing.mean() < 0.8  # both kinds of position are in the sample
    # a draw decision allows draw actions only; the rest of a turn allows none of them
    others = np.ones(masks.shape[1], bool)
    others[list(draws)] = False
    assert not masks[drawing][:, others].any() and not masks[~drawing][:, list(draws)].any()
    random_, expert = load_agent("random", game=game, seed=1), load_agent("expert", game=game)
    split = PhaseSplitAgent(random_, expert)
    random_.reset(5)
    got = split.act(obs, masks)
    random_.reset(5)
    want = expert.act(obs, masks)
    want[drawing] = random_.act(obs[drawing], masks[drawing])
    assert (got == want).all() and masks[np.arange(len(got)), got].all()
    assert (got[drawing] != expert.act(obs[drawing], masks[drawing])).any()  # the random drawer was used


@pytest.mark.parametrize("eng, game", [(gin, "gin"), (rummy, "rummy")])
def test_the_play_phase_is_the_rest_of_the_turn(eng, game):
    # phase="play" hands the first agent exactly the positions the draw split gives the second
    obs, masks = positions(eng, game)
    random_, expert = load_agent("random", game=game, seed=1), load_agent("expert", game=game)
    random_.reset(5)
    got = PhaseSplitAgent(random_, expert, phase="play").act(obs, masks)
    random_.reset(5)
    want = PhaseSplitAgent(expert, random_).act(obs, masks)
    assert (got == want).all()
    drawing = draw_rows(game, masks)
    assert (got[drawing] == expert.act(obs[drawing], masks[drawing])).all()
    assert (got[~drawing] != expert.act(obs[~drawing], masks[~drawing])).any()


def test_the_knock_decisions_go_to_one_agent_and_every_other_position_to_the_other():
    obs, masks = positions(gin, "gin", n=256, steps=60)
    knocking = knock_rows("gin", masks)
    assert 20 < knocking.sum() < 0.5 * len(masks)  # late positions with low deadwood
    # a knock decision is a discard (the knock discards too): no draw there, and a discard
    # of the card the knock would discard is always also allowed
    assert not draw_rows("gin", masks[knocking]).any()
    knock_cards = masks[knocking][:, gin.KNOCK:gin.KNOCK + gin.NUM_CARDS]
    assert (masks[knocking][:, gin.DISCARD:gin.KNOCK] >= knock_cards).all()
    expert, simple = load_agent("expert", game="gin"), load_agent("simple", game="gin")
    got = PhaseSplitAgent(simple, expert, phase="knock").act(obs, masks)
    want = expert.act(obs, masks)
    want[knocking] = simple.act(obs[knocking], masks[knocking])
    assert (got == want).all()
    # simple knocks as soon as it may; the expert often plays on for gin
    assert (got[knocking] != expert.act(obs[knocking], masks[knocking])).any()


def test_a_known_stock_draw_is_one_whose_stock_card_the_player_can_read_from_its_observation():
    """stock_rows (Rummy) against the engine's state, over whole expert rounds: the draws
    with both sources open after the pile was turned over or with the stock empty; at each
    the card a stock draw gives is the one the observation names (the stock's next card, or
    the earliest discard when the draw turns the pile over), and nowhere else can it be read."""
    L = rummy.OBS_LAYOUT
    expert, simple = load_agent("expert", game="rummy"), load_agent("simple", game="rummy")
    st = rummy.init(64, seed=11)
    found = checked = 0
    for _ in range(600):
        obs, masks = rummy.observe(st), st.mask.copy()
        rows = stock_rows("rummy", obs, masks)
        both = masks[:, rummy.DRAW_STOCK] & masks[:, rummy.TAKE_DISCARD]
        want = both & ((st.passes > 0) | (st.stock_pos >= st.stock_len))
        assert (rows == want).all()
        assert not (obs[~rows & both][:, L["stock_order"]] > 0).any()  # unknown elsewhere
        for b in np.flatnonzero(rows):
            order = obs[b, L["stock_order"]]
            if (order > 0).any():
                named = int(np.where(order > 0, order, 2.0).argmin())
            else:  # the pile turns over: its earliest card comes first
                named = int(np.where(obs[b, L["pile"]] > 0, obs[b, L["pile_recency"]], 2.0).argmin())
            one = st.take([b])
            p = int(one.current[0])
            before = one.hands[0, p].copy()
            rummy.step(one, np.array([rummy.DRAW_STOCK]), inplace=True)
            drawn = np.flatnonzero(one.hands[0, p] & ~before)
            assert drawn.tolist() == [named]
            checked += 1
        found += rows.sum()
        actions = expert.act(obs, masks)
        actions[1::2] = simple.act(obs[1::2], masks[1::2])
        rummy.step(st, actions, inplace=True)
        rummy.reset_done(st)
    assert found > 100 and checked == found


def test_a_knock_split_of_rummy_and_an_unknown_phase_are_refused():
    with pytest.raises(ValueError, match="knock decisions do not exist in Rummy"):
        PhaseSplitAgent(load_agent("simple", game="rummy"), load_agent("expert", game="rummy"), phase="knock")
    with pytest.raises(ValueError, match="unknown phase 'meld'; choose one of"):
        PhaseSplitAgent(load_agent("simple", game="gin"), load_agent("expert", game="gin"), phase="meld")
    with pytest.raises(ValueError, match="knock decisions do not exist in Rummy"):
        knock_rows("rummy", np.ones((1, rummy.NUM_ACTIONS), bool))
    with pytest.raises(ValueError, match="stock decisions do not exist in Gin Rummy"):
        PhaseSplitAgent(load_agent("simple", game="gin"), load_agent("expert", game="gin"), phase="stock")


def test_agents_of_two_games_are_refused():
    with pytest.raises(ValueError, match="same game"):
        PhaseSplitAgent(load_agent("simple", game="gin"), load_agent("simple", game="rummy"))


@pytest.mark.slow
def test_search_where_plays_the_four_agents_on_the_same_deals(tmp_path):
    out = tmp_path / "where.json"
    r = subprocess.run([sys.executable, str(ROOT / "docs" / "research" / "scripts" / "search_where.py"), "--teacher", "simple",
                        "--base", "random", "--opponent", "random", "--games", "8", "--out", str(out)],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr
    rows = json.loads(out.read_text())["results"]
    assert [x["agent"] for x in rows] == ["base", "teacher", "teacher at the draw", "teacher but the draw"]
    assert all(x["games"] == 8 and x["ci95"][0] <= x["win_rate"] <= x["ci95"][1] for x in rows)
    pts = {x["agent"]: x["points_per_hand"] for x in rows}
    assert all(len(v) == 2 and min(v) >= 0 for v in pts.values())
    assert pts["teacher"][0] > pts["base"][0]  # simple goes out; random, against random, hardly ever
    bad = subprocess.run([sys.executable, str(ROOT / "docs" / "research" / "scripts" / "search_where.py"), "--teacher", "nobody"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert bad.returncode == 2 and "unknown agent 'nobody'" in bad.stderr
    inside = subprocess.run([sys.executable, str(ROOT / "docs" / "research" / "scripts" / "search_where.py"), "--teacher", "simple",
                             "--base", "random", "--opponent", "random", "--games", "8", "--phase", "stock",
                             "--inside-only", "--out", str(out)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert inside.returncode == 0, inside.stderr
    assert [x["agent"] for x in json.loads(out.read_text())["results"]] == ["base", "teacher at the stock"]
