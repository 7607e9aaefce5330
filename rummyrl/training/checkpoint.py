"""Checkpoints: everything needed to continue exactly where a run stopped.

:func:`payload` gathers a :class:`~rummyrl.training.trainer.Trainer`'s state (network,
optimizer, counters, every random generator, the environments' games in progress, the
pool's snapshots, the lanes' opponents and the rollout's pending transitions) into the
dict ``agents/neural.py`` saves; :func:`restore` puts it back into a freshly set-up trainer,
so a resumed run makes the same draws as one never stopped. A checkpoint also loads as an
agent (``game``, ``num_players``, ``net_config``, ``model``).
"""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path

import numpy as np
import torch

from rummyrl.agents.neural import NeuralAgent, PolicyNet, save_checkpoint

if typing.TYPE_CHECKING:
    from .trainer import Trainer


def _arrays_of(obj) -> dict:
    return {f.name: torch.from_numpy(np.ascontiguousarray(getattr(obj, f.name)))
            for f in dataclasses.fields(obj) if isinstance(getattr(obj, f.name), np.ndarray)}


def env_state_dict(env) -> dict:
    b = env.batch
    return {"core": _arrays_of(env.state), "seat_rewards": torch.from_numpy(env.seats.pending.copy()),
            "batch": {k: torch.from_numpy(np.ascontiguousarray(getattr(b, k)))
                      for k in ("player", "obs", "mask", "rewards", "done")}}


def load_env_state(env, d: dict) -> None:
    for name, t in d["core"].items():
        arr = getattr(env.state, name)
        if arr.shape != tuple(t.shape):
            setattr(env.state, name, t.numpy().copy())
        else:
            arr[...] = t.numpy()
    env.seats.pending[:] = d["seat_rewards"].numpy()
    for k, t in d["batch"].items():
        getattr(env.batch, k)[...] = t.numpy()


def _np_rng_state(rng: np.random.Generator) -> dict:
    s = rng.bit_generator.state
    return {"bit_generator": s["bit_generator"], "state": str(s["state"]["state"]), "inc": str(s["state"]["inc"]),
            "has_uint32": s["has_uint32"], "uinteger": s["uinteger"]}


def _set_np_rng_state(rng: np.random.Generator, d: dict) -> None:
    rng.bit_generator.state = {"bit_generator": d["bit_generator"],
                               "state": {"state": int(d["state"]), "inc": int(d["inc"])},
                               "has_uint32": d["has_uint32"], "uinteger": d["uinteger"]}


def payload(tr: Trainer) -> dict:
    """What a checkpoint of ``tr`` holds."""
    cfg = tr.cfg
    return {
        "game": cfg.game, "num_players": cfg.num_players,
        "net_config": dataclasses.asdict(cfg.net), "model": tr.net.state_dict(),
        "train_config": dataclasses.asdict(cfg),
        "optimizer": tr.opt.state_dict(),
        "counters": {"global_step": tr.global_step, "updates": tr.updates, "elapsed": tr.elapsed,
                     "best_score": tr.best_score},
        "last_eval": tr.last_eval,
        "rng": {"numpy": _np_rng_state(tr.rng), "torch": tr.torch_gen.get_state(),
                "torch_global": torch.get_rng_state(),
                "baselines": {k: _np_rng_state(a.rng) for k, a in tr.pool.baselines.items()
                              if hasattr(a, "rng")}},
        "env": env_state_dict(tr.env),
        "pool": [{"model": a.net.state_dict(), "rng": _np_rng_state(a.rng)} for a in tr.pool.snapshots],
        "lanes": {"kind": torch.from_numpy(tr.lane_kind), "snap": torch.from_numpy(tr.lane_snap),
                  "seat": torch.from_numpy(tr.lane_seat)},
        "rollout": tr.rollout.state_dict(),
    }


def save(tr: Trainer, name: str) -> Path:
    """Write ``tr``'s checkpoint to ``name`` in its run folder."""
    path = tr.run_dir / name
    save_checkpoint(path, payload(tr))
    return path


def restore(tr: Trainer, data: dict) -> None:
    """Continue ``tr`` (set up from the same config) from a loaded checkpoint."""
    tr.net.load_state_dict(data["model"])
    tr.opt.load_state_dict(data["optimizer"])
    c = data["counters"]
    tr.global_step, tr.updates = int(c["global_step"]), int(c["updates"])
    tr.elapsed, tr.best_score = float(c["elapsed"]), float(c["best_score"])
    tr.last_eval = dict(data.get("last_eval", {}))
    _set_np_rng_state(tr.rng, data["rng"]["numpy"])
    tr.torch_gen.set_state(data["rng"]["torch"])
    torch.set_rng_state(data["rng"]["torch_global"])
    for k, st in data["rng"]["baselines"].items():
        _set_np_rng_state(tr.pool.baselines[int(k)].rng, st)
    load_env_state(tr.env, data["env"])
    tr.pool.snapshots = []
    for i, snap in enumerate(data["pool"]):
        copy = PolicyNet(tr.net.io, tr.net.cfg)
        copy.load_state_dict(snap["model"])
        agent = NeuralAgent(copy, name=f"snapshot{i}", greedy=False)
        _set_np_rng_state(agent.rng, snap["rng"])
        tr.pool.snapshots.append(agent)
    tr.lane_kind = data["lanes"]["kind"].numpy().copy()
    tr.lane_snap = data["lanes"]["snap"].numpy().copy()
    tr.lane_seat = data["lanes"]["seat"].numpy().copy()
    tr.rollout.load_state_dict(data["rollout"])
