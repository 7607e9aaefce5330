"""The state of a training run: how a config sets it up, and its checkpoints.

A :class:`Trainer` holds the network and its optimizer, the random generators, the
opponent pool's snapshots, the counters and, when the lanes are played in this process
(``workers=0``), the :class:`~.lanes.Lanes` (whose pool is the trainer's). With Ray workers
(``workers > 0``) the lanes live in the workers (:mod:`.workers`), and the trainer keeps
the learner's part.

A checkpoint is :meth:`Trainer.state_dict`, written by ``rummyrl.agents.checkpoint``
(atomically: a killed run never leaves a half-written ``last.pt``): the learner's part
(network, optimizer, counters, its random generators, the pool's snapshots) and the lanes'
part, :meth:`~.lanes.Lanes.state_dict`: under ``lanes`` when the lanes are played in this
process, under ``workers`` (one per Ray worker, with its generation and number of lanes)
when Ray workers play them. :meth:`Trainer.load_state_dict` puts it back into a freshly
set-up trainer, so a resumed run makes the same draws as one never stopped. A checkpoint
also loads as an agent (``game``, ``num_players``, ``net_config``, ``model``). Tensors are
saved on the CPU whatever device trained them (and read back with ``map_location="cpu"``),
so a checkpoint written by a GPU learner loads on any machine. The run's method
(:mod:`.methods`) adds what it keeps (an ``overlap`` PPO run's ``last.pt``: the rollout
played but not yet learned from, ``pending``), so every method resumes exactly.
"""

from __future__ import annotations

import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch

from rummyrl.agents.checkpoint import load_checkpoint, save_checkpoint
from rummyrl.agents.network import NetConfig, PolicyNet

from . import methods
from .config import ConfigError, TrainConfig
from .device import resolve_device, resolve_precision
from .lanes import Lanes
from .pool import OpponentPool, snapshot_agent
from .state import rng_state, set_rng_state, to_cpu


@dataclass
class Trainer:
    """All the state of a run; ``save`` and ``load_state_dict`` make ``--resume`` continue it exactly."""

    cfg: TrainConfig
    run_dir: Path
    net: PolicyNet = None
    opt: torch.optim.Optimizer = None
    pool: OpponentPool = None
    """The opponent pool: the snapshots are the learner's; in process it is the lanes' pool."""
    lanes: Lanes = None
    """The self-play lanes when they are played in this process (``workers=0``), else None."""
    rng: np.random.Generator = None
    torch_gen: torch.Generator = None
    global_step: int = 0
    updates: int = 0
    elapsed: float = 0.0
    best_score: float = -1.0
    last_eval: dict = field(default_factory=dict)
    start_eval: dict = None
    """The network the run started from, on the final report's deals (:func:`~.evaluation.start_eval`)."""
    interrupted: bool = False
    device: torch.device = None
    precision: str = "fp32"
    """What the trunk computes in (``cfg.precision`` resolved on ``device``)."""
    method: methods.Method = None
    """How the run learns (``cfg.algo``, :mod:`.methods`): PPO, expert iteration."""
    workers: object = None
    """Who plays the lanes (:mod:`.workers`), while :func:`~.loop.train` runs."""
    worker_states: dict = None
    """The Ray workers' states of the checkpoint this run resumes from, if any."""

    def setup(self, fresh: bool = True) -> None:
        """The network (from ``cfg.init`` when set and ``fresh``: a resumed run needs not
        the init checkpoint, its own holds the weights), optimizer, pool, lanes and method."""
        cfg = self.cfg
        np.random.seed(cfg.seed)
        torch.manual_seed(cfg.seed)
        self.rng = np.random.default_rng(cfg.seed)
        self.torch_gen = torch.Generator().manual_seed(cfg.seed)
        self.device = resolve_device(cfg.device)
        self.precision = resolve_precision(cfg.precision, self.device)
        self.net = PolicyNet(cfg.game, cfg.net)  # float32; the PPO updates compute in self.precision
        if cfg.init and fresh:
            self.net.load_state_dict(init_weights(cfg))
        self.net = self.net.to(self.device).eval()
        self.opt = torch.optim.Adam(self.net.parameters(), lr=cfg.learning_rate, eps=1e-5)
        if cfg.workers:
            self.pool = OpponentPool(cfg, self.rng)  # the snapshots; the lanes are the workers'
        else:
            self.lanes = Lanes(cfg, self.rng)
            self.pool = self.lanes.pool
        self.method = methods.get(cfg.algo)(self)

    def end_update(self, steps: int) -> None:
        """Count an update of ``steps`` env steps, add the snapshot when one is due and hand
        the new weights to the workers."""
        self.updates += 1
        self.global_step += steps
        snapshot = self.updates % self.cfg.snapshot_every == 0
        if snapshot:
            self.pool.add_snapshot(self.net)
        self.workers.broadcast(self.net, snapshot)  # Ray: the new weights into the object store, once

    def state_dict(self, resumable: bool = True) -> dict:
        """What a checkpoint of the run holds (the module docstring); ``resumable`` (``last.pt``)
        adds what the method keeps for a resume (an ``overlap`` run's rollout not yet learned from)."""
        cfg = self.cfg
        data = {
            "game": cfg.game, "num_players": cfg.num_players,
            "net_config": asdict(cfg.net), "model": to_cpu(self.net.state_dict()),
            "train_config": asdict(cfg),
            "optimizer": to_cpu(self.opt.state_dict()),
            "counters": {"global_step": self.global_step, "updates": self.updates, "elapsed": self.elapsed,
                         "best_score": self.best_score, "precision": self.precision},
            "last_eval": self.last_eval,
            **({"start_eval": self.start_eval} if self.start_eval else {}),
            "rng": {"numpy": rng_state(self.rng), "torch": self.torch_gen.get_state(),
                    "torch_global": torch.get_rng_state()},
            "pool": [{"model": to_cpu(a.net.state_dict()), "rng": rng_state(a.rng)} for a in self.pool.snapshots],
        }
        if self.lanes is not None:
            data["lanes"] = self.lanes.state_dict()
        data.update(self.method.state_dict(resumable))
        if self.workers is not None and self.workers.remote:
            data["workers"] = self.workers.state()
        return data

    def save(self, name: str) -> Path:
        """Write the run's checkpoint to ``name`` in its run folder."""
        path = self.run_dir / name
        save_checkpoint(path, self.state_dict(resumable=name == "last.pt"))
        return path

    def load_state_dict(self, data: dict) -> None:
        """Continue from a loaded checkpoint (this trainer set up from the same config, or
        from one with other lanes or workers: then the lanes start afresh)."""
        data = _lanes_in_one_place(data)
        self.net.load_state_dict(data["model"])
        self.opt.load_state_dict(data["optimizer"])
        c = data["counters"]
        self.global_step, self.updates = int(c["global_step"]), int(c["updates"])
        self.elapsed, self.best_score = float(c["elapsed"]), float(c["best_score"])
        self.last_eval = dict(data.get("last_eval", {}))
        self.method.load_state_dict(data)
        self.start_eval = data.get("start_eval")
        set_rng_state(self.rng, data["rng"]["numpy"])
        self.torch_gen.set_state(data["rng"]["torch"])
        torch.set_rng_state(data["rng"]["torch_global"])
        self.pool.snapshots = []
        for i, snap in enumerate(data["pool"]):
            agent = snapshot_agent(self.net.game, self.net.cfg, snap["model"], i, precision=self.pool.precision)
            set_rng_state(agent.rng, snap["rng"])
            self.pool.snapshots.append(agent)
        self.pool.record = [[0, 0] for _ in self.pool.snapshots]  # the lanes' state holds the counts
        if self.lanes is not None:
            lanes = data.get("lanes")
            if lanes is None:
                print("resume: the checkpoint's games were played by Ray workers; the lanes in this process "
                      "start afresh", file=sys.stderr)
            elif len(lanes["kind"]) != self.lanes.num_envs:
                print(f"resume: the checkpoint has {len(lanes['kind'])} game lanes and this run "
                      f"num_envs={self.lanes.num_envs}; the lanes start afresh", file=sys.stderr)
            else:
                self.lanes.load_state_dict(lanes)
        self.worker_states = data.get("workers")


