"""The state of a training run, and how a config sets it up.

A :class:`Trainer` holds the network and its optimizer, the self-play environments, the
opponent pool with the opponent of each lane, the rollout buffer, the random generators
and the counters; :mod:`.checkpoint` saves and restores all of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from rummyrl.agents.neural import PolicyNet, game_io

from . import checkpoint
from .config import TrainConfig
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

    def setup(self) -> None:
        cfg = self.cfg
        np.random.seed(cfg.seed)
        torch.manual_seed(cfg.seed)
        self.rng = np.random.default_rng(cfg.seed)
        self.torch_gen = torch.Generator().manual_seed(cfg.seed)
        io = game_io(cfg.game, cfg.num_players)
        self.net = PolicyNet(io, cfg.net).eval()
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.learning_rate, eps=1e-5)
        self.env = make_selfplay(cfg)
        self.env.reset(seed=cfg.seed)
        self.pool = OpponentPool(cfg, self.rng)
        self.rollout = Rollout(cfg, io)
        self.lane_kind, self.lane_snap = self.pool.draw(cfg.num_envs)
        self.lane_seat = self.rng.integers(0, cfg.num_players, cfg.num_envs)

    def payload(self) -> dict:
        return checkpoint.payload(self)

    def save(self, name: str) -> Path:
        return checkpoint.save(self, name)

    def load(self, data: dict) -> None:
        checkpoint.restore(self, data)
