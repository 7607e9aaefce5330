"""``random``: a uniformly random legal action (either game)."""

from __future__ import annotations

import numpy as np

from rummyrl.random_play import random_actions

from .base import Agent, check_game


class RandomAgent(Agent):
    name = "random"

    def __init__(self, game: str = "gin", seed: int | None = None):
        self.game = check_game(game)
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observations: np.ndarray, action_masks: np.ndarray) -> np.ndarray:
        return random_actions(self.check_batch(observations, action_masks)[1], self.rng)
