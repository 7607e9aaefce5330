"""Invariants of the Gin Rummy engine under random legal play, and scored hands (a capped
sample of each kind) recomputed from the revealed hands with the brute-force reference.

Policies (all legal; random choices from ``random_play.random_actions``): uniform random
(long hands, mostly dead or capped); a "knocker" that knocks whenever some KNOCK (or
BIG_GIN) is legal and otherwise plays uniformly; and a "greedy" player that throws the
card leaving the least deadwood and knocks once that deadwood is at most a threshold drawn
each turn from -1 (no knock: a gin hand waits for big gin), 0, 2, 6, 10 (its hands are
meld-rich: gins, undercuts and lay-offs are common). Lanes cycle through greedy, knocker,
greedy, uniform. Both players of a game use its lane's policy.
"""

from __future__ import annotations

import numpy as np
import pytest

from rummyrl import gin
from rummyrl import melds as M
from rummyrl.gin import BIG_GIN, DISCARD, DRAW_STOCK, KNOCK, TAKE_DISCARD, GinConfig
from rummyrl.random_play import random_actions

SCORED = (gin.END_KNOCK, gin.END_GIN, gin.END_BIG_GIN, gin.END_UNDERCUT)


def lane_kinds(batch):
    """0 uniform, 1 knocker, 2 greedy."""
    return np.array([2, 1, 2, 0])[np.arange(batch) % 4]


def mixed_policy(s, rng, kinds):
    mask = s.mask
    a = random_actions(mask, rng)
    km = mask.copy()
    km[:, :KNOCK] = False
    km[kinds != 1] = False
    k = random_actions(km, rng)
    k = np.where(km[:, BIG_GIN], BIG_GIN, k)
    a = np.where(k >= 0, k, a)
    g = np.flatnonzero((kinds == 2) & (s.phase == gin.PHASE_DISCARD))
    if g.size:
        after = M.deadwood_after_discard(s.hands[g, s.current[g]]).astype(np.float64)
        after[~mask[g, DISCARD:KNOCK]] = np.inf
        best = after.min(1)
        after += rng.random(after.shape) * 0.5  # random among equals
        c = after.argmin(1)
        knock = (best <= rng.choice([-1, 0, 2, 6, 10], g.size)) & mask[g, KNOCK + c]
        a[g] = np.where(mask[g, BIG_GIN], BIG_GIN, np.where(knock, KNOCK + c, DISCARD + c))
    return a


# --------------------------------------------------------------------------------------
# Per-step invariants
# --------------------------------------------------------------------------------------
def check_step_invariants(s: gin.GinState):
    B = s.batch_size
    rows = np.arange(B)
    cfg = s.config
    # every card in exactly one place: a hand, the pile, or the stock deck[stock_top:]
    valid = s.pile >= 0
    assert np.array_equal(valid, np.arange(52)[None] < s.pile_len[:, None]), "pile_len / pile mismatch"
    in_stock = np.arange(52)[None] >= s.stock_top[:, None]
    base = rows[:, None] * 52
    placed = np.concatenate([(base + s.pile)[valid], (base + s.deck)[in_stock]])
    where = s.hands.sum(1).reshape(-1) + np.bincount(placed, minlength=B * 52)
    bad = np.flatnonzero(where != 1)
    assert bad.size == 0, f"game {bad[0] // 52}: card {bad[0] % 52} is in {where[bad[0]]} places"
    live = ~s.game_over
    # G-10: the last stock_floor cards are never drawn
    assert (s.stock_size[live] >= cfg.stock_floor).all()
    # the mask: non-empty exactly for unfinished games
    assert s.mask[live].any(1).all(), "an unfinished game has no legal action"
    assert not s.mask[~live].any(), "a finished game has legal actions"
    assert (s.phase[live] != gin.PHASE_DONE).all() and (s.phase[~live] == gin.PHASE_DONE).all()
    # hand sizes (G-1, G-4, G-5): 11 for the player about to discard, else 10
    size = s.hands.sum(2)
    cur = s.current.astype(np.int64)
    disc = live & (s.phase == gin.PHASE_DISCARD)
    assert (size[rows[disc], cur[disc]] == 11).all()
    assert (size[rows[live & ~disc], cur[live & ~disc]] == 10).all()
    assert (size[rows[live], 1 - cur[live]] == 10).all()
    # discard phase: any held card but the one just taken (C-4); knocks are discards too
    d = np.flatnonzero(disc)
    held = s.hands[d, cur[d]].copy()
    if cfg.forbid_taken_discard:
        t = s.taken[d]
        held[np.flatnonzero(t >= 0), t[t >= 0]] = False
    assert np.array_equal(s.mask[d, DISCARD:KNOCK], held)
    assert not (s.mask[d, KNOCK:BIG_GIN] & ~held).any()
    assert not s.mask[d, :DISCARD].any()
    if cfg.big_gin_bonus is None:
        assert not s.mask[:, BIG_GIN].any()
    # draw phase (G-2, G-4): the stock, and the top discard unless both passed the upcard
    dr = live & (s.phase == gin.PHASE_DRAW)
    assert s.mask[dr, DRAW_STOCK].all()
    assert np.array_equal(s.mask[dr, TAKE_DISCARD], ~s.must_draw_stock[dr] & (s.pile_len[dr] > 0))
    assert not s.mask[dr, 2:].any()
    of = live & (s.phase == gin.PHASE_OFFER)
    assert (s.mask[of].sum(1) == 2).all() and s.mask[of, TAKE_DISCARD].all()
    # G-10a
    assert (s.hand_actions <= cfg.max_actions).all()


