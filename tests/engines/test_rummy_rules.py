"""Scripted Rummy rounds with explicit decks and exact expected outcomes, one or more per
rule id of docs/rules.md (R-1 .. R-9, C-4), plus the move cap, config checks and the
observation layout.

Seats are numbered clockwise; with dealer ``d`` the deck gives its first 7 cards to seat
``d + 1``, the next 7 to ``d + 2``, ..., then the upcard, then the stock in draw order.
Card values (C-2): A = 1, 2-10 face value, J Q K = 10.
"""

import numpy as np
import pytest

from rummyrl import deals
from rummyrl import rummy as R
from rummyrl.cards import parse_card, parse_cards
from rummy_deals import deck_of, discard, layoff, meld  # noqa: E402  (tests/ is on sys.path)

# --------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------


def start(P, dealer, hands, upcard, stock="", **cfg):
    cfg.setdefault("episode", "round")
    config = R.RummyConfig(num_players=P, **cfg)
    return R.init(1, seed=0, config=config, decks=deck_of(P, dealer, hands, upcard, stock), dealers=dealer)


def play(state, *actions):
    for a in actions:
        state = R.step(state, np.array([a]), inplace=True)
    return state


def legal(state):
    return sorted(R.action_name(a) for a in np.flatnonzero(state.mask[0]))


def hand(state, seat):
    return sorted(np.flatnonzero(state.hands[0, seat]).tolist())


def cards(text):
    return sorted(parse_cards(text))


# --------------------------------------------------------------------------------------
# deal
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("P, stock", [(2, 37), (3, 30), (4, 23), (5, 16), (6, 9)])
def test_r1_deal_sizes(P, stock):
    s = R.init(8, seed=5, config=R.RummyConfig(num_players=P))
    assert (s.hand_size == 7).all()
    assert (s.hands.sum(-1) == 7).all()
    assert (s.stock_size == stock).all()
    assert (s.pile_len == 1).all()
    assert s.config.stock_start == stock


def test_r1_deal_positions():
    deck = np.arange(52)[::-1].copy()  # card 51 first
    s = R.init(1, seed=0, config=R.RummyConfig(num_players=4), decks=deck, dealers=2)
    # dealer 2: seat 3 gets deck[0:7], seat 0 deck[7:14], seat 1 deck[14:21], seat 2 deck[21:28]
    for i, seat in enumerate([3, 0, 1, 2]):
        assert hand(s, seat) == sorted(deck[7 * i: 7 * i + 7].tolist())
    assert s.pile[0, 0] == deck[28] and s.pile_len[0] == 1  # the upcard
    assert s.stock_size[0] == 23
    s = play(s, R.DRAW_STOCK)
    assert s.hands[0, 3, deck[29]]  # the stock is drawn in deck order


def test_seeded_deals_do_not_depend_on_the_batch():
    one = R.init(1, seed=3)
    four = R.init(4, seed=3)
    assert (one.deck[0] == four.deck[0]).all() and one.dealer[0] == four.dealer[0]
    assert not (four.deck[0] == four.deck[1]).all()


# --------------------------------------------------------------------------------------
# who starts, clockwise play, the deal rotates
# --------------------------------------------------------------------------------------
def test_r2_left_of_dealer_starts_and_play_goes_clockwise():
    s = R.init(1, seed=0, config=R.RummyConfig(num_players=5), decks=np.arange(52), dealers=3)
    assert s.current[0] == 4 and s.dealer[0] == 3
    seen = []
    for _ in range(6):
        seen.append(int(s.current[0]))
        drawn = int(s.stock[0, s.stock_pos[0]])
        s = play(s, R.DRAW_STOCK, R.DISCARD + drawn)
    assert seen == [4, 0, 1, 2, 3, 4]


def test_r2_seeded_first_dealer_and_rotation_every_round():
    # rounds cut off by a tiny move cap (nobody scores): the deal still moves each round
    cfg = R.RummyConfig(num_players=3, episode="game", max_actions=4)
    s = R.init(2, seed=11, config=cfg)
    first = deals.first_dealer(s.seed, np.zeros(2, np.int64), 3)
    assert (s.dealer == first).all()
    dealers, starters = [s.dealer.copy()], [s.current.copy()]
    for _ in range(3):
        for _ in range(4):  # draw + discard, twice
            a = np.where(s.mask[:, R.DRAW_STOCK], R.DRAW_STOCK, R.DISCARD + s.mask[:, R.DISCARD:R.MELD].argmax(1))
            s = R.step(s, a)
        assert s.round_ended.all() and (s.last_end == R.END_TRUNCATED).all()
        dealers.append(s.dealer.copy())
        starters.append(s.current.copy())
    for h in range(4):
        assert (dealers[h] == (first + h) % 3).all()
        assert (starters[h] == (first + h + 1) % 3).all()
    assert (s.scores == 0).all() and (s.round_no == 3).all()


