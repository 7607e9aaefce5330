"""Gin Rummy rules, one test (at least) per rule id of docs/rules.md, on scripted deals.

Every scripted hand is a fixed deck (``deck[0:10]`` non-dealer, ``deck[10:20]`` dealer,
``deck[20]`` upcard, ``deck[21:]`` stock, first card drawn first) and a fixed list of
actions; the tests assert exact scores. Unless a test says otherwise player 1 deals, so
player 0 is the non-dealer and acts first.

The hands used most (melds split by ``|``, deadwood after ``||``):

    KNOCKER_7   As 2s 3s | 4h 4d 4c | 8c 9c Tc || 7d              deadwood 7
    D18         5h 6h 7h | Jd Qd Kd || 2d 3c 6s 7s                deadwood 18, no lay-off
    D5          5h 6h 7h | Jd Qd Kd | 9s 9h 9d || 5c              deadwood 5
    D7          5h 6h 7h | Jd Qd Kd | 9s 9h 9d || 7s              deadwood 7
    D30         5h 6h 7h | Jd Qd Kd || Kh Qs 7s 3c                deadwood 30
    D23         5h 6h 7h | Jd Qd Kd || Kh 7s 3c 3d                deadwood 23

Against KNOCKER_7 the defender could lay off 4s (on 4h4d4c or after 3s), 5s (after 4s),
7c / Jc (on 8c9cTc); the D-hands above hold none of them.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from rummyrl import gin
from rummyrl.cards import card_str, parse_card, parse_cards
from rummyrl.gin import (
    BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, PASS, TAKE_DISCARD, GinConfig, IllegalActionError,
)

KNOCKER_7 = "As 2s 3s 4h 4d 4c 8c 9c Tc 7d"
D18 = "5h 6h 7h Jd Qd Kd 2d 3c 6s 7s"
D5 = "5h 6h 7h Jd Qd Kd 9s 9h 9d 5c"
D7 = "5h 6h 7h Jd Qd Kd 9s 9h 9d 7s"
D30 = "5h 6h 7h Jd Qd Kd Kh Qs 7s 3c"
D23 = "5h 6h 7h Jd Qd Kd Kh 7s 3c 3d"


# --------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------
def deck_of(nondealer, dealer, upcard=None, stock=""):
    """A deck: the two hands, the upcard, the first stock cards, then the rest by id.
    Without ``upcard`` the lowest card not named is turned up."""
    nd, dl, st = parse_cards(nondealer), parse_cards(dealer), parse_cards(stock)
    assert len(nd) == 10 and len(dl) == 10
    named = nd + dl + st + ([parse_card(upcard)] if upcard else [])
    rest = [c for c in range(52) if c not in named]
    up = parse_card(upcard) if upcard else rest.pop(0)
    deck = nd + dl + [up] + st + rest
    assert sorted(deck) == list(range(52)), "a card is named twice"
    return np.array(deck)


def act(a) -> int:
    """'pass' / 'take' / 'draw' / 'discard Kh' / 'knock Kh' / 'big_gin', or an int id."""
    if not isinstance(a, str):
        return int(a)
    word, *card = a.split()
    if word == "pass":
        return PASS
    if word == "take":
        return TAKE_DISCARD
    if word == "draw":
        return DRAW_STOCK
    if word == "big_gin":
        return BIG_GIN
    base = {"discard": DISCARD, "knock": KNOCK}[word]
    return base + parse_card(card[0])


def play(state, script):
    for a in script:
        assert not state.game_over[0], f"game over before {a!r}"
        state = gin.step(state, np.array([act(a)]))
    return state


def new_game(deck, dealer=1, **cfg):
    return gin.init(1, decks=deck, dealers=dealer, config=GinConfig(**cfg))


def knock_deal(knocker, defender, drawn, knocker_deals=False, knock=None):
    """(deck, script) for a hand where ``knocker`` is dealt 10 cards, both pass the upcard,
    the knocker draws ``drawn`` and knocks with ``knock`` (default: the drawn card, so the
    dealt 10 cards are its final hand). The non-dealer knocks at once; a dealing knocker
    first lets the non-dealer draw and throw a filler card."""
    knock = knock or drawn
    if not knocker_deals:
        return deck_of(knocker, defender, stock=drawn), ["pass", "pass", "draw", f"knock {knock}"]
    used = set(parse_cards(f"{knocker} {defender} {drawn}"))
    filler = card_str(max(c for c in range(52) if c not in used))
    deck = deck_of(defender, knocker, stock=f"{filler} {drawn}")
    return deck, ["pass", "pass", "draw", f"discard {filler}", "draw", f"knock {knock}"]


def legal(state, b=0):
    return set(np.flatnonzero(state.mask[b]).tolist())


def hand_result(state, b=0):
    return (gin.END_NAMES[state.last_end[b]], int(state.last_winner[b]), int(state.last_points[b]))


def one_hand(knocker, defender, drawn, knock=None, **cfg):
    """Player 0 (non-dealer) draws ``drawn`` and knocks with ``knock`` (default the drawn
    card); a one-hand episode."""
    deck, script = knock_deal(knocker, defender, drawn, knock=knock)
    s = play(new_game(deck, dealer=1, episode="hand", **cfg), script)
    assert s.game_over[0] and s.hand_ended[0]
    return s


def dead_script(deck, floor=2):
    """Pass, pass, then draw and throw the drawn card until ``floor`` stock cards remain."""
    out = ["pass", "pass"]
    for i in range(31 - floor):
        out += ["draw", DISCARD + int(deck[gin.STOCK_START + i])]
    return out


def cards_in(row):
    return sorted(np.flatnonzero(row).tolist())


# --------------------------------------------------------------------------------------
# Action layout
# --------------------------------------------------------------------------------------
def test_action_layout_and_names():
    assert (DRAW_STOCK, TAKE_DISCARD, PASS, DISCARD, KNOCK, BIG_GIN, gin.NUM_ACTIONS) == (0, 1, 2, 3, 55, 107, 108)
    assert gin.action_name(DISCARD + parse_card("Kh")) == "discard Kh"
    assert gin.action_name(KNOCK + parse_card("As")) == "knock As"
    assert gin.action_name(PASS) == "pass"


# --------------------------------------------------------------------------------------
# G-1 deal, G-2 upcard offer, G-3 dealer
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("dealer", [0, 1])
def test_g1_deal_positions(dealer):
    """G-1: 10 cards each, deck[0:10] to the non-dealer, deck[10:20] to the dealer,
    deck[20] is the upcard, 31 cards stay in the stock, deck[21] drawn first."""
    deck = np.random.default_rng(3).permutation(52)
    s = gin.init(1, decks=deck, dealers=dealer)
    nd = 1 - dealer
    assert s.dealer[0] == dealer and s.current[0] == nd
    assert cards_in(s.hands[0, nd]) == sorted(deck[:10].tolist())
    assert cards_in(s.hands[0, dealer]) == sorted(deck[10:20].tolist())
    assert s.pile_len[0] == 1 and s.pile[0, 0] == deck[20]
    assert s.stock_size[0] == 31 and s.stock_top[0] == 21
    s = play(s, ["pass", "pass", "draw"])
    assert s.hands[0, nd, deck[21]] and s.hands[0, nd].sum() == 11 and s.stock_size[0] == 30


def test_g2_upcard_offer_order_both_pass():
    """G-2: non-dealer offered first, then the dealer; after two passes the non-dealer must
    draw from the stock (TAKE_DISCARD masked), then play goes on normally."""
    deck = np.random.default_rng(4).permutation(52)
    s = gin.init(1, decks=deck, dealers=1)
    assert s.phase[0] == gin.PHASE_OFFER and s.current[0] == 0
    assert legal(s) == {TAKE_DISCARD, PASS}
    s = play(s, ["pass"])
    assert s.phase[0] == gin.PHASE_OFFER and s.current[0] == 1
    assert legal(s) == {TAKE_DISCARD, PASS}
    s = play(s, ["pass"])
    assert s.phase[0] == gin.PHASE_DRAW and s.current[0] == 0 and s.must_draw_stock[0]
    assert legal(s) == {DRAW_STOCK}
    with pytest.raises(IllegalActionError):
        gin.step(s, np.array([TAKE_DISCARD]))
    s = play(s, ["draw", DISCARD + int(deck[21])])
    # the dealer's first normal turn: stock or the top discard
    assert s.current[0] == 1 and s.phase[0] == gin.PHASE_DRAW and not s.must_draw_stock[0]
    assert legal(s) == {DRAW_STOCK, TAKE_DISCARD}


def test_g2_nondealer_takes_upcard_then_discards():
    """G-2: whoever takes the upcard has drawn: it discards next, the other takes a turn."""
    deck = np.random.default_rng(5).permutation(52)
    up = int(deck[20])
    s = play(gin.init(1, decks=deck, dealers=1), ["take"])
    assert s.current[0] == 0 and s.phase[0] == gin.PHASE_DISCARD
    assert s.hands[0, 0, up] and s.hands[0, 0].sum() == 11
    assert s.pile_len[0] == 0 and s.stock_top[0] == 21  # nothing drawn from the stock
    assert DRAW_STOCK not in legal(s) and TAKE_DISCARD not in legal(s)
    throw = int(deck[0])
    s = play(s, [DISCARD + throw])
    assert s.current[0] == 1 and s.phase[0] == gin.PHASE_DRAW
    assert legal(s) == {DRAW_STOCK, TAKE_DISCARD}
    assert s.pile[0, 0] == throw and s.hands[0, 0].sum() == 10


def test_g2_dealer_takes_upcard_then_nondealer_turn():
    deck = np.random.default_rng(6).permutation(52)
    up = int(deck[20])
    s = play(gin.init(1, decks=deck, dealers=1), ["pass", "take"])
    assert s.current[0] == 1 and s.phase[0] == gin.PHASE_DISCARD and s.hands[0, 1, up]
    s = play(s, [DISCARD + int(deck[10])])
    assert s.current[0] == 0 and s.phase[0] == gin.PHASE_DRAW and not s.must_draw_stock[0]
    assert legal(s) == {DRAW_STOCK, TAKE_DISCARD}


def test_g2_take_upcard_and_knock_at_once():
    """G-2: the taker may knock instead of discarding. Player 0 takes the upcard 7d:

        As 2s 3s | 4h 4d 4c | 8c 9c Tc || 7d     knock with Kh (from the deal)
    vs D18: 18 - 7 = 11 (G-11)."""
    deck = deck_of("As 2s 3s 4h 4d 4c 8c 9c Tc Kh", D18, upcard="7d")
    s = play(new_game(deck, episode="hand"), ["take", "knock Kh"])
    assert hand_result(s) == ("knock", 0, 11)


def test_g3_first_dealer_is_seeded():
    """G-3: first dealer random but seeded: the same seed gives the same dealer, and
    different seeds give both dealers."""
    a = gin.init(64, seed=11)
    b = gin.init(64, seed=11)
    assert np.array_equal(a.dealer, b.dealer)
    assert set(a.dealer.tolist()) == {0, 1}
    assert np.array_equal(a.current, 1 - a.dealer)
    singles = [int(gin.init(1, seed=s).dealer[0]) for s in range(20)]
    assert set(singles) == {0, 1}


def _dealer_rule_schedule():
    """Four hands: non-dealer knocks 7 v 18 (wins 11); non-dealer knocks 7 v D5 and is
    undercut (dealer wins 27); a dead hand; non-dealer knocks 7 v 18 again."""
    d1, s1 = knock_deal(KNOCKER_7, D18, "Kh")
    d2, s2 = knock_deal(KNOCKER_7, D5, "Kh")
    d3 = np.random.default_rng(8).permutation(52)
    s3 = dead_script(d3)
    return np.stack([d1, d2, d3, d1])[None], [s1, s2, s3, s1]


@pytest.mark.parametrize("rule", ["alternate", "winner"])
def test_g3_dealer_rule(rule):
    """G-3: by default the deal alternates; option 'winner': the hand's winner deals the
    next, and after a dead hand the same dealer deals again."""
    decks, scripts = _dealer_rule_schedule()
    s = gin.init(1, seed=21, decks=decks, config=GinConfig(dealer_rule=rule))
    d0 = int(s.dealer[0])
    dealers, winners = [], []
    for script in scripts:
        dealers.append(int(s.dealer[0]))
        s = play(s, script)
        winners.append(int(s.last_winner[0]))
    if rule == "alternate":
        assert dealers == [d0, 1 - d0, d0, 1 - d0]
        assert winners == [1 - d0, 1 - d0, -1, d0]
    else:
        # hand 1 won by the non-dealer 1-d0, who deals hand 2 and wins it by undercut,
        # deals hand 3 (dead) and so hand 4, which the non-dealer d0 wins
        assert dealers == [d0, 1 - d0, 1 - d0, 1 - d0]
        assert winners == [1 - d0, 1 - d0, -1, d0]
    assert s.dealer[0] == d0  # hand 5: alternating, or dealt by hand 4's winner
    assert s.hand_no[0] == 4


# --------------------------------------------------------------------------------------
# G-4, G-5: a turn
# --------------------------------------------------------------------------------------
def test_g4_draw_exactly_one_card():
    """G-4: one draw, from the stock top or the discard top (the last card thrown)."""
    deck = np.random.default_rng(9).permutation(52)
    s = play(gin.init(1, decks=deck, dealers=1), ["pass", "pass", "draw"])
    assert s.phase[0] == gin.PHASE_DISCARD and s.stock_top[0] == 22
    assert not legal(s) & {DRAW_STOCK, TAKE_DISCARD, PASS}  # no second draw
    thrown = int(deck[3])
    s = play(s, [DISCARD + thrown])
    assert [int(x) for x in s.pile[0, :2]] == [int(deck[20]), thrown]
    s = play(s, ["take"])  # the dealer takes the top discard, not the upcard below it
    assert s.hands[0, 1, thrown] and not s.hands[0, 1, deck[20]] and s.hands[0, 1].sum() == 11
    assert s.pile_len[0] == 1 and s.stock_top[0] == 22
    with pytest.raises(IllegalActionError):
        gin.step(s, np.array([DRAW_STOCK]))


def test_g5_discard_ends_turn_with_ten_cards():
    """G-5: after the draw, a discard of any held card; a discard before the draw is illegal."""
    deck = np.random.default_rng(10).permutation(52)
    s = play(gin.init(1, decks=deck, dealers=1), ["pass", "pass"])
    with pytest.raises(IllegalActionError):
        gin.step(s, np.array([DISCARD + int(deck[0])]))
    s = play(s, ["draw"])
    held = set(cards_in(s.hands[0, 0]))
    assert {a - DISCARD for a in legal(s) if DISCARD <= a < KNOCK} == held
    s = play(s, [DISCARD + int(deck[0])])
    assert s.hands[0, 0].sum() == 10 and s.pile[0, 1] == deck[0] and s.current[0] == 1


# --------------------------------------------------------------------------------------
# G-6 knock mask, G-7 gin and big gin
# --------------------------------------------------------------------------------------
# After drawing Kh, player 0 holds KNOCKER_7 + Kh; deadwood of the ten cards left after
# each discard: Kh 7, 7d 10, 3s 20, 2s 21, As 22, 4h/4d/4c 25, Tc 34, 9c 35, 8c 36.
@pytest.mark.parametrize("limit,knockers", [
    (10, "Kh 7d"), (7, "Kh"), (6, ""), (0, ""), (20, "Kh 7d 3s"), (22, "Kh 7d 3s 2s As"),
])
def test_g6_knock_mask_follows_knock_limit(limit, knockers):
    """G-6: KNOCK+c is legal exactly where discarding c leaves deadwood <= knock_limit."""
    deck = deck_of(KNOCKER_7, D18, stock="Kh")
    s = play(new_game(deck, knock_limit=limit), ["pass", "pass", "draw"])
    got = {a - KNOCK for a in legal(s) if KNOCK <= a < BIG_GIN}
    assert got == set(parse_cards(knockers))
    assert len([a for a in legal(s) if DISCARD <= a < KNOCK]) == 11


def test_g6_knock_with_too_much_deadwood_is_illegal():
    deck = deck_of(KNOCKER_7, D18, stock="Kh")
    s = play(new_game(deck), ["pass", "pass", "draw"])
    with pytest.raises(IllegalActionError, match="knock As"):
        gin.step(s, np.array([KNOCK + parse_card("As")]))
    s = play(new_game(deck, knock_limit=7), ["pass", "pass", "draw"])
    with pytest.raises(IllegalActionError, match="knock 7d"):
        gin.step(s, np.array([KNOCK + parse_card("7d")]))


def test_g6_knock_mask_against_reference(ref):
    """G-6 on random discard-phase states: mask equals the brute-force knock discards."""
    rng = np.random.default_rng(12)
    for limit in (10, 4):
        s = gin.init(256, seed=5, config=GinConfig(knock_limit=limit))
        checked = 0
        for _ in range(40):
            a = np.where(s.mask[:, PASS], PASS, -1)
            for b in range(256):
                if a[b] < 0:
                    a[b] = rng.choice(np.flatnonzero(s.mask[b]))
            s = gin.step(s, a)
            for b in np.flatnonzero(s.phase == gin.PHASE_DISCARD)[:40]:
                hand = ref.row_bits(s.hands[b, s.current[b]])
                exp = {c for c in ref.cards_of(hand) if c != s.taken[b]
                       and ref.deadwood(hand & ~(1 << c)) <= limit}
                got = {a - KNOCK for a in legal(s, b) if KNOCK <= a < BIG_GIN}
                assert got == exp
                checked += 1
        assert checked > 500


def test_g7_gin_scores_full_deadwood_plus_25():
    """G-7, G-14: player 0 draws Jc and knocks with 7d, leaving no deadwood: gin.

        As 2s 3s | 4h 4d 4c | 8c 9c Tc Jc          (gin)
        5h 6h 7h | Jd Qd Kd || 2d 3c 6s 7c         (18; 7c would fit 8c..Jc, but no
                                                     lay-offs after gin) -> 18 + 25 = 43"""
    s = one_hand(KNOCKER_7, "5h 6h 7h Jd Qd Kd 2d 3c 6s 7c", "Jc", knock="7d")
    # the knock action with no deadwood left is gin
    s2 = one_hand("As 2s 3s 4h 4d 4c 8c 9c Tc Jc", "5h 6h 7h Jd Qd Kd 2d 3c 6s 7c", "Kh")
    for st in (s, s2):
        assert hand_result(st) == ("gin", 0, 43)
        assert st.last_deadwood[0].tolist() == [0, 18]
        assert not st.last_laid_off[0].any()
        assert st.last_knocker[0] == 0


def test_g7_no_gin_before_drawing():
    """G-7: a player must draw before going gin: a dealt gin hand has no knock in the
    offer or the draw phase."""
    deck = deck_of("As 2s 3s 4h 4d 4c 8c 9c Tc Jc", D18)
    s = new_game(deck, big_gin_bonus=31)
    assert legal(s) == {TAKE_DISCARD, PASS}
    s = play(s, ["pass", "pass"])
    assert legal(s) == {DRAW_STOCK}


def test_g7_big_gin_off_by_default():
    """G-7: big gin is off by default: BIG_GIN is never legal, even with 11 cards melded."""
    deck = deck_of("As 2s 3s 4h 4d 4c 8c 9c Tc Jc", "5h 6h 7h Jd Qd Kd 2d 3c 6s 7c", stock="Qc")
    s = play(new_game(deck), ["pass", "pass", "draw"])  # 8c 9c Tc Jc Qc: all 11 melded
    assert BIG_GIN not in legal(s)
    with pytest.raises(IllegalActionError, match="big_gin"):
        gin.step(s, np.array([BIG_GIN]))


def test_g7_big_gin_option():
    """G-7 option big_gin_bonus=31: with all 11 cards melded and no discard, big gin scores
    31 + the defender's deadwood without lay-offs (18): 49. A knock there is plain gin (43).

        As 2s 3s | 4h 4d 4c | 8c 9c Tc Jc Qc       (11 cards, all melded)"""
    deck = deck_of("As 2s 3s 4h 4d 4c 8c 9c Tc Jc", "5h 6h 7h Jd Qd Kd 2d 3c 6s 7c", stock="Qc")
    s = play(new_game(deck, episode="hand", big_gin_bonus=31), ["pass", "pass", "draw"])
    assert BIG_GIN in legal(s)
    big = play(s, ["big_gin"])
    assert hand_result(big) == ("big_gin", 0, 49)
    assert big.last_knocker[0] == 0 and big.last_hands[0, 0].sum() == 11
    assert big.last_deadwood[0].tolist() == [0, 18]
    plain = play(s, ["knock Qc"])
    assert hand_result(plain) == ("gin", 0, 43)
    # not legal while a card is unmelded
    deck = deck_of(KNOCKER_7, D18, stock="Kh")
    s = play(new_game(deck, big_gin_bonus=31), ["pass", "pass", "draw"])
    assert BIG_GIN not in legal(s)


# --------------------------------------------------------------------------------------
# G-8 knocker's arrangement, G-9 lay-offs
# --------------------------------------------------------------------------------------
def test_g8_knocker_melds_lowest_arrangement():
    """G-8: the knocker's melds give its lowest deadwood. Player 0:

        7s 7d 7c | 7h 8h 9h | 2c 3c 4c || As       deadwood 1 (the four sevens as one set
                                                    would leave 8h 9h As = 18: no knock)
    Defender: 2d 3d 4d || Th Jh Qs Ks 5s 6s 9s: lays off Th then Jh on 7h8h9h -> 40.
    Knocker scores 40 - 1 = 39."""
    s = one_hand("7s 7h 7d 7c 8h 9h 2c 3c 4c As", "Th Jh 2d 3d 4d Qs Ks 5s 6s 9s", "Kd")
    assert hand_result(s) == ("knock", 0, 39)
    assert s.last_deadwood[0].tolist() == [1, 40]
    melds = sorted(sorted(m) for m in (
        np.flatnonzero(s.last_meld_id[0, 0] == j).tolist() for j in range(s.last_meld_id[0, 0].max() + 1)))
    assert melds == sorted(sorted(parse_cards(t)) for t in ("7s 7d 7c", "7h 8h 9h", "2c 3c 4c"))
    assert cards_in(s.last_laid_off[0]) == sorted(parse_cards("Th Jh"))


def test_g8_tie_broken_as_documented():
    """G-8: 5s5h5d + 4h6h scores 10 either way; melds.py documents that 'no set' is tried
    first, so the knocker shows the run 4h5h6h (5s 5d deadwood). That decides lay-offs:

        knocker   4h 5h 6h | 9c Tc Jc Qc Kc || 5s 5d            deadwood 10
        defender  2s 3s 4s | Ks Kh Kd || 7h 5c 8d 9d            29; 7h goes on the run,
                                                                5c has no set to join -> 22
    Knocker scores 22 - 10 = 12 (with the set shown it would be 24 - 10 = 14)."""
    s = one_hand("4h 5h 6h 5s 5d 9c Tc Jc Qc Kc", "7h 5c 2s 3s 4s Ks Kh Kd 8d 9d", "Ad")
    assert hand_result(s) == ("knock", 0, 12)
    assert cards_in(s.last_laid_off[0]) == [parse_card("7h")]
    again = one_hand("4h 5h 6h 5s 5d 9c Tc Jc Qc Kc", "7h 5c 2s 3s 4s Ks Kh Kd 8d 9d", "Ad")
    assert np.array_equal(s.last_meld_id, again.last_meld_id)


def test_g9_layoffs_with_chain_reach_undercut():
    """G-9: after a knock the defender lays off 4s (after 3s), then 5s (chain), and 7c
    (below 8c); G-12: 2 < 7, an undercut: (7 - 2) + 25 = 30 to the defender.

        knocker   As 2s 3s | 4h 4d 4c | 8c 9c Tc || 7d            7
        defender  5h 6h 7h | Jd Qd Kd || 4s 5s 7c 2d              18 -> 2 after lay-offs"""
    s = one_hand(KNOCKER_7, "5h 6h 7h Jd Qd Kd 4s 5s 7c 2d", "Kh")
    assert hand_result(s) == ("undercut", 1, 30)
    assert s.last_deadwood[0].tolist() == [7, 2]
    assert cards_in(s.last_laid_off[0]) == sorted(parse_cards("4s 5s 7c"))
    assert s.scores[0].tolist() == [0, 30]


def test_g9_knocker_never_lays_off():
    """G-9: the knocker's 8h would extend the defender's 5h6h7h, but the knocker never
    lays off: its deadwood stays 8. 18 - 8 = 10 to the knocker."""
    s = one_hand("As 2s 3s 4h 4d 4c 8c 9c Tc 8h", D18, "Kh")
    assert hand_result(s) == ("knock", 0, 10)
    assert s.last_deadwood[0].tolist() == [8, 18]


def test_g9_defender_prefers_own_meld_when_lower():
    """G-9: the defender's 7c could be laid off below 8c9cTc, but it is worth more in the
    defender's own set 7s7h7c (laying it off would leave 7s 7h as deadwood):

        knocker   As 2s 3s | 4h 4d 4c | 8c 9c Tc || 7d            7
        defender  7s 7h 7c | Jd Qd Kd || 2d 5h 9s Ks              26 (40 if 7c laid off)
    Knocker scores 26 - 7 = 19."""
    s = one_hand(KNOCKER_7, "7s 7h 7c Jd Qd Kd 2d 5h 9s Ks", "Kh")
    assert hand_result(s) == ("knock", 0, 19)
    assert s.last_deadwood[0].tolist() == [7, 26]
    assert not s.last_laid_off[0].any()


# --------------------------------------------------------------------------------------
# G-10 dead hand, G-10a move cap
# --------------------------------------------------------------------------------------
@pytest.mark.parametrize("floor", [2, 0, 5])
def test_g10_dead_hand_at_stock_floor(floor):
    """G-10: a discard that leaves `stock_floor` (default 2) stock cards ends the hand with
    no score; those last cards are never drawn."""
    deck = np.random.default_rng(13).permutation(52)
    script = dead_script(deck, floor)
    s = play(new_game(deck, episode="hand", stock_floor=floor), script[:-1])
    assert not s.game_over[0] and s.stock_size[0] == floor
    s = play(s, script[-1:])
    assert s.game_over[0] and not s.truncated[0]
    assert hand_result(s) == ("dead", -1, 0)
    assert s.stock_size[0] == floor and s.scores[0].tolist() == [0, 0]
    assert s.winner[0] == -1


def test_g10_default_floor_is_two():
    deck = np.random.default_rng(13).permutation(52)
    script = dead_script(deck, 2)
    s = play(new_game(deck, episode="hand"), script)
    assert hand_result(s)[0] == "dead" and s.stock_size[0] == 2
    # with floor 0 the same actions leave the hand running
    s = play(new_game(deck, episode="hand", stock_floor=0), script)
    assert not s.game_over[0]


def test_g10_knock_on_the_last_draw_scores():
    """G-10: only a discard without knocking ends the hand dead. Player 0 draws the 29th
    stock card (2 left) and knocks with it: a normal knock, 18 - 7 = 11."""
    deck = deck_of(KNOCKER_7, D18)
    script = dead_script(deck, 2)
    script[-1] = KNOCK + int(deck[gin.STOCK_START + 28])
    s = play(new_game(deck, episode="hand"), script[:-1])
    assert s.current[0] == 0 and s.stock_size[0] == 2 and s.phase[0] == gin.PHASE_DISCARD
    s = play(s, script[-1:])
    assert hand_result(s) == ("knock", 0, 11)
    assert s.stock_size[0] == 2


def _take_discard_forever(state):
    """Play a hand in which each player takes the top discard and throws another card,
    so the stock never runs low; returns (state, actions played)."""
    n = 0
    while not state.hand_ended[0]:
        m = state.mask[0]
        if m[TAKE_DISCARD]:
            a = TAKE_DISCARD
        elif m[DRAW_STOCK]:
            a = DRAW_STOCK
        else:
            a = int(np.flatnonzero(m[DISCARD:KNOCK])[0]) + DISCARD
        state = gin.step(state, np.array([a]))
        n += 1
    return state, n


def test_g10a_move_cap_default_300_truncates_hand_episode():
    """G-10a: a hand reaching 300 actions ends like a dead hand and is reported as
    truncated (state.truncated with episode='hand')."""
    deck = np.random.default_rng(14).permutation(52)
    s = play(new_game(deck, episode="hand"), ["pass", "pass"])
    s, n = _take_discard_forever(s)
    assert n + 2 == 300
    assert s.game_over[0] and s.truncated[0]
    assert hand_result(s) == ("truncated", -1, 0)
    assert s.stock_size[0] == 30 and s.winner[0] == -1
    assert gin.game_result(s).total[0].tolist() == [0, 0]


def test_g10a_move_cap_option_and_game_goes_on():
    """G-10a option max_actions; in a game the capped hand scores nothing and the next
    hand is dealt (the game is not truncated)."""
    deck = np.random.default_rng(14).permutation(52)
    s = play(new_game(deck, max_actions=20), ["pass", "pass"])
    s, n = _take_discard_forever(s)
    assert n + 2 == 20
    assert hand_result(s) == ("truncated", -1, 0)
    assert not s.game_over[0] and not s.truncated[0]
    assert s.hand_no[0] == 1 and s.phase[0] == gin.PHASE_OFFER
    assert s.scores[0].tolist() == [0, 0] and s.hand_actions[0] == 0


# --------------------------------------------------------------------------------------
# G-11 .. G-14: scoring a hand (docs/rules.md examples)
# --------------------------------------------------------------------------------------
def test_g11_knock_7_vs_18_scores_11():
    """G-11: knocker 7 (KNOCKER_7), defender 18 (D18) -> knocker scores 11."""
    s = one_hand(KNOCKER_7, D18, "Kh")
    assert hand_result(s) == ("knock", 0, 11)
    assert s.last_deadwood[0].tolist() == [7, 18]
    assert s.scores[0].tolist() == [11, 0] and s.last_knocker[0] == 0
    info = gin.hand_info(s, 0)
    assert info["end"] == "knock" and info["points"] == 11 and info["deadwood"] == [7, 18]
    assert info["laid_off"] == [] and info["scores"] == [11, 0]
    assert sorted(map(sorted, info["melds"][0])) == sorted(
        sorted(t.split()) for t in ("As 2s 3s", "4h 4d 4c", "8c 9c Tc"))
    assert sorted(info["hands"][0]) == sorted(KNOCKER_7.split())


def test_g11_knock_5_vs_30_scores_25():
    """G-11: As 2s 3s | 4h 4d 4c | 8c 9c Tc || 5d (5) vs D30 -> 25."""
    s = one_hand("As 2s 3s 4h 4d 4c 8c 9c Tc 5d", D30, "Kc")
    assert hand_result(s) == ("knock", 0, 25)


def test_g11_dealer_knocks():
    """G-11 with the dealer (player 1) knocking after the non-dealer's turn."""
    deck, script = knock_deal(KNOCKER_7, D18, "Kh", knocker_deals=True)
    s = play(new_game(deck, dealer=1, episode="hand"), script)
    assert hand_result(s) == ("knock", 1, 11) and s.last_knocker[0] == 1
    assert s.last_deadwood[0].tolist() == [18, 7]


