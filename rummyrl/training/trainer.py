"""The state of a training run, and how a config sets it up.

A :class:`Trainer` holds the network and its optimizer, the self-play environments, the
opponent pool with the opponent of each lane, the rollout buffer, the random generators
and the counters; :mod:`.checkpoint` saves and restores all of it. With Ray workers
(``workers > 0``) the lanes live in the workers (:mod:`.workers`), and the trainer keeps
the learner's part: the network, the optimizer, the pool's snapshots and the counters.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from rummyrl.agents.neural import PolicyNet, game_io

from . import checkpoint
from .config import TrainConfig, resolve_device
from .pool import OpponentPool
from .rollout import Rollout, make_selfplay


@dataclass
class Trainer:
    """All the state of a run; ``save``/``load`` make ``--resume`` continue it exactly."""

    cfg: TrainConfig
    run_dir: Path
    net: PolicyNet = None
    opt: torch.optim.Optimizer = None
    env: object = None
    pool: OpponentPool = None
    rollout: Rollout = None
    rng: np.random.Generator = None
    torch_gen: torch.Generator = None
    global_step: int = 0
    updates: int = 0
    elapsed: float = 0.0
    best_score: float = -1.0
    last_eval: dict = field(default_factory=dict)
    lane_kind: np.ndarray = None
    lane_snap: np.ndarray = None
    lane_seat: np.ndarray = None
    interrupted: bool = False
    device: torch.device = None
    workers: object = None
    """Who plays the lanes (:mod:`.workers`), while :func:`~.loop.train` runs."""
    worker_states: dict = None
    """The Ray workers' states of the checkpoint this run resumes from, if any."""
    exit_teacher: object = None
    exit_buffer: object = None
    exit_pending: object = None
    """``algo: exit``: the search agent, the replay buffer and the records of games in
    progress (:mod:`.exit`; not in checkpoints)."""

    def setup(self) -> None:
        cfg = self.cfg
        np.random.seed(cfg.seed)
        torch.manual_seed(cfg.seed)
        self.rng = np.random.default_rng(cfg.seed)
        self.torch_gen = torch.Generator().manual_seed(cfg.seed)
        self.device = resolve_device(cfg.device)
        io = game_io(cfg.game, cfg.num_players)
        self.net = PolicyNet(io, cfg.net).to(self.device).eval()
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.learning_rate, eps=1e-5)
        if cfg.workers:
            self.pool = OpponentPool(cfg, self.rng)  # the snapshots; the lanes are the workers'
        else:
            setup_lanes(self, cfg, io)

    def payload(self) -> dict:
        return checkpoint.payload(self)

    def save(self, name: str) -> Path:
        return checkpoint.save(self, name)

    def load(self, data: dict) -> None:
        checkpoint.restore(self, data)


def setup_lanes(holder, cfg: TrainConfig, io) -> None:
    """Give ``holder`` (a :class:`Trainer`, or a Ray worker) self-play lanes seeded by
    ``cfg.seed``: the environments, the opponent pool drawing from ``holder.rng``, the
    rollout buffer and each lane's opponent and learner seat."""
    holder.env = make_selfplay(cfg)
    holder.env.reset(seed=cfg.seed)
    holder.pool = OpponentPool(cfg, holder.rng)
    holder.rollout = Rollout(cfg, io)
    holder.lane_kind, holder.lane_snap = holder.pool.draw(cfg.num_envs)
    holder.lane_seat = holder.rng.integers(0, cfg.num_players, cfg.num_envs)
