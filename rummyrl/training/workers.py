"""Rollout workers: who plays the self-play lanes and hands the learner its rollouts.

Two kinds behind one small interface, chosen by ``cfg.workers`` (:func:`make_workers`):

* :class:`InProcessWorkers` (``workers=0``, the default): the trainer's own
  :class:`~.lanes.Lanes`, played in this process.
* :class:`RayWorkers` (``workers=N``): N Ray actors, each a :class:`RolloutWorker` holding
  its own :class:`~.lanes.Lanes` with its share of the ``num_envs`` lanes (``num_envs`` is
  the total: worker ``i`` gets ``num_envs // N``, one more for the first ``num_envs % N``),
  its own opponent pool and a CPU copy of the policy. Each update the learner asks every
  worker for a rollout of ``rollout_steps`` steps, concatenates them (in worker order),
  updates, and puts the new weights into Ray's object store once (``ray.put``); every
  worker reads them from there at the start of its next rollout. A pool snapshot is those
  same weights, flagged, so snapshots travel the same way. Ray is imported only here, and
  only when workers are asked for (``pip install -e ".[ray]"``).

What the lanes hand over is the run's method's (:mod:`.methods`): PPO's rollouts, or expert
iteration's search records; the workers' parts are joined by the method's ``concat``.
Everything else is the same.

The interface, per update: :meth:`collect` returns the rollout (a plain dict of numpy
arrays, :data:`~.rollout.FIELDS`) and the game statistics; :meth:`broadcast` hands over
the updated network (and whether it is also a new snapshot); :meth:`state` is what a
checkpoint keeps of the workers; :meth:`close` ends them. ``timings`` holds the last
update's seconds spent gathering, concatenating and broadcasting, which ``train`` logs.

Seeds and reproducibility
-------------------------
Worker ``i`` seeds everything it draws (deals, actions, opponents, seats) from
``(seed, i, generation)`` (:func:`worker_seed`); the generation is 0 unless the worker was
replaced (then one more) or started afresh on a resume (then the update count). Rollouts
are concatenated in worker order, not in the order they arrive, and the learner's update
is the in-process one, so **a run is reproducible given (seed, workers, num_envs)**: the
same config gives the same weights after the same number of updates, and ``--resume``
continues exactly (a checkpoint holds every worker's games, lanes, pending transitions and
random generators). **Not reproducible:** a run with another number of workers (other
lanes, other seed streams) or in process (``workers=0`` is a stream of its own), a run in
which a worker was replaced (its new generation deals fresh games), and a resume with
another worker count (the workers start afresh). What depends on the clock (the time
limit, when checkpoints and evaluations happen) varies as it does in process, and a CUDA
learner may differ in the last bits from run to run, as CUDA kernels do.

Failures
--------
Actors are created with ``max_restarts``: Ray restarts an actor whose process died. A call
that fails with ``RayActorError`` (or reaches a restarted, not yet set-up worker) makes
the learner set the worker up again on the restarted actor or, if it is gone for good
(``ray.kill``, a lost node), on a new one; it gets the current weights and snapshots, and
its rollout for this update is asked for again, so the run goes on with the same number of
lanes. Replacements are counted in ``restarts`` and logged.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
import typing

import numpy as np
import torch

from rummyrl.agents.network import PolicyNet
from rummyrl.distributed import RaySession, local_cpus

from .config import TrainConfig
from .lanes import Lanes
from .state import to_numpy, to_torch

if typing.TYPE_CHECKING:
    from .trainer import Trainer

#: restarts Ray makes of a worker's process by itself
MAX_RESTARTS = 3
#: replacements in a row for one worker within one update before the run gives up
MAX_REPLACEMENTS = 3


def worker_seed(seed: int, index: int, generation: int = 0) -> int:
    """The seed of worker ``index`` (its ``generation``-th incarnation) in a run seeded ``seed``."""
    return int(np.random.SeedSequence([seed, index, generation]).generate_state(1)[0])


def split_lanes(num_envs: int, workers: int) -> list[int]:
    """Lanes per worker: ``num_envs`` shared as evenly as it goes, the first ones one more."""
    base, extra = divmod(num_envs, workers)
    return [base + (i < extra) for i in range(workers)]


def weights_of(net: torch.nn.Module) -> dict[str, np.ndarray]:
    """A network's weights as CPU numpy arrays (what travels through the object store)."""
    return {k: v.detach().cpu().numpy() for k, v in net.state_dict().items()}


