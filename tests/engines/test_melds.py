"""Meld combinatorics (C-3, G-6, G-8, G-9) against a brute-force reference (conftest.py)."""

from __future__ import annotations

import numpy as np
import pytest

from rummyrl import melds as M
from rummyrl.cards import hand_mask, parse_cards


# --------------------------------------------------------------------------------------
# Random hands: uniform ones and meld-rich ones (cards of few / adjacent ranks)
# --------------------------------------------------------------------------------------
def _pool(rng, kind):
    if kind == 0:  # the whole deck
        return np.arange(52)
    if kind == 1:  # every suit of 2..4 adjacent ranks: sets everywhere, runs across them
        width = int(rng.integers(2, 5))
        lo = int(rng.integers(0, 14 - width))
        return np.array([s * 13 + r for s in range(4) for r in range(lo, lo + width)])
    if kind == 2:  # 5..7 adjacent ranks of two or three suits plus two full ranks
        width = int(rng.integers(5, 8))
        lo = int(rng.integers(0, 14 - width))
        suits = rng.choice(4, int(rng.integers(2, 4)), replace=False)
        full = rng.choice(np.arange(lo, lo + width), 2, replace=False)
        return np.array([s * 13 + r for s in range(4) for r in range(lo, lo + width)
                         if s in suits or r in full])
    # a few random ranks, all suits: several set ranks at once
    ranks = rng.choice(13, int(rng.integers(3, 5)), replace=False)
    return np.array([s * 13 + r for s in range(4) for r in ranks])


def random_hands(rng, n, min_cards=0, max_cards=11):
    hands = np.zeros((n, 52), bool)
    for i in range(n):
        pool = _pool(rng, i % 4)
        k = min(int(rng.integers(min_cards, max_cards + 1)), pool.size)
        hands[i, rng.choice(pool, k, replace=False)] = True
    return hands


@pytest.fixture(scope="module")
def hands():
    """12,000 hands of 0..11 cards, three quarters of them meld-rich."""
    return random_hands(np.random.default_rng(12345), 12_000)


@pytest.fixture(scope="module")
def bf(hands, ref):
    return np.array([ref.deadwood(ref.row_bits(h)) for h in hands])


def _batches(n):
    """Slices of uneven sizes (1, odd, even, large) so suit packing sees every shape."""
    sizes = [1, 2, 3, 7, 64, 1000]
    out, i, k = [], 0, 0
    while i < n:
        s = sizes[k % len(sizes)]
        out.append(slice(i, min(n, i + s)))
        i += s
        k += 1
    return out


# --------------------------------------------------------------------------------------
# C-3: the catalogue
# --------------------------------------------------------------------------------------
def test_catalogue_equals_independent_enumeration(ref):
    """C-3 / C-1: runs of 3..13 in a suit (Ace low, no Q-K-A wrap), sets of 3 and 4."""
    engine = [frozenset(m) for m in M.MELDS]
    assert len(engine) == len(set(engine)) == M.NUM_MELDS
    assert set(engine) == ref.all_melds()
    # 4 suits x (11 + 10 + ... + 1) runs, 13 ranks x (4 sets of three + 1 of four)
    assert M.NUM_MELDS == 4 * 66 + 13 * 5 == 329
    assert frozenset(parse_cards("Qh Kh Ah")) not in set(engine)
    assert frozenset(parse_cards("Ah 2h 3h")) in set(engine)


