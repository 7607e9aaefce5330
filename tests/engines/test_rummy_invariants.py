"""Invariants of the Rummy engine over many random-play rounds (>= 10,000 per player count
2, 4 and 6, spread over batch sizes), checked after every step:

* every card is in exactly one place: a hand, the table, the discard pile or the stock;
* the hand sizes, the known cards and the table slots are consistent;
* every table meld is valid (melds.is_meld) whenever a meld or a lay-off changes it;
* the mask is non-empty until the episode ends, and empty after;
* each round's points equal a recomputation from the final hands (R-8), and a game's
  totals equal the sum of its rounds (R-9).

A second test compares the mask with a slow reference built on conftest.py's independent
meld rules, on states sampled from random play.
"""

import numpy as np
import pytest

from rummyrl import melds as Mcat
from rummyrl import rummy as R
from rummyrl.cards import VALUE
from rummyrl.random_play import random_actions
from rummy_checks import check_state  # noqa: E402  (tests/ is on sys.path)

ROUNDS_PER_COUNT = 10_000


def check_changed_melds(s, actions, slots_before):
    """The table meld each meld or lay-off action of the last step made or changed is
    still a meld (C-3); the others did not change."""
    changed = np.flatnonzero((actions >= R.MELD) & ~s.round_ended)
    for b in changed:
        a = actions[b]
        k = slots_before[b] if a < R.LAYOFF else (a - R.LAYOFF) // 52
        cards = np.flatnonzero(s.table_slot[b] == k)
        assert Mcat.is_meld(cards), (b, R.action_name(a), cards)


def check_round_ends(s):
    g = np.flatnonzero(s.round_ended)
    if g.size == 0:
        return 0
    values = (s.last_hands[g] * VALUE[None, None, :]).sum(-1)
    assert (s.last_hand_values[g] == values).all()
    w = s.last_winner[g].astype(np.int64)
    out = w >= 0
    assert ((s.last_end[g] == R.END_OUT) == out).all()
    expected = np.where(out, values.sum(1) - values[np.arange(g.size), np.maximum(w, 0)], 0)
    assert (s.last_points[g] == expected).all()
    # the winner holds no card
    assert (values[np.arange(g.size)[out], w[out]] == 0).all()
    assert not s.last_hands[g[out], w[out]].any()
    # every table meld of an ended round is a meld
    for b in g[:8]:
        for k in range(R.MAX_TABLE_MELDS):
            cards = np.flatnonzero(s.last_table_slot[b] == k)
            if cards.size:
                assert Mcat.is_meld(cards)
    return g.size


def run_random(P, B, rounds, seed, episode="round", **options):
    """Random legal play until ``rounds`` rounds have ended, checking after every step."""
    config = R.RummyConfig(num_players=P, episode=episode, **options)
    s = R.init(B, seed=seed, config=config)
    rng = np.random.default_rng(seed)
    check_state(s)
    ended = 0
    ends = np.zeros(4, np.int64)
    game_totals_checked = 0
    while ended < rounds:
        a = random_actions(s.mask, rng)
        live = s.phase != R.PHASE_DONE
        assert (a[live] >= 0).all()
        slots = s.n_melds.copy()
        s = R.step(s, np.where(live, a, 0), inplace=True)
        check_changed_melds(s, np.where(live, a, -1), slots)
        ended += check_round_ends(s)
        ends += np.bincount(s.last_end[s.round_ended], minlength=4)
        if episode == "game":
            for b in np.flatnonzero(s.game_over):
                info = R.game_info(s, b)
                totals = np.zeros(P, np.int64)
                for r in info["rounds"]:
                    if r["winner"] >= 0:
                        totals[r["winner"]] += r["points"]
                assert totals.tolist() == info["scores"]
                if not info["truncated"]:
                    assert max(info["scores"]) >= config.target
                    assert info["winner"] == int(np.argmax(info["scores"]))
                    # the game ended with the first round that reached the target
                    assert max(info["scores"]) - info["rounds"][-1]["points"] < config.target
                game_totals_checked += 1
        R.reset_done(s)
        check_state(s)
    return ended, ends, game_totals_checked


