"""Agents trained elsewhere, as rummyrl agents: a policy function named ``module:callable``,
or a torch policy module saved with ``torch.export``.

    load_agent("my_package.policies:gin_policy", game="gin")   # f(observations, masks) -> actions
    load_agent("runs/tianshou_gin/policy.pt2", game="gin")     # torch.export.save of obs -> logits

So an agent trained by another library (Tianshou, TorchRL, RLlib, SB3, a hand-written
trainer) plays in ``evaluate.py``, the web table, the best-response command and as a
training opponent, as any built-in agent does.

* A **policy function** takes a batch, ``observations`` ``(B, OBS_DIM)`` float32 and
  ``action_masks`` ``(B, NUM_ACTIONS)`` bool, and returns ``(B,)`` actions. Naming it imports
  its module, which runs that module's code: name only code you trust.
* An **exported module** (``torch.export.save``, a ``.pt2`` file;
  :class:`rummyrl.agents.exported.ExportedAgent`) maps ``(B, OBS_DIM)`` float32 observations
  (and, if it takes a second input, the action masks as float32 0/1) to ``(B, NUM_ACTIONS)``
  logits or action values; the agent plays the best legal action
  (greedy). An exported program holds no pickled Python objects, so loading one runs no code
  of its file.

Every action returned is checked against its mask: an illegal one is an error that names the
agent, never a silent replacement.
"""

from __future__ import annotations

import importlib
import re
import zipfile
from pathlib import Path

import numpy as np

from rummyrl import games

from .base import Agent

#: ``package.module:callable``: a dotted module path, a colon, a dotted attribute path
CALLABLE_SPEC = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")


def is_callable_spec(spec: str) -> bool:
    """Whether ``spec`` has the form of ``module:callable`` (options of a built-in agent
    have ``=`` in them, a path has a separator or a suffix)."""
    return bool(CALLABLE_SPEC.match(spec))


def is_exported(path: str | Path) -> bool:
    """Whether ``path`` is an exported program (``torch.export.save``): a zip with an
    ``archive_format`` entry and a ``models/`` folder, where a ``torch.save`` checkpoint has
    pickled data."""
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
            return any(n.endswith("/archive_format") for n in names) and any("/models/" in n for n in names)
    except (OSError, zipfile.BadZipFile):
        return False


def is_sb3_zip(path: str | Path) -> bool:
    """Whether ``path`` is a model saved by Stable-Baselines3 (a zip with ``data`` and ``policy.pth``)."""
    try:
        with zipfile.ZipFile(path) as z:
            return {"data", "policy.pth"} <= set(z.namelist())
    except (OSError, zipfile.BadZipFile):
        return False


def is_rllib_checkpoint(path: str | Path) -> bool:
    """Whether ``path`` is an RLlib algorithm checkpoint or one of its module folders."""
    p = Path(path)
    return p.is_dir() and ((p / "rllib_checkpoint.json").is_file() or
                           ((p / "module_state.pkl").exists() and (p / "class_and_ctor_args.pkl").is_file()))


class CheckedAgent(Agent):
    """Checks each batch's shapes and each action against its mask."""

    def __init__(self, game: str, name: str):
        self.game, self.name = game, name

    def act(self, observations, action_masks) -> np.ndarray:
        obs, masks = self.check_batch(observations, action_masks)
        actions = np.asarray(self._act(obs, masks))
        if actions.shape != (obs.shape[0],) or actions.dtype.kind not in "iu":
            raise ValueError(f"{self.name}: returned {actions.dtype} actions of shape {actions.shape} for "
                             f"{obs.shape[0]} observations; it must return ({obs.shape[0]},) integer actions")
        ok = (actions >= 0) & (actions < masks.shape[1])
        ok[ok] = masks[np.flatnonzero(ok), actions[ok]]
        if not ok.all():
            b = int(np.flatnonzero(~ok)[0])
            raise ValueError(f"{self.name}: returned action {int(actions[b])} for observation {b} of the batch, "
                             f"which its mask does not allow (legal: {np.flatnonzero(masks[b]).tolist()})")
        return actions.astype(np.int64)

    def _act(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class CallableAgent(CheckedAgent):
    """A policy function ``f(observations, action_masks) -> actions`` as an agent."""

    def __init__(self, fn, game: str, name: str):
        super().__init__(game, name)
        self.fn = fn

    def _act(self, obs, masks):
        return self.fn(obs, masks)


def load_callable(spec: str, game: str) -> Agent:
    """The policy function ``module:callable`` of ``spec`` as an agent of ``game``."""
    module, _, attr = spec.partition(":")
    try:
        obj = importlib.import_module(module)
    except ImportError as e:
        raise ValueError(f"agent {spec!r}: cannot import module {module!r} ({e}); a policy function is named "
                         f"'package.module:function', its module importable from here") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"agent {spec!r}: module {module!r} has no {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise ValueError(f"agent {spec!r}: {attr!r} is a {type(obj).__name__}, not a function of "
                         f"(observations, action_masks)")
    if isinstance(obj, Agent):
        if obj.game != game:
            raise ValueError(f"agent {spec!r} plays {obj.game!r}, not {game!r}")
        return obj
    games.get(game)
    return CallableAgent(obj, game, spec)


__all__ = ["CallableAgent", "CheckedAgent", "is_callable_spec", "is_exported", "load_callable"]