def test_g12_undercut_knock_7_defender_5_scores_27():
    """G-12: knock with 7, defender has 5 (D5) -> defender scores 2 + 25 = 27."""
    s = one_hand(KNOCKER_7, D5, "Kh")
    assert hand_result(s) == ("undercut", 1, 27)
    assert s.last_knocker[0] == 0 and s.scores[0].tolist() == [0, 27]


def test_g12_undercut_bonus_option():
    s = one_hand(KNOCKER_7, D5, "Kh", undercut_bonus=10)
    assert hand_result(s) == ("undercut", 1, 12)


def test_g13_tie_goes_to_defender_25():
    """G-13: knocker 7, defender 7 (D7) -> the defender scores the undercut bonus: 25."""
    s = one_hand(KNOCKER_7, D7, "Kh")
    assert hand_result(s) == ("undercut", 1, 25)
    s = one_hand(KNOCKER_7, D7, "Kh", undercut_bonus=0)
    assert hand_result(s)[1:] == (1, 0)


def test_g14_gin_vs_18_scores_43_and_vs_13_scores_38():
    """G-14: gin vs deadwood 18 -> 43; vs 13 (5h6h7h8h | JdQdKd || 2d 3c 8s) -> 38."""
    s = one_hand(KNOCKER_7, D18, "Jc", knock="7d")
    assert hand_result(s) == ("gin", 0, 43)
    s = one_hand(KNOCKER_7, "5h 6h 7h 8h Jd Qd Kd 2d 3c 8s", "Jc", knock="7d")
    assert hand_result(s) == ("gin", 0, 38)


