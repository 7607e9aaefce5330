"""Checkpoints: everything needed to continue exactly where a run stopped.

:func:`payload` gathers a :class:`~rummyrl.training.trainer.Trainer`'s state (network,
optimizer, counters, every random generator, the environments' games in progress, the
pool's snapshots, the lanes' opponents and the rollout's pending transitions) into the
dict ``agents/neural.py`` saves; :func:`restore` puts it back into a freshly set-up trainer,
so a resumed run makes the same draws as one never stopped. A checkpoint also loads as an
agent (``game``, ``num_players``, ``net_config``, ``model``).

Tensors are saved on the CPU whatever device trained them (and read back with
``map_location="cpu"``), so a checkpoint written by a GPU learner loads on any machine.
With Ray workers the lanes live in the workers: instead of ``env``, ``lanes`` and
``rollout`` a checkpoint holds ``workers``, each worker's :func:`lanes_state`.
"""

from __future__ import annotations

import dataclasses
import sys
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


def map_leaves(obj, kind, fn):
    """``obj`` with ``fn`` applied to every value of type ``kind`` inside it (dicts, lists and
    tuples rebuilt, anything else kept as it is)."""
    if isinstance(obj, kind):
        return fn(obj)
    if isinstance(obj, dict):
        return {k: map_leaves(v, kind, fn) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(map_leaves(v, kind, fn) for v in obj)
    return obj


def _cpu(obj):
    """``obj`` with every tensor on the CPU."""
    return map_leaves(obj, torch.Tensor, lambda t: t.cpu())


def lanes_state(holder) -> dict:
    """The state of a set of lanes (a Ray worker's): its games in progress, each lane's
    opponent and seat, the rollout's pending transitions and every random generator of
    the lanes, the pool's snapshots' included (their weights are the learner's)."""
    return {
        "rng": _np_rng_state(holder.rng),
        "baselines": {k: _np_rng_state(a.rng) for k, a in holder.pool.baselines.items() if hasattr(a, "rng")},
        "snapshots": [_np_rng_state(a.rng) for a in holder.pool.snapshots],
        "env": env_state_dict(holder.env),
        "lanes": {"kind": torch.from_numpy(holder.lane_kind.copy()), "snap": torch.from_numpy(holder.lane_snap.copy()),
                  "seat": torch.from_numpy(holder.lane_seat.copy())},
        "rollout": holder.rollout.state_dict(),
    }


def load_lanes_state(holder, d: dict) -> None:
    """Put back what :func:`lanes_state` saved (``holder`` set up with the same lanes and
    the same snapshots)."""
    _set_np_rng_state(holder.rng, d["rng"])
    for k, st in d["baselines"].items():
        _set_np_rng_state(holder.pool.baseline(int(k)).rng, st)
    for agent, st in zip(holder.pool.snapshots, d["snapshots"]):
        _set_np_rng_state(agent.rng, st)
    load_env_state(holder.env, d["env"])
    holder.lane_kind = d["lanes"]["kind"].numpy().copy()
    holder.lane_snap = d["lanes"]["snap"].numpy().copy()
    holder.lane_seat = d["lanes"]["seat"].numpy().copy()
    holder.rollout.load_state_dict(d["rollout"])


def payload(tr: Trainer) -> dict:
    """What a checkpoint of ``tr`` holds."""
    cfg = tr.cfg
    data = {
        "game": cfg.game, "num_players": cfg.num_players,
        "net_config": dataclasses.asdict(cfg.net), "model": _cpu(tr.net.state_dict()),
        "train_config": dataclasses.asdict(cfg),
        "optimizer": _cpu(tr.opt.state_dict()),
        "counters": {"global_step": tr.global_step, "updates": tr.updates, "elapsed": tr.elapsed,
                     "best_score": tr.best_score},
        "last_eval": tr.last_eval,
        "rng": {"numpy": _np_rng_state(tr.rng), "torch": tr.torch_gen.get_state(),
                "torch_global": torch.get_rng_state(),
                "baselines": {k: _np_rng_state(a.rng) for k, a in tr.pool.baselines.items()
                              if hasattr(a, "rng")}},
        "pool": [{"model": a.net.state_dict(), "rng": _np_rng_state(a.rng)} for a in tr.pool.snapshots],
    }
    if tr.env is not None:  # the lanes played in this process
        data["env"] = env_state_dict(tr.env)
        data["lanes"] = {"kind": torch.from_numpy(tr.lane_kind), "snap": torch.from_numpy(tr.lane_snap),
                         "seat": torch.from_numpy(tr.lane_seat)}
        data["rollout"] = tr.rollout.state_dict()
    if tr.workers is not None and tr.workers.remote:
        data["workers"] = tr.workers.state()
    return data


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
        _set_np_rng_state(tr.pool.baseline(int(k)).rng, st)
    tr.pool.snapshots = []
    for i, snap in enumerate(data["pool"]):
        copy = PolicyNet(tr.net.io, tr.net.cfg)
        copy.load_state_dict(snap["model"])
        agent = NeuralAgent(copy, name=f"snapshot{i}", greedy=False)
        _set_np_rng_state(agent.rng, snap["rng"])
        tr.pool.snapshots.append(agent)
    if tr.env is not None:
        lanes = data["lanes"]["kind"].shape[0] if "env" in data else None
        if lanes is not None and lanes != len(tr.lane_kind):
            print(f"resume: the checkpoint has {lanes} game lanes and this run num_envs={len(tr.lane_kind)}; "
                  "the lanes start afresh", file=sys.stderr)
        elif lanes is not None:
            load_env_state(tr.env, data["env"])
            tr.lane_kind = data["lanes"]["kind"].numpy().copy()
            tr.lane_snap = data["lanes"]["snap"].numpy().copy()
            tr.lane_seat = data["lanes"]["seat"].numpy().copy()
            tr.rollout.load_state_dict(data["rollout"])
        else:
            print("resume: the checkpoint's games were played by Ray workers; the lanes in this process "
                  "start afresh", file=sys.stderr)
    tr.worker_states = data.get("workers")
