"""Ray support shared by training (``train.py workers=N``) and tournaments (``evaluate.py --workers N``).

Ray is an optional dependency (``pip install -e ".[ray]"``): nothing here imports it until
asked, so the rest of the package works without it, and :func:`import_ray` fails with an
error that says how to install it.

* :class:`RaySession`: Ray for one job. It joins a running cluster (``address="auto"``
  or ``HOST:PORT``), uses the Ray this process has already initialised (a notebook, the
  tests), or starts a local one; :meth:`RaySession.close` shuts down only what it started.
* :class:`ChunkPlayer`: the tournament's actor; it plays chunks of a pairing's deals with
  :func:`rummyrl.tournament.play_chunk`, the function the in-process tournament calls, so a
  tournament's results do not depend on how many actors played it.

The training's workers are in :mod:`rummyrl.training.workers`.
"""

from __future__ import annotations

import logging
import os

#: how to get Ray, in the project's words
INSTALL_HINT = 'pip install -e ".[ray]"'


#: a local Ray's settings: its workers are this job's main work, so they run at the
#: driver's priority (Ray's default niceness of 15 makes them yield to any other process)
LOCAL_SYSTEM_CONFIG = {"worker_niceness": 0}


class RayMissingError(ImportError):
    """Workers were asked for and Ray is not installed."""


class RayUnavailableError(RuntimeError):
    """The Ray cluster asked for cannot be joined."""


def ray_available() -> bool:
    """Whether Ray is installed (without importing it)."""
    import importlib.util

    try:
        return importlib.util.find_spec("ray") is not None
    except ValueError:  # sys.modules["ray"] is None: imports of it are blocked
        return False


def import_ray():
    """The ``ray`` module, or :class:`RayMissingError` naming the install command."""
    try:
        import ray
    except ImportError:
        raise RayMissingError(f"Ray is not installed; install the project's ray extra: {INSTALL_HINT} "
                              f"(or pip install 'ray>=2.9')") from None
    return ray


class RaySession:
    """Ray for one job (a training run, a tournament).

    ``address``: ``"auto"`` joins the cluster that ``ray start`` set up on this machine,
    ``"HOST:PORT"`` a cluster elsewhere; empty starts a local Ray with ``num_cpus`` CPUs
    (``ray.init(address="local", num_cpus=..., include_dashboard=False, log_to_driver=False)``,
    workers at normal priority: :data:`LOCAL_SYSTEM_CONFIG`) that ends with the job. A Ray
    that this process has already initialised is used as it is, whatever ``address`` says.
    """

    def __init__(self, address: str = "", num_cpus: int | None = None):
        ray = import_ray()
        self.ray = ray
        self.started = False
        if ray.is_initialized():
            return
        if address:
            try:
                ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
            except (ConnectionError, TimeoutError, RuntimeError, ValueError) as e:
                raise RayUnavailableError(f"cannot join the Ray cluster at {address!r} ({e}); start one with "
                                          f"`ray start --head`, or leave ray_address empty for a local Ray") from None
        else:  # "local": a new instance, even where `ray start` runs or RAY_ADDRESS is set
            ray.init(address="local", num_cpus=num_cpus, include_dashboard=False, log_to_driver=False,
                     logging_level=logging.WARNING, _system_config=LOCAL_SYSTEM_CONFIG)
        self.started = True

    def cpus(self) -> float:
        """CPUs of the cluster, as Ray counts them."""
        return float(self.ray.cluster_resources().get("CPU", 0))

    def close(self) -> None:
        """Shut down (or disconnect from) Ray, if this session started the connection."""
        if self.started and self.ray.is_initialized():
            self.ray.shutdown()
        self.started = False


def local_cpus(workers: int) -> int:
    """CPUs for a local Ray: the machine's, and at least one per worker (each actor asks
    for one, so that on a cluster they spread over the nodes)."""
    return max(os.cpu_count() or 1, workers)


def pickled(obj) -> bytes:
    """``obj`` as bytes for the object store (cloudpickle: agents built in ``__main__`` too).

    Sending bytes rather than the object keeps the numpy arrays an agent holds writable
    where it is unpickled (Ray hands out arrays of the object store read-only)."""
    from ray import cloudpickle

    return cloudpickle.dumps(obj)