# --------------------------------------------------------------------------------------
# a turn is draw, plays, discard
# --------------------------------------------------------------------------------------
def test_r3_turn_draw_then_plays_then_discard():
    # seat 0 (dealer 1) holds 2h 3h 4h 9s 9d Qc Kd; the stock starts with 5h
    s = start(2, 1, {0: "2h 3h 4h 9s 9d Qc Kd", 1: "As 2s 3d 4c 6d 7c 8s"}, "Tc", "5h")
    assert legal(s) == ["draw_stock", "take_discard"]
    with pytest.raises(R.IllegalActionError, match="phase DRAW"):
        play(s, discard("Kd"))  # a turn starts with a draw
    s = play(s, R.DRAW_STOCK)
    assert s.phase[0] == R.PHASE_PLAY and hand(s, 0) == cards("2h 3h 4h 5h 9s 9d Qc Kd")
    assert "draw_stock" not in legal(s) and "take_discard" not in legal(s)
    # any number of plays: a meld, then a lay-off onto it, in the same turn
    s = play(s, meld("2h 3h 4h"), layoff("5h", 0))
    assert s.current[0] == 0 and s.phase[0] == R.PHASE_PLAY
    assert R.table_melds(s, 0) == [{"slot": 0, "owner": 0, "cards": ["2h", "3h", "4h", "5h"],
                                    "laid_off": [["5h", 0]]}]
    s = play(s, discard("Kd"))
    assert s.current[0] == 1 and s.phase[0] == R.PHASE_DRAW
    assert hand(s, 0) == cards("9s 9d Qc") and s.pile[0, s.pile_len[0] - 1] == parse_card("Kd")


def test_r3_meld_mask_lists_exactly_the_melds_held():
    s = start(2, 1, {0: "5h 6h 7h 8h 5s 5d 5c", 1: "As 2s 3d 4c 6d 7c 8s"}, "Tc", "Kd")
    s = play(s, R.DRAW_STOCK)
    melds = [n for n in legal(s) if n.startswith("meld")]
    assert sorted(melds) == sorted([
        "meld 5h 6h 7h", "meld 6h 7h 8h", "meld 5h 6h 7h 8h",
        "meld 5s 5h 5d", "meld 5s 5h 5c", "meld 5s 5d 5c", "meld 5h 5d 5c", "meld 5s 5h 5d 5c",
    ])
    assert not any(n.startswith("lay off") for n in legal(s))  # no table meld yet
    # after laying down the set of three without the heart, 5h fits it and the run shrinks
    s = play(s, meld("5s 5d 5c"))
    names = legal(s)
    assert "lay off 5h on slot 0" in names
    assert [n for n in names if n.startswith("meld")] == ["meld 5h 6h 7h", "meld 5h 6h 7h 8h", "meld 6h 7h 8h"]


# --------------------------------------------------------------------------------------
# lay-offs only after one's own first meld; what fits
# --------------------------------------------------------------------------------------
def test_r4_layoff_refused_before_first_meld_then_allowed():
    hands = {0: "2h 3h 4h Js Qs Ks 9d", 1: "5h As Ts 7h 7d 7c 2c"}
    s = start(2, 1, hands, "8d", "6c 3d 7s")
    # seat 0: draws 6c, lays down two melds, discards 6c
    s = play(s, R.DRAW_STOCK, meld("2h 3h 4h"), meld("Js Qs Ks"), discard("6c"))
    # seat 1 draws 3d; 5h would fit the hearts run, but seat 1 has no meld of its own yet
    s = play(s, R.DRAW_STOCK)
    assert not s.melded[0, 1]
    assert not any(n.startswith("lay off") for n in legal(s))
    with pytest.raises(R.IllegalActionError, match=r"lay off 5h on slot 0\) is not legal in game 0, phase PLAY"):
        play(s, layoff("5h", 0))
    s = play(s, meld("7h 7d 7c"))  # its first meld (slot 2) ...
    assert s.melded[0, 1]
    # ... now it may lay off onto anyone's meld: 5h on 2h-4h, Ts below J-Q-K of spades;
    # As does not fit J-Q-K (runs do not wrap, C-1)
    assert [n for n in legal(s) if n.startswith("lay off")] == ["lay off 5h on slot 0", "lay off Ts on slot 1"]
    s = play(s, layoff("5h", 0), layoff("Ts", 1), discard("3d"))
    assert hand(s, 1) == cards("As 2c")
    assert R.table_melds(s, 0) == [
        {"slot": 0, "owner": 0, "cards": ["2h", "3h", "4h", "5h"], "laid_off": [["5h", 1]]},
        {"slot": 1, "owner": 0, "cards": ["Ts", "Js", "Qs", "Ks"], "laid_off": [["Ts", 1]]},
        {"slot": 2, "owner": 1, "cards": ["7h", "7d", "7c"], "laid_off": []},
    ]
    # seat 0 draws 7s: the fourth seven fits seat 1's set; laying it off empties the hand but
    # for 9d, whose discard takes seat 0 out (R-6): it scores seat 1's As + 2c = 3 (R-8)
    s = play(s, R.DRAW_STOCK)
    assert [n for n in legal(s) if n.startswith("lay off")] == ["lay off 7s on slot 2"]
    s = play(s, layoff("7s", 2), discard("9d"))
    info = R.round_info(s, 0)
    assert info["end"] == "out" and info["winner"] == 0 and info["points"] == 3
    assert info["hand_values"] == [0, 3] and s.scores[0].tolist() == [3, 0]


