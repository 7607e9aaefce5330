"""Agents saved by other libraries in their own formats: a Stable-Baselines3 model (``.zip``)
and an RLlib checkpoint (a folder), played greedily among the legal actions.

    load_agent("runs/examples/sb3_gin/policy.zip", game="gin")            # model.save(...) of SB3
    load_agent("runs/examples/rllib_gin/checkpoint", game="gin")          # algo.save(...): its one module
    load_agent("runs/examples/rllib_gin/checkpoint/learner_group/learner/rl_module/learner", game="gin")

Both formats hold pickled Python objects (SB3's spaces and schedules, RLlib's module class and
its constructor's arguments): loading one runs code its maker chose, as ``torch.load`` of a
full checkpoint does, so load only files you trust. The library must be installed (the
``sb3`` and ``rllib`` extras). An exported policy (``rummyrl.agents.exported``) needs neither
the library nor that trust, and is what the examples also write.

The observation each model is given follows the space it was trained on: a ``Dict`` space
gets the observation under ``observation`` (or ``observations``, RLlib's masking example's
key) and the mask under ``action_mask``; a ``Box`` the observation alone. The action is the
legal one with the highest logit (or Q-value); a model that masks by itself (sb3-contrib's
MaskablePPO, RLlib's action-masking module) is given the mask as well.
"""

from __future__ import annotations

import importlib
import json
import zipfile
from pathlib import Path

import numpy as np
import torch

from .foreign import CheckedAgent

#: an SB3 archive's policy module -> (package, algorithm class) that loads it
_SB3_ALGORITHMS = (("sb3_contrib.common.maskable", "sb3_contrib", "MaskablePPO"),
                   ("sb3_contrib.qrdqn", "sb3_contrib", "QRDQN"),
                   ("stable_baselines3.dqn", "stable_baselines3", "DQN"),
                   ("stable_baselines3.common.policies", "stable_baselines3", "PPO"))
#: the keys a Dict observation space may name the observation and the mask by
_OBS_KEYS, _MASK_KEYS = ("observation", "observations", "obs"), ("action_mask", "action_masks")


def model_inputs(space, obs: np.ndarray, masks: np.ndarray, where: str):
    """What a model trained on ``space`` reads: a dict by the space's keys, or the observation."""
    keys = getattr(space, "spaces", None)
    if keys is None:
        if tuple(space.shape) != obs.shape[1:]:
            raise ValueError(f"{where} was trained on observations of shape {tuple(space.shape)}; this game's are "
                             f"{obs.shape[1:]}")
        return obs
    out = {}
    for key in keys:
        if key in _OBS_KEYS:
            out[key] = obs
        elif key in _MASK_KEYS:
            out[key] = masks.astype(space[key].dtype)
        else:
            raise ValueError(f"{where} reads an observation key {key!r}; the environments give "
                             f"{_OBS_KEYS[0]!r} and {_MASK_KEYS[0]!r}")
    return out


def greedy(scores: torch.Tensor, masks: np.ndarray) -> np.ndarray:
    """The legal action of the highest score in each row."""
    s = scores.detach().float().numpy().astype(np.float64)
    return np.where(masks, s, -np.inf).argmax(1)


class SB3Agent(CheckedAgent):
    """A Stable-Baselines3 model saved with ``model.save``: MaskablePPO, PPO, DQN or QR-DQN."""

    def __init__(self, path: str | Path, game: str):
        super().__init__(game, Path(path).stem)
        with zipfile.ZipFile(path) as z:
            policy_module = json.loads(z.read("data"))["policy_class"].get("__module__", "")
        for prefix, package, name in _SB3_ALGORITHMS:
            if policy_module.startswith(prefix):
                break
        else:
            raise ValueError(f"{path}: an SB3 model of policy module {policy_module!r}; loadable: "
                             f"{', '.join(p for p, _, _ in _SB3_ALGORITHMS)}")
        try:
            algorithm = getattr(importlib.import_module(package), name)
        except ImportError:
            raise ValueError(f"{path} is a {name} model: loading it needs {package} "
                             f"(pip install -e \".[sb3]\")") from None
        self.model = algorithm.load(str(path), device="cpu")
        self.where = f"{path} ({name})"

    def _act(self, obs, masks):
        x = model_inputs(self.model.observation_space, obs, masks, self.where)
        policy = self.model.policy
        tensor, _ = policy.obs_to_tensor(x)
        with torch.no_grad():
            if hasattr(policy, "q_net"):  # DQN: the Q-values
                return greedy(policy.q_net(tensor), masks)
            if hasattr(policy, "quantile_net"):  # QR-DQN: the quantiles' mean
                return greedy(policy.quantile_net(tensor).mean(dim=1), masks)
            return greedy(policy.get_distribution(tensor).distribution.logits, masks)


class RLlibAgent(CheckedAgent):
    """An RLlib (new API stack) module from an algorithm's checkpoint or a module's folder."""

    def __init__(self, path: str | Path, game: str):
        try:
            from ray.rllib.core.columns import Columns
            from ray.rllib.core.rl_module.rl_module import RLModule
        except ImportError:
            raise ValueError(f"{path} is an RLlib checkpoint: loading it needs ray[rllib] "
                             f"(pip install -e \".[rllib]\")") from None
        folder = Path(path)
        if (folder / "rllib_checkpoint.json").is_file():
            modules = folder / "learner_group" / "learner" / "rl_module"
            found = sorted(p.name for p in modules.iterdir() if (p / "class_and_ctor_args.pkl").is_file()) \
                if modules.is_dir() else []
            if len(found) != 1:
                raise ValueError(f"{path} holds {len(found)} modules ({', '.join(found) or 'none'}): give the folder "
                                 f"of the one to play, {modules}/MODULE")
            folder = modules / found[0]
        super().__init__(game, folder.name)
        self.columns = Columns
        self.module = RLModule.from_checkpoint(str(folder))
        self.module.eval()
        self.where = f"{folder} (RLlib module {type(self.module).__name__})"

    def _act(self, obs, masks):
        x = model_inputs(self.module.observation_space, obs, masks, self.where)
        x = {k: torch.from_numpy(v) for k, v in x.items()} if isinstance(x, dict) else torch.from_numpy(x)
        with torch.no_grad():
            out = self.module.forward_inference({self.columns.OBS: x})
        return greedy(out[self.columns.ACTION_DIST_INPUTS], masks)


def load_sb3(path: str | Path, game: str = "gin", seed: int | None = None) -> SB3Agent:
    return SB3Agent(path, game)


def load_rllib(path: str | Path, game: str = "gin", seed: int | None = None) -> RLlibAgent:
    return RLlibAgent(path, game)


__all__ = ["RLlibAgent", "SB3Agent", "load_rllib", "load_sb3"]
