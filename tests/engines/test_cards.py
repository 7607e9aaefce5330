"""Cards: ids, text form, rank/suit/value tables (C-1, C-2) and deck validation."""

from __future__ import annotations

import numpy as np
import pytest

from rummyrl import cards
from rummyrl.cards import (
    RANK, SUIT, VALUE, card_id, card_str, cards_str, check_deck, hand_mask, mask_cards,
    parse_card, parse_cards,
)

RANK_TEXT = "A 2 3 4 5 6 7 8 9 T J Q K".split()
SUIT_TEXT = "s h d c".split()


def test_all_52_cards_round_trip_through_text():
    """C-1: card id = suit * 13 + rank, rank A..K, suits s h d c."""
    seen = set()
    for suit, s in enumerate(SUIT_TEXT):
        for rank, r in enumerate(RANK_TEXT):
            c = suit * 13 + rank
            assert card_str(c) == r + s
            assert parse_card(r + s) == c
            assert card_id(rank, suit) == c
            assert parse_card(card_str(c, symbols=True)) == c
            seen.add(card_str(c))
    assert len(seen) == 52


@pytest.mark.parametrize("text,card", [
    ("As", 0), ("Ks", 12), ("Ah", 13), ("Kc", 51), ("Td", 35), ("10d", 35), ("td", 35),
    ("kh", 25), ("7♥", 19), ("Q♣", 50), (" 2s ", 1),
])
def test_parse_accepted_forms(text, card):
    assert parse_card(text) == card


def test_parse_cards_and_cards_str():
    ids = parse_cards("As 2s, 3s Kc")
    assert ids == [0, 1, 2, 51]
    assert parse_cards(["Ah", "Kh"]) == [13, 25]
    assert cards_str(ids) == "As 2s 3s Kc"


@pytest.mark.parametrize("bad", ["Zz", "1s", "", "Ahh", "A", "Ax", "11s", "0h"])
def test_parse_errors_name_the_text(bad):
    with pytest.raises(ValueError) as e:
        parse_card(bad)
    assert repr(bad) in str(e.value)


def test_parse_rejects_non_string():
    with pytest.raises(ValueError):
        parse_card(5)


def test_card_id_and_card_str_range_errors():
    with pytest.raises(ValueError, match="rank 13"):
        card_id(13, 0)
    with pytest.raises(ValueError, match="suit 4"):
        card_id(0, 4)
    with pytest.raises(ValueError, match="52"):
        card_str(52)
    with pytest.raises(ValueError, match="-1"):
        card_str(-1)


def test_rank_suit_tables():
    """C-1: 4 suits x 13 ranks, Ace low (rank 0), King high (rank 12)."""
    assert RANK.shape == SUIT.shape == VALUE.shape == (52,)
    for c in range(52):
        assert RANK[c] == c % 13
        assert SUIT[c] == c // 13
    assert RANK[parse_card("Ad")] == 0 and RANK[parse_card("Kd")] == 12
    assert sorted(np.bincount(SUIT).tolist()) == [13, 13, 13, 13]


def test_value_table_c2():
    """C-2: Ace 1, 2-10 face value, J Q K 10."""
    expected = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9,
                "T": 10, "J": 10, "Q": 10, "K": 10}
    for s in SUIT_TEXT:
        for r, v in expected.items():
            assert VALUE[parse_card(r + s)] == v, r + s
    assert cards.RANK_VALUE.tolist() == list(expected.values())
    assert VALUE.sum() == 4 * (1 + 2 + 3 + 4 + 5 + 6 + 7 + 8 + 9 + 10 + 30)


def test_tables_are_read_only():
    for t in (RANK, SUIT, VALUE):
        with pytest.raises(ValueError):
            t[0] = 5


def test_hand_mask_round_trip_and_repeat_error():
    m = hand_mask("As Kc 7h")
    assert m.dtype == bool and m.sum() == 3
    assert mask_cards(m) == [0, 19, 51]
    assert mask_cards(hand_mask([51, 0])) == [0, 51]
    with pytest.raises(ValueError, match="As"):
        hand_mask("As 2s As")
    with pytest.raises(ValueError, match="out of range"):
        hand_mask([0, 52])


def test_check_deck_accepts_permutations():
    rng = np.random.default_rng(0)
    deck = rng.permutation(52)
    out = check_deck(deck)
    assert out.dtype == np.int8 and out.tolist() == deck.tolist()
    batch = np.stack([rng.permutation(52) for _ in range(3)])
    assert check_deck(batch).shape == (3, 52)


def test_check_deck_duplicate_names_missing_and_repeated():
    deck = list(range(52))
    deck[5] = 0  # As twice, 6s missing
    with pytest.raises(ValueError) as e:
        check_deck(deck)
    msg = str(e.value)
    assert "not a permutation" in msg and "6s" in msg and "As" in msg


def test_check_deck_wrong_length():
    with pytest.raises(ValueError, match="52 cards"):
        check_deck(list(range(51)))
    with pytest.raises(ValueError, match="52 cards"):
        check_deck(list(range(52)) + [0])
    with pytest.raises(ValueError, match="52 cards"):
        check_deck(7)


def test_check_deck_out_of_range():
    deck = list(range(52))
    deck[0] = 52
    with pytest.raises(ValueError, match="outside 0..51"):
        check_deck(deck)
    deck[0] = -1
    with pytest.raises(ValueError, match="outside 0..51"):
        check_deck(deck)


def test_check_deck_bad_row_of_a_batch_is_named():
    batch = np.tile(np.arange(52), (3, 1))
    batch[1, [3, 4]] = batch[1, [4, 4]]  # deck 1 repeats 5s and loses 4s
    with pytest.raises(ValueError) as e:
        check_deck(batch)
    msg = str(e.value)
    assert "deck 1 of the batch" in msg and "4s" in msg and "5s" in msg


def test_check_deck_non_integer():
    with pytest.raises(ValueError, match="integer"):
        check_deck(np.arange(52, dtype=float))
