"""Checks shared by the Gin Rummy and Rummy environment tests."""

from __future__ import annotations

import numpy as np


def random_legal(mask, rng) -> int:
    """A uniform pick among the legal actions of one mask."""
    legal = np.flatnonzero(mask)
    return int(legal[int(rng.random() * legal.size)])


def assert_same_game_everywhere(aec, selfplay, make_gym, seed: int, steps: int) -> None:
    """``reset(seed=seed)`` deals the same game in the AEC env ``aec``, the Gymnasium env
    ``make_gym(seat)`` (the learner in the seat that opens) and lane 0 of the batched
    interface ``selfplay``; the same actions then give the same observations."""
    aec.reset(seed=seed)
    first = int(aec.agent_selection[-1])
    batch = selfplay.reset(seed=seed)
    gym_obs, _ = make_gym(first).reset(seed=seed)
    assert batch.player[0] == first
    aec_obs = aec.observe(aec.agent_selection)
    assert np.array_equal(aec_obs["observation"], batch.obs[0])
    assert np.array_equal(aec_obs["observation"], gym_obs["observation"])
    rng = np.random.default_rng(0)
    for _ in range(steps):
        a = random_legal(aec_obs["action_mask"], rng)
        aec.step(a)
        batch = selfplay.step(np.array([a, *(random_legal(m, rng) for m in batch.mask[1:])]))
        if aec.terminations[aec.agent_selection]:
            break
        aec_obs = aec.observe(aec.agent_selection)
        assert aec.agent_selection == f"player_{batch.player[0]}"
        assert np.array_equal(aec_obs["observation"], batch.obs[0])
