"""The seam between the trainer and the ways a run learns (``algo:`` in the config).

A way to learn is one class in one module, registered by name in :data:`METHODS`. The
trainer knows nothing else of it:

* :class:`~.trainer.Trainer` makes one per run, ``method = cls(trainer)``, and keeps
  beside its own checkpoint what :meth:`Method.state_dict` returns (and puts it back with
  :meth:`Method.load_state_dict`), so every way resumes exactly;
* :func:`~.loop.train` calls :meth:`Method.update` once per update, logs the statistics it
  returns under ``cls.section`` (their meanings are the ``METRICS`` of its module, beside the
  code that computes them) and calls :meth:`Method.close` at the end;
* the lanes (:class:`~.lanes.Lanes`, in this process or in a Ray worker) hold a
  ``cls.lanes_part(lanes)``: the method's part of the games, whose ``side(net)`` acts at the
  learner's rows of the step loop (:class:`~.lanes.Side`) and whose state travels in the
  lanes' own;
* the Ray workers' parts are joined, in worker order, by ``cls.concat``.

So adding a way to learn is one module with one such class and one line here. The ways
today: ``ppo`` (:mod:`.ppo`: sample the policy, learn from the rewards) and ``exit``
(:mod:`.exit`: expert iteration, a search plays and the network learns to play like it).
A best response (:mod:`rummyrl.exploit`) and the league (:mod:`rummyrl.league`) are not
new update rules: they choose who sits across the table from a ``ppo`` learner and when,
so they are commands over :func:`~.loop.train` rather than entries here.

The registry names modules, not classes, so that the config can check ``algo`` without
importing torch's side of training; a method's module is imported when a run uses it.
"""

from __future__ import annotations

import importlib
from typing import Any, ClassVar, NamedTuple, Protocol

#: every way to learn: ``algo`` name -> "module:class" (the module relative to this package),
#: or the class itself (a method defined outside the package, registered at run time; Ray
#: workers must be able to import it too)
METHODS: dict[str, str | type] = {
    "ppo": "ppo:PPO",
    "exit": "exit:ExpertIteration",
}


class Update(NamedTuple):
    """What one update reports to the loop."""

    stats: dict
    """The update's own statistics, logged as ``<section>/<key>``."""
    games: dict
    """The game statistics of the data learned from (how deals and games ended)."""
    steps: int
    """Env steps the update counts."""
    times: tuple
    """``perf_counter`` at its start, when its data were in, and at its end."""
    samples: int
    """Transitions (or records) it trained on."""


class LanesPart(Protocol):
    """A method's part of the lanes: what it keeps of the games between updates."""

    def side(self, net) -> Any:
        """The learner's side of one rollout (:class:`~.lanes.Side`), played by ``net``."""

    def state_dict(self) -> dict:
        """What a checkpoint keeps of it (merged into the lanes' state)."""

    def load_state_dict(self, d: dict) -> None:
        """Put back :meth:`state_dict` (a state of another method's lanes too: then it starts afresh)."""


class Method(Protocol):
    """One way to learn (the module docstring)."""

    section: ClassVar[str]
    """The TensorBoard section of :attr:`Update.stats`."""
    lanes_part: ClassVar[type]
    """``lanes_part(lanes) -> LanesPart``."""

    @staticmethod
    def concat(parts: list[dict]) -> dict:
        """The Ray workers' data, in worker order, as one."""

    def update(self, update_threads: int) -> Update:
        """Collect from the trainer's workers, learn, and count the update (``trainer.end_update``)."""

    def state_dict(self, resumable: bool) -> dict:
        """Top-level entries for the trainer's checkpoint (``resumable``: ``last.pt``)."""

    def load_state_dict(self, data: dict) -> None:
        """Read them back from a whole checkpoint."""

    def close(self) -> None:
        """End what the method started (threads)."""


def names() -> list[str]:
    """The registered ways to learn."""
    return list(METHODS)


def get(name: str) -> type:
    """The class registered as ``name``."""
    if name not in METHODS:
        raise ValueError(f"algo must be one of {names()}, got {name!r}")
    entry = METHODS[name]
    if not isinstance(entry, str):
        return entry
    module, cls = entry.split(":")
    return getattr(importlib.import_module(f"{__package__}.{module}"), cls)


__all__ = ["METHODS", "LanesPart", "Method", "Update", "get", "names"]