def test_r4_set_of_four_takes_no_layoff_and_run_ends_move():
    hands = {0: "Js Jh Jd Jc 9h Th 2d", 1: "Qh Ah 5c 6c 7s 8s 3d"}
    s = start(2, 1, hands, "Kd", "Kh 4d 8h")
    s = play(s, R.DRAW_STOCK, meld("Js Jh Jd Jc"))  # seat 0 draws Kh; slot 0 is a set of four
    assert s.slot_ext[0, 0].tolist() == [-1, -1]  # a set of four takes nothing
    s = play(s, discard("2d"), R.DRAW_STOCK, discard("4d"))  # seat 1 draws 4d and throws it
    s = play(s, R.DRAW_STOCK, meld("8h 9h Th"))  # seat 0 draws 8h; slot 1 takes 7h below, Jh above
    assert sorted(s.slot_ext[0, 1].tolist()) == cards("7h Jh")
    assert hand(s, 0) == cards("Kh")  # Kh fits neither (Jh is on the table, in slot 0)
    assert legal(s) == ["discard Kh"]


# --------------------------------------------------------------------------------------
# R-5 / C-4: the card just taken from the pile
# --------------------------------------------------------------------------------------
def test_r5_taken_card_cannot_be_discarded_in_the_same_turn():
    hands = {0: "2h 3h 4h 5h 6h 7h 9d", 1: "As 2s 3d 4c 6d 8c 8s"}
    s = start(2, 1, hands, "Td", "9s Kc Qd Jd")
    s = play(s, R.DRAW_STOCK, meld("2h 3h 4h 5h 6h"), discard("9s"))  # seat 0 keeps 7h 9d
    s = play(s, R.DRAW_STOCK, discard("Kc"))  # seat 1 draws Kc and throws it
    s = play(s, R.TAKE_DISCARD)  # seat 0 takes Kc
    assert s.taken[0] == parse_card("Kc") and s.known[0, 0, parse_card("Kc")]
    assert legal(s) == ["discard 7h", "discard 9d", "lay off 7h on slot 0"]
    with pytest.raises(R.IllegalActionError, match=r"discard Kc\) is not legal in game 0, phase PLAY"):
        play(s, discard("Kc"))
    s = play(s, discard("9d"))
    s = play(s, R.DRAW_STOCK, discard("Qd"))  # seat 1
    s = play(s, R.DRAW_STOCK)  # seat 0 draws Jd: Kc may go in this later turn
    assert not s.known[0, 0, parse_card("Jd")] and s.taken[0] == -1
    assert legal(s) == ["discard 7h", "discard Jd", "discard Kc", "lay off 7h on slot 0"]


def test_r5_taken_card_may_go_when_it_is_the_only_card_left():
    hands = {0: "2h 3h 4h 5h 6h 7h 8h", 1: "As 2s 3d 4c 6d 8c 8s"}  # seat 1: 32
    s = start(2, 1, hands, "Td", "9d Kc")
    s = play(s, R.DRAW_STOCK, meld("2h 3h 4h 5h 6h"), discard("9d"))  # seat 0 keeps 7h 8h
    s = play(s, R.DRAW_STOCK, discard("Kc"), R.TAKE_DISCARD)  # seat 0 takes Kc
    assert legal(s) == ["discard 7h", "discard 8h", "lay off 7h on slot 0"]
    s = play(s, layoff("7h", 0))
    assert legal(s) == ["discard 8h", "lay off 8h on slot 0"]
    s = play(s, layoff("8h", 0))
    assert hand(s, 0) == cards("Kc") and s.taken[0] == parse_card("Kc")
    assert legal(s) == ["discard Kc"]  # the exception of R-5: it is the last card
    s = play(s, discard("Kc"))  # and discarding it goes out
    assert s.last_end[0] == R.END_OUT and s.last_winner[0] == 0 and s.last_points[0] == 32


