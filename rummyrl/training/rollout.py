"""Rollouts: the self-play environments, per-seat trajectories, their credit and GAE.

* Rollouts come from the batched self-play interface (``rummyrl.envs.vector``): every call
  steps all lanes; in each lane the learner holds one seat (or all seats when it plays
  itself) and an opponent from the pool holds the others.
* Turn-based credit: each (lane, seat) is its own trajectory. A transition is linked to
  the same seat's next decision; rewards that arrive while others act are added to the
  seat's last transition; GAE runs along these links.
* The action mask and the expert prior the network adds to its logits are stored with
  every transition, so the update applies them again.

:func:`collect_rollout` returns the rollout as a plain dict of numpy arrays (the
:data:`FIELDS` of :class:`Rollout`), which is all :func:`gae` and the PPO update read.
"""

from __future__ import annotations

import typing

import numpy as np
import torch

from rummyrl.agents.neural import action_features, expert_prior, sample_actions

from .config import TrainConfig, engine_episode, reward_scheme
from .pool import EXPERT, SELF, SNAPSHOT

if typing.TYPE_CHECKING:
    from .trainer import Trainer

#: the arrays of a rollout, one row per transition of the learner
FIELDS = ("obs", "prior", "mask", "action", "logp", "value", "reward", "done", "next", "step")


def make_selfplay(cfg: TrainConfig):
    """The batched self-play interface of the game (all seats; the trainer assigns them)."""
    episode = engine_episode(cfg)
    if cfg.game == "gin":
        from rummyrl.envs.vector import GinSelfPlay

        return GinSelfPlay(cfg.num_envs, reward=reward_scheme(cfg), **{**cfg.rules, "episode": episode})
    from rummyrl.envs.rummy_vector import RummySelfPlay

    return RummySelfPlay(cfg.num_envs, reward=reward_scheme(cfg),
                         **{**cfg.rules, "episode": episode, "num_players": cfg.num_players})


class Rollout:
    """Transitions of the learner. ``next[i]`` is the same seat's next transition in the
    same game (-1: none yet). A transition still waiting for its successor when the
    rollout ends is carried into the next rollout, so no value is bootstrapped from a
    state the seat did not decide in.

    ``rollout[key]`` reads the filled rows of one of the :data:`FIELDS`, as the dict of
    :meth:`as_dict` does."""

    def __init__(self, cfg: TrainConfig, io):
        n = cfg.num_envs * cfg.rollout_steps + cfg.num_envs * cfg.num_players
        self.obs = np.zeros((n, io.obs_dim), np.float32)
        self.prior = np.zeros((n, io.num_actions), np.float16)
        self.mask = np.zeros((n, io.num_actions), bool)
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
        return {k: torch.from_numpy(np.ascontiguousarray(getattr(self, k)[:n])) for k in FIELDS} | {
            "last": torch.from_numpy(self.last.copy()), "size": n}

    def load_state_dict(self, d: dict) -> None:
        n = int(d["size"])
        for k in FIELDS:
            getattr(self, k)[:n] = d[k].numpy()
        self.last[:] = d["last"].numpy()
        self.size = n


