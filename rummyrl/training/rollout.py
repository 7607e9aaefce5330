"""PPO's rollouts: the learner's transitions, their credit and GAE.

* The lanes (:class:`~.lanes.Lanes`) step all games at once; in each lane the learner holds
  one seat (or all seats when it plays itself). :class:`PolicySide` is PPO's part of their
  step loop: it samples the network's policy at the learner's rows and records each
  decision in the :class:`Rollout`.
* Turn-based credit: each (lane, seat) is its own trajectory. A transition is linked to
  the same seat's next decision; rewards that arrive while others act are added to the
  seat's last transition; GAE runs along these links.
* The action mask and the network's per-action input (the expert prior, computed once per
  step by the lanes) are stored with every transition, so the update reads them again.

A rollout is a plain dict of numpy arrays (the :data:`FIELDS` of :class:`Rollout`), which
is all :func:`gae` and the PPO update read.
"""

from __future__ import annotations

import numpy as np
import torch

from rummyrl import games
from rummyrl.agents.features import feature_width
from rummyrl.agents.network import PolicyNet
from rummyrl.agents.neural import sample_actions

from .config import TrainConfig
from .device import play_precision
from .state import tensor

#: the arrays of a rollout, one row per transition of the learner
FIELDS = ("obs", "prior", "mask", "action", "logp", "value", "reward", "done", "next", "step")


