"""PPO's parts, each against a slow reference written from its definition: GAE along a seat's
own decisions with rewards credited while others act, game ends and transitions carried
over from one rollout to the next; the clipped surrogate loss with its gradient; and the update
step, one SGD step of ppo_update against the same step on its loss written out, with its
gradient clipping and its early stop at target_kl."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from rummyrl import training
from rummyrl.training.ppo import clipped_surrogate
from rummyrl.training.rollout import Rollout, gae


def reference_gae(records: dict, ids: list[int], pending: set[int], gamma: float, lam: float) -> dict:
    """Advantage and return of each transition in ``ids`` by the definition: along the same
    seat's next decisions, delta_i = r_i + gamma V_next (1 - done_i) - V_i and
    A_i = delta_i + gamma lam (1 - done_i) A_next, where the advantage of a decision still
    waiting for its successor (``pending``) is unknown and so counts as 0: the sum stops
    there, bootstrapped from its value."""
    memo = {}

    def adv(i: int) -> float:
        if i in pending:
            return 0.0
        if i not in memo:
            r = records[i]
            live = 0.0 if r["done"] else 1.0
            v_next = records[r["next"]]["value"] if r["next"] is not None else 0.0
            a_next = adv(r["next"]) if r["next"] is not None else 0.0
            delta = r["reward"] + gamma * v_next * live - r["value"]
            memo[i] = delta + gamma * lam * live * a_next
        return memo[i]

    return {i: (adv(i), adv(i) + records[i]["value"]) for i in ids}


@pytest.mark.parametrize("seed", range(6))
def test_gae_along_a_seats_own_decisions_across_rollouts_matches_its_definition(seed):
    """Random lanes, seats deciding in turn (or not at all in a step), rewards that reach a
    seat while another acts, games that end: every transition is trained exactly once, in
    the first rollout after its successor (or its game's end) is known, with the advantage
    and return of the definition."""
    lanes, steps, rollouts, gamma, lam = 6, 8, 4, 0.9, 0.8
    cfg = training.load_config(None, [f"num_envs={lanes}", f"rollout_steps={steps}"])
    seats = cfg.num_players
    ro = Rollout(cfg)
    rng = np.random.default_rng(seed)
    records, last, trained, next_id = {}, {}, {}, 0
    width = ro.obs.shape[1]
    for _ in range(rollouts):
        for t in range(steps):
            movers = [(lane, int(rng.integers(seats))) for lane in range(lanes) if rng.random() < 0.8]
            if movers:
                ln = np.array([m[0] for m in movers])
                st = np.array([m[1] for m in movers])
                ids = np.arange(next_id, next_id + len(movers))
                next_id += len(movers)
                obs = np.zeros((len(movers), width), np.float32)
                obs[:, 0] = ids  # each transition's identity, carried with it
                values = rng.normal(size=len(movers)).astype(np.float32)
                ro.add(t, ln, st, obs, np.zeros((len(movers), ro.prior.shape[1]), np.float16),
                       np.ones((len(movers), ro.mask.shape[1]), bool), np.zeros(len(movers), np.int64),
                       np.zeros(len(movers), np.float32), values)
                for i, key, v in zip(ids.tolist(), movers, values.tolist()):
                    records[i] = {"value": v, "reward": 0.0, "done": False, "next": None}
                    if key in last:
                        records[last[key]]["next"] = i
                    last[key] = i
            rewards = np.where(rng.random((lanes, seats)) < 0.3, rng.normal(size=(lanes, seats)), 0.0)
            rewards = rewards.astype(np.float32)
            done = rng.random(lanes) < 0.15
            ro.credit(rewards, done)
            for (lane, seat), r in np.ndenumerate(rewards):
                if r and (lane, seat) in last:
                    records[last[lane, seat]]["reward"] += float(r)
            for lane in np.flatnonzero(done):
                for seat in range(seats):
                    if (lane, seat) in last:
                        records[last.pop((lane, seat))]["done"] = True
        idx, adv, ret = gae(ro, gamma, lam, steps)
        got_ids = ro["obs"][idx, 0].astype(int).tolist()
        pending = set(last.values())
        due = [i for i, r in records.items() if i not in trained and (r["done"] or r["next"] is not None)]
        assert sorted(got_ids) == sorted(due)  # trained once, as soon as its successor or end is known
        want = reference_gae(records, due, pending, gamma, lam)
        for i, a, g in zip(got_ids, adv.tolist(), ret.tolist()):
            assert a == pytest.approx(want[i][0], abs=1e-4) and g == pytest.approx(want[i][1], abs=1e-4), i
            trained[i] = a
        ro.carry_over()
        assert sorted(ro["obs"][:, 0].astype(int).tolist()) == sorted(pending)  # only the waiting ones stay


def test_a_decision_waiting_at_the_rollouts_end_bootstraps_its_predecessors_from_its_value():
    """Three decisions of one seat, the last still waiting: with gamma = lambda = 1 and no
    reward yet, each earlier decision's return is the waiting one's value (3), not 0, as if
    the game had ended at the rollout's end."""
    ro = {"step": np.array([0, 1, 2]), "next": np.array([1, 2, -1]), "done": np.zeros(3, bool),
          "value": np.array([1.0, 2.0, 3.0], np.float32), "reward": np.zeros(3, np.float32)}
    idx, adv, ret = gae(ro, 1.0, 1.0, 3)
    assert idx.tolist() == [0, 1] and ret.tolist() == [3.0, 3.0] and adv.tolist() == [2.0, 1.0]


@pytest.mark.parametrize("clip", [0.1, 0.2])
def test_the_clipped_surrogate_and_its_gradient_follow_their_definition(clip):
    """Per sample, max(-A r, -A clip(r, 1 - eps, 1 + eps)) with r = exp(logp - old): the
    gradient is that of -A r where that term is the larger, and 0 where clipping holds the
    ratio (r above 1 + eps with A > 0, below 1 - eps with A < 0)."""
    ratios = torch.tensor([0.5, 0.85, 0.95, 1.0, 1.05, 1.15, 2.0], dtype=torch.float64)
    for a in (1.0, -2.0):
        adv = torch.full_like(ratios, a)
        old = torch.zeros_like(ratios)
        logp = ratios.log().clone().requires_grad_(True)
        loss = clipped_surrogate(logp, old, adv, clip)
        loss.backward()
        clipped = (ratios > 1 + clip) if a > 0 else (ratios < 1 - clip)
        held = torch.where(clipped, torch.clamp(ratios, 1 - clip, 1 + clip), ratios)
        assert loss.item() == pytest.approx((-a * held).mean().item())
        want_grad = torch.where(clipped, 0.0, -a * ratios / len(ratios))  # d(-A e^logp)/dlogp = -A r
        assert torch.allclose(logp.grad, want_grad)


# --------------------------------------------------------------------------------------
# the update step: ppo_update against one hand-written step of its loss
# --------------------------------------------------------------------------------------
def _batch(n: int = 48, seed: int = 0):
    """A rollout's rows from random Gin positions: a small network's own sampled actions,
    their log-probabilities and values, with random advantages and returns."""
    from rummyrl import gin
    from rummyrl.agents.network import NetConfig, PolicyNet
    from rummyrl.random_play import random_actions

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    st = gin.init(n, seed=seed)
    for _ in range(int(rng.integers(3, 9))):
        gin.step(st, random_actions(st.mask, rng), inplace=True)
    net = PolicyNet("gin", NetConfig(hidden=16, layers=1, prior_scale=0.0, features="none"))
    obs, mask = gin.observe(st), st.mask.copy()
    prior = np.zeros(mask.shape, np.float32)
    with torch.no_grad():
        logits, value = net(torch.from_numpy(obs), torch.from_numpy(prior), torch.from_numpy(mask))
        act = torch.distributions.Categorical(logits=logits).sample()
        logp = torch.log_softmax(logits, 1).gather(1, act[:, None]).squeeze(1)
    ro = {"obs": obs, "prior": prior, "mask": mask, "action": act.numpy(), "logp": logp.numpy(),
          "value": value.numpy()}
    adv = rng.normal(size=n).astype(np.float32)
    ret = rng.normal(size=n).astype(np.float32)
    return net, ro, adv, ret


def _cfg(**over):
    base = {"update_epochs": 1, "minibatch_size": 4096, "clip_coef": 0.2, "vf_coef": 0.5, "ent_coef": 0.01,
            "max_grad_norm": 1e9, "target_kl": 0.0}
    base.update(over)
    return training.load_config(None, [f"{k}={v}" for k, v in base.items()])


def _params(net) -> torch.Tensor:
    return torch.cat([p.detach().flatten().clone() for p in net.parameters()])


def test_one_update_is_one_sgd_step_on_the_ppo_loss_written_out():
    """One epoch, one minibatch, SGD: the weights after ppo_update are those of one step on
    clipped surrogate + vf_coef * 0.5 (value - return)^2 - ent_coef * masked entropy, the
    advantages normalised over the rollout; at the rollout's own weights the ratio is 1, so
    the reported KL and clip fraction are 0 and the policy loss is -mean(normalised A)."""
    from rummyrl.agents.network import PolicyNet, masked_entropy
    from rummyrl.training.ppo import ppo_update

    net, ro, adv, ret = _batch()
    ref = PolicyNet("gin", net.cfg)
    ref.load_state_dict(net.state_dict())
    cfg, lr, start = _cfg(), 0.05, _params(net)
    stats = ppo_update(net, torch.optim.SGD(net.parameters(), lr=lr), ro, None, adv, ret, cfg,
                       torch.Generator().manual_seed(0))

    t = {k: torch.from_numpy(v) for k, v in ro.items()}
    a = torch.from_numpy((adv - adv.mean()) / (adv.std() + 1e-8))
    logits, value = ref(t["obs"], t["prior"], t["mask"])
    logp = torch.log_softmax(logits, 1).gather(1, t["action"][:, None]).squeeze(1)
    ratio = torch.exp(logp - t["logp"])
    pg = torch.max(-a * ratio, -a * ratio.clamp(0.8, 1.2)).mean()
    v_loss = 0.5 * (value - torch.from_numpy(ret)).pow(2).mean()
    ent = masked_entropy(logits, t["mask"]).mean()
    (pg + 0.5 * v_loss - 0.01 * ent).backward()
    with torch.no_grad():
        for p in ref.parameters():
            p -= lr * p.grad
    assert torch.allclose(_params(net), _params(ref), atol=1e-6)
    assert (_params(net) - start).abs().max() > 1e-3  # a step that moved the weights
    assert stats["approx_kl"] == pytest.approx(0.0, abs=1e-6) and stats["clipfrac"] == 0.0
    assert stats["policy_loss"] == pytest.approx(-a.mean().item(), abs=1e-5)
    assert stats["value_loss"] == pytest.approx(v_loss.item(), rel=1e-5)
    assert stats["entropy"] == pytest.approx(ent.item(), rel=1e-5)
    resid = ret - ro["value"]
    assert stats["explained_variance"] == pytest.approx(1 - np.var(resid) / np.var(ret), rel=1e-5)


def test_the_gradient_is_clipped_to_max_grad_norm():
    """With SGD, a clipped step moves the weights by exactly lr * max_grad_norm."""
    from rummyrl.training.ppo import ppo_update

    net, ro, adv, ret = _batch(seed=1)
    before, lr, norm = _params(net), 0.1, 1e-3
    ppo_update(net, torch.optim.SGD(net.parameters(), lr=lr), ro, None, adv, ret, _cfg(max_grad_norm=norm),
               torch.Generator().manual_seed(0))
    assert (_params(net) - before).norm().item() == pytest.approx(lr * norm, rel=1e-3)


def test_target_kl_stops_the_epochs_after_the_first_that_passes_it():
    """One minibatch per epoch: the first epoch's KL is 0 (the rollout's own weights), so a
    tiny target_kl stops after the second; five epochs with it leave the weights of two epochs
    without it, and differ from five."""
    from rummyrl.training.ppo import ppo_update

    out = {}
    for name, over in (("stopped", {"update_epochs": 5, "target_kl": 1e-12}), ("two", {"update_epochs": 2}),
                       ("five", {"update_epochs": 5})):
        net, ro, adv, ret = _batch(seed=2)
        ppo_update(net, torch.optim.SGD(net.parameters(), lr=0.05), ro, None, adv, ret, _cfg(**over),
                   torch.Generator().manual_seed(0))
        out[name] = _params(net)
    assert torch.equal(out["stopped"], out["two"])
    assert not torch.allclose(out["stopped"], out["five"])
