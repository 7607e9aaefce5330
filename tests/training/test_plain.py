"""Networks that learn from the rules alone: no expert in their input, logits or opponents
(configs/gin_rummy_plain.yaml, gin_rummy_selfplay.yaml, rummy_plain.yaml), the engine's
per-action features they read, and the shipped ``pretrained-plain``."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from rummyrl import engine_features, games, gin, melds, rummy, training
from rummyrl.agents import load_agent
from rummyrl.agents.checkpoint import pretrained_path
from rummyrl.agents.features import action_features
from rummyrl.cards import parse_card
from rummyrl.training.pool import SELF, SNAPSHOT

ROOT = Path(__file__).resolve().parents[2]
PLAIN = ["gin_rummy_plain.yaml", "gin_rummy_selfplay.yaml", "rummy_plain.yaml"]
# a run of a few seconds with snapshots after every update; no evaluation (its opponents are
# the baselines, expert among them, which is the point of an evaluation, not of training)
TINY = ["num_envs=16", "rollout_steps=8", "total_steps=384", "minibatch_size=64", "net.hidden=16",
        "snapshot_every=1", "pool_size=2", "eval.every_minutes=0", "eval.final_games=0",
        "checkpoint_every_minutes=0", "time_limit_minutes=0"]


def _forbid_the_expert(monkeypatch):
    """Every rule judgement of the experts (their preferences, which their features, priors and
    moves read) raises: a run that completes never consulted one."""
    def refuse(*args, **kwargs):
        raise AssertionError("a plain run consulted the expert")

    # every module imported before any is patched: one imported in between (the planner imports
    # the expert's preferences by name) would keep the refusal after the test
    modules = [importlib.import_module(f"rummyrl.agents.{name}") for name in ("gin_expert", "rummy_expert", "rummy_planner")]
    for module in modules:
        for attr in ("expert_preferences", "planned_preferences"):
            if hasattr(module, attr):
                monkeypatch.setattr(module, attr, refuse)
    monkeypatch.setattr("rummyrl.agents.features.expert_prior", refuse)


@pytest.mark.parametrize("config", PLAIN)
def test_a_plain_run_never_consults_the_expert_and_its_pool_never_holds_it(config, monkeypatch, tmp_path):
    cfg = training.load_config(ROOT / "configs" / config, TINY)
    assert not cfg.net.uses_expert and cfg.net.prior_scale == 0 and cfg.opponents["expert"] == 0
    _forbid_the_expert(monkeypatch)
    tr = training.train(cfg, run_dir=tmp_path / "run", progress=False)
    assert tr.updates >= 2 and (tmp_path / "run" / "final.pt").is_file()
    assert tr.pool.expert not in tr.pool.baselines and tr.pool.kinds[tr.pool.expert] == "expert"
    agent = load_agent(str(tmp_path / "run" / "final.pt"), game=cfg.game)
    assert not agent.net.cfg.uses_expert


def test_pure_self_play_draws_only_itself_and_its_snapshots(tmp_path):
    cfg = training.load_config(ROOT / "configs" / "gin_rummy_selfplay.yaml", TINY + ["total_steps=4096"])
    assert {k: cfg.opponents[k] for k in ("simple", "expert", "random")} == {
        "simple": 0.0, "expert": 0.0, "random": 0.0}
    drawn, counted = [], []

    def look(t):
        drawn.append(t.lanes.kind.copy())
        counted.append(sum(games for _, games in t.pool.record))

    tr = training.train(cfg, run_dir=tmp_path / "run", progress=False, max_updates=32, on_update=look)
    assert tr.pool.baselines == {}  # not one rule agent was even made
    kinds = np.unique(np.concatenate(drawn))
    assert set(kinds) <= {SELF, SNAPSHOT} and SNAPSHOT in kinds
    assert len(tr.pool.snapshots) == 2
    assert max(counted) > 0  # pfsp counted the games against them


@pytest.mark.parametrize("game", ["gin", "rummy"])
def test_changing_the_expert_changes_nothing_a_plain_network_sees(game, monkeypatch):
    g = games.get(game)
    engine = g.engine
    st = engine.init(64, seed=3)
    obs, masks = [], []
    rng = np.random.default_rng(0)
    for _ in range(30):
        obs.append(engine.observe(st))
        masks.append(st.mask.copy())
        legal = st.mask & ~st.game_over[:, None]
        a = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in legal])
        engine.step(st, a, inplace=True, active=~st.game_over)
    obs, masks = np.concatenate(obs), np.concatenate(masks)
    live = masks.any(1)
    obs, masks = obs[live], masks[live]
    from rummyrl.agents.network import NetConfig, PolicyNet
    torch.manual_seed(0)
    net = PolicyNet(game, NetConfig(hidden=32, layers=1, prior_scale=0.0, features="engine"))
    before = action_features("engine", game, obs, masks)
    with torch.no_grad():
        logits, value = net(torch.from_numpy(obs), torch.from_numpy(before), torch.from_numpy(masks))
    _forbid_the_expert(monkeypatch)
    after = action_features("engine", game, obs, masks)
    assert np.array_equal(before, after)
    with torch.no_grad():
        logits2, value2 = net(torch.from_numpy(obs), torch.from_numpy(after), torch.from_numpy(masks))
    assert torch.equal(logits, logits2) and torch.equal(value, value2)


def _hand(text: str) -> np.ndarray:
    h = np.zeros(52, bool)
    h[[parse_card(c) for c in text.split()]] = True
    return h


def test_rummy_features_of_a_scripted_hand():
    # 8 cards after the draw: a run 3-4-5 of hearts, a pair of kings, 9 of clubs, 2 of spades, Q of diamonds
    hand = _hand("3h 4h 5h Kc Ks 9c 2s Qd")
    obs = np.zeros((1, rummy.OBS_DIM), np.float32)
    obs[0, rummy.OBS_LAYOUT["hand"]] = hand
    mask = np.zeros((1, rummy.NUM_ACTIONS), bool)
    mask[0, rummy.DISCARD + np.flatnonzero(hand)] = True
    run = next(m for m, cards in enumerate(melds.MELDS) if set(cards) == {parse_card(c) for c in "3h 4h 5h".split()})
    mask[0, rummy.MELD + run] = True
    f = engine_features.rummy_features(obs, mask)[0]
    # throwing the queen leaves K K 9 2 unmelded: 10 + 10 + 9 + 2 = 31 -> -7.75
    assert f[rummy.DISCARD + parse_card("Qd")] == -31 / 4
    # throwing a heart of the run breaks it: 3h 5h stay loose too (Qd K K 9 2 = 41, + 3 + 5 = 49)
    assert f[rummy.DISCARD + parse_card("4h")] == -(41 + 3 + 5) / 4
    # laying the run down leaves K K 9 2 Q in the hand: 41 points
    assert f[rummy.MELD + run] == -41 / 4
    A = rummy.NUM_ACTIONS
    assert f.shape == (A + 2 * 54,) and (f[:A][~mask[0]] == engine_features.ILLEGAL).all()
    # the added columns score the draws and discards only
    assert (f[A:][engine_features.RUMMY_FEATURE_ACTIONS[A:] >= rummy.MELD] == engine_features.ILLEGAL).all()


def _columns(f, action):
    """(minus the loose cards, the outs) of an action, from Rummy's engine features."""
    A = rummy.NUM_ACTIONS
    return f[A + action], f[A + 54 + action]