def init_weights(cfg: TrainConfig) -> dict:
    """The network weights of checkpoint ``cfg.init``, refused (naming what differs) unless
    it holds a network of this run's game, players and ``net`` config."""
    try:
        data = load_checkpoint(cfg.init, cfg.game)
        theirs = asdict(NetConfig.from_dict(data["net_config"]))
    except (OSError, ValueError, TypeError) as e:
        raise ConfigError(f"init: {e}") from None
    if data.get("num_players") != cfg.num_players:
        raise ConfigError(f"init: {cfg.init} is a {data.get('num_players')}-player network, this run has "
                          f"num_players={cfg.num_players}")
    differ = {k: (theirs[k], v) for k, v in asdict(cfg.net).items() if theirs[k] != v}
    if differ:
        raise ConfigError(f"init: the network of {cfg.init} differs from this run's net config in "
                          + ", ".join(f"net.{k} ({a!r} there, {b!r} here)" for k, (a, b) in differ.items()))
    return data["model"]


def _lanes_in_one_place(data: dict) -> dict:
    """A checkpoint written before :class:`~.lanes.Lanes` (its lanes' state spread over
    ``env``, ``lanes``, ``rollout`` and ``rng``; a worker's with ``baselines`` and
    ``snapshots`` beside them) in today's layout; today's as it is."""
    def one(d: dict, rng: dict, baselines: dict, snapshots: list) -> dict:
        return {"rng": rng, "pool": {"baselines": baselines, "snapshots": snapshots}, "env": d["env"],
                **d["lanes"], "rollout": d["rollout"]}

    data = dict(data)
    if "env" in data:  # in process
        data["lanes"] = one(data, data["rng"]["numpy"], data["rng"]["baselines"], [p["rng"] for p in data["pool"]])
    if data.get("workers") and any(s is not None and "baselines" in s for s in data["workers"]["states"]):
        data["workers"] = {**data["workers"], "states": [
            None if s is None else {"generation": s["generation"], "num_envs": s["num_envs"],
                                    **one(s, s["rng"], s["baselines"], s["snapshots"])}
            for s in data["workers"]["states"]]}
    return data