# --------------------------------------------------------------------------------------
# Recomputing a knocked hand from the revealed hands
# --------------------------------------------------------------------------------------
def recompute_hand(ref, cfg, hands2, knocker, meld_id):
    """(end, winner, points, deadwood per player, defender rest) from the final hands."""
    k, d = int(knocker), 1 - int(knocker)
    kb, db = ref.row_bits(hands2[k]), ref.row_bits(hands2[d])
    kdw = ref.deadwood(kb)
    assert kdw <= cfg.knock_limit, "knocked with too much deadwood (G-6)"
    # G-8: the knocker's shown melds are valid and reach its lowest deadwood
    assert ref.check_arrangement(kb, meld_id[k]) == kdw
    ncards = bin(kb).count("1")
    assert ncards in (10, 11)
    if kdw == 0:  # G-7, G-14: gin, no lay-offs
        ddw = ref.deadwood(db)
        big = ncards == 11
        bonus = cfg.big_gin_bonus if big else cfg.gin_bonus
        return ("big_gin" if big else "gin"), k, ddw + bonus, kdw, ddw
    assert ncards == 10
    ddw = ref.layoff(ref.melds_from_ids(meld_id[k]), db)  # G-9
    if ddw <= kdw:  # G-12, G-13
        return "undercut", d, kdw - ddw + cfg.undercut_bonus, kdw, ddw
    return "knock", k, ddw - kdw, kdw, ddw  # G-11


def check_scored_hand(ref, cfg, rec):
    hands2, knocker, end, winner, points, dws, meld_id, laid = rec
    exp_end, exp_w, exp_pts, kdw, ddw = recompute_hand(ref, cfg, hands2, knocker, meld_id)
    k, d = int(knocker), 1 - int(knocker)
    got = (gin.END_NAMES[end], int(winner), int(points))
    assert got == (exp_end, exp_w, exp_pts), (got, (exp_end, exp_w, exp_pts),
                                              [np.flatnonzero(h).tolist() for h in hands2])
    assert int(dws[k]) == kdw and int(dws[d]) == ddw
    db = ref.row_bits(hands2[d])
    lb = ref.row_bits(laid)
    if exp_end in ("gin", "big_gin"):
        assert lb == 0
    else:
        assert lb in ref.layoff_sets(ref.melds_from_ids(meld_id[k]), db)
    assert ref.check_arrangement(db & ~lb, meld_id[d]) == ddw
    return exp_end


