"""PettingZoo's standard AEC wrappers, with the per-step attributes read directly.

PettingZoo's ``BaseWrapper`` finds every attribute it does not hold itself (``agent_selection``,
``terminations``, ``rewards``, ...) through ``__getattr__``, one Python call per wrapper layer,
and the environment loop reads a dozen of them per action, each through the three wrappers
of the classic environments (benchmarks/bench_envs.py times ``env()``, wrapped, beside
``raw_env()``). The subclasses here are the same
classes (``isinstance`` holds, their ``step``/``observe``/``reset`` logic runs unchanged); they
only answer those attribute reads from the unwrapped environment in one step, and take the
common case of each wrapper's ``step``/``observe`` (an environment that has been reset, a live
agent's legal ``int`` action inside a ``Discrete`` space) without the detours; every other
case (before ``reset``, an illegal action, a finished agent) runs PettingZoo's own code,
except an action outside the action space, which is a ``ValueError`` here.
"""

from __future__ import annotations

from operator import attrgetter

from gymnasium.spaces import Discrete
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers.base import BaseWrapper

#: attributes the environment loop reads every action
FORWARDED = ("agents", "agent_selection", "rewards", "terminations", "truncations", "infos",
             "_cumulative_rewards")


def _forward(name: str) -> property:
    return property(attrgetter(f"_base_env.{name}"), doc=f"``{name}`` of the unwrapped environment")


class _DirectAttributes:
    """Mixin: per-step attributes and the spaces come straight from the unwrapped env."""

    def _set_base(self, env: AECEnv) -> None:
        self._base_env = self._unwrapped_env = env.unwrapped

    def action_space(self, agent):
        return self._unwrapped_env.action_space(agent)

    def observation_space(self, agent):
        return self._unwrapped_env.observation_space(agent)


for _name in FORWARDED:
    setattr(_DirectAttributes, _name, _forward(_name))


class TerminateIllegalWrapper(_DirectAttributes, wrappers.TerminateIllegalWrapper):
    """``pettingzoo.utils.wrappers.TerminateIllegalWrapper`` (an illegal move ends the episode
    with ``illegal_reward`` to the mover)."""

    def __init__(self, env: AECEnv, illegal_reward: float):
        super().__init__(env, illegal_reward)
        self._set_base(env)

    def observe(self, agent):
        obs = self.env.observe(agent)
        base = self._base_env
        if agent == base.agent_selection:  # the mask the next step is checked against
            self._prev_obs = obs
            self._prev_info = base.infos.get(agent, {})
        return obs

    def step(self, action) -> None:
        prev, base = self._prev_obs, self._base_env
        agent = base.agent_selection
        if (prev is not None and type(action) is int and not self._terminated
                and not (base.terminations[agent] or base.truncations[agent])
                and prev["action_mask"][action]):
            self._prev_obs = self._prev_info = None
            self.env.step(action)
        else:
            super().step(action)


class AssertOutOfBoundsWrapper(_DirectAttributes, wrappers.AssertOutOfBoundsWrapper):
    """``pettingzoo.utils.wrappers.AssertOutOfBoundsWrapper``, except that an action outside
    the action space is a ``ValueError`` naming the agent and the action (PettingZoo's
    assertion would vanish under ``python -O``)."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._set_base(env)

    def step(self, action) -> None:
        env = self._unwrapped_env
        agent = env.agent_selection
        space = env.action_space(agent)
        if type(action) is int and type(space) is Discrete and space.start <= action < space.start + space.n:
            BaseWrapper.step(self, action)
            return
        done = env.terminations.get(agent, False) or env.truncations.get(agent, False)
        if (action is None and done) or (action is not None and not isinstance(action, (bool, float, str))
                                         and space.contains(action)):
            BaseWrapper.step(self, action)
            return
        allowed = "None (the agent is done)" if done else f"an int in {space.start}..{space.start + space.n - 1}"
        raise ValueError(f"{agent}: action {action!r} is not in the action space; allowed: {allowed}")


class OrderEnforcingWrapper(_DirectAttributes, wrappers.OrderEnforcingWrapper):
    """``pettingzoo.utils.wrappers.OrderEnforcingWrapper`` (attributes before ``reset`` and
    calls out of order are errors)."""

    def __init__(self, env: AECEnv):
        super().__init__(env)
        self._set_base(env)
        # until reset() the forwarded attributes read from an empty object: the lookup fails
        # and the standard __getattr__ raises its "cannot be accessed before reset" error
        self._base_env = _NOT_RESET

    def reset(self, seed=None, options=None) -> None:
        self._base_env = self._unwrapped_env
        super().reset(seed=seed, options=options)

    def step(self, action) -> None:
        if self._has_reset and self._base_env.agents:
            self._has_updated = True
            self.env.step(action)
        else:
            super().step(action)

    def observe(self, agent):
        if self._has_reset:
            return self.env.observe(agent)
        return super().observe(agent)


_NOT_RESET = object()


def standard_wrappers(env: AECEnv, illegal_reward: float = -1) -> AECEnv:
    """``env`` in the wrappers of PettingZoo's classic environments, in their order."""
    env = TerminateIllegalWrapper(env, illegal_reward=illegal_reward)
    env = AssertOutOfBoundsWrapper(env)
    return OrderEnforcingWrapper(env)