def test_g14_gin_bonus_option():
    s = one_hand(KNOCKER_7, D18, "Jc", knock="7d", gin_bonus=20)
    assert hand_result(s) == ("gin", 0, 38)


# --------------------------------------------------------------------------------------
# G-15 .. G-19: scoring a game, on scheduled hands
# --------------------------------------------------------------------------------------
# Each scheduled hand is won by its non-dealer (knock with the drawn Kh), so the dealer
# chosen for a hand decides its winner: dealer 1 -> player 0 wins, dealer 0 -> player 1.
WIN_23 = knock_deal(KNOCKER_7, D30, "Ks")
WIN_11 = knock_deal(KNOCKER_7, D18, "Kh")
WIN_16 = knock_deal(KNOCKER_7, D23, "Ks")
GIN_34 = knock_deal(KNOCKER_7, "5h 6h 7h 8h Jd Qd Kd 2d 3c 4s", "Jc", knock="7d")  # gin vs 9
_DEAD_DECK = np.random.default_rng(15).permutation(52)
DEAD = (_DEAD_DECK, dead_script(_DEAD_DECK))


def play_schedule(hands, winners, **cfg):
    """Play scheduled hands; ``winners[i]`` is the non-dealer of hand i. Returns the state
    and the per-hand log (end, winner, points, scores after)."""
    decks = np.stack([d for d, _ in hands])[None]
    dealers = np.array([[1 - w for w in winners]])
    s = gin.init(1, seed=0, decks=decks, dealers=dealers, config=GinConfig(**cfg))
    log = []
    for i, (deck, script) in enumerate(hands):
        assert not s.game_over[0], f"game over before hand {i}"
        assert np.array_equal(s.deck[0], deck) and s.hand_no[0] == i
        s = play(s, script)
        assert s.hand_ended[0]
        log.append((*hand_result(s), s.scores[0].tolist()))
    return s, log