def test_c4_option_off_allows_throwing_the_taken_card():
    hands = {0: "2h 3h 4h 5h 6h 7h 9d", 1: "As 2s 3d 4c 6d 8c 8s"}
    s = start(2, 1, hands, "Td", forbid_taken_discard=False)
    s = play(s, R.TAKE_DISCARD)
    assert "discard Td" in legal(s)
    s = start(2, 1, hands, "Td")
    s = play(s, R.TAKE_DISCARD)
    assert "discard Td" not in legal(s)


# --------------------------------------------------------------------------------------
# going out
# --------------------------------------------------------------------------------------
FOUR = {
    0: "Qc Qs 2h 3h 4h 5h 6h",
    1: "Ks Kd 9c 8c 4s 2d Ac",  # 10 + 10 + 9 + 8 + 4 + 2 + 1 = 44
    2: "Js Td 7h 7c 3s 5d 6c",  # 10 + 10 + 7 + 7 + 3 + 5 + 6 = 48
    3: "As Ad 2c 3c 5s 8h 9h",  # 1 + 1 + 2 + 3 + 5 + 8 + 9 = 29
}


def test_r6_out_by_melding_qc_qs_with_qh_and_no_discard():
    s = start(4, 3, FOUR, "7d", "9d Th Jh Kh Qh")
    # seat 0: draws 9d, lays down 2h-6h, throws 9d: holds Qc Qs
    s = play(s, R.DRAW_STOCK, meld("2h 3h 4h 5h 6h"), discard("9d"))
    assert hand(s, 0) == cards("Qc Qs")
    for c in ("Th", "Jh", "Kh"):  # seats 1, 2, 3 draw and throw
        s = play(s, R.DRAW_STOCK, discard(c))
    s = play(s, R.DRAW_STOCK)  # seat 0 draws Qh
    assert legal(s) == ["discard Qc", "discard Qh", "discard Qs", "meld Qs Qh Qc"]
    s = play(s, meld("Qs Qh Qc"))  # all three melded, no discard: out
    assert s.game_over[0] and s.round_ended[0] and not s.truncated[0]
    assert s.phase[0] == R.PHASE_DONE and not s.mask[0].any()
    info = R.round_info(s, 0)
    assert info["end"] == "out" and info["winner"] == 0
    assert info["hand_values"] == [0, 44, 48, 29]
    assert info["points"] == 121 and info["scores"] == [121, 0, 0, 0]
    assert s.winner[0] == 0
    assert [m["cards"] for m in info["table"]] == [["2h", "3h", "4h", "5h", "6h"], ["Qs", "Qh", "Qc"]]


def test_r6_out_by_discarding_the_last_card():
    hands = dict(FOUR)
    hands[0] = "Qc Qs Qh 2h 3h 4h 5h"
    s = start(4, 3, hands, "7d", "9d")
    s = play(s, R.DRAW_STOCK, meld("2h 3h 4h 5h"), meld("Qs Qh Qc"))  # two melds in one turn
    assert legal(s) == ["discard 9d"]
    s = play(s, discard("9d"))
    assert s.last_end[0] == R.END_OUT and s.last_winner[0] == 0
    assert s.last_points[0] == 44 + 48 + 29 and s.scores[0].tolist() == [121, 0, 0, 0]
    assert s.pile[0, s.pile_len[0] - 1] == parse_card("9d")


def test_r6_out_by_a_layoff_with_no_discard():
    hands = {0: "2h 3h 4h 5h 6h 7h Kc", 1: "As 2s 3d 4c 6d 8c 8s"}  # seat 1: 32
    s = start(2, 1, hands, "Td", "8h Qs 9h")
    s = play(s, R.DRAW_STOCK, meld("2h 3h 4h 5h 6h 7h"), discard("Kc"))  # seat 0 keeps 8h
    s = play(s, R.DRAW_STOCK, discard("Qs"))  # seat 1
    s = play(s, R.DRAW_STOCK)  # seat 0 draws 9h: 9h fits only once 8h is laid off
    assert legal(s) == ["discard 8h", "discard 9h", "lay off 8h on slot 0"]
    s = play(s, layoff("8h", 0))
    assert legal(s) == ["discard 9h", "lay off 9h on slot 0"]
    s = play(s, layoff("9h", 0))  # the hand is empty: out with no discard
    assert s.last_end[0] == R.END_OUT and s.last_points[0] == 32 and s.scores[0].tolist() == [32, 0]
    assert R.round_info(s, 0)["table"] == [{
        "slot": 0, "owner": 0, "cards": ["2h", "3h", "4h", "5h", "6h", "7h", "8h", "9h"],
        "laid_off": [["8h", 0], ["9h", 0]],
    }]