def load_weights(net: torch.nn.Module, weights: dict[str, np.ndarray]) -> None:
    # arrays from the object store are read-only: copy them
    net.load_state_dict({k: torch.from_numpy(np.array(v)) for k, v in weights.items()})


def merge_stats(parts: list[dict]) -> dict:
    """The game statistics of several rollouts: counts added, lists joined."""
    out: dict = {}
    for st in parts:
        for k, v in st.items():
            if isinstance(v, list):
                out.setdefault(k, []).extend(v)
            else:
                out[k] = out.get(k, 0) + v
    return out


class WorkerNotReady(RuntimeError):
    """A worker that has not been set up (Ray restarted its process) was asked for work."""


# --------------------------------------------------------------------------------------
# In process
# --------------------------------------------------------------------------------------
class InProcessWorkers:
    """``workers=0``: the trainer's own lanes, played here."""

    remote = False
    restarts = 0

    def __init__(self, tr: Trainer):
        self.tr = tr
        self.timings: dict = {}

    def collect(self, net: PolicyNet | None = None) -> tuple[dict, dict]:
        """A rollout played by ``net`` (default the trainer's network)."""
        stats: dict = {}
        return self.tr.lanes.collect(self.tr.net if net is None else net, stats), stats

    def broadcast(self, net: PolicyNet, snapshot: bool) -> None:
        """Nothing to send: the lanes use the trainer's network and pool."""

    def state(self) -> None:
        return None

    def close(self) -> None:
        pass


# --------------------------------------------------------------------------------------
# A worker: the lanes of one Ray actor
# --------------------------------------------------------------------------------------
class RolloutWorker:
    """The lanes of one Ray actor (usable in process too): ``num_envs`` self-play games, an
    opponent pool and a CPU copy of the policy, seeded by :func:`worker_seed`.

    :meth:`setup` builds (or rebuilds) it; until then :meth:`collect` raises
    :class:`WorkerNotReady`, which is how the learner notices that Ray restarted the
    actor's process."""

    def __init__(self, cfg: TrainConfig, index: int, num_envs: int):
        torch.set_num_threads(1)  # small batches; one CPU per worker
        torch.set_flush_denormal(True)  # as the learner (Trainer.setup): denormals are slow
        self.base_cfg, self.index, self.num_envs = cfg, index, num_envs
        self.ready = False

    def setup(self, generation: int, snapshots: list | None = None, state: dict | None = None) -> dict:
        """Fresh lanes for ``generation``, the pool's ``snapshots`` (weights, oldest first)
        and, when resuming, the :meth:`~.lanes.Lanes.state_dict` a checkpoint saved (with
        this worker's generation and number of lanes). Returns where the worker runs."""
        seed = worker_seed(self.base_cfg.seed, self.index, generation)
        cfg = dataclasses.replace(self.base_cfg, num_envs=self.num_envs, seed=seed, workers=0, device="cpu")
        self.generation = generation
        self.net = PolicyNet(cfg.game, cfg.net).eval()
        self.lanes = Lanes(cfg, np.random.default_rng(seed))
        for w in snapshots or ():
            self._add_snapshot(w)
        if state is not None:
            self.lanes.load_state_dict(to_torch(state))
        self.ready = True
        return {"index": self.index, "generation": generation, "pid": os.getpid(), "node": _node_id()}

    def _add_snapshot(self, weights: dict) -> None:
        load_weights(self.net, weights)
        self.lanes.pool.add_snapshot(self.net)

    def _check_ready(self) -> None:
        if not self.ready:
            raise WorkerNotReady(f"worker {self.index} is not set up (restarted?)")

    def add_snapshot(self, weights: dict) -> None:
        """Add ``weights`` to the pool now (as :meth:`collect` does when told to)."""
        self._check_ready()
        self._add_snapshot(weights)

    def collect(self, weights: dict, snapshot: bool = False) -> tuple[dict, dict, float]:
        """Load ``weights`` (and add them to the pool when ``snapshot``), play a rollout.
        Returns (rollout, statistics, seconds spent here). The rollout's arrays are views
        of the buffer until the next call (Ray copies them out as the call returns)."""
        self._check_ready()
        t0 = time.perf_counter()
        load_weights(self.net, weights)
        if snapshot:
            self.lanes.pool.add_snapshot(self.net)
        stats: dict = {}
        rollout = self.lanes.collect(self.net, stats)
        return rollout, stats, time.perf_counter() - t0

    def state_dict(self) -> dict:
        """What a checkpoint keeps of this worker: its generation, its number of lanes and
        its lanes' state."""
        self._check_ready()
        return to_numpy({"generation": self.generation, "num_envs": self.num_envs, **self.lanes.state_dict()})