# the docs/rules.md worked example: player 0 wins 23 four times (92), player 1 wins 11 twice,
# then player 0 wins a hand worth 16: 108 >= 100
WORKED = ([WIN_23, WIN_11, WIN_23, WIN_23, WIN_11, WIN_23, WIN_16], [0, 1, 0, 0, 1, 0, 0])


def test_g15_g16_g17_worked_example_333():
    """G-15..G-18 worked example: at 92, a 16-point hand -> 108 >= 100 ends the game; 5
    hands won vs 2 -> 108 + 100 + 5 x 25 = 333. The loser keeps 22, no box bonus (G-17
    default), no shutout. G-19: margin 333 - 22 = 311."""
    s, log = play_schedule(*WORKED)
    assert [x[2] for x in log] == [23, 11, 23, 23, 11, 23, 16]
    assert log[5][3] == [92, 22] and log[6][3] == [108, 22]
    assert s.game_over[0] and s.winner[0] == 0 and not s.truncated[0]
    assert s.hands_won[0].tolist() == [5, 2]
    r = gin.game_result(s)
    assert r.hand_points[0].tolist() == [108, 22]
    assert not r.shutout[0] and r.shutout_points[0].tolist() == [0, 0]
    assert r.game_bonus[0].tolist() == [100, 0]
    assert r.box_bonus[0].tolist() == [125, 0]
    assert r.total[0].tolist() == [333, 22]
    assert r.margin[0] == 311
    info = gin.game_info(s, 0)
    assert info["total"] == [333, 22] and info["margin"] == 311 and info["hands_played"] == 7
    assert s.phase[0] == gin.PHASE_DONE and not s.mask[0].any()