# --------------------------------------------------------------------------------------
# stock recycling once, then a drawn round
# --------------------------------------------------------------------------------------
SIX = {
    0: "2c 3c 4c 5c 6c 7c 8c",
    1: "As 2s 3s 4s 5s 6s 7s",  # 28
    2: "8s 9s Ts Js Qs Ks Ah",  # 58
    3: "2h 3h 4h 5h 6h 7h 8h",  # 35
    4: "9h Th Jh Qh Kh Ad 2d",  # 52
    5: "3d 4d 5d 6d 7d 8d 9d",  # 42
}
SIX_UP, SIX_STOCK = "Td", "Jd Qd Kd Ac 9c Tc Jc Qc Kc"


def _six_to_last_draw():
    """Six players, dealer 5, 9 stock cards; every player draws from the stock and throws
    the card drawn. Returns the state at the start of turn 19 (seat 0), whose draw takes
    the last card of the second stock."""
    s = start(6, 5, SIX, SIX_UP, SIX_STOCK)
    first = parse_cards(SIX_STOCK)
    for t in range(9):  # turns 1..9 use up the first stock
        s = play(s, R.DRAW_STOCK, R.DISCARD + first[t])
    assert s.stock_size[0] == 0 and s.passes[0] == 0 and s.pile_len[0] == 10
    # the stock is empty: drawing from it turns the pile over; taking the discard stays legal
    assert s.current[0] == 3 and legal(s) == ["draw_stock", "take_discard"]
    second = [parse_card(SIX_UP)] + first  # the pile, earliest discard first
    s = play(s, R.DRAW_STOCK)  # turn 10
    assert s.passes[0] == 1 and s.pile_len[0] == 0 and s.stock_size[0] == 9
    assert s.hands[0, 3, second[0]]  # the upcard, the earliest card of the pile, comes first
    s = play(s, R.DISCARD + second[0])
    for t in range(1, 9):  # turns 11..18
        s = play(s, R.DRAW_STOCK)
        assert s.hands[0, s.current[0], second[t]]
        s = play(s, R.DISCARD + second[t])
    assert s.current[0] == 0 and s.stock_size[0] == 1 and not s.round_ended[0]
    return s, second[9]


def test_r7_draw_after_the_second_stock_is_used_up():
    s, last = _six_to_last_draw()
    s = play(s, R.DRAW_STOCK)  # turn 19: the last card of the second stock
    assert s.last_stock[0] and s.phase[0] == R.PHASE_PLAY
    s = play(s, R.DISCARD + last)  # seat 0 does not go out: the round is drawn
    assert s.round_ended[0] and s.game_over[0]
    info = R.round_info(s, 0)
    assert info["end"] == "draw" and info["winner"] == -1 and info["points"] == 0
    assert info["scores"] == [0] * 6
    assert info["hand_values"] == [35, 28, 58, 35, 52, 42]


def test_r7_drawer_of_the_last_card_who_goes_out_wins():
    s, last = _six_to_last_draw()
    s = play(s, R.DRAW_STOCK, meld("2c 3c 4c 5c 6c 7c 8c"), R.DISCARD + last)
    info = R.round_info(s, 0)
    assert info["end"] == "out" and info["winner"] == 0
    assert info["points"] == 28 + 58 + 35 + 52 + 42 == 215


def test_r7_round_drawn_in_game_scores_nothing_and_deals_again():
    config = R.RummyConfig(num_players=6, episode="game")
    s = R.init(1, seed=0, config=config, decks=deck_of(6, 5, SIX, SIX_UP, SIX_STOCK), dealers=5)
    first = parse_cards(SIX_STOCK)
    second = [parse_card(SIX_UP)] + first
    for t in range(9):
        s = play(s, R.DRAW_STOCK, R.DISCARD + first[t])
    for t in range(10):
        s = play(s, R.DRAW_STOCK, R.DISCARD + second[t])
    assert s.round_ended[0] and not s.game_over[0]
    assert s.last_end[0] == R.END_DRAWN and (s.scores[0] == 0).all()
    assert s.round_no[0] == 1 and s.dealer[0] == 0 and s.current[0] == 1
    assert s.stock_size[0] == 9 and s.passes[0] == 0
    assert R.game_info(s, 0)["rounds"] == [{"end": "draw", "winner": -1, "points": 0}]


def test_r7_taking_the_discard_when_the_stock_is_empty_delays_the_turnover():
    s = start(6, 5, SIX, SIX_UP, SIX_STOCK)
    first = parse_cards(SIX_STOCK)
    for t in range(9):
        s = play(s, R.DRAW_STOCK, R.DISCARD + first[t])
    s = play(s, R.TAKE_DISCARD, discard("2h"))  # seat 3 takes Kc, throws 2h
    assert s.stock_size[0] == 0 and s.passes[0] == 0
    s = play(s, R.DRAW_STOCK)  # seat 4 turns the pile over: Td ... Qc, 2h
    assert s.passes[0] == 1 and s.hands[0, 4, parse_card(SIX_UP)] and s.stock_size[0] == 9
    assert s.stock[0, s.stock_pos[0]:s.stock_len[0]].tolist() == first[:8] + [parse_card("2h")]


