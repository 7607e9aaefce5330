"""A torch policy module saved with ``torch.export`` (a ``.pt2`` file), as a greedy agent: how
a network trained by another library (Tianshou, TorchRL, a hand-written trainer) plays here.
:func:`rummyrl.agents.load_agent` loads one from its path; ``rummyrl.agents.foreign`` says
what the module must compute. An exported program is a graph and its weights, not pickled
Python objects, so loading one runs no code of its file.

    batch = torch.export.Dim("batch", min=1)
    program = torch.export.export(module, (torch.zeros(2, OBS_DIM),), dynamic_shapes=({0: batch},))
    torch.export.save(program, "policy.pt2")
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from .foreign import CheckedAgent


class ExportedAgent(CheckedAgent):
    """An exported module from ``(B, OBS_DIM)`` float32 observations (and, when it takes a
    second input, the ``(B, NUM_ACTIONS)`` action masks as float32 0/1: a policy that reads
    its mask, as Stable-Baselines3's on a Dict observation does) to ``(B, NUM_ACTIONS)``
    logits or action values, played greedily among the legal actions."""

    def __init__(self, path: str | Path, game: str):
        super().__init__(game, Path(path).stem)
        program = torch.export.load(str(path))
        self.inputs = len(program.graph_signature.user_inputs)
        if self.inputs not in (1, 2):
            raise ValueError(f"{path}: the exported module takes {self.inputs} inputs; it must take the "
                             f"observations, or the observations and the action masks")
        self.module = program.module()

    def _act(self, obs, masks):
        args = (torch.from_numpy(obs),) + ((torch.from_numpy(masks.astype(np.float32)),) if self.inputs == 2 else ())
        with torch.inference_mode():
            out = self.module(*args)
        logits = out.float().numpy().astype(np.float64)
        if logits.shape != masks.shape:
            raise ValueError(f"{self.name}: the module returned shape {tuple(logits.shape)} for observations of "
                             f"shape {obs.shape}; it must return ({obs.shape[0]}, {masks.shape[1]}) logits")
        return np.where(masks, logits, -np.inf).argmax(1)


def load_exported(path: str | Path, game: str = "gin", seed: int | None = None) -> ExportedAgent:
    """The exported policy at ``path`` as an agent of ``game`` (greedy: ``seed`` is unused)."""
    return ExportedAgent(path, game)


__all__ = ["ExportedAgent", "load_exported"]