def test_g15_game_goes_on_below_target():
    """G-15: at 92 after six hands the game is not over; a seventh hand is dealt."""
    hands, winners = WORKED
    s, log = play_schedule(hands[:6], winners[:6])
    assert not s.game_over[0] and s.winner[0] == -1 and s.phase[0] == gin.PHASE_OFFER
    assert s.hand_no[0] == 6
    assert gin.game_result(s).total[0].tolist() == [0, 0]  # no winner yet: all zero


def test_g15_target_option_and_exact_target():
    """G-15: target option; reaching the target exactly (46 = 23 + 23) ends the game
    (a shutout: 2 x 46 + 100 + 2 x 25)."""
    s, log = play_schedule([WIN_23, WIN_23], [1, 1], target=46)
    assert s.game_over[0] and s.winner[0] == 1
    assert gin.game_result(s).total[0].tolist() == [0, 92 + 100 + 50]
    s, log = play_schedule([WIN_23, WIN_23, WIN_23], [1, 1, 1], target=47)
    assert s.game_over[0] and log[1][3] == [0, 46] and log[2][3] == [0, 69]


def test_g16_game_bonus_option():
    s, _ = play_schedule(*WORKED, game_bonus=50)
    assert gin.game_result(s).total[0].tolist() == [283, 22]