def test_r7_no_pass_allowed_ends_the_round_with_the_first_stock():
    s = start(6, 5, SIX, SIX_UP, SIX_STOCK, stock_passes=0)
    first = parse_cards(SIX_STOCK)
    for t in range(8):
        s = play(s, R.DRAW_STOCK, R.DISCARD + first[t])
    assert not s.round_ended[0]
    s = play(s, R.DRAW_STOCK, R.DISCARD + first[8])
    assert s.round_ended[0] and s.last_end[0] == R.END_DRAWN and s.last_points[0] == 0


def draw_and_throw(s):
    """The player to act draws from the stock and throws the card it drew."""
    p = s.current[0]
    before = s.hands[0, p].copy()
    s = play(s, R.DRAW_STOCK)
    return play(s, R.DISCARD + int(np.flatnonzero(s.hands[0, p] & ~before)[0]))


def test_r7_two_passes_allowed():
    s = start(6, 5, SIX, SIX_UP, SIX_STOCK, stock_passes=2)
    n = 0
    while not s.round_ended[0]:
        assert legal(s) == ["draw_stock", "take_discard"]
        s = draw_and_throw(s)
        n += 1
    assert n == 9 + 10 + 10 and s.passes[0] == 2 and s.last_end[0] == R.END_DRAWN


# --------------------------------------------------------------------------------------
# scoring
# --------------------------------------------------------------------------------------
def test_r8_round_scores_the_sum_of_the_opponents_hands():
    # three players; seat 1 (dealer 0) goes out at once with a seven-card run
    hands = {
        1: "As 2s 3s 4s 5s 6s 7s",
        2: "Kh Qh Jh Th Ah 2d 3d",  # 10 + 10 + 10 + 10 + 1 + 2 + 3 = 46
        0: "Kc Kd 9h 9c Ac 5d 6h",  # 10 + 10 + 9 + 9 + 1 + 5 + 6 = 50
    }
    s = start(3, 0, hands, "8d", "Qd")
    s = play(s, R.DRAW_STOCK, meld("As 2s 3s 4s 5s 6s 7s"), discard("Qd"))
    info = R.round_info(s, 0)
    assert info["winner"] == 1 and info["points"] == 96
    assert info["hand_values"] == [50, 0, 46]
    assert info["scores"] == [0, 96, 0]  # only the winner scores
    assert info["hands"][2] == ["Ah", "Th", "Jh", "Qh", "Kh", "2d", "3d"]


# --------------------------------------------------------------------------------------
# rounds until a player reaches 200
# --------------------------------------------------------------------------------------
def _two_round_schedule():
    round1 = deck_of(4, 0, {
        1: "As 2s 3s 4s 5s 6s 7s",
        2: "Ks Kh Kd Kc Qs Qh Qd",  # 70
        3: "Js Jh Jd Jc Ts Th Td",  # 70
        0: "Ah Ad Ac 2h 2d 2c 3h",  # 12
    }, "9s", "Qc")
    round2 = deck_of(4, 1, {
        1: "2h 3h 4h 5h 6h 7h 8h",
        2: "Ks Kh Kd Kc Qs Qh Qd",  # 70
        3: "As Ad Ac 2s 2d 2c 3s",  # 12
        0: "4s 4d 4c 5s 5d 5c 6s",  # 33
    }, "Jc", "9s 9h 9d 9c")
    return np.stack([round1, round2])[None]


def test_r9_game_to_200_with_each_round_reported():
    s = R.init(1, seed=0, config=R.RummyConfig(num_players=4), decks=_two_round_schedule(),
               dealers=np.array([[0, -1]]))
    s = play(s, R.DRAW_STOCK, meld("As 2s 3s 4s 5s 6s 7s"), discard("Qc"))
    # round 1: seat 1 scores 70 + 70 + 12 = 152 < 200, the game goes on; the deal rotates
    assert s.round_ended[0] and not s.game_over[0]
    assert s.last_points[0] == 152 and s.scores[0].tolist() == [0, 152, 0, 0]
    assert s.dealer[0] == 1 and s.current[0] == 2 and s.round_no[0] == 1
    assert not s.melded[0].any() and s.n_melds[0] == 0  # R-4 counts per round
    assert R.round_info(s, 0)["round"] == 0 and R.round_info(s, 0)["dealer"] == 0
    for c in ("9s", "9h", "9d"):  # seats 2, 3, 0 draw and throw
        s = play(s, R.DRAW_STOCK, discard(c))
    s = play(s, R.DRAW_STOCK, meld("2h 3h 4h 5h 6h 7h 8h"), discard("9c"))
    # round 2: 70 + 12 + 33 = 115; 152 + 115 = 267 >= 200 ends the game
    assert s.game_over[0] and s.winner[0] == 1 and not s.truncated[0]
    assert s.scores[0].tolist() == [0, 267, 0, 0]
    info = R.game_info(s, 0)
    assert info == {
        "winner": 1, "over": True, "truncated": False, "rounds_played": 2,
        "rounds": [{"end": "out", "winner": 1, "points": 152}, {"end": "out", "winner": 1, "points": 115}],
        "rounds_won": [0, 2, 0, 0], "scores": [0, 267, 0, 0],
    }
    assert R.round_info(s, 0)["round"] == 1 and R.round_info(s, 0)["dealer"] == 1
    # the next game in the lane starts from zero with a seeded deal
    rows = R.reset_done(s)
    assert rows.tolist() == [0] and s.game_no[0] == 1 and not s.game_over[0]
    assert (s.scores[0] == 0).all() and s.round_no[0] == 0 and s.phase[0] == R.PHASE_DRAW