def test_rummy_loose_cards_and_outs_of_the_hand_each_draw_and_discard_leaves():
    hand = _hand("3h 4h 5h Kc Ks 9c 2s Qd")
    obs = np.zeros((2, rummy.OBS_DIM), np.float32)
    obs[0, rummy.OBS_LAYOUT["hand"]] = hand
    obs[0, rummy.OBS_LAYOUT["unseen"]] = ~hand  # every other card live
    mask = np.zeros((2, rummy.NUM_ACTIONS), bool)
    mask[0, rummy.DISCARD + np.flatnonzero(hand)] = True
    # before the draw, without the 5h, which lies face up
    before = _hand("3h 4h Kc Ks 9c 2s Qd")
    obs[1, rummy.OBS_LAYOUT["hand"]] = before
    obs[1, rummy.OBS_LAYOUT["top_discard"].start + parse_card("5h")] = 1
    obs[1, rummy.OBS_LAYOUT["unseen"]] = ~before
    obs[1, rummy.OBS_LAYOUT["unseen"].start + parse_card("5h")] = 0
    mask[1, [rummy.DRAW_STOCK, rummy.TAKE_DISCARD]] = True
    f = engine_features.rummy_features(obs, mask)
    # without the Qd: the run melds, K K 9 2 are loose; 2h and 6h extend the run, Kh and Kd the kings
    assert _columns(f[0], rummy.DISCARD + parse_card("Qd")) == (-4, 4)
    # without the 4h: seven loose cards; only the two kings' suits are outs (4h itself is gone)
    assert _columns(f[0], rummy.DISCARD + parse_card("4h")) == (-7, 2)
    # taking the 5h makes the run; then throwing one of K K 9 2 Q leaves 4 loose cards, and
    # throwing one of 9 2 Q keeps the outs 2h 6h Kh Kd (the fewest loose, the most outs)
    assert _columns(f[1], rummy.TAKE_DISCARD) == (-4, 4)
    # the stock: the hand as it stands, seven loose cards, outs 2h Kh Kd (the 5h is not live)
    assert _columns(f[1], rummy.DRAW_STOCK) == (-7, 3)
    assert _columns(f[1], rummy.DISCARD) == (engine_features.ILLEGAL,) * 2


