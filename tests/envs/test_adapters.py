"""rummyrl.envs.adapters: ObservationsKey gives RLlib's masking module the key it reads
("observations") with the same arrays, spaces that hold them, and PettingZoo's own API test
passes through it."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test

from rummyrl.envs import gin_rummy_v0, rummy_v0
from rummyrl.envs.adapters import ObservationsKey


@pytest.mark.parametrize("make", [lambda: gin_rummy_v0.env(episode="hand"),
                                  lambda: rummy_v0.env(num_players=3, episode="round")], ids=["gin", "rummy"])
def test_the_observation_moves_to_observations_with_the_same_arrays(make):
    plain, renamed = make(), ObservationsKey(make())
    plain.reset(seed=5)
    renamed.reset(seed=5)
    rng = np.random.default_rng(0)
    for _ in range(60):
        agent = plain.agent_selection
        assert renamed.agent_selection == agent
        a, b = plain.observe(agent), renamed.observe(agent)
        assert set(b) == {"observations", "action_mask"}
        assert np.array_equal(a["observation"], b["observations"]) and np.array_equal(a["action_mask"], b["action_mask"])
        assert renamed.observation_space(agent).contains(b)
        action = int(rng.choice(np.flatnonzero(a["action_mask"])))
        plain.step(action)
        renamed.step(action)


def test_pettingzoos_api_test_passes_through_the_adapter():
    api_test(ObservationsKey(gin_rummy_v0.env(episode="hand")), num_cycles=200)
