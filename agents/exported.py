"""A torch policy module saved with ``torch.export`` (a ``.pt2`` file), as a greedy agent: how
a network trained by another library (Tianshou, TorchRL, a hand-written trainer) plays here.
:func:`rummyrl.agents.load_agent` loads one from its path; ``rummyrl.agents.foreign`` says
what the module must compute. An exported program is a graph and its weights, not pickled
Python objects, so loading one runs no code of its file.

    from rummyrl.agents.exported import save_policy
    save_policy(module, "gin", "policy.pt2")                 # observations -> logits
    save_policy(module, "gin", "policy.pt2", reads_mask=True)   # (observations, masks) -> logits
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import torch

from rummyrl import games

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


def save_policy(module: torch.nn.Module, game: str, path: str | Path, reads_mask: bool = False,
                strict: bool = True) -> Path:
    """Export ``module`` (observations, and the masks as float32 when ``reads_mask``, to
    logits) for any batch size with ``torch.export`` and save it at ``path``, the form
    :func:`rummyrl.agents.load_agent` plays. ``strict=False`` traces a module that
    ``torch.export``'s strict mode cannot (RLlib's)."""
    g = games.get(game)
    batch = torch.export.Dim("batch", min=1)
    args = (torch.zeros(2, g.obs_dim),) + ((torch.zeros(2, g.num_actions),) if reads_mask else ())
    program = torch.export.export(module.eval(), args, dynamic_shapes=tuple({0: batch} for _ in args), strict=strict)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.export.save(program, str(path))
    return path


def load_exported(path: str | Path, game: str = "gin", seed: int | None = None) -> ExportedAgent:
    """The exported policy at ``path`` as an agent of ``game`` (greedy: ``seed`` is unused)."""
    return ExportedAgent(path, game)


__all__ = ["ExportedAgent", "load_exported", "save_policy"]