# batch sizes and rounds per (batch size): together >= 10,000 rounds per player count
PLAN = [(3, 60), (256, 2_000), (2048, 8_000)]


@pytest.mark.slow
@pytest.mark.parametrize("P", [2, 4, 6])
def test_random_play_invariants(P):
    total = 0
    all_ends = np.zeros(4, np.int64)
    for i, (B, rounds) in enumerate(PLAN):
        ended, ends, _ = run_random(P, B, rounds, seed=100 * P + i)
        total += ended
        all_ends += ends
    assert total >= ROUNDS_PER_COUNT
    # random play goes out sometimes and is drawn often; almost never hits the move cap
    assert all_ends[R.END_OUT] > 0 and all_ends[R.END_DRAWN] > 0
    assert all_ends[R.END_TRUNCATED] <= total // 200


@pytest.mark.slow
@pytest.mark.parametrize("P", [2, 4, 6])
def test_whole_games_totals(P):
    # games to 100, cut off after 10 rounds: many games end, won or truncated
    ended, ends, games = run_random(P, 128, 1_500, seed=7 + P, episode="game", target=100, max_rounds=10)
    assert ended >= 1_500 and games >= 100


# --------------------------------------------------------------------------------------
# The mask against a brute-force reference
# --------------------------------------------------------------------------------------
#: engine action id of each meld, by its cards (the layout is the catalogue order)
MELD_ACTION = {frozenset(m): R.MELD + i for i, m in enumerate(Mcat.MELDS)}


def reference_mask(s, b, ref):
    """Legal actions of game ``b`` from the rules (R-3 .. R-7), slowly, with the meld
    rules of the independent reference in conftest.py."""
    m = np.zeros(R.NUM_ACTIONS, bool)
    if s.phase[b] == R.PHASE_DONE:
        return m
    p = s.current[b]
    if s.phase[b] == R.PHASE_DRAW:
        pile = s.pile_len[b] > 0
        m[R.DRAW_STOCK] = s.stock_size[b] > 0 or (s.passes[b] < s.config.stock_passes and pile)
        m[R.TAKE_DISCARD] = pile
        return m
    held = np.flatnonzero(s.hands[b, p]).tolist()
    for c in held:
        if c != s.taken[b] or len(held) == 1:
            m[R.DISCARD + c] = True
    for meld in ref.MELDS:
        if meld <= set(held):
            m[MELD_ACTION[meld]] = True
    if s.melded[b, p]:
        for k in range(s.n_melds[b]):
            table = np.flatnonzero(s.table_slot[b] == k).tolist()
            for c in held:
                if ref.is_meld(table + [c]):
                    m[R.LAYOFF + k * 52 + c] = True
    return m


@pytest.mark.parametrize("P", [2, 4, 6])
def test_mask_matches_reference(P, ref):
    assert set(MELD_ACTION) == set(ref.MELDS)
    s = R.init(64, seed=P, config=R.RummyConfig(num_players=P, episode="round"))
    rng = np.random.default_rng(P)
    checked = play_checked = layoffs = 0
    for t in range(600):
        if t % 5 == 0:
            for b in range(0, 64, 4):
                want = reference_mask(s, b, ref)
                got = s.mask[b]
                assert (want == got).all(), (b, [R.action_name(a) for a in np.flatnonzero(want != got)])
                checked += 1
                play_checked += s.phase[b] == R.PHASE_PLAY
                layoffs += got[R.LAYOFF:].any()
        s = R.step(s, np.maximum(random_actions(s.mask, rng), 0), inplace=True)
        R.reset_done(s)
    assert checked >= 1500 and play_checked >= 500 and layoffs >= 10