def test_rummy_cards_that_go_onto_the_table_are_not_loose_once_the_player_may_lay_off():
    # 7 cards, none in a meld of the hand; the Js fits a table meld (say a run 8s 9s 10s)
    hand = _hand("7c 7d 4h Js Qs 2d Ac")
    obs = np.zeros((5, rummy.OBS_DIM), np.float32)
    obs[:, rummy.OBS_LAYOUT["hand"]] = hand
    obs[:, rummy.OBS_LAYOUT["unseen"]] = ~hand
    obs[:, rummy.OBS_LAYOUT["table_fits"].start + parse_card("Js")] = 1
    melded = rummy.OBS_LAYOUT["melded"].start
    obs[[0, 3], melded] = 1  # rows 0 and 3 have melded this round: they may lay off
    obs[2, melded + 1] = 1  # row 2: only the next player has
    mask = np.zeros((5, rummy.NUM_ACTIONS), bool)
    mask[:3, rummy.DISCARD + np.flatnonzero(hand)] = True
    # rows 3 and 4 draw, the Js face up: a hand of six without it
    obs[3:, rummy.OBS_LAYOUT["hand"].start + parse_card("Js")] = 0
    obs[3:, rummy.OBS_LAYOUT["top_discard"].start + parse_card("Js")] = 1
    obs[3:, rummy.OBS_LAYOUT["unseen"].start + parse_card("Js")] = 0
    mask[3:, [rummy.DRAW_STOCK, rummy.TAKE_DISCARD]] = True
    f = engine_features.rummy_features(obs, mask)
    throw_2d = rummy.DISCARD + parse_card("2d")
    # may lay off: 7c 7d 4h Qs Ac loose, the Js goes onto the table
    assert _columns(f[0], throw_2d)[0] == -5
    # may not (no meld yet, none in the hand): the Js is loose too
    assert _columns(f[1], throw_2d)[0] == -6
    assert _columns(f[2], throw_2d)[0] == -6
    # taking the Js, which goes onto the table, then throwing one of six: five loose cards left
    assert _columns(f[3], rummy.TAKE_DISCARD)[0] == -5
    # not yet able to lay off, the Js stays loose: six
    assert _columns(f[4], rummy.TAKE_DISCARD)[0] == -6
    # the stock leaves the hand of six as it is
    assert _columns(f[3], rummy.DRAW_STOCK)[0] == _columns(f[4], rummy.DRAW_STOCK)[0] == -6


def test_a_fact_rule_plays_first_then_keeps_what_its_weights_say():
    """docs/research/scripts/fact_rules.py: a rule over the engine's columns lays a meld down
    before any discard, then throws by its weighted columns (here: the fewest loose cards left,
    ties to the first card; or the most outs left)."""
    sys.path.insert(0, str(ROOT / "docs" / "research" / "scripts"))
    from fact_rules import FactRule

    hand = _hand("3h 4h 5h Kc Ks 9c 2s Qd")
    obs = np.zeros((1, rummy.OBS_DIM), np.float32)
    obs[0, rummy.OBS_LAYOUT["hand"]] = hand
    obs[0, rummy.OBS_LAYOUT["unseen"]] = ~hand
    mask = np.zeros((1, rummy.NUM_ACTIONS), bool)
    mask[0, rummy.DISCARD + np.flatnonzero(hand)] = True
    loose = FactRule("loose", {5: 1.0})
    # the run's cards leave 7 loose cards, any other 4: the first of those in card order
    first_loose = min(parse_card(c) for c in "Kc Ks 9c 2s Qd".split())
    assert loose.act(obs, mask)[0] == rummy.DISCARD + first_loose
    # the most outs left: not a king (Kh Kd would go) nor a run card
    kept = FactRule("outs", {7: 1.0}).act(obs, mask)[0] - rummy.DISCARD
    assert kept in {parse_card(c) for c in "9c 2s Qd".split()}
    run = next(m for m, cards in enumerate(melds.MELDS) if set(cards) == {parse_card(c) for c in "3h 4h 5h".split()})
    mask[0, rummy.MELD + run] = True
    assert loose.act(obs, mask)[0] == rummy.MELD + run


