"""PPO (``algo: ppo``): the learner samples its policy in the lanes and learns from the rewards.

Read top to bottom: :class:`PolicyLanes` is PPO's part of the lanes (the rollout buffer whose
unfinished transitions carry over from one rollout to the next); :func:`run_update` is one
update (a rollout from the workers, GAE, :func:`ppo_update`); with ``overlap: true``,
:func:`overlap_update` learns from the last rollout in a thread while the next one is
played; :class:`PPO` is what the trainer calls (:mod:`.methods`). The update itself:
clipped policy loss, value loss and masked entropy over one rollout.

The action mask and the network's per-action input (the expert prior, computed once per
step by the lanes) stored with each transition are what the network reads again here
(``rummyrl.agents.network``): illegal actions have probability zero and the entropy
counts legal actions only. The update runs where the network is (the config's ``device``); the
minibatch order is drawn on the CPU, so it is the same on any device.
"""

from __future__ import annotations

import sys
import time
import typing
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch

from rummyrl.agents.network import PolicyNet, masked_entropy

from .config import TrainConfig
from .methods import Update
from .rollout import PolicySide, Rollout, concat_rollouts, gae
from .state import pack_arrays, unpack_arrays

if typing.TYPE_CHECKING:
    from .lanes import Lanes
    from .trainer import Trainer

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


def clipped_surrogate(logp: torch.Tensor, old_logp: torch.Tensor, adv: torch.Tensor, clip: float) -> torch.Tensor:
    """PPO's clipped policy loss, the mean over the samples of ``max(-A r, -A clip(r, 1-clip, 1+clip))``
    with ``r = exp(logp - old_logp)``: a sample whose ratio has moved past the clip in its
    advantage's direction gives no gradient."""
    ratio = torch.exp(logp - old_logp)
    return torch.max(-adv * ratio, -adv * ratio.clamp(1 - clip, 1 + clip)).mean()


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
                # index_select, not x[mb]: a gather with no advanced-indexing dispatch
                obs_b, prior_b, mask_b, act_b, old_b, a, ret_b = (x.index_select(0, mb) for x in batch)
                logits, value = net(obs_b, prior_b, mask_b)
                logp_all = torch.log_softmax(logits, dim=1)
                logp = logp_all.gather(1, act_b[:, None]).squeeze(1)
                ratio = torch.exp(logp - old_b)
                pg = clipped_surrogate(logp, old_b, a, cfg.clip_coef)
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


class PolicyLanes:
    """PPO's part of the lanes: the rollout buffer. The rollout handed to the learner is a
    view of the buffer; at the next rollout (or checkpoint) the learner is done with it,
    and only the transitions still waiting for their successor are kept."""

    def __init__(self, lanes: Lanes):
        self.rollout = Rollout(lanes.cfg)
        self.rng, self.precision = lanes.rng, lanes.cfg.precision
        self._handed_out = False

    def side(self, net: PolicyNet) -> PolicySide:
        self._carry_over()
        self._handed_out = True
        return PolicySide(net, self.rollout, self.rng, self.precision)

    def _carry_over(self) -> None:
        if self._handed_out:
            self.rollout.carry_over()
            self._handed_out = False

    def state_dict(self) -> dict:
        """The transitions pending from the last rollout."""
        self._carry_over()
        return {"rollout": self.rollout.state_dict()}

    def load_state_dict(self, d: dict) -> None:
        if "rollout" in d:  # a run of another method (expert iteration) left none: start afresh
            self.rollout.load_state_dict(d["rollout"])
        self._handed_out = False


def _set_learning_rate(tr: Trainer) -> None:
    cfg = tr.cfg
    frac = 1.0 - tr.global_step / cfg.total_steps if cfg.lr_schedule == "linear" else 1.0
    for g in tr.opt.param_groups:
        g["lr"] = cfg.learning_rate * max(frac, 0.0)


def run_update(tr: Trainer, update_threads: int) -> Update:
    """One update: a rollout from the workers, GAE, the PPO update, the snapshot when one is
    due and the new weights to the workers."""
    cfg, workers = tr.cfg, tr.workers
    t0 = time.perf_counter()
    _set_learning_rate(tr)
    torch.set_num_threads(1)  # small batches: one thread beats two that wait on each other
    rollout, stats = workers.collect()
    steps = cfg.rollout_steps * cfg.num_envs
    t1 = time.perf_counter()
    torch.set_num_threads(update_threads)
    idx, adv, ret = gae(rollout, cfg.gamma, cfg.gae_lambda, cfg.rollout_steps)
    upd = ppo_update(tr.net, tr.opt, rollout, idx, adv, ret, cfg, tr.torch_gen, tr.precision)
    tr.end_update(steps)
    t2 = time.perf_counter()
    return Update(upd, stats, steps, (t0, t1, t2), idx.size)


