"""The pool's snapshots playing in one pass (:class:`NetStack`): each network's logits as its
own forward pass gives them, for any subset and order of the networks, in float32 and in
bf16; the pool's moves the same as one forward pass per snapshot; a clear error for
networks it cannot stack; and a new stack when the pool changes."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from rummyrl import games, training
from rummyrl.agents.features import action_features
from rummyrl.agents.network import NetConfig, NetStack, PolicyNet
from rummyrl.agents.neural import NeuralAgent
from rummyrl.training.pool import SNAPSHOT, OpponentPool

from tiny_runs import TINY

CONFIGS = {
    "gin plain": ("gin", NetConfig(hidden=32, layers=2, prior_scale=0.0, features="engine")),
    "gin expert prior": ("gin", NetConfig(hidden=24, layers=3, prior_scale=1.0, features="expert")),
    "rummy plain": ("rummy", NetConfig(hidden=16, layers=2, prior_scale=0.0, features="engine")),
    "rummy, trunk without features": ("rummy", NetConfig(hidden=16, layers=2, prior_scale=0.0, features="engine",
                                                         trunk_features=False)),
    "rummy, facts weighed by the position": ("rummy", NetConfig(hidden=16, layers=2, prior_scale=0.0,
                                                                features="engine", trunk_features=False,
                                                                fact_gate=True)),
    "gin, facts weighed by the position": ("gin", NetConfig(hidden=32, layers=2, prior_scale=0.0,
                                                            features="engine", fact_gate=True)),
}


def nets(game, cfg, n=3):
    out = []
    for i in range(n):
        torch.manual_seed(i)
        net = PolicyNet(game, cfg)
        with torch.no_grad():
            for p in net.parameters():  # weights of a trained network's size: logits differ by action
                p.normal_(0.0, 0.2)
        out.append(net.eval())
    return out


def positions(game, n=150, seed=3):
    engine = games.get(game).engine
    rng = np.random.default_rng(seed)
    st = engine.init(64, seed=seed)
    obs, masks = [], []
    while sum(len(o) for o in obs) < n:  # random play: every phase of a deal
        live = np.flatnonzero(~st.game_over)
        obs.append(engine.observe(st)[live].astype(np.float32))
        masks.append(st.mask[live].copy())
        a = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in st.mask])
        engine.step(st, a, inplace=True, active=~st.game_over)
    obs, masks = np.ascontiguousarray(np.concatenate(obs)[:n]), np.concatenate(masks)[:n]
    return obs, action_features("engine", game, obs, masks, "").astype(np.float32), masks


@pytest.mark.parametrize("name", list(CONFIGS))
@pytest.mark.parametrize("precision", ["fp32", "bf16"])
def test_stacked_logits_are_each_networks_own(name, precision):
    game, cfg = CONFIGS[name]
    stacked = [n.set_precision(precision) for n in nets(game, cfg)]
    obs, _, mask = positions(game)
    prior = action_features(cfg.features, game, obs, mask, "").astype(np.float32)
    stack = NetStack(stacked)
    rows = [np.arange(0, 40), np.arange(40, 41), np.arange(41, 150), np.arange(7, 30)]
    for which in ([0, 1, 2], [2, 0], [1, 1], [2], [0, 2, 1, 0]):
        groups = rows[:len(which)]
        got = stack.logits(np.array(which), groups, obs, prior, mask)
        for k, r, z in zip(which, groups, got):
            own = NeuralAgent(stacked[k]).logits(obs[r], mask[r], prior[r])
            assert z.shape == own.shape
            legal = mask[r]
            np.testing.assert_allclose(z[legal], own[legal], rtol=1e-5, atol=1e-4)
            assert (z[~legal] == own[~legal]).all()  # illegal: the same large negative logit
            assert (z.argmax(1) == own.argmax(1)).all()


def test_what_cannot_be_stacked_is_refused():
    game, cfg = CONFIGS["gin plain"]
    card = PolicyNet("gin", NetConfig(hidden=8, layers=1, prior_scale=0.0, features="engine", card_head=True))
    with pytest.raises(ValueError, match="one architecture with no card head"):
        NetStack([card])
    read = PolicyNet("gin", NetConfig(hidden=8, layers=1, prior_scale=0.0, features="engine", card_readout=True))
    assert not NetStack.supports(read)  # the pool plays it by its own forward pass
    with pytest.raises(ValueError, match="no card head or readout"):
        NetStack([read])
    with pytest.raises(ValueError, match="one architecture with no card head"):
        NetStack(nets(game, cfg, 1) + [PolicyNet("gin", NetConfig(hidden=8, layers=1, prior_scale=0.0,
                                                                    features="engine"))])
    with pytest.raises(ValueError, match="one architecture"):
        NetStack([])


def _pool(n_snapshots=3):
    cfg = training.load_config(None, TINY + ["net.hidden=32", "net.layers=2", "net.prior_scale=0.0",
                                          "net.features=engine", f"pool_size={n_snapshots}"])
    pool = OpponentPool(cfg, np.random.default_rng(0))
    for net in nets("gin", cfg.net, n_snapshots):
        pool.add_snapshot(net)
    return pool


def test_the_pool_plays_the_moves_of_one_forward_pass_per_snapshot():
    obs, prior, mask = positions("gin", 600, seed=5)
    kind = np.full(len(obs), SNAPSHOT)
    snap = np.random.default_rng(1).integers(0, 4, len(obs))  # 3: past the pool's end, plays the last
    a, b = _pool(), _pool()
    stacked = a.act(kind, snap, obs, mask, prior)
    # the reference: each drawn index's rows through its agent's own forward pass, in turn
    ref = np.zeros(len(obs), np.int64)
    for s in np.unique(snap):
        r = np.flatnonzero(snap == s)
        ref[r] = b.snapshots[min(s, len(b.snapshots) - 1)].act_with_prior(obs[r], mask[r], prior[r])
    assert (stacked == ref).all()
    assert mask[np.arange(len(obs)), stacked].all()
    # and the generators moved alike: the next moves agree too
    assert (a.act(kind, snap, obs, mask, prior) == b.act(kind, snap, obs, mask, prior)).all()


def test_the_pool_stacks_its_snapshots_anew_when_they_change():
    pool = _pool(2)
    first = pool._stacked()
    assert pool._stacked() is first  # unchanged: the same stack
    pool.add_snapshot(nets("gin", pool.cfg.net, 4)[3])  # one more than the pool holds: the oldest goes
    second = pool._stacked()
    assert second is not first
    obs, prior, mask = positions("gin", 50)
    got = second.logits(np.array([0, 1]), [np.arange(50), np.arange(50)], obs, prior, mask)
    for net, z in zip([s.net for s in pool.snapshots], got):
        np.testing.assert_allclose(z[mask], NeuralAgent(net).logits(obs, mask, prior)[mask], rtol=1e-5, atol=1e-4)