def _node_id() -> str | None:
    try:
        import ray  # Ray is an optional extra: imported where a Ray worker runs, never at import time

        return ray.get_runtime_context().get_node_id() if ray.is_initialized() else None
    except Exception:  # noqa: BLE001 - informative only
        return None


# --------------------------------------------------------------------------------------
# On Ray
# --------------------------------------------------------------------------------------
class RayWorkers:
    """``workers=N``: N :class:`RolloutWorker` actors on Ray (local, or the cluster of
    ``cfg.ray_address``). ``states``: the workers of a checkpoint, resumed when their
    number and lanes match."""

    remote = True

    def __init__(self, tr: Trainer, states: dict | None = None):
        cfg = tr.cfg
        self.tr = tr
        self.session = RaySession(cfg.ray_address, num_cpus=local_cpus(cfg.workers))
        ray = self.ray = self.session.ray
        from ray.exceptions import RayActorError  # Ray is an optional extra: imported once it is running

        self._lost = (RayActorError, WorkerNotReady)
        self.handles: list = []
        self.restarts = 0
        self.timings: dict = {}
        try:
            if self.session.cpus() < cfg.workers:
                print(f"warning: {cfg.workers} workers ask for one CPU each and this Ray has "
                      f"{self.session.cpus():g}: some wait until CPUs join", file=sys.stderr)
            self.shares = split_lanes(cfg.num_envs, cfg.workers)
            saved = self._usable(states)
            # a worker that starts afresh on a resume deals from generation `updates` (0 in a new
            # run), so it does not replay the first deals of the run
            self.generation = [int(s["generation"]) if s is not None else tr.updates for s in saved]
            snaps = self._snapshots()
            self.handles = [self._new_actor(i) for i in range(cfg.workers)]
            self.info = ray.get([h.setup.remote(g, snaps, to_numpy(s))
                                 for h, g, s in zip(self.handles, self.generation, saved)])
            self.weights = ray.put(weights_of(tr.net))
            self.snapshot = False
        except BaseException:
            self.close()
            raise

    def _usable(self, states: dict | None) -> list:
        n = self.tr.cfg.workers
        if not states:
            return [None] * n
        saved = states.get("states") or []
        if len(saved) != n or any(s is not None and s["num_envs"] != k for s, k in zip(saved, self.shares)):
            print(f"resume: the checkpoint's games were played by {len(saved)} worker(s) "
                  f"(this run has {n}, or other lanes); the workers start afresh", file=sys.stderr)
            return [None] * n
        return list(saved)

    def _new_actor(self, index: int):
        actor = self.ray.remote(RolloutWorker).options(
            num_cpus=1, max_restarts=MAX_RESTARTS, max_task_retries=0, scheduling_strategy="SPREAD")
        return actor.remote(self.tr.cfg, index, self.shares[index])

    def _snapshots(self):
        """The pool's snapshots (the learner's) as one object in the store."""
        return self.ray.put([weights_of(a.net) for a in self.tr.pool.snapshots])

    def collect(self) -> tuple[dict, dict]:
        t0 = time.perf_counter()
        refs = [h.collect.remote(self.weights, self.snapshot) for h in self.handles]
        outs = [self._result(i, ref) for i, ref in enumerate(refs)]  # in worker order
        self.snapshot = False
        t1 = time.perf_counter()
        rollout = self.tr.method.concat([o[0] for o in outs])
        stats = merge_stats([o[1] for o in outs])
        t2 = time.perf_counter()
        busy = max(o[2] for o in outs)
        self.timings = {"gather": t1 - t0, "worker_rollout": busy, "wait_overhead": max(t1 - t0 - busy, 0.0),
                        "concat": t2 - t1}
        return rollout, stats

    def _result(self, i: int, ref):
        for attempt in range(MAX_REPLACEMENTS + 1):
            try:
                return self.ray.get(ref)
            except self._lost as e:
                if attempt == MAX_REPLACEMENTS:
                    raise RuntimeError(f"rollout worker {i} failed {attempt + 1} times in one update; "
                                       f"giving up ({type(e).__name__}: {e})") from e
                self._replace(i, e)
                ref = self.handles[i].collect.remote(self.weights, False)  # the new snapshot came with setup

    def _replace(self, i: int, error: BaseException) -> None:
        """Set worker ``i`` up again, on its restarted actor or on a new one, with the
        current weights and snapshots and fresh games (its next seed generation)."""
        ray = self.ray
        self.generation[i] += 1
        snaps = self._snapshots()
        print(f"\nrollout worker {i} lost ({type(error).__name__}); starting it again "
              f"(generation {self.generation[i]})", file=sys.stderr)
        try:
            info = ray.get(self.handles[i].setup.remote(self.generation[i], snaps, None))  # Ray restarted it
        except self._lost:
            try:
                ray.kill(self.handles[i], no_restart=True)
            except Exception:  # noqa: BLE001 - gone already
                pass
            self.handles[i] = self._new_actor(i)
            info = ray.get(self.handles[i].setup.remote(self.generation[i], snaps, None))
        self.info[i] = info
        self.restarts += 1

    def broadcast(self, net: PolicyNet, snapshot: bool) -> None:
        t = time.perf_counter()
        self.weights = self.ray.put(weights_of(net))  # once per update; each worker reads it from the store
        self.snapshot = self.snapshot or snapshot
        self.timings["broadcast"] = time.perf_counter() - t

    def state(self) -> dict:
        """Every worker's state for a checkpoint (``None`` for one that could not answer:
        it starts afresh on resume)."""
        if self.snapshot:  # hand over the pending snapshot first: the state then holds it, as
            # the next rollout would (the same draws in the same order), and resuming needs no flag
            refs = [h.add_snapshot.remote(self.weights) for h in self.handles]
            for ref in refs:
                try:
                    self.ray.get(ref)
                except self._lost:
                    pass
            self.snapshot = False
        refs = [h.state_dict.remote() for h in self.handles]
        states = []
        for i, ref in enumerate(refs):
            try:
                states.append(to_torch(self.ray.get(ref)))
            except self._lost:
                states.append(None)
        return {"count": len(self.handles), "states": states}

    def close(self) -> None:
        for h in self.handles:
            try:
                self.ray.kill(h, no_restart=True)
            except Exception:  # noqa: BLE001 - gone already
                pass
        self.handles = []
        self.session.close()


def make_workers(tr: Trainer):
    """The workers of ``tr.cfg.workers`` (:class:`InProcessWorkers` for 0), resuming the
    Ray workers' states of the checkpoint ``tr`` was loaded from, if any."""
    if not tr.cfg.workers:
        return InProcessWorkers(tr)
    return RayWorkers(tr, tr.worker_states)