def test_g17_loser_box_bonus_option():
    """G-17 option: the loser gets its box bonus too: 22 + 2 x 25 = 72; margin 261."""
    s, _ = play_schedule(*WORKED, loser_box_bonus=True)
    r = gin.game_result(s)
    assert r.box_bonus[0].tolist() == [125, 50]
    assert r.total[0].tolist() == [333, 72] and r.margin[0] == 261


def test_g17_box_bonus_value_option():
    s, _ = play_schedule(*WORKED, box_bonus=10)
    assert gin.game_result(s).total[0].tolist() == [108 + 100 + 50, 22]


def test_g18_shutout_126_doubled_to_252():
    """G-18: player 0 wins every hand (a dead hand in between neither counts nor breaks the
    shutout): 23 + 23 + 23 + 23 + gin 34 (9 + 25, bonus included) = 126 -> doubled 252,
    + 100 + 5 x 25 = 477; the loser has 0."""
    s, log = play_schedule([WIN_23, WIN_23, DEAD, WIN_23, WIN_23, GIN_34], [0, 0, 1, 0, 0, 0])
    assert [x[0] for x in log] == ["knock", "knock", "dead", "knock", "knock", "gin"]
    assert log[-1][2] == 34
    r = gin.game_result(s)
    assert s.hands_won[0].tolist() == [5, 0]
    assert r.hand_points[0].tolist() == [126, 0]
    assert r.shutout[0] and r.shutout_points[0].tolist() == [126, 0]
    assert r.total[0].tolist() == [252 + 100 + 125, 0]
    assert r.margin[0] == 477
    assert gin.game_info(s, 0)["shutout"] is True


