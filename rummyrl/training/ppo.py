"""The PPO update: clipped policy loss, value loss and masked entropy over one rollout.

The action mask and the network's per-action input (the expert prior, computed once per
step by the lanes) stored with each transition are what the network reads again here
(``rummyrl.agents.network``): illegal actions have probability zero and the entropy
counts legal actions only. The update runs where the network is (the config's ``device``); the
minibatch order is drawn on the CPU, so it is the same on any device.
"""

from __future__ import annotations

import numpy as np
import torch

from rummyrl.agents.network import PolicyNet, masked_entropy

from .config import TrainConfig

#: the statistics :func:`ppo_update` returns, logged as ``losses/<key>`` (:data:`.loop.METRICS`'s
#: ``<section>/<k>``), and what each means
METRICS = {
    "losses/policy_loss": "PPO's clipped surrogate loss (mean over the minibatches)",
    "losses/value_loss": "half the squared error of the value to the GAE return",
    "losses/entropy": "entropy of the masked policy per decision",
    "losses/approx_kl": "approximate KL between the rollout's policy and the updated one (`target_kl` stops the epochs)",
    "losses/clipfrac": "share of the samples whose probability ratio was clipped (`clip_coef`)",
    "losses/explained_variance": "how much of the returns' variance the rollout's values explained",
}


def ppo_update(net: PolicyNet, opt: torch.optim.Optimizer, ro, idx: np.ndarray | None, adv: np.ndarray,
               ret: np.ndarray, cfg: TrainConfig, gen: torch.Generator, precision: str = "fp32") -> dict:
    """``update_epochs`` passes over the transitions ``idx`` of the rollout ``ro`` (read by
    key: the dict of ``Lanes.collect`` or the ``Rollout`` itself; ``idx`` None: all its rows,
    a batch already gathered) with their advantages and returns; returns the mean losses and
    statistics of the update. The trunk computes in ``precision`` for the update only (the
    players' small batches of changing size gain nothing from bf16 and pay for its casts)."""
    device = next(net.parameters()).device

    def rows(key: str) -> np.ndarray:
        return ro[key] if idx is None else ro[key][idx]

    obs = torch.from_numpy(np.ascontiguousarray(rows("obs"))).to(device)
    prior = torch.from_numpy(np.ascontiguousarray(rows("prior"), np.float32)).to(device)
    mask = torch.from_numpy(np.ascontiguousarray(rows("mask"))).to(device)
    act = torch.from_numpy(np.ascontiguousarray(rows("action"))).to(device)
    old_logp = torch.from_numpy(np.ascontiguousarray(rows("logp"))).to(device)
    # advantages normalised once over the rollout (a minibatch may hold a single sample)
    adv_t = torch.from_numpy((adv - adv.mean()) / (adv.std() + 1e-8)).to(device)
    ret_t = torch.from_numpy(ret).to(device)
    n = len(ret)
    batch = (obs, prior, mask, act, old_logp, adv_t, ret_t)
    stats = {"policy_loss": [], "value_loss": [], "entropy": [], "approx_kl": [], "clipfrac": []}
    with net.updating(precision):
        for _ in range(cfg.update_epochs):
            perm = torch.randperm(n, generator=gen).to(device)  # drawn on the CPU whatever the device
            kls = []
            for start in range(0, n, cfg.minibatch_size):
                mb = perm[start:start + cfg.minibatch_size]
                # index_select: a few times faster than x[mb]
                obs_b, prior_b, mask_b, act_b, old_b, a, ret_b = (x.index_select(0, mb) for x in batch)
                logits, value = net(obs_b, prior_b, mask_b)
                logp_all = torch.log_softmax(logits, dim=1)
                logp = logp_all.gather(1, act_b[:, None]).squeeze(1)
                ratio = torch.exp(logp - old_b)
                pg = torch.max(-a * ratio, -a * ratio.clamp(1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
                v_loss = 0.5 * (value - ret_b).pow(2).mean()
                ent = masked_entropy(logits, mask_b).mean()
                loss = pg + cfg.vf_coef * v_loss - cfg.ent_coef * ent
                if not torch.isfinite(loss):
                    raise FloatingPointError(f"the PPO loss is not finite (policy {pg.item()}, value {v_loss.item()}, "
                                             f"entropy {ent.item()}): lower the learning rate or check the rewards")
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
                opt.step()
                with torch.no_grad():
                    kl = ((ratio - 1) - (logp - old_b)).mean().item()
                kls.append(kl)
                for k, v in (("policy_loss", pg.item()), ("value_loss", v_loss.item()), ("entropy", ent.item()),
                             ("approx_kl", kl), ("clipfrac", ((ratio - 1).abs() > cfg.clip_coef).float().mean().item())):
                    stats[k].append(v)
            if cfg.target_kl and np.mean(kls) > cfg.target_kl:
                break
    out = {k: float(np.mean(v)) for k, v in stats.items()}
    var = float(np.var(ret))  # how much of the returns the rollout's values explained
    out["explained_variance"] = float(1 - np.var(ret - rows("value")) / var) if var > 0 else 0.0
    return out