def test_catalogue_masks_and_run_flags():
    for i, m in enumerate(M.MELDS):
        assert np.flatnonzero(M.MELD_MASKS[i]).tolist() == sorted(m)
        is_run = len({c // 13 for c in m}) == 1
        assert bool(M.MELD_IS_RUN[i]) == is_run


def test_is_meld_matches_catalogue(ref):
    rng = np.random.default_rng(7)
    for _ in range(3000):
        pool = _pool(rng, int(rng.integers(0, 4)))
        k = int(rng.integers(0, min(6, pool.size) + 1))
        cards = rng.choice(pool, k, replace=False).tolist()
        assert M.is_meld(cards) == ref.is_meld(cards), cards
    assert not M.is_meld(parse_cards("Qs Ks As"))
    assert not M.is_meld(parse_cards("5s 5s 5h"))


# --------------------------------------------------------------------------------------
# Deadwood and best melds (C-2, C-3, G-8) on 12,000 hands
# --------------------------------------------------------------------------------------
def test_deadwood_matches_brute_force(hands, bf):
    got = np.concatenate([M.deadwood(hands[s]) for s in _batches(len(hands))])
    bad = np.flatnonzero(got != bf)
    assert bad.size == 0, [(np.flatnonzero(hands[i]).tolist(), int(got[i]), int(bf[i])) for i in bad[:5]]
    assert np.array_equal(M.deadwood(hands), bf)  # the whole batch at once too
    assert (hands.sum(1) >= 10).sum() > 1000 and (bf == 0).sum() > 100  # the sample is meld-rich


@pytest.mark.slow
def test_best_melds_is_a_valid_lowest_arrangement(hands, bf, ref):
    for s in _batches(len(hands)):
        arr = M.best_melds(hands[s])
        assert np.array_equal(arr.deadwood, bf[s])
        sets = M.unpack_masks(arr.set_masks)
        runs = M.unpack_masks(arr.run_masks)
        for j, h in enumerate(hands[s]):
            hb = ref.row_bits(h)
            assert ref.check_arrangement(hb, arr.meld_id[j]) == bf[s][j]
            assert np.array_equal(arr.melded[j], sets[j] | runs[j])
            assert not (sets[j] & runs[j]).any()
            assert arr.melds(j) == ref.melds_from_ids(arr.meld_id[j])


def test_larger_hands_up_to_14_cards(ref):
    hands = random_hands(np.random.default_rng(99), 2000, min_cards=12, max_cards=14)
    bf = np.array([ref.deadwood(ref.row_bits(h)) for h in hands])
    assert np.array_equal(M.deadwood(hands), bf)
    arr = M.best_melds(hands)
    for j, h in enumerate(hands):
        assert ref.check_arrangement(ref.row_bits(h), arr.meld_id[j]) == bf[j]


def test_five_set_ranks_is_an_error():
    # 15 cards, five ranks held three times: more than the solver handles (documented)
    h = hand_mask("As Ah Ad 2s 2h 2d 3s 3h 3d 4s 4h 4d 5s 5h 5d")[None]
    with pytest.raises(ValueError, match="ranks"):
        M.deadwood(h)
    assert M.deadwood_one(*M.suit_masks(h)[0].tolist()) == -1


def test_g8_four_of_a_kind_split_for_a_run():
    """G-8: the lowest arrangement may take a set of three out of four (7s7d7c) so that
    the fourth seven runs (7h8h9h): deadwood 1, not 18 as with the set of four."""
    arr = M.best_melds(hand_mask("7s 7h 7d 7c 8h 9h 2c 3c 4c As")[None])
    assert arr.deadwood.tolist() == [1]
    assert sorted(map(sorted, arr.melds(0))) == sorted(
        sorted(parse_cards(t)) for t in ("7s 7d 7c", "7h 8h 9h", "2c 3c 4c"))


def test_g8_tie_order_prefers_no_set():
    """G-8 tie (documented order: a set rank's first option is 'no set'): 5s5h5d + 4h6h
    scores 10 either as the set (4h 6h left) or as the run 4h5h6h (5s 5d left)."""
    arr = M.best_melds(hand_mask("4h 5h 6h 5s 5d 9c Tc Jc Qc Kc")[None])
    assert arr.deadwood.tolist() == [10]
    assert sorted(map(sorted, arr.melds(0))) == [parse_cards("4h 5h 6h"), parse_cards("9c Tc Jc Qc Kc")]
    again = M.best_melds(hand_mask("4h 5h 6h 5s 5d 9c Tc Jc Qc Kc")[None])
    assert np.array_equal(arr.meld_id, again.meld_id)


def test_empty_and_trivial_hands():
    assert M.deadwood(np.zeros((3, 52), bool)).tolist() == [0, 0, 0]
    assert M.deadwood(hand_mask("Ks Qh")[None]).tolist() == [20]
    assert M.deadwood(hand_mask("Ks Kh Kd Kc")[None]).tolist() == [0]
    assert M.deadwood(hand_mask("Qs Ks As")[None]).tolist() == [21]  # no wrap (C-1)


# --------------------------------------------------------------------------------------
# Deadwood after a discard, knock discards (G-6), compiled twins
# --------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def after_discard_bf(hands, ref):
    """(n, 52): brute-force deadwood of each hand without each held card; -1 where not held."""
    out = np.full(hands.shape, -1, np.int64)
    for i, h in enumerate(hands):
        hb = ref.row_bits(h)
        for c in np.flatnonzero(h):
            out[i, c] = ref.deadwood(hb & ~(1 << int(c)))
    return out


def test_deadwood_after_discard_matches_brute_force(hands, after_discard_bf):
    held = hands
    for s in _batches(len(hands)):
        got = M.deadwood_after_discard(hands[s])
        assert np.array_equal(got[held[s]], after_discard_bf[s][held[s]])
        assert (got[~held[s]] == M.NOT_HELD).all()


@pytest.mark.parametrize("limit", [0, 3, 10, 25])
def test_deadwood_after_discard_with_limit(hands, after_discard_bf, limit):
    got = M.deadwood_after_discard(hands, limit=limit)
    exp = after_discard_bf
    ok = hands & (exp <= limit)
    assert np.array_equal(got[ok], exp[ok])  # exact where within the limit
    assert (got[hands & (exp > limit)] > limit).all()  # only "above" promised elsewhere


@pytest.mark.parametrize("limit", [0, 1, 5, 10, 20])
def test_knock_discards_match_brute_force(hands, after_discard_bf, limit):
    """G-6: a card is a knocking discard iff the hand without it has deadwood <= limit."""
    exp = hands & (after_discard_bf <= limit) & (after_discard_bf >= 0)
    for s in _batches(len(hands)):
        assert np.array_equal(M.knock_discards(hands[s], limit), exp[s])
    assert exp.any(1).sum() > 500  # many hands can knock: the test has teeth


def test_deadwood_one_matches_deadwood(hands, bf):
    masks = M.suit_masks(hands)
    got = np.array([M.deadwood_one(*m.tolist()) for m in masks])
    assert np.array_equal(got, bf)


@pytest.mark.parametrize("limit", [0, 10])
def test_knock_bits_one_matches_brute_force(hands, after_discard_bf, limit):
    masks = M.suit_masks(hands)
    out = np.zeros(4, np.int64)
    exp = hands & (after_discard_bf <= limit) & (after_discard_bf >= 0)
    for i in range(0, len(hands), 3):
        M.knock_bits_one(masks[i].copy(), limit, out)
        assert np.array_equal(M.unpack_masks(out.copy()), exp[i]), np.flatnonzero(hands[i])


def test_suit_masks_round_trip(hands):
    for s in _batches(len(hands)):
        m = M.suit_masks(hands[s])
        assert m.shape == (s.stop - s.start, 4)
        assert np.array_equal(M.unpack_masks(m), hands[s])
        one = np.zeros(4, np.int64)
        M.suit_masks_one(hands[s][0], one)
        assert np.array_equal(one, m[0])


# --------------------------------------------------------------------------------------
# Lay-offs (G-9)
# --------------------------------------------------------------------------------------
def _random_melds_in(rng, hand_cards, ref):
    """Random disjoint catalogue melds inside a hand (for explicit knocker arrangements)."""
    left = set(hand_cards)
    fits = [m for m in ref.MELDS if m <= left]
    rng.shuffle(fits)
    chosen = []
    for m in fits:
        if m <= left:
            chosen.append(sorted(m))
            left -= m
    return chosen


def _knock_situations(rng, n, ref):
    """(knocker melds per game, knocker Arrangement, defender hands) for n games."""
    knock_hands, defend_hands = np.zeros((n, 52), bool), np.zeros((n, 52), bool)
    for i in range(n):
        kind = i % 3
        if kind == 0:
            pool = np.arange(52)
        elif kind == 1:  # 5 adjacent ranks, all suits: 20 cards split between the two
            lo = int(rng.integers(0, 9))
            pool = np.array([s * 13 + r for s in range(4) for r in range(lo, lo + 5)])
        else:  # 7 adjacent ranks of three suits
            lo = int(rng.integers(0, 7))
            suits = rng.choice(4, 3, replace=False)
            pool = np.array([s * 13 + r for s in suits for r in range(lo, lo + 7)])
        cards = rng.choice(pool, 20, replace=False)
        knock_hands[i, cards[:10]] = True
        defend_hands[i, cards[10:]] = True
    # half the games: the knocker's best melds; the other half: random explicit melds
    best = M.best_melds(knock_hands)
    explicit = [_random_melds_in(rng, np.flatnonzero(h).tolist(), ref) for h in knock_hands]
    use_best = np.arange(n) % 2 == 0
    knocker_melds = [ref.melds_from_ids(best.meld_id[i]) if use_best[i] else explicit[i] for i in range(n)]
    arr = M.arrangement_from_melds(knocker_melds)
    return knocker_melds, arr, best, use_best, defend_hands


def test_layoff_matches_brute_force(ref):
    rng = np.random.default_rng(2024)
    n = 2400
    knocker_melds, arr, best, use_best, defenders = _knock_situations(rng, n, ref)
    lay = M.layoff(arr, defenders)
    lay_best = M.layoff(best, defenders)  # the engine's own Arrangement object for best melds
    laid_any = 0
    for i in range(n):
        db = ref.row_bits(defenders[i])
        exp = ref.layoff(knocker_melds[i], db)
        assert lay.deadwood[i] == exp, (knocker_melds[i], np.flatnonzero(defenders[i]).tolist())
        if use_best[i]:
            assert lay_best.deadwood[i] == exp
        laid = ref.row_bits(lay.laid_off[i])
        assert laid in ref.layoff_sets(knocker_melds[i], db), "laid-off cards are not a legal lay-off"
        assert ref.check_arrangement(db & ~laid, lay.meld_id[i]) == exp
        laid_any += laid != 0
    assert laid_any > n // 4  # lay-offs happen often in this sample


def _layoff_one(knocker_melds, defender):
    arr = M.arrangement_from_melds([knocker_melds])
    lay = M.layoff(arr, hand_mask(defender)[None])
    return int(lay.deadwood[0]), sorted(np.flatnonzero(lay.laid_off[0]).tolist())


def test_layoff_chain_8h_then_9h_onto_5h6h7h():
    """G-9 example: 8h then 9h onto 5h6h7h. Defender left with Kc 2s = 12."""
    assert _layoff_one(["5h 6h 7h"], "8h 9h Kc 2s") == (12, parse_cards("8h 9h"))
    # both ends, chains downwards too
    assert _layoff_one(["5h 6h 7h"], "3h 4h 8h Kc") == (10, sorted(parse_cards("3h 4h 8h")))
    # 9h without 8h does not touch the run
    assert _layoff_one(["5h 6h 7h"], "9h Kc") == (19, [])


def test_layoff_own_meld_beats_laying_off():
    """G-9: 8h could go on 5h6h7h, but 8s8h8d as the defender's own set leaves only 9h (9);
    laying off 8h and 9h would leave 8s 8d (16)."""
    dw, laid = _layoff_one(["5h 6h 7h"], "8h 9h 8s 8d")
    assert dw == 9 and laid == []


def test_layoff_beats_best_own_melds_first():
    """G-9: the best own melds (8s8h8d8c, leaving 9h = 9) are not best overall: set 8s8d8c
    plus laying off 8h and 9h leaves 0."""
    dw, laid = _layoff_one(["5h 6h 7h"], "8h 9h 8s 8d 8c")
    assert dw == 0 and laid == parse_cards("8h 9h")


def test_layoff_fourth_card_on_a_set_of_three():
    assert _layoff_one(["7s 7h 7d"], "7c Ks") == (10, parse_cards("7c"))


def test_no_layoff_onto_a_set_of_four():
    """G-9: a set of four takes no card; 6s/8s next to it are no lay-off either."""
    assert _layoff_one(["7s 7h 7d 7c"], "6s 8s Kd") == (24, [])


def test_layoff_no_wrap_and_ace_low():
    assert _layoff_one(["Jh Qh Kh"], "Ah Th") == (1, parse_cards("Th"))  # Ah does not follow Kh
    assert _layoff_one(["2h 3h 4h"], "Ah 9c") == (9, parse_cards("Ah"))


def test_layoff_two_runs_in_one_suit_both_directions():
    """5h goes up from 2h3h4h and 7h down from 8h9hTh."""
    assert _layoff_one(["2h 3h 4h", "8h 9h Th"], "5h 7h Qs") == (10, parse_cards("5h 7h"))


def test_layoff_card_wanted_by_a_set_and_a_run():
    """5h can go on the set 5s5d5c or extend 2h3h4h; only via the run does 6h follow."""
    assert _layoff_one(["2h 3h 4h", "5s 5d 5c"], "5h 6h Kc") == (10, parse_cards("5h 6h"))


def test_layoff_knocker_deadwood_is_no_target():
    """Only the knocker's melds take lay-offs: its arrangement holds no run in diamonds."""
    assert _layoff_one(["5h 6h 7h"], "8d 9d") == (17, [])


def test_arrangement_from_melds_errors():
    with pytest.raises(ValueError, match="not a meld"):
        M.arrangement_from_melds([["5h 6h 8h"]])
    with pytest.raises(ValueError, match="two melds"):
        M.arrangement_from_melds([["5h 6h 7h", "7s 7h 7d"]])
    with pytest.raises(ValueError, match="not a meld"):
        M.arrangement_from_melds([["Qh Kh Ah"]])