def test_g18_one_won_hand_breaks_shutout():
    """G-18: an undercut won by the loser counts as a won hand: no doubling."""
    undercut = knock_deal(KNOCKER_7, D5, "Kh")  # the non-dealer (player 0) is undercut: 27 to 1
    s, log = play_schedule([undercut, WIN_23, WIN_23, WIN_23, WIN_23, WIN_23], [0, 0, 0, 0, 0, 0])
    assert log[0][:3] == ("undercut", 1, 27)
    r = gin.game_result(s)
    assert s.winner[0] == 0 and not r.shutout[0]
    assert r.total[0].tolist() == [115 + 100 + 125, 27] and r.margin[0] == 340 - 27


def test_g19_margin_is_winner_minus_loser():
    """G-19 when player 1 wins: margin = its total - player 0's total."""
    s, _ = play_schedule([WIN_11, WIN_23, WIN_23, WIN_23, WIN_23, WIN_23], [0, 1, 1, 1, 1, 1])
    r = gin.game_result(s)
    assert s.winner[0] == 1
    assert r.total[0].tolist() == [11, 115 + 100 + 125]
    assert r.margin[0] == 340 - 11


def test_hand_episode_has_no_game_bonuses():
    """With episode='hand' there is no game: totals are the hand's points."""
    s = one_hand(KNOCKER_7, D18, "Kh")
    r = gin.game_result(s)
    assert r.winner[0] == 0 and r.total[0].tolist() == [11, 0] and r.margin[0] == 11
    assert not r.shutout[0]


# --------------------------------------------------------------------------------------
# C-4: the taken discard may not be thrown back in the same turn
# --------------------------------------------------------------------------------------
def test_c4_taken_upcard_cannot_be_discarded_or_knocked_with():
    """C-4: player 0 takes the upcard Kh holding KNOCKER_7: discarding Kh and knocking with
    Kh (which would leave deadwood 7) are both illegal; knocking with 7d (Kh left, 10) is."""
    deck = deck_of(KNOCKER_7, D18, upcard="Kh")
    s = play(new_game(deck), ["take"])
    kh = parse_card("Kh")
    assert DISCARD + kh not in legal(s) and KNOCK + kh not in legal(s)
    assert {a - KNOCK for a in legal(s) if a >= KNOCK} == {parse_card("7d")}
    with pytest.raises(IllegalActionError):
        gin.step(s, np.array([DISCARD + kh]))
    # option off: both allowed, and the knock with Kh scores 18 - 7 = 11
    s = play(new_game(deck, episode="hand", forbid_taken_discard=False), ["take"])
    assert DISCARD + kh in legal(s) and KNOCK + kh in legal(s)
    assert hand_result(play(s, ["knock Kh"])) == ("knock", 0, 11)


def test_c4_taken_card_free_again_next_turn():
    """C-4 lasts one turn: the dealer takes player 0's discard, may not throw it now, may
    throw it on its next turn."""
    deck = np.random.default_rng(16).permutation(52)
    x = int(deck[21])
    s = play(gin.init(1, decks=deck, dealers=1), ["pass", "pass", "draw", DISCARD + x, "take"])
    assert s.current[0] == 1 and DISCARD + x not in legal(s)
    other = int(deck[10])
    s = play(s, [DISCARD + other, "draw", DISCARD + int(deck[22]), "draw"])
    assert s.current[0] == 1 and s.hands[0, 1, x] and DISCARD + x in legal(s)


# --------------------------------------------------------------------------------------
# Deals, seeds, errors
# --------------------------------------------------------------------------------------
def _random_script_run(state, rng, steps):
    """Uniform random legal play of a batch-1 game; returns the states visited."""
    seen = []
    for _ in range(steps):
        if state.game_over[0]:
            break
        a = int(rng.choice(np.flatnonzero(state.mask[0])))
        state = gin.step(state, np.array([a]))
        seen.append(state)
    return seen


def _same_state(a, b, skip=()):
    """The name of the first field where two states differ, or None."""
    for f in dataclasses.fields(a):
        if f.name == "config" or f.name in skip:
            continue
        x, y = getattr(a, f.name), getattr(b, f.name)
        if not np.array_equal(x, y):
            return f.name
    return None


def test_explicit_deals_reproduce_exactly():
    deck = np.random.default_rng(17).permutation(52)
    runs = []
    for _ in range(2):
        s = gin.init(1, seed=3, decks=deck, dealers=0)
        runs.append(_random_script_run(s, np.random.default_rng(1), 200))
    assert len(runs[0]) == len(runs[1]) > 50
    for a, b in zip(*runs):
        assert _same_state(a, b) is None
    # the explicit deal does not depend on the seed
    s = gin.init(1, seed=99, decks=deck, dealers=0)
    assert np.array_equal(s.deck[0], deck) and s.dealer[0] == 0