def gae(rollout, gamma: float, lam: float, steps: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """GAE along the links of ``rollout`` (read by key: the dict :func:`collect_rollout`
    returns, or a :class:`Rollout`), newest first; ``steps`` is the rollout's length.
    Returns (trainable indices, advantages, returns): a transition is trainable once its
    successor or the end of its game is known."""
    order, links, done = rollout["step"], rollout["next"], rollout["done"]
    value, reward = rollout["value"], rollout["reward"]
    adv = np.zeros(order.size, np.float32)
    for t in range(steps - 1, -2, -1):
        idx = np.flatnonzero(order == t)
        if idx.size == 0:
            continue
        nxt = links[idx]
        has = nxt >= 0
        live = ~done[idx]
        v_next = np.where(has, value[np.maximum(nxt, 0)], 0.0)
        a_next = np.where(has, adv[np.maximum(nxt, 0)], 0.0)
        delta = reward[idx] + gamma * v_next * live - value[idx]
        adv[idx] = delta + gamma * lam * live * a_next
    trainable = np.flatnonzero(done | (links >= 0))
    return trainable, adv[trainable], (adv + value)[trainable]


def collect_rollout(tr: Trainer, stats: dict) -> dict[str, np.ndarray]:
    """Play ``rollout_steps`` batched steps (``rollout_steps * num_envs`` env steps), store
    the learner's decisions in ``tr.rollout`` and count how hands and games ended in
    ``stats``. Returns the rollout: the transitions carried over from the last one and
    this one's, as a plain dict of numpy arrays (:meth:`Rollout.as_dict`)."""
    cfg, env, ro, net = tr.cfg, tr.env, tr.rollout, tr.net
    device = next(net.parameters()).device  # the learner's device in process, the CPU in a Ray worker
    batch = env.batch
    lanes_all = np.arange(cfg.num_envs)
    for t in range(cfg.rollout_steps):
        player = batch.player.copy()
        learner = (tr.lane_kind == SELF) | (player == tr.lane_seat)
        actions = np.zeros(cfg.num_envs, np.int64)
        # the network's per-action input (the expert's preference unless the net is plain) and
        # the expert opponents' preference, in one pass each for every game that needs it
        prior_all = np.zeros(batch.mask.shape, np.float32)
        expert_seat = ~learner & (tr.lane_kind == EXPERT)
        net_rows = learner | (~learner & (tr.lane_kind == SNAPSHOT))
        if cfg.net.prior_is_expert:  # the expert opponents' preference is the same input
            net_rows |= expert_seat
        if net_rows.any():
            prior_all[net_rows] = action_features(cfg.net.features, cfg.game, batch.obs[net_rows],
                                                  batch.mask[net_rows], cfg.num_players, cfg.net.expert_params)
        if not cfg.net.prior_is_expert and expert_seat.any():
            prior_all[expert_seat] = expert_prior(cfg.game, batch.obs[expert_seat], batch.mask[expert_seat],
                                                  cfg.num_players)
        rows = np.flatnonzero(learner)
        if rows.size:
            obs, mask, prior = batch.obs[rows], batch.mask[rows], prior_all[rows]
            with torch.no_grad():
                logits, value = net(torch.from_numpy(obs).to(device), torch.from_numpy(prior).to(device),
                                    torch.from_numpy(mask).to(device))
                logp_all = torch.log_softmax(logits, 1).cpu().numpy()
                value = value.cpu().numpy()
            a = sample_actions(np.exp(logp_all), tr.rng)
            actions[rows] = a
            ro.add(t, lanes_all[rows], player[rows], obs, prior, mask, a, logp_all[np.arange(a.size), a], value)
        others = np.flatnonzero(~learner)
        if others.size:
            actions[others] = tr.pool.act(tr.lane_kind[others], tr.lane_snap[others],
                                          batch.obs[others], batch.mask[others], prior_all[others])
        batch = env.step(actions)
        _hand_stats(env, tr, stats)
        ro.credit(batch.rewards, batch.done)
        if batch.done.any():
            d = np.flatnonzero(batch.done)
            _game_stats(batch, tr, d, stats)
            tr.lane_kind[d], tr.lane_snap[d] = tr.pool.draw(d.size)
            tr.lane_seat[d] = tr.rng.integers(0, cfg.num_players, d.size)
    return ro.as_dict()


def _hand_stats(env, tr: Trainer, stats: dict) -> None:
    st = env.state
    ended = np.flatnonzero(st.hand_ended if tr.cfg.game == "gin" else st.round_ended)
    if ended.size:
        names = _end_names(tr.cfg.game)
        for k in np.bincount(st.last_end[ended], minlength=len(names)).nonzero()[0]:
            stats.setdefault(f"hands/{names[k]}", 0)
            stats[f"hands/{names[k]}"] += int((st.last_end[ended] == k).sum())
        stats["hands/total"] = stats.get("hands/total", 0) + ended.size


def _game_stats(batch, tr: Trainer, d: np.ndarray, stats: dict) -> None:
    """Results of ended games in which the learner held a seat against an opponent."""
    vs = d[tr.lane_kind[d] != SELF]
    if vs.size:
        winner = batch.final["winner"][vs]
        seat = tr.lane_seat[vs]
        stats.setdefault("games/vs_pool", []).extend((winner == seat).astype(float).tolist())
        totals = batch.final["total"][vs].astype(float)
        mine = totals[np.arange(vs.size), seat]
        stats.setdefault("games/points", []).extend((mine - (totals.sum(1) - mine) / (totals.shape[1] - 1)).tolist())


def _end_names(game: str):
    if game == "gin":
        from rummyrl import gin

        return gin.END_NAMES
    from rummyrl import rummy

    return rummy.END_NAMES