def test_gin_features_are_computed_only_where_they_are_legal_and_equal_the_full_computation():
    st = gin.init(256, seed=5)
    rng = np.random.default_rng(1)
    for _ in range(25):
        obs = gin.observe(st)
        f = engine_features.gin_features(obs, st.mask)
        hands = obs[:, gin.OBS_LAYOUT["hand"]] > 0.5
        rows = np.flatnonzero(st.mask[:, gin.DISCARD:gin.KNOCK].any(1))
        if rows.size:  # discarding: minus a quarter of the deadwood left without the card
            full = -0.25 * melds.deadwood_after_discard(hands[rows])
            legal = st.mask[rows, gin.DISCARD:gin.KNOCK]
            assert np.array_equal(f[rows, gin.DISCARD:gin.KNOCK][legal], full[legal].astype(np.float32))
        assert (f[~st.mask] == engine_features.ILLEGAL).all()
        a = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in st.mask])
        gin.step(st, a, inplace=True, active=~st.game_over)


@pytest.mark.slow
@pytest.mark.skipif(not pretrained_path("gin", "pretrained-plain").is_file(), reason="no gin-plain.pt shipped")
def test_pretrained_plain_loads_wherever_pretrained_does(tmp_path):
    agent = load_agent("pretrained-plain", game="gin")
    assert agent.name == "pretrained-plain"
    assert not agent.net.cfg.uses_expert and agent.net.cfg.prior_scale == 0
    st = gin.init(8, seed=0)
    acts = agent.act(gin.observe(st), st.mask)
    assert st.mask[np.arange(8), acts].all()
    # as search's rollout policy, in a tournament, and as the terminal game's opponent
    search = load_agent("search:rollout=(pretrained-plain),worlds=2,topk=2", game="gin", seed=0)
    assert search.act(gin.observe(st)[:2], st.mask[:2]).shape == (2,)
    out = subprocess.run([sys.executable, "evaluate.py", "pretrained-plain", "simple", "--games", "8", "--quiet",
                          "--out", str(tmp_path / "eval")], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    from rummyrl.agents.play_session import make_session
    assert make_session("gin", opponent="pretrained-plain", seed=0) is not None
    with pytest.raises(FileNotFoundError, match="rummy has"):
        load_agent("pretrained-plain", game="rummy")


@pytest.mark.slow
def test_the_plain_recipe_makes_a_plain_network_in_one_command(tmp_path):
    """configs/recipes/gin_plain.yaml, tiny: the training stage, its evaluation, the compression
    (against simple and the teacher itself), the student's evaluation and the export; the
    exported network has no expert in it and plays."""
    from rummyrl.training import load_recipe, run_recipe
    from rummyrl.agents.checkpoint import load_checkpoint
    run = tmp_path / "gin_plain"
    tiny = ([f"ppo.{o}" for o in TINY + ["eval.games=4", "net.layers=1"]] + ["eval.games=4", "eval.options.max_hands=3"]
            + ["compress.games=4", "compress.valid_games=2", "compress.epochs=1", "compress.net.hidden=8",
               "compress.options.max_hands=2", "compress_eval.games=4", "compress_eval.options.max_hands=3"])
    done = run_recipe(load_recipe(ROOT / "configs" / "recipes" / "gin_plain.yaml", tiny, run), progress=False,
                      log=lambda line: None)
    assert list(done) == ["ppo", "eval", "compress", "compress_eval", "export"]
    exported = run / "export" / "gin.pt"
    data = load_checkpoint(exported)
    assert data["net_config"]["features"] == "engine" and data["net_config"]["prior_scale"] == 0
    assert data["train_config"]["opponents"]["expert"] == 0 and data["net_config"]["hidden"] == 8  # the student
    agent = load_agent(str(exported), game="gin")
    st = gin.init(4, seed=1)
    assert st.mask[np.arange(4), agent.act(gin.observe(st), st.mask)].all()


def test_pfsp_draws_the_snapshots_the_learner_beats_least_and_keeps_its_counts(tmp_path):
    from rummyrl.training.pool import OpponentPool
    from rummyrl.agents.network import NetConfig, PolicyNet
    cfg = training.load_config(ROOT / "configs" / "gin_rummy_selfplay.yaml", TINY + ["pool_size=3"])
    assert cfg.snapshot_sampling == "pfsp"
    pool = OpponentPool(cfg, np.random.default_rng(0))
    net = PolicyNet("gin", NetConfig(hidden=8, layers=1, prior_scale=0.0, features="engine"))
    for _ in range(4):  # one more than the pool holds: the oldest goes, with its counts
        pool.add_snapshot(net)
    assert len(pool.snapshots) == 3 and pool.record == [[0, 0]] * 3
    # the learner won 9 of 10 against snapshot 0, 1 of 10 against snapshot 1, none against 2
    pool.note_results(np.array([0] * 10 + [1] * 10), np.array([1] * 9 + [0] + [1] + [0] * 9, bool))
    assert pool.record == [[9, 10], [1, 10], [0, 0]]
    p = np.array([10 / 12, 2 / 12, 1 / 2])
    w = (1 - p) ** 2
    assert np.allclose(pool.pfsp_weights(), w / w.sum())
    kind, snap = pool.draw(40_000)
    freq = np.bincount(snap, minlength=3) / snap.size
    assert np.abs(freq - w / w.sum()).max() < 0.01  # a uniform draw would be 1/3 each
    again = OpponentPool(cfg, np.random.default_rng(1))
    for _ in range(3):
        again.add_snapshot(net)
    again.load_state_dict(pool.state_dict())
    assert again.record == pool.record
    with pytest.raises(training.ConfigError, match="snapshot_sampling"):
        training.load_config(ROOT / "configs" / "gin_rummy_selfplay.yaml", ["snapshot_sampling=best"])


@pytest.mark.parametrize("game", ["gin", "rummy"])
def test_the_fact_gate_weighs_each_kind_of_fact_by_the_position(game):
    """net.fact_gate: a kind of fact's weight is its learned weight plus a linear map of the
    trunk's output, per position. Zero at the start (the logits of the network without it);
    then each logit is the head's plus, per fact column, (weight + gate) of its kind times the
    fact, summed into the action it scores, checked column by column; and the greedy move is
    the argmax of those logits."""
    from rummyrl.agents.network import NetConfig, PolicyNet

    g = games.get(game)
    cfg = dict(hidden=16, layers=2, prior_scale=0.0, features="engine", trunk_features=False)
    torch.manual_seed(0)
    gated = PolicyNet(game, NetConfig(**cfg, fact_gate=True))
    plain = PolicyNet(game, NetConfig(**cfg))
    with torch.no_grad():
        for p in gated.parameters():
            if p is not gated.fact_gate.weight and p is not gated.fact_gate.bias:
                p.normal_(0.0, 0.3)
    plain.load_state_dict({k: v for k, v in gated.state_dict().items() if not k.startswith("fact_gate")})
    st = g.engine.init(48, seed=4)
    rng = np.random.default_rng(4)
    for _ in range(9):  # a few moves in: facts of several kinds
        g.engine.step(st, np.array([rng.choice(np.flatnonzero(m)) for m in st.mask]), inplace=True)
    obs = g.engine.observe(st).astype(np.float32)
    facts = action_features("engine", game, obs, st.mask, "").astype(np.float32)
    o, f, m = torch.from_numpy(obs), torch.from_numpy(facts), torch.from_numpy(st.mask)
    with torch.no_grad():
        assert torch.equal(gated(o, f, m)[0], plain(o, f, m)[0])  # a zero gate: no change
        gated.fact_gate.weight.normal_(0.0, 0.5)
        gated.fact_gate.bias.normal_(0.0, 0.5)
        logits = gated(o, f, m)[0].numpy()
        h = gated.trunk(o)
        kinds = (gated.feature_skip + gated.fact_gate(h)).numpy()  # (B, K)
        head = gated.policy(h).numpy()
    assert np.ptp(kinds, axis=0).min() > 0  # every kind's weight differs between positions
    A, clamped = g.num_actions, np.clip(facts, -30.0, 20.0)
    for b in range(len(obs)):
        want = head[b].astype(np.float64)
        for col, (action, kind) in enumerate(zip(g.feature_actions, g.feature_groups)):
            want[action] += kinds[b, kind] * clamped[b, col]
        legal = st.mask[b]
        np.testing.assert_allclose(logits[b, legal], want[legal], rtol=1e-4, atol=1e-4)
        assert (logits[b, ~legal] < -1e8).all()
    assert (gated.greedy(o, f, m).numpy() == logits.argmax(1)).all()


def test_the_fact_gate_needs_the_engine_facts():
    from rummyrl.agents.network import NetConfig

    with pytest.raises(ValueError, match="net.fact_gate weighs the engine's facts: it needs net.features: engine"):
        NetConfig(features="none", prior_scale=0.0, fact_gate=True).check(games.get("rummy"))
    with pytest.raises(ValueError, match="net.fact_gate must be true or false, got 'yes'"):
        NetConfig(features="engine", prior_scale=0.0, fact_gate="yes").check(games.get("rummy"))


@pytest.mark.parametrize("game", ["gin", "rummy"])
def test_the_card_readout_scores_each_card_by_its_neighbours_in_a_few_planes(game):
    """net.card_readout: zero at the start (the logits of the network without it); then each
    card action's logit gains its card's score, checked against a slow reference of the two
    convolutions (five ranks along the suit, the four suits of the rank) over the game's
    readout planes; the take gains the face-up card's; other actions nothing."""
    from rummyrl.agents.network import NetConfig, PolicyNet

    g = games.get(game)
    cfg = dict(hidden=16, layers=1, prior_scale=0.0, features="none", trunk_features=False, card_channels=4)
    torch.manual_seed(1)
    read = PolicyNet(game, NetConfig(**cfg, card_readout=True))
    plain = PolicyNet(game, NetConfig(**cfg))
    with torch.no_grad():
        for p in read.parameters():
            p.normal_(0.0, 0.3)
        read.readout.score.weight.zero_()
    plain.load_state_dict({k: v for k, v in read.state_dict().items() if not k.startswith("readout")})
    st = g.engine.init(24, seed=7)
    rng = np.random.default_rng(7)
    for _ in range(7):
        g.engine.step(st, np.array([rng.choice(np.flatnonzero(m)) for m in st.mask]), inplace=True)
    obs = g.engine.observe(st).astype(np.float32)
    o, m = torch.from_numpy(obs), torch.from_numpy(st.mask)
    f = torch.zeros(len(obs), 0)
    with torch.no_grad():
        assert torch.equal(read(o, f, m)[0], plain(o, f, m)[0])
        read.readout.score.weight.normal_(0.0, 0.5)
        gained = (read(o, f, m)[0] - plain(o, f, m)[0]).numpy()
        h = read.trunk(o).numpy()
    r = read.readout
    run_w, run_b = r.run.weight.detach().numpy(), r.run.bias.detach().numpy()
    set_w, set_b = r.set.weight.detach().numpy(), r.set.bias.detach().numpy()
    where, score = r.where.detach().numpy()[0], r.score.weight.detach().numpy()
    ctx = h @ r.context.weight.detach().numpy().T + r.context.bias.detach().numpy()
    planes = obs[:, : g.card_planes * 52].reshape(len(obs), -1, 4, 13)[:, list(g.readout_planes)]
    top = obs[:, g.top_discard]
    for b in range(len(obs)):
        want = np.zeros(g.num_actions)
        scores = np.zeros((52, len(g.card_blocks) + 1))
        for card in range(52):
            suit, rank = divmod(card, 13)
            v = run_b + set_b + where[:, suit, rank] + ctx[b]
            for k in range(-2, 3):
                if 0 <= rank + k < 13:
                    v = v + run_w[:, :, 0, k + 2] @ planes[b, :, suit, rank + k]
            for s2 in range(4):
                v = v + set_w[:, :, s2, 0] @ planes[b, :, s2, rank]
            scores[card] = score @ np.maximum(v, 0.0)
        for k, block in enumerate(g.card_blocks):
            want[block] += scores[:, k]
        want[g.take_action] += scores[:, -1] @ top[b]
        legal = st.mask[b]
        np.testing.assert_allclose(gained[b, legal], want[legal], rtol=1e-4, atol=1e-4)
    assert np.abs(gained[st.mask]).max() > 0.01  # the scores are not all zero


def test_the_card_readout_and_the_card_head_are_one_or_the_other():
    from rummyrl.agents.network import NetConfig

    with pytest.raises(ValueError, match="net.card_readout and net.card_head both score the card actions"):
        NetConfig(card_readout=True, card_head=True).check(games.get("gin"))