#: seconds a thread holds the GIL before it is asked to hand it over, while the learner's
#: thread runs beside the players (Python's default is 0.005)
SWITCH_INTERVAL = 0.002

#: what the learner reads of a rollout (:func:`ppo_update`)
LEARNER_FIELDS = ("obs", "prior", "mask", "action", "logp", "value")


def gather(cfg: TrainConfig, rollout: dict, stats: dict) -> dict:
    """A rollout made ready for the learner, as copies (the lanes' buffer is reused by the
    next rollout): the trainable transitions' arrays (GAE's), their advantages and returns,
    and the rollout's game statistics."""
    idx, adv, ret = gae(rollout, cfg.gamma, cfg.gae_lambda, cfg.rollout_steps)
    return {**{k: rollout[k][idx] for k in LEARNER_FIELDS}, "adv": adv, "ret": ret, "stats": stats}


def overlap_update(tr: Trainer, update_threads: int) -> Update:
    """One update with ``overlap: true``: the learner updates on the rollout played last
    (``PPO.pending``) in its own thread while this one plays the next rollout with a copy of
    the weights the learner starts from and gathers it (GAE, the learner's copies); then the
    snapshot is added when one is due. The game statistics are those of the rollout learned
    from. The run's first update plays its first rollout before (a resumed run has it in its
    checkpoint)."""
    cfg, workers, me = tr.cfg, tr.workers, tr.method
    t0 = time.perf_counter()
    torch.set_num_threads(1)  # one core plays, the other learns
    if me.learner_thread is None:
        # the flush of denormals is a thread's own (train() sets it for this one)
        me.learner_thread = ThreadPoolExecutor(1, thread_name_prefix="learner",
                                               initializer=torch.set_flush_denormal, initargs=(True,))
        me.actor = PolicyNet(cfg.game, cfg.net).to(tr.device).eval()
    if me.pending is None:
        me.pending = gather(cfg, *workers.collect())
    batch, me.pending = me.pending, None
    _set_learning_rate(tr)
    me.actor.load_state_dict(tr.net.state_dict())  # the weights the learner starts from
    switch = sys.getswitchinterval()
    # Both threads need the GIL between torch's kernels; the players hold it through long stretches
    # of Python, and by default give it up only every switch interval, which starves the learner's small ops
    sys.setswitchinterval(SWITCH_INTERVAL)
    learning = me.learner_thread.submit(ppo_update, tr.net, tr.opt, batch, None, batch["adv"], batch["ret"], cfg,
                                        tr.torch_gen, tr.precision)
    try:
        played = workers.collect(me.actor)
        ready = gather(cfg, *played)  # GAE and the copies while the learner may still be at work
    finally:
        upd = learning.result()  # the learner's thread is done before anything else touches the network
        sys.setswitchinterval(switch)
    t1 = time.perf_counter()
    me.pending = ready
    steps = cfg.rollout_steps * cfg.num_envs
    tr.end_update(steps)
    t2 = time.perf_counter()
    return Update(upd, batch["stats"], steps, (t0, t1, t2), len(batch["adv"]))


class PPO:
    """``algo: ppo`` for the trainer (:mod:`.methods`)."""

    section = "losses"
    lanes_part = PolicyLanes
    concat = staticmethod(concat_rollouts)

    def __init__(self, tr: Trainer):
        self.tr = tr
        self.pending: dict | None = None
        """``overlap: true``: the rollout played but not yet learned from, gathered for the
        learner: its arrays, ``adv``, ``ret`` and ``stats``."""
        self.actor: PolicyNet | None = None
        """``overlap: true``: the copy of the network that plays while the learner updates."""
        self.learner_thread: ThreadPoolExecutor | None = None
        """``overlap: true``: the thread the learner's minibatches run in."""

    def update(self, update_threads: int) -> Update:
        return (overlap_update if self.tr.cfg.overlap else run_update)(self.tr, update_threads)

    def state_dict(self, resumable: bool) -> dict:
        """``last.pt`` of an ``overlap`` run also holds the rollout played but not yet learned
        from (``pending``, compressed), so its resume is exact too."""
        if not resumable or self.pending is None:
            return {}
        p = self.pending
        return {"pending": {"arrays": pack_arrays({k: v for k, v in p.items() if isinstance(v, np.ndarray)}),
                            "stats": p["stats"]}}

    def load_state_dict(self, data: dict) -> None:
        pending = data.get("pending") if self.tr.cfg.overlap else None
        self.pending = None if pending is None else {**unpack_arrays(pending["arrays"]), "stats": pending["stats"]}

    def close(self) -> None:
        if self.learner_thread is not None:
            self.learner_thread.shutdown()
            self.learner_thread = None