# --------------------------------------------------------------------------------------
# One-hand episodes over many hands and batch sizes
# --------------------------------------------------------------------------------------
def run_hands(batch, n_hands, cfg, seed, ref, recompute_cap):
    """Play one-hand episodes until ``n_hands`` have ended, checking the invariants after
    every step; recompute up to ``recompute_cap`` scored hands of each kind (knock, gin,
    big gin, undercut). Returns (hands, ends by END_*, kinds of the recomputed hands)."""
    rng = np.random.default_rng(seed)
    s = gin.init(batch, seed=seed, config=cfg)
    kinds = lane_kinds(batch)
    count = np.zeros(batch, np.int64)  # my own count of actions in the current hand
    hands = 0
    ends = np.zeros(len(gin.END_NAMES), np.int64)
    recs = []
    kept = np.zeros(len(gin.END_NAMES), np.int64)
    check_step_invariants(s)
    while hands < n_hands:
        live = ~s.game_over
        s = gin.step(s, mixed_policy(s, rng, kinds), inplace=True)
        count[live] += 1
        check_step_invariants(s)
        e = np.flatnonzero(s.hand_ended)
        assert np.array_equal(s.game_over, s.hand_ended | (s.game_over & ~live)), \
            "with episode='hand' the episode ends exactly when the hand does"
        for b in e:
            end = int(s.last_end[b])
            ends[end] += 1
            assert count[b] <= cfg.max_actions
            assert bool(s.truncated[b]) == (end == gin.END_TRUNCATED)
            if end == gin.END_TRUNCATED:
                assert count[b] == cfg.max_actions
            elif end == gin.END_DEAD:
                assert s.stock_size[b] == cfg.stock_floor
            if end in (gin.END_DEAD, gin.END_TRUNCATED):
                assert s.last_winner[b] == -1 and s.last_points[b] == 0 and s.last_knocker[b] == -1
                assert s.scores[b].tolist() == [0, 0] and s.winner[b] == -1
            else:
                assert end in SCORED
                w = int(s.last_winner[b])
                assert s.winner[b] == w and s.scores[b, w] == s.last_points[b] and s.scores[b, 1 - w] == 0
                assert np.array_equal(s.last_hands[b], s.hands[b])
                if kept[end] < recompute_cap:
                    kept[end] += 1
                    recs.append((s.last_hands[b].copy(), s.last_knocker[b], end, w, s.last_points[b],
                                 s.last_deadwood[b].copy(), s.last_meld_id[b].copy(),
                                 s.last_laid_off[b].copy()))
        count[e] = 0
        hands += e.size
        r = gin.reset_done(s)
        assert np.array_equal(np.sort(r), e)
        if r.size:  # the fresh deals are checked with the next step
            assert (s.hand_actions[r] == 0).all() and (s.phase[r] == gin.PHASE_OFFER).all()
    kinds = [check_scored_hand(ref, cfg, rec) for rec in recs]
    return hands, ends, kinds


@pytest.mark.slow
@pytest.mark.parametrize("batch,n_hands,cap", [(1, 25, 10), (7, 150, 40), (64, 800, 100),
                                               (1024, 19100, 300)])
def test_random_play_invariants_and_recomputed_scores(ref, batch, n_hands, cap):
    """20,075 hands over batch sizes 1, 7, 64, 1024 (default rules, one-hand episodes);
    up to `cap` scored hands of each kind (knock, gin, undercut) recomputed with the
    brute-force reference: 450 knocks and about 550 gins and undercuts in all."""
    cfg = GinConfig(episode="hand")
    hands, ends, kinds = run_hands(batch, n_hands, cfg, seed=batch, ref=ref, recompute_cap=cap)
    assert hands >= n_hands
    assert ends[gin.END_NONE] == 0
    assert ends[gin.END_DEAD] > 0 or batch == 1  # a batch of 1 has only the greedy lane
    assert kinds.count("knock") == cap  # the cap on recomputation was reached
    if batch >= 64:
        for kind in ("knock", "gin", "undercut"):
            assert kind in kinds, kind


@pytest.mark.slow
def test_random_play_with_every_option_changed(ref):
    """The same invariants and recomputation under non-default options: knock limit 5,
    big gin 31, stock floor 4, C-4 off, gin bonus 20, undercut bonus 10, cap 80."""
    cfg = GinConfig(episode="hand", knock_limit=5, big_gin_bonus=31, stock_floor=4,
                    forbid_taken_discard=False, gin_bonus=20, undercut_bonus=10, max_actions=80)
    hands, ends, kinds = run_hands(256, 2000, cfg, seed=77, ref=ref, recompute_cap=150)
    assert ends[gin.END_TRUNCATED] > 0 and ends[gin.END_DEAD] > 0
    assert kinds.count("knock") == 150 and len(kinds) >= 250
    for kind in ("gin", "big_gin", "undercut"):
        assert kind in kinds, kind


