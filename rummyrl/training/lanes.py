"""The self-play lanes of one process, and the one step loop that plays them.

:class:`Lanes` holds what playing needs: the batched self-play environments of the run's
game, the opponent pool, the random generator they draw from, each lane's opponent (its
kind and snapshot) and the learner's seat, and the run's method's part (:mod:`.methods`:
PPO's rollout buffer, expert iteration's teacher and records of games in progress). The
trainer holds one in process
(``workers=0``); each Ray worker holds its own (:mod:`.workers`). :meth:`Lanes.state_dict`
is the one serialisation of lane state, in a checkpoint's ``lanes`` or in each of its
``workers`` states.

:meth:`Lanes.play` is the step loop of every method. Every step it computes, once, the
per-action input of every row a network or the expert plays (:meth:`Lanes.features`: the
learner's rows, the snapshots' and the expert's), lets the method's *side* act at the
learner's rows (PPO's :class:`~.rollout.PolicySide` samples the network and records the
transitions; expert iteration's :class:`~.exit.TeacherSide` lets the teacher play and
records its decisions, each with the input computed here), the pool at the others, steps
the environments, credits the rewards, counts how deals and games ended, and draws a new
opponent and seat for every lane whose game ended.
"""

from __future__ import annotations

import dataclasses
from typing import Protocol

import numpy as np

from rummyrl import games
from rummyrl.agents.features import action_features, expert_prior, feature_width
from rummyrl.agents.network import PolicyNet
from rummyrl.envs.batched import SelfPlay

from . import methods
from .config import TrainConfig, engine_config, reward_scheme
from .methods import LanesPart
from .pool import SELF, SNAPSHOT, OpponentPool
from .state import rng_state, set_rng_state, tensor


class Side(Protocol):
    """A method's part of the step loop: how the learner's rows act and what is recorded."""

    def act(self, step: int, lanes: np.ndarray, seats: np.ndarray, obs: np.ndarray, mask: np.ndarray,
            prior: np.ndarray) -> np.ndarray:
        """Actions at the learner's rows (``lanes``, whose seats are ``seats``), given their
        observations, masks and per-action input (:meth:`Lanes.features`)."""

    def credit(self, rewards: np.ndarray, done: np.ndarray) -> None:
        """After a step: every seat's rewards ``(B, P)`` and which games ended."""

    def result(self, stats: dict) -> dict[str, np.ndarray]:
        """What the update trains on, after the steps."""


def make_selfplay(cfg: TrainConfig) -> SelfPlay:
    """The batched self-play environments of the run's game (all seats; the lanes assign them)."""
    rules, game = engine_config(cfg), games.get(cfg.game)
    return SelfPlay(cfg.game, cfg.num_envs, reward=reward_scheme(cfg),
                    points_scale=game.points_scale * cfg.reward_scale,
                    game_points_scale=game.game_points_scale * cfg.reward_scale,
                    **{f.name: getattr(rules, f.name) for f in dataclasses.fields(rules)})