def test_r9_target_option():
    s = R.init(1, seed=0, config=R.RummyConfig(num_players=4, target=150), decks=_two_round_schedule(),
               dealers=np.array([[0, -1]]))
    s = play(s, R.DRAW_STOCK, meld("As 2s 3s 4s 5s 6s 7s"), discard("Qc"))
    assert s.game_over[0] and s.winner[0] == 1 and s.scores[0].tolist() == [0, 152, 0, 0]


def test_max_rounds_truncates_the_game():
    cfg = R.RummyConfig(num_players=2, max_actions=4, max_rounds=3)
    s = R.init(3, seed=2, config=cfg)
    steps = 0
    while not s.game_over.all():
        a = np.where(s.mask[:, R.DRAW_STOCK], R.DRAW_STOCK, R.DISCARD + s.mask[:, R.DISCARD:R.MELD].argmax(1))
        s = R.step(s, a)
        steps += 1
    assert steps == 12 and s.truncated.all() and (s.winner == -1).all()
    assert R.game_info(s, 0)["rounds"] == [{"end": "truncated", "winner": -1, "points": 0}] * 3


# --------------------------------------------------------------------------------------
# Move cap (as G-10a)
# --------------------------------------------------------------------------------------
def test_move_cap_truncates_the_round():
    s = start(2, 1, {0: "2h 3h 4h 9s 9d Qc Kd", 1: "As 2s 3d 4c 6d 7c 8s"}, "Tc", "5h 6h Jd",
              max_actions=5)
    s = play(s, R.TAKE_DISCARD, discard("Kd"), R.TAKE_DISCARD, discard("As"))
    assert not s.round_ended[0] and s.round_actions[0] == 4
    s = play(s, R.TAKE_DISCARD)  # the fifth action reaches the cap
    assert s.round_ended[0] and s.game_over[0] and s.truncated[0]
    assert s.last_end[0] == R.END_TRUNCATED and s.last_points[0] == 0 and s.winner[0] == -1
    assert not s.mask[0].any()


def test_default_move_cap_follows_the_stock():
    assert [R.RummyConfig(num_players=p).action_cap for p in (2, 4, 6)] == [760, 480, 200]
    assert R.RummyConfig(num_players=4, stock_passes=0).action_cap == 240
    assert R.RummyConfig(max_actions=90).action_cap == 90


# --------------------------------------------------------------------------------------
# Config, errors, names
# --------------------------------------------------------------------------------------
def test_config_checks():
    with pytest.raises(ValueError, match="num_players must be in 2..6"):
        R.RummyConfig(num_players=7)
    with pytest.raises(ValueError, match="episode must be one of 'round' or 'game'"):
        R.RummyConfig(episode="hand")
    with pytest.raises(ValueError, match="hand_size must be in 1..8 for 6 players"):
        R.RummyConfig(num_players=6, hand_size=9)
    with pytest.raises(ValueError, match="stock_passes must be an integer"):
        R.RummyConfig(stock_passes=1.5)
    with pytest.raises(ValueError, match=r"RummyConfig: unknown config key 'players'"):
        R.RummyConfig.from_dict({"players": 4})
    assert R.RummyConfig.from_dict({"num_players": 3, "target": 100}).target == 100


def test_bad_decks_and_dealers():
    with pytest.raises(ValueError, match="dealers must be seats 0..3"):
        R.init(1, config=R.RummyConfig(), decks=np.arange(52), dealers=4)
    with pytest.raises(ValueError, match="not a permutation"):
        R.init(1, decks=np.zeros(52, int))
    with pytest.raises(ValueError, match="dealers were given without decks"):
        R.init(1, dealers=0)