def _lane_policy_games(batch, seed, hands=3):
    """Play `batch` games with seed `seed`; lane i's actions come from its own RNG, so a
    game's course depends only on its seed and lane. Returns per lane: the decks dealt,
    dealers, actions and scores, over the first `hands` hands."""
    s = gin.init(batch, seed=seed)
    rngs = [np.random.default_rng(1000 + i) for i in range(batch)]
    rec = [{"decks": [s.deck[i].tolist()], "dealers": [int(s.dealer[i])], "actions": [], "scores": []}
           for i in range(batch)]
    done = np.zeros(batch, bool)
    while not done.all():
        a = np.zeros(batch, np.int64)
        for i in range(batch):
            if not done[i]:
                legal_i = np.flatnonzero(s.mask[i])
                knocks = legal_i[legal_i >= KNOCK]
                a[i] = knocks[0] if knocks.size else rngs[i].choice(legal_i)
                rec[i]["actions"].append(int(a[i]))
            elif s.mask[i].any():  # recorded enough: keep the lane going, legally
                a[i] = np.flatnonzero(s.mask[i])[0]
        s = gin.step(s, a)
        for i in np.flatnonzero(s.hand_ended & ~done):
            rec[i]["scores"].append(s.scores[i].tolist())
            if len(rec[i]["scores"]) == hands or s.game_over[i]:
                done[i] = True
            else:
                rec[i]["decks"].append(s.deck[i].tolist())
                rec[i]["dealers"].append(int(s.dealer[i]))
    return rec


def test_same_seed_same_games_across_batch_sizes():
    """G-3 seeding: game i with seed s is the same game at batch 1, 3 and 8."""
    b8 = _lane_policy_games(8, seed=42)
    assert b8 == _lane_policy_games(8, seed=42)
    assert _lane_policy_games(1, seed=42) == b8[:1]
    assert _lane_policy_games(3, seed=42) == b8[:3]
    other = _lane_policy_games(3, seed=43)
    assert other[0]["decks"][0] != b8[0]["decks"][0]
    assert len({tuple(r["decks"][0]) for r in b8}) == 8  # lanes get different deals


def test_reset_done_starts_next_game_of_the_lane():
    s = gin.init(2, seed=7, config=GinConfig(episode="hand"))
    first = s.deck.copy()
    rng = np.random.default_rng(0)
    while not s.game_over.all():
        s = gin.step(s, np.where(s.game_over, 0, [rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in s.mask]))
    rows = gin.reset_done(s)
    assert rows.tolist() == [0, 1] and s.game_no.tolist() == [1, 1]
    assert not s.game_over.any() and s.phase.tolist() == [gin.PHASE_OFFER] * 2
    assert not np.array_equal(s.deck, first)
    again = gin.init(2, seed=7)
    assert np.array_equal(again.deck, first)


@pytest.mark.parametrize("decks,dealers,match", [
    (list(range(51)) + [0], None, "permutation"),
    (list(range(51)), None, "52 cards"),
    (np.tile(np.arange(52), (2, 1)), None, "decks must be"),
    (np.arange(52), 2, "dealers"),
    (None, 0, "dealers were given without decks"),
])
def test_bad_decks_rejected(decks, dealers, match):
    with pytest.raises(ValueError, match=match):
        gin.init(3, decks=decks, dealers=dealers)


def test_illegal_action_error_names_action_phase_legal_and_changes_nothing():
    deck = np.random.default_rng(18).permutation(52)
    s = gin.init(2, decks=deck, dealers=1)
    before = s.copy()
    bad = DISCARD + int(deck[0])
    with pytest.raises(IllegalActionError) as e:
        gin.step(s, np.array([PASS, bad]), inplace=True)
    msg = str(e.value)
    assert f"action {bad}" in msg and gin.action_name(bad) in msg
    assert "OFFER" in msg and "legal" in msg and "take_discard" in msg and "pass" in msg
    assert "game 1" in msg
    assert _same_state(s, before) is None  # nothing changed, not even game 0
    assert isinstance(e.value, ValueError)
    with pytest.raises(IllegalActionError, match="out of range"):
        gin.step(s, np.array([999, PASS]))
    with pytest.raises(IllegalActionError, match="DRAW"):
        gin.step(play(gin.init(1, decks=deck, dealers=1), ["pass", "pass"]), np.array([PASS]))
    assert _same_state(s, before) is None


def test_finished_games_ignore_actions():
    """A game in phase DONE ignores its entry (any value); only the per-step flag
    hand_ended resets, as it describes the last step."""
    s = one_hand(KNOCKER_7, D18, "Kh")
    after = gin.step(s, np.array([12345]))
    assert _same_state(s, after, skip=("hand_ended",)) is None
    assert s.hand_ended[0] and not after.hand_ended[0]


def test_step_rejects_malformed_actions():
    s = gin.init(2, seed=0)
    with pytest.raises(ValueError, match="shape"):
        gin.step(s, np.array([PASS]))
    with pytest.raises(ValueError, match="integer"):
        gin.step(s, np.array([2.0, 2.0]))


def test_schedule_applies_to_the_first_game_only():
    """Explicit decks deal a lane's first game; after reset_done the seed deals."""
    deck, script = knock_deal(KNOCKER_7, D18, "Kh")
    s = play(gin.init(1, seed=4, decks=deck, dealers=1, config=GinConfig(episode="hand")), script)
    assert hand_result(s) == ("knock", 0, 11)
    gin.reset_done(s)
    assert not np.array_equal(s.deck[0], deck) and s.game_no[0] == 1


@pytest.mark.parametrize("d,name", [
    ({"knock_limt": 5}, "knock_limt"),
    ({"knock_limit": -1}, "knock_limit"),
    ({"knock_limit": "10"}, "knock_limit"),
    ({"target": 0}, "target"),
    ({"episode": "round"}, "episode"),
    ({"dealer_rule": "loser"}, "dealer_rule"),
    ({"stock_floor": 31}, "stock_floor"),
    ({"max_actions": 3}, "max_actions"),
    ({"big_gin_bonus": -5}, "big_gin_bonus"),
    ({"loser_box_bonus": "yes"}, "loser_box_bonus"),
    ({"gin_bonus": -1}, "gin_bonus"),
])
def test_config_errors_name_the_option(d, name):
    with pytest.raises(ValueError, match=name):
        GinConfig.from_dict(d)


def test_config_from_dict_valid():
    c = GinConfig.from_dict({"knock_limit": 5, "big_gin_bonus": 31, "dealer_rule": "winner"})
    assert c == GinConfig(knock_limit=5, big_gin_bonus=31, dealer_rule="winner")
    d = GinConfig()
    assert (d.target, d.knock_limit, d.gin_bonus, d.undercut_bonus, d.big_gin_bonus, d.game_bonus,
            d.box_bonus, d.loser_box_bonus, d.dealer_rule, d.stock_floor, d.max_actions,
            d.forbid_taken_discard) == (100, 10, 25, 25, None, 100, 25, False, "alternate", 2, 300, True)
