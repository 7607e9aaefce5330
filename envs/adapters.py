"""Adapters for learning libraries whose conventions differ from PettingZoo's, where the
difference is the library's and a few lines bridge it (docs/integrations.md).

* :class:`ObservationsKey`: RLlib's action-masking module (``ActionMaskingTorchRLModule`` of
  its examples) reads the observation under ``"observations"``; PettingZoo's classic
  environments, and ours, put it under ``"observation"``. The wrapper renames the key in every
  observation and in the observation spaces; the mask stays ``"action_mask"``.
"""

from __future__ import annotations

from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers.base import BaseWrapper


class ObservationsKey(BaseWrapper):
    """``{"observation": x, "action_mask": m}`` as ``{"observations": x, "action_mask": m}``
    (RLlib's convention); everything else is the wrapped environment's."""

    FROM, TO = "observation", "observations"

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._spaces = {a: spaces.Dict({self.TO: env.observation_space(a)[self.FROM],
                                        "action_mask": env.observation_space(a)["action_mask"]})
                        for a in env.possible_agents}

    def observation_space(self, agent):
        return self._spaces[agent]

    def observe(self, agent):
        obs = super().observe(agent)
        return {self.TO: obs[self.FROM], "action_mask": obs["action_mask"]}


__all__ = ["ObservationsKey"]