def test_illegal_action_error_names_action_phase_and_legal_actions():
    s = start(2, 1, {0: "2h 3h 4h 9s 9d Qc Kd", 1: "As 2s 3d 4c 6d 7c 8s"}, "Tc")
    with pytest.raises(R.IllegalActionError) as e:
        R.step(s, np.array([meld("2h 3h 4h")]))
    msg = str(e.value)
    assert "meld 2h 3h 4h" in msg and "phase DRAW" in msg and "player 0" in msg
    assert "legal: [0 (draw_stock), 1 (take_discard)]" in msg
    assert s.phase[0] == R.PHASE_DRAW and s.round_actions[0] == 0  # nothing changed


def test_action_layout():
    assert (R.DRAW_STOCK, R.TAKE_DISCARD, R.DISCARD, R.MELD, R.LAYOFF, R.NUM_ACTIONS) == (0, 1, 2, 54, 383, 1267)
    assert R.action_name(R.DISCARD + parse_card("Kh")) == "discard Kh"
    assert R.action_name(meld("Qs Qh Qc")) == "meld Qs Qh Qc"
    assert R.action_name(R.LAYOFF + 16 * 52 + 51) == "lay off Kc on slot 16"


def test_step_is_pure_unless_inplace():
    s = start(2, 1, {0: "2h 3h 4h 9s 9d Qc Kd", 1: "As 2s 3d 4c 6d 7c 8s"}, "Tc")
    t = R.step(s, np.array([R.TAKE_DISCARD]))
    assert s.phase[0] == R.PHASE_DRAW and s.pile_len[0] == 1
    assert t.phase[0] == R.PHASE_PLAY and t.pile_len[0] == 0


# --------------------------------------------------------------------------------------
# Observation
# --------------------------------------------------------------------------------------
def test_observation_layout_and_content():
    assert sum(sl.stop - sl.start for sl in R.OBS_LAYOUT.values()) == R.OBS_DIM == R.obs_dim(2) == R.obs_dim(6)
    hands = {0: "2h 3h 4h Js Qs Ks 9d", 1: "5h As Ts 7h 7d 7c 2c", 2: "Ah Ad Ac 2s 2d 3c 3s"}
    s = start(3, 2, hands, "8d", "6c 3d")
    s = play(s, R.DRAW_STOCK, meld("2h 3h 4h"), discard("6c"))  # seat 0
    s = play(s, R.TAKE_DISCARD)  # seat 1 takes 6c
    o = R.observation_dict(R.observe(s))  # seat 1's view
    assert np.flatnonzero(o["hand"][0]).tolist() == sorted(cards("5h As Ts 7h 7d 7c 2c 6c"))
    assert o["taken"][0, parse_card("6c")] == 1 and o["taken"][0].sum() == 1
    # relative seats: 0 = seat 1 itself, 1 = seat 2 (next to act), 2 = seat 0
    assert np.flatnonzero(o["table_by_seat"][0, 2]).tolist() == cards("2h 3h 4h")
    assert o["table_by_seat"][0, [0, 1, 3, 4, 5]].sum() == 0
    assert np.flatnonzero(o["table_slots"][0, 0]).tolist() == cards("2h 3h 4h")
    assert np.flatnonzero(o["table_fits"][0]).tolist() == cards("Ah 5h")
    assert np.flatnonzero(o["known"][0, 0]).tolist() == [parse_card("6c")]
    assert o["hand_sizes"][0].tolist() == pytest.approx([8 / 7, 1.0, 4 / 7, 0, 0, 0])
    assert o["melded"][0].tolist() == [0, 0, 1, 0, 0, 0]
    assert o["seat_present"][0].tolist() == [1, 1, 1, 0, 0, 0]
    assert o["dealer"][0].tolist() == [0, 1, 0, 0, 0, 0]
    assert o["phase"][0].tolist() == [0, 1, 0] and o["my_turn"][0] == 1
    assert o["pile"][0].sum() == 1 and o["top_discard"][0, parse_card("8d")] == 1
    assert o["stock_size"][0] == pytest.approx(29 / 52)  # 30 after the deal, one drawn
    # seat 2's view of the same state: seat 1 (relative seat 2) is known to hold 6c
    o2 = R.observation_dict(R.observe(s, player=2))
    assert np.flatnonzero(o2["known"][0, 2]).tolist() == [parse_card("6c")]
    assert o2["taken"][0].sum() == 0 and o2["my_turn"][0] == 0
    assert o2["unseen"][0, parse_card("6c")] == 0 and o2["unseen"][0, parse_card("5h")] == 1
    seen = o2["hand"][0] + o2["pile"][0] + o2["table_slots"][0].sum(0) + o2["known"][0, 1:].sum(0)
    assert ((seen > 0) != (o2["unseen"][0] > 0)).all()
