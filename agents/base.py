"""The agent interface every player implements: baselines, trained policies, humans.

An agent acts for a batch of games at once::

    actions = agent.act(observations, action_masks)   # (B, OBS_DIM), (B, A) bool -> (B,) int

and, for one game (a PettingZoo policy, a Gymnasium opponent), it is a callable::

    action = agent(observation, action_mask)          # (OBS_DIM,), (A,) -> int

Observations are the flat arrays of the game's engine (``rummyrl.gin.OBS_LAYOUT``,
``rummyrl.rummy.OBS_LAYOUT``); an agent must only return actions its mask allows.
"""

from __future__ import annotations

import numpy as np

from rummyrl import games


class Agent:
    """Base class: subclasses set ``game`` and implement :meth:`act`."""

    game: str = "gin"
    name: str = "agent"

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        obs = np.asarray(observation)[None]
        mask = np.asarray(action_mask, dtype=bool)[None]
        return int(self.act(obs, mask)[0])

    def check_batch(self, observations, action_masks) -> tuple[np.ndarray, np.ndarray]:
        """``(observations float32, masks bool)`` of a batch, or ValueError naming the shape
        that does not fit this agent's game: ``(B, OBS_DIM)`` observations and ``(B, A)``
        masks (a single observation goes through ``agent(observation, mask)``)."""
        g = games.get(self.game)
        obs = np.ascontiguousarray(observations, dtype=np.float32)
        masks = np.asarray(action_masks)
        if obs.ndim != 2 or obs.shape[1] != g.obs_dim:
            raise ValueError(f"{self.name} ({g.title}): observations must be (B, {g.obs_dim}), got shape "
                             f"{obs.shape}; one observation goes through agent(observation, action_mask)")
        if masks.shape != (obs.shape[0], g.num_actions):
            raise ValueError(f"{self.name} ({g.title}): action masks must be ({obs.shape[0]}, {g.num_actions}) "
                             f"for {obs.shape[0]} observations, got shape {masks.shape}")
        return obs, np.ascontiguousarray(masks, dtype=bool)

    def reset(self, seed: int | None = None) -> None:
        """Start afresh (new episode); agents with randomness take a seed here."""

    def set_rules(self, config) -> None:
        """The rules of the games about to be played (a ``GinConfig`` or ``RummyConfig``).
        Tournaments, the environments' opponents and training's teacher call it; agents
        that simulate games themselves (``search``) play them by these rules, the others
        read all they need from the observation."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(game={self.game!r})"


class PreferenceAgent(Agent):
    """A rule agent that plays the argmax of a preference over actions: a subclass sets
    ``preference``, a function ``(observations, masks, params) -> (B, A)`` (its parameters
    ``params``, None for the defaults). Networks read the same function as features."""

    preference = None

    def __init__(self, params=None):
        self.params = params

    def preferences(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        """``(B, NUM_ACTIONS)``: how much the agent likes each action (it plays the argmax)."""
        return type(self).preference(observations, action_masks, self.params)

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return self.preferences(*self.check_batch(observations, action_masks)).argmax(1)


def tell_rules(agents, config) -> None:
    """:meth:`Agent.set_rules` for each of ``agents`` that has it (a plain callable may
    stand in for an agent, and has no rules to learn)."""
    for agent in agents:
        if hasattr(agent, "set_rules"):
            agent.set_rules(config)


def check_game(game) -> str:
    """The name of a registered game (``game`` is a name or a registry entry), or
    ValueError naming the games there are."""
    return games.get(game).name