# --------------------------------------------------------------------------------------
# Full games: totals from game_result against the hands logged along the way
# --------------------------------------------------------------------------------------
def expected_totals(cfg, log):
    """Final totals (G-15 .. G-19) from the list of (winner, points) of scored hands."""
    pts, won = np.zeros(2, np.int64), np.zeros(2, np.int64)
    for w, p in log:
        pts[w] += p
        won[w] += 1
    assert pts.max() >= cfg.target and (pts >= cfg.target).sum() == 1
    w = int(np.argmax(pts))
    lo = 1 - w
    shutout = won[lo] == 0
    total = pts.copy()
    total[w] = pts[w] * (2 if shutout else 1) + cfg.game_bonus + cfg.box_bonus * won[w]
    if cfg.loser_box_bonus:
        total[lo] += cfg.box_bonus * won[lo]
    return w, pts, won, shutout, total, total[w] - total[lo]


def play_full_games(cfg, batch, seed):
    """Play `batch` whole games with greedy players (episode 'game'), logging each scored
    hand; check every game's totals from game_result against the log. Returns the number
    of shutouts."""
    rng = np.random.default_rng(seed)
    s = gin.init(batch, seed=seed, config=cfg)
    kinds = np.full(batch, 2)  # greedy players: games end in good time
    logs = [[] for _ in range(batch)]
    prev_dealer = s.dealer.copy()
    while not s.game_over.all():
        s = gin.step(s, mixed_policy(s, rng, kinds), inplace=True)
        check_step_invariants(s)
        for b in np.flatnonzero(s.hand_ended):
            w = int(s.last_winner[b])
            if w >= 0:
                logs[b].append((w, int(s.last_points[b])))
            if not s.game_over[b]:  # G-3: the next dealer
                if cfg.dealer_rule == "alternate":
                    assert s.dealer[b] == 1 - prev_dealer[b]
                else:
                    assert s.dealer[b] == (w if w >= 0 else prev_dealer[b])
                prev_dealer[b] = s.dealer[b]
    r = gin.game_result(s)
    shutouts = 0
    for b in range(batch):
        assert not s.truncated[b]
        w, pts, won, shutout, total, margin = expected_totals(cfg, logs[b])
        assert s.winner[b] == w and r.winner[b] == w
        assert s.scores[b].tolist() == pts.tolist() and s.hands_won[b].tolist() == won.tolist()
        assert r.hand_points[b].tolist() == pts.tolist()
        assert bool(r.shutout[b]) == shutout
        assert r.total[b].tolist() == total.tolist(), (b, logs[b])
        assert r.margin[b] == margin
        info = gin.game_info(s, b)
        assert info["total"] == total.tolist() and info["hands_won"] == won.tolist()
        shutouts += shutout
    return shutouts


@pytest.mark.slow
def test_full_games_totals_match_logged_hands():
    """G-15 .. G-19 (and G-3 dealers) over 128 whole games, default rules and a variant
    (target 60, loser box bonus, game bonus 70, box bonus 10, winner deals)."""
    shutouts = play_full_games(GinConfig(), 64, seed=9)
    shutouts += play_full_games(GinConfig(target=60, loser_box_bonus=True, game_bonus=70, box_bonus=10,
                                          dealer_rule="winner"), 64, seed=9)
    assert shutouts > 0, "no shutout in the sample: G-18 doubling went untested"


def test_game_truncated_by_max_hands():
    """A game that hits max_hands ends truncated with no winner and no totals."""
    s = gin.init(16, seed=3, config=GinConfig(max_hands=2, max_actions=30))
    rng = np.random.default_rng(0)
    while not s.game_over.all():
        # never knock: every hand is dead or capped
        m = s.mask.copy()
        m[:, KNOCK:] = False
        s = gin.step(s, random_actions(m, rng), inplace=True)
    assert s.truncated.all() and (s.winner == -1).all() and (s.hand_no == 1).all()
    r = gin.game_result(s)
    assert (r.total == 0).all() and (r.winner == -1).all()