class Lanes:
    """``cfg.num_envs`` self-play games played by the learner against the pool, drawing
    from ``rng`` (the trainer's generator in process, a worker's own on Ray)."""

    def __init__(self, cfg: TrainConfig, rng: np.random.Generator):
        self.cfg, self.game, self.rng = cfg, games.get(cfg.game), rng
        self.env = make_selfplay(cfg)
        self.env.reset(seed=cfg.seed)
        self.pool = OpponentPool(cfg, rng)
        self.part: LanesPart = methods.get(cfg.algo).lanes_part(self)
        """The method's part: PPO's rollout buffer, expert iteration's teacher."""
        self.kind, self.snap = self.pool.draw(cfg.num_envs)
        self.seat = rng.integers(0, cfg.num_players, cfg.num_envs)

    # -- one update's data -------------------------------------------------------------
    def collect(self, net: PolicyNet, stats: dict) -> dict[str, np.ndarray]:
        """Play ``rollout_steps`` batched steps with ``net`` as the learner; returns what the
        update trains on, the method's: the PPO rollout (views of the buffer, valid until the
        next call or :meth:`state_dict`) or the search records of the episodes that ended.
        ``stats`` gets the counts of how deals and games ended."""
        side = self.part.side(net)
        self.play(side, stats)
        return side.result(stats)

    # -- the step loop -----------------------------------------------------------------
    def play(self, side: Side, stats: dict) -> None:
        """``rollout_steps`` batched steps: ``side`` acts at the learner's rows (``act``) and
        is credited after each step (``credit``); the pool plays the other rows."""
        cfg, env = self.cfg, self.env
        batch = env.batch
        for t in range(cfg.rollout_steps):
            player = batch.player.copy()
            learner = (self.kind == SELF) | (player == self.seat)
            prior = self.features(batch.obs, batch.mask, learner)
            actions = np.zeros(cfg.num_envs, np.int64)
            rows = np.flatnonzero(learner)
            if rows.size:
                actions[rows] = side.act(t, rows, player[rows], batch.obs[rows], batch.mask[rows], prior[rows])
            others = np.flatnonzero(~learner)
            if others.size:
                actions[others] = self.pool.act(self.kind[others], self.snap[others], batch.obs[others],
                                                batch.mask[others], prior[others])
            batch = env.step(actions)
            self._count_deals(stats)
            side.credit(batch.rewards, batch.done)
            if batch.done.any():
                done = np.flatnonzero(batch.done)
                self._count_games(batch, done, stats)
                self.kind[done], self.snap[done] = self.pool.draw(done.size)
                self.seat[done] = self.rng.integers(0, cfg.num_players, done.size)

    def features(self, obs: np.ndarray, mask: np.ndarray, learner: np.ndarray) -> np.ndarray:
        """``(B, F)`` float32 (:func:`feature_width`), once per step: the network's
        per-action input (``net.features``) at the rows a network plays (the learner's and
        the snapshots'), the ``expert`` baseline's preference in the first ``A`` columns at the
        expert's rows (it plays its argmax), 0 elsewhere; each kind in one batched pass."""
        net = self.cfg.net
        out = np.zeros((mask.shape[0], feature_width(net.features, self.game)), np.float32)
        expert = ~learner & (self.kind == self.pool.expert)
        rows = learner | (~learner & (self.kind == SNAPSHOT))
        if net.prior_is_expert:  # the network's input is the expert's preference: one pass for both
            rows |= expert
        if rows.any():
            out[rows] = action_features(net.features, self.game, obs[rows], mask[rows], net.expert_params)
        if not net.prior_is_expert and expert.any():
            out[expert, :mask.shape[1]] = expert_prior(self.game, obs[expert], mask[expert])
        return out

    def _count_deals(self, stats: dict) -> None:
        """How the deals that ended in the last step ended (``hands/<end>``, ``hands/total``)."""
        st = self.env.state
        ended = np.flatnonzero(self.game.deal_ended(st))
        if ended.size:
            names = self.game.end_names
            counts = np.bincount(st.last_end[ended], minlength=len(names))
            for k in counts.nonzero()[0]:
                stats[f"hands/{names[k]}"] = stats.get(f"hands/{names[k]}", 0) + int(counts[k])
            stats["hands/total"] = stats.get("hands/total", 0) + ended.size

    def _count_games(self, batch, done: np.ndarray, stats: dict) -> None:
        """Results of ended games in which the learner held a seat against an opponent."""
        vs = done[self.kind[done] != SELF]
        if vs.size:
            winner = batch.final["winner"][vs]
            seat = self.seat[vs]
            stats.setdefault("games/vs_pool", []).extend((winner == seat).astype(float).tolist())
            totals = batch.final["total"][vs].astype(float)
            mine = totals[np.arange(vs.size), seat]
            stats.setdefault("games/points", []).extend((mine - (totals.sum(1) - mine) / (totals.shape[1] - 1)).tolist())
            snap = vs[self.kind[vs] == SNAPSHOT]
            if snap.size and self.pool.snapshots:
                self.pool.note_results(self.snap[snap], batch.final["winner"][snap] == self.seat[snap])

    # -- state -------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """Everything the lanes need to go on exactly: the generator, the pool's agents'
        generators, the games in progress, each lane's opponent and seat and the method's part
        (PPO: the rollout's pending transitions)."""
        part = self.part.state_dict()
        return {"rng": rng_state(self.rng), "pool": self.pool.state_dict(), "env": env_state_dict(self.env),
                "kind": tensor(self.kind), "snap": tensor(self.snap), "seat": tensor(self.seat), **part}

    def load_state_dict(self, d: dict) -> None:
        """Put back :meth:`state_dict` (lanes set up from the same config, the pool holding
        the same snapshots)."""
        set_rng_state(self.rng, d["rng"])
        self.pool.load_state_dict(d["pool"])
        load_env_state(self.env, d["env"])
        self.kind, self.snap, self.seat = (d[k].numpy().copy() for k in ("kind", "snap", "seat"))
        self.part.load_state_dict(d)

    @property
    def num_envs(self) -> int:
        return len(self.kind)


def env_state_dict(env: SelfPlay) -> dict:
    """The games in progress of ``env``: its engine state, the seats' pending rewards and the
    current batch."""
    state, batch = env.state, env.batch
    return {"core": {f.name: tensor(getattr(state, f.name)) for f in dataclasses.fields(state)
                     if isinstance(getattr(state, f.name), np.ndarray)},
            "seat_rewards": tensor(env.seats.pending),
            "batch": {k: tensor(getattr(batch, k)) for k in ("player", "obs", "mask", "rewards", "done")}}


def load_env_state(env: SelfPlay, d: dict) -> None:
    """Put back :func:`env_state_dict` (``env`` made from the same config)."""
    for name, t in d["core"].items():
        arr = getattr(env.state, name)
        if arr.shape != tuple(t.shape):
            setattr(env.state, name, t.numpy().copy())
        else:
            arr[...] = t.numpy()
    # through the seats' own methods: they also mark the games that are owed a reward, which a
    # copy of ``pending`` alone would leave unmarked (their rewards then came late after a resume)
    owed = d["seat_rewards"].numpy()
    env.seats.clear()
    env.seats.add(owed, np.flatnonzero(owed.any(1)))
    for k, t in d["batch"].items():
        getattr(env.batch, k)[...] = t.numpy()
