"""The Rummy expert's table-reading options (``fit_outs``, ``hold_outs``, ``w_danger_close`` with
``close_cards``) in scripted positions, each with the exact change it makes to the preference
and the positions where it must make none; their defaults play the baseline ``expert``."""

from __future__ import annotations

import numpy as np
import pytest

from rummyrl import rummy
from rummyrl.agents import load_agent
from rummyrl.agents.rummy_expert import RummyExpertParams, expert_preferences, parse_params
from rummyrl.cards import NUM_CARDS, parse_card, parse_cards

L = rummy.OBS_LAYOUT
P = 4
TABLE_RUN = "5H 6H 7H"  # a run on the table: 4H and 8H would go onto it


def position(hand: str, unseen: str, *, melded=True, next_cards=3, next_melded=False,
             layoffs: str = ""):
    """A play-phase row for the player to act: ``hand``; the table holds the run 5H 6H 7H (4H and
    8H fit it); ``unseen`` are the cards not seen (every other card is in the pile); the next
    player holds ``next_cards`` cards. Legal: discarding any held card, and laying off the
    cards of ``layoffs`` onto table slot 0."""
    row = np.zeros(rummy.OBS_DIM, np.float32)
    held = parse_cards(hand)
    row[L["hand"].start + np.array(held)] = 1
    row[L["table_slots"].start + np.array(parse_cards(TABLE_RUN))] = 1
    row[L["table_fits"].start + np.array(parse_cards("4H 8H"))] = 1
    if unseen:
        row[L["unseen"].start + np.array(parse_cards(unseen))] = 1
    row[L["seat_present"].start:L["seat_present"].start + P] = 1
    row[L["hand_sizes"].start] = len(held) / 7
    row[L["hand_sizes"].start + 1] = next_cards / 7
    row[L["hand_sizes"].start + 2:L["hand_sizes"].start + P] = 5 / 7
    row[L["melded"].start] = float(melded)
    row[L["melded"].start + 1] = float(next_melded)
    row[L["phase"].start + 1] = 1
    row[L["my_turn"].start] = 1
    mask = np.zeros(rummy.NUM_ACTIONS, bool)
    mask[rummy.DISCARD + np.array(held)] = True
    for c in parse_cards(layoffs):
        mask[rummy.LAYOFF + c] = True  # slot 0
    return row[None], mask[None]


def pref(spec: str, obs, mask):
    return expert_preferences(obs, mask, parse_params(spec))[0]


def gap(p, a: str, b: str) -> float:
    """How much more the preference likes discarding ``a`` than ``b``."""
    return float(p[rummy.DISCARD + parse_card(a)] - p[rummy.DISCARD + parse_card(b)])


@pytest.mark.parametrize("fit_outs", [1.0, 0.5])
def test_fit_outs_counts_an_unseen_card_that_would_go_onto_the_table_next_to_it(fit_outs):
    # 9H: the unseen 8H would go onto the run, and 9H after it. With fit_outs that is an out
    # worth w_outs * fit_outs (12 * fit_outs) in 9H's keep value; 7C has no such card
    obs, mask = position("9H 7C 2S", unseen="8H 3D 4D JC QC")
    base, opt = pref("swap_margin=24", obs, mask), pref(f"swap_margin=24,fit_outs={fit_outs}", obs, mask)
    assert gap(opt, "9H", "7C") == pytest.approx(gap(base, "9H", "7C") - 12 * fit_outs)
    assert gap(opt, "7C", "2S") == pytest.approx(gap(base, "7C", "2S"))
    assert base.argmax() == rummy.DISCARD + parse_card("9H")  # the highest loose card
    if fit_outs == 1.0:
        assert opt.argmax() == rummy.DISCARD + parse_card("7C")


@pytest.mark.parametrize("why, kwargs", [
    ("8H is in the pile, not unseen", dict(unseen="3D 4D JC QC")),
    ("the player may not lay off yet", dict(unseen="8H 3D 4D JC QC", melded=False)),
])
def test_fit_outs_counts_nothing_where_the_card_could_not_follow(why, kwargs):
    obs, mask = position("9H 7C 2S", **kwargs)
    assert np.array_equal(pref("fit_outs=1", obs, mask), pref("", obs, mask)), why


def test_hold_outs_keeps_a_lay_off_that_has_outs_in_the_hand():
    # 8H fits the run, and with 8S in the hand the unseen 8D 8C would make a set: 2 outs
    obs, mask = position("8H 8S KD 3C", unseen="8D 8C 2D 4D", layoffs="8H")
    lay = rummy.LAYOFF + parse_card("8H")
    assert pref("", obs, mask).argmax() == lay  # the baseline lays off every card that fits
    assert pref("hold_outs=3", obs, mask).argmax() == lay  # 2 outs are fewer than 3
    held = pref("hold_outs=2", obs, mask)
    discards = held[rummy.DISCARD:rummy.DISCARD + NUM_CARDS]
    assert held[lay] < discards[mask[0, rummy.DISCARD:rummy.DISCARD + NUM_CARDS]].min()
    assert held.argmax() == rummy.DISCARD + parse_card("KD")  # the loose high card goes


def test_hold_outs_lays_off_when_that_lets_the_player_go_out():
    # 8H 8S: laying off 8H leaves one card to throw, so the player goes out this turn
    obs, mask = position("8H 8S", unseen="8D 8C 2D 4D", layoffs="8H")
    assert pref("hold_outs=1", obs, mask).argmax() == rummy.LAYOFF + parse_card("8H")


@pytest.mark.parametrize("next_cards, weight", [(3, 30.0), (4, 30.0), (5, 4.0)])
def test_w_danger_close_weighs_the_danger_while_the_next_player_is_short(next_cards, weight):
    # 4H fits the table and the next player has melded: a certain danger (1) in w_danger
    # units; with nothing unseen, 9C has none. close_cards=4: w_danger_close from 4 cards down
    obs, mask = position("4H 9C", unseen="", next_cards=next_cards, next_melded=True)
    base = pref("", obs, mask)
    opt = pref("w_danger_close=30,close_cards=4", obs, mask)
    assert gap(base, "4H", "9C") == pytest.approx(4 - 9 - 4.0)
    assert gap(opt, "4H", "9C") == pytest.approx(4 - 9 - weight)


def test_the_defaults_are_the_baseline_expert_and_the_options_are_read_from_the_name():
    assert parse_params("") == RummyExpertParams()
    p = load_agent("planner:fit_outs=1,hold_outs=2,w_danger_close=30,close_cards=4", game="rummy").params
    assert (p.fit_outs, p.hold_outs, p.w_danger_close, p.close_cards) == (1.0, 2.0, 30.0, 4)
    expert = load_agent("expert", game="rummy")
    st = rummy.init(32, seed=5)
    for _ in range(200):
        obs, mask = rummy.observe(st), st.mask
        assert np.array_equal(expert.preferences(obs, mask),
                              expert_preferences(obs, mask, parse_params("close_cards=0,fit_outs=0,hold_outs=0")))
        rummy.step(st, expert.act(obs, mask), inplace=True)
        rummy.reset_done(st)


@pytest.mark.parametrize("spec, message", [
    ("planner:close_cards=2.5", "close_cards must be an integer, got 2.5"),
    ("planner:fit_outs=-1", "fit_outs must be >= 0, got -1"),
    ("planner:hold_outs=inf", "hold_outs must be finite, got inf"),
    ("expert:w_danger_close=nan", "w_danger_close must be finite, got nan"),
])
def test_bad_table_options_are_clear_errors(spec, message):
    with pytest.raises(ValueError, match=message):
        load_agent(spec, game="rummy")