class Rollout:
    """Transitions of the learner. ``next[i]`` is the same seat's next transition in the
    same game (-1: none yet). A transition still waiting for its successor when the
    rollout ends is carried into the next rollout, so no value is bootstrapped from a
    state the seat did not decide in.

    ``rollout[key]`` reads the filled rows of one of the :data:`FIELDS`, as the dict of
    :meth:`as_dict` does."""

    def __init__(self, cfg: TrainConfig):
        game = games.get(cfg.game)
        n = cfg.num_envs * cfg.rollout_steps + cfg.num_envs * cfg.num_players
        self.obs = np.zeros((n, game.obs_dim), np.float32)
        self.prior = np.zeros((n, feature_width(cfg.net.features, game)), np.float16)
        self.mask = np.zeros((n, game.num_actions), bool)
        self.action = np.zeros(n, np.int64)
        self.logp = np.zeros(n, np.float32)
        self.value = np.zeros(n, np.float32)
        self.reward = np.zeros(n, np.float32)
        self.done = np.zeros(n, bool)
        self.next = np.full(n, -1, np.int64)
        self.step = np.zeros(n, np.int64)  # rollout step that created it (-1: carried)
        self.size = 0
        self.last = np.full((cfg.num_envs, cfg.num_players), -1, np.int64)  # pending per (lane, seat)

    def __getitem__(self, key: str) -> np.ndarray:
        if key not in FIELDS:
            raise KeyError(key)
        return getattr(self, key)[:self.size]

    def as_dict(self) -> dict[str, np.ndarray]:
        """The filled rows of every field: views, valid until :meth:`carry_over`."""
        return {k: self[k] for k in FIELDS}

    def add(self, step, lanes, seats, obs, prior, mask, action, logp, value) -> None:
        n = lanes.size
        idx = np.arange(self.size, self.size + n)
        self.size += n
        self.obs[idx], self.prior[idx], self.mask[idx] = obs, prior, mask
        self.action[idx], self.logp[idx], self.value[idx] = action, logp, value
        self.reward[idx] = 0.0
        self.done[idx] = False
        self.next[idx] = -1
        self.step[idx] = step
        prev = self.last[lanes, seats]
        has = prev >= 0
        self.next[prev[has]] = idx[has]
        self.last[lanes, seats] = idx

    def credit(self, rewards: np.ndarray, done: np.ndarray) -> None:
        """Add each seat's credited reward to its last transition; close ended games."""
        lanes, seats = np.nonzero(rewards)
        idx = self.last[lanes, seats]
        ok = idx >= 0
        np.add.at(self.reward, idx[ok], rewards[lanes[ok], seats[ok]])
        d = np.flatnonzero(done)
        if d.size:
            idx = self.last[d].ravel()
            self.done[idx[idx >= 0]] = True
            self.last[d] = -1

    def advantages(self, gamma: float, lam: float, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:func:`gae` of the filled rows."""
        return gae(self, gamma, lam, steps)

    def carry_over(self) -> None:
        """Keep only the transitions still waiting for their successor, at the front."""
        n = self.size
        keep = np.flatnonzero(~self.done[:n] & (self.next[:n] < 0))
        k = keep.size
        for arr in (self.obs, self.prior, self.mask, self.action, self.logp, self.value, self.reward):
            arr[:k] = arr[keep]
        self.done[:k] = False
        self.next[:k] = -1
        self.step[:k] = -1
        new_index = np.full(n, -1, np.int64)
        new_index[keep] = np.arange(k)
        pending = self.last >= 0
        self.last[pending] = new_index[self.last[pending]]
        self.size = k

    def state_dict(self) -> dict:
        n = self.size
        return {k: tensor(getattr(self, k)[:n]) for k in FIELDS} | {"last": tensor(self.last), "size": n}

    def load_state_dict(self, d: dict) -> None:
        n = int(d["size"])
        for k in FIELDS:
            getattr(self, k)[:n] = d[k].numpy()
        self.last[:] = d["last"].numpy()
        self.size = n


def concat_rollouts(parts: list[dict]) -> dict[str, np.ndarray]:
    """One rollout from several (in the given order): the links between a seat's
    transitions (``next``) are shifted by the rows before each part."""
    if len(parts) == 1:
        return dict(parts[0])
    offsets = np.cumsum([0] + [p["obs"].shape[0] for p in parts[:-1]])
    out = {}
    for k in FIELDS:
        if k == "next":
            out[k] = np.concatenate([np.where(p[k] >= 0, p[k] + off, -1) for p, off in zip(parts, offsets)])
        else:
            out[k] = np.concatenate([p[k] for p in parts])
    return out


def gae(rollout, gamma: float, lam: float, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GAE along the links of ``rollout`` (read by key: the dict
    :meth:`~.lanes.Lanes.collect` returns, or a :class:`Rollout`), newest first; ``steps`` is the rollout's length.
    Returns (trainable indices, advantages, returns): a transition is trainable once its
    successor or the end of its game is known.

    A transition still waiting for its successor has no advantage yet (its next state is
    not known): the sum of its predecessors stops at it, bootstrapped from its value, as
    GAE stops at the last step of a rollout. Counting its ``reward - value`` instead would
    make its predecessors' returns those of a game that ended at the rollout's end."""
    order, links, done = rollout["step"], rollout["next"], rollout["done"]
    value, reward = rollout["value"], rollout["reward"]
    adv = np.zeros(order.size, np.float32)
    trainable = done | (links >= 0)
    for t in range(steps - 1, -2, -1):
        idx = np.flatnonzero((order == t) & trainable)  # a waiting transition keeps advantage 0
        if idx.size == 0:
            continue
        nxt = links[idx]
        has = nxt >= 0
        live = ~done[idx]
        v_next = np.where(has, value[np.maximum(nxt, 0)], 0.0)
        a_next = np.where(has, adv[np.maximum(nxt, 0)], 0.0)
        delta = reward[idx] + gamma * v_next * live - value[idx]
        adv[idx] = delta + gamma * lam * live * a_next
    trainable = np.flatnonzero(trainable)
    return trainable, adv[trainable], (adv + value)[trainable]


class PolicySide:
    """PPO's learner in the lanes' step loop (:meth:`~.lanes.Lanes.play`): at the learner's
    rows it samples the network's policy (on the network's device) and records each
    decision, with its mask and per-action input, in ``rollout``."""

    def __init__(self, net: PolicyNet, rollout: Rollout, rng: np.random.Generator, precision: str = "fp32"):
        self.net, self.rollout, self.rng = net, rollout, rng
        self.device = next(net.parameters()).device  # the learner's device in process, the CPU in a Ray worker
        self.precision = play_precision(precision, self.device)  # the trunk's while it plays (TrainConfig.precision)

    def act(self, step: int, lanes: np.ndarray, seats: np.ndarray, obs: np.ndarray, mask: np.ndarray,
            prior: np.ndarray) -> np.ndarray:
        dev = self.device
        with torch.no_grad(), self.net.computing(self.precision):
            logits, value = self.net(torch.from_numpy(obs).to(dev), torch.from_numpy(prior).to(dev),
                                     torch.from_numpy(mask).to(dev))
            logp_all = torch.log_softmax(logits, 1).cpu().numpy()
            value = value.cpu().numpy()
        a = sample_actions(np.exp(logp_all), self.rng)
        self.rollout.add(step, lanes, seats, obs, prior, mask, a, logp_all[np.arange(a.size), a], value)
        return a

    def credit(self, rewards: np.ndarray, done: np.ndarray) -> None:
        self.rollout.credit(rewards, done)

    def result(self, stats: dict) -> dict[str, np.ndarray]:
        """The rollout: the transitions carried over from the last one and this one's
        (views of the buffer until the lanes carry it over)."""
        return self.rollout.as_dict()
