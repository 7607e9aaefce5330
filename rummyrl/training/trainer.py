"""The state of a training run, and how a config sets it up.

A :class:`Trainer` holds the network and its optimizer, the self-play environments, the
opponent pool with the opponent of each lane, the rollout buffer, the random generators
and the counters; :mod:`.checkpoint` saves and restores all of it. With Ray workers
(``workers > 0``) the lanes live in the workers (:mod:`.workers`), and the trainer keeps
the learner's part: the network, the optimizer, the pool's snapshots and the counters.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from rummyrl.agents.neural import PolicyNet, game_io, load_checkpoint

from . import checkpoint
from .config import ConfigError, TrainConfig, resolve_device
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

    def setup(self, fresh: bool = True) -> None:
        """The network (from ``cfg.init`` when set and ``fresh``: a resumed run needs not
        the init checkpoint, its own holds the weights), optimizer, pool and lanes."""
        cfg = self.cfg
        np.random.seed(cfg.seed)
        torch.manual_seed(cfg.seed)
        self.rng = np.random.default_rng(cfg.seed)
        self.torch_gen = torch.Generator().manual_seed(cfg.seed)
        self.device = resolve_device(cfg.device)
        io = game_io(cfg.game, cfg.num_players)
        self.net = PolicyNet(io, cfg.net)
        if cfg.init and fresh:
            self.net.load_state_dict(init_weights(cfg))
        self.net = self.net.to(self.device).eval()
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


def init_weights(cfg: TrainConfig) -> dict:
    """The network weights of checkpoint ``cfg.init``, refused (naming what differs) unless
    it holds a network of this run's game, players and ``net`` config."""
    try:
        data = load_checkpoint(cfg.init, cfg.game)
    except (OSError, ValueError) as e:
        raise ConfigError(f"init: {e}") from None
    if data.get("num_players") != cfg.num_players:
        raise ConfigError(f"init: {cfg.init} is a {data.get('num_players')}-player network, this run has "
                          f"num_players={cfg.num_players}")
    want = asdict(cfg.net)
    differ = {k: (data["net_config"].get(k), v) for k, v in want.items() if data["net_config"].get(k) != v}
    if differ:
        raise ConfigError(f"init: the network of {cfg.init} differs from this run's net config in "
                          + ", ".join(f"net.{k} ({a!r} there, {b!r} here)" for k, (a, b) in differ.items()))
    return data["model"]
