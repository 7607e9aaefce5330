"""Environments over the rummyrl engines: PettingZoo, Gymnasium and batched self-play.

    from envs import gin_rummy_v0            # PettingZoo AEC: gin_rummy_v0.env(), raw_env()
    import gymnasium, envs
    env = gymnasium.make("rummyrl/GinRummy-v0", opponent="random")   # one seat vs an opponent
    from envs.vector import GinSelfPlay, GinRummyVectorEnv          # batched, for training

Importing ``envs`` registers the Gymnasium ids and nothing else: the modules load on first
use (the registration imports neither torch nor the game engines).
"""

from __future__ import annotations

import importlib

import gymnasium

#: Gymnasium id of the single-agent Gin Rummy environment (``envs.gym_gin.GinRummyEnv``)
GIN_ENV_ID = "rummyrl/GinRummy-v0"

if GIN_ENV_ID not in gymnasium.registry:
    gymnasium.register(id=GIN_ENV_ID, entry_point="envs.gym_gin:GinRummyEnv",
                       vector_entry_point="envs.vector:GinRummyVectorEnv")

_LAZY = {
    "gin_rummy_v0": ("envs.gin_rummy_v0", None),
    "gym_gin": ("envs.gym_gin", None),
    "vector": ("envs.vector", None),
    "render": ("envs.render", None),
    "GinRummyEnv": ("envs.gym_gin", "GinRummyEnv"),
    "GinSelfPlay": ("envs.vector", "GinSelfPlay"),
    "GinRummyVectorEnv": ("envs.vector", "GinRummyVectorEnv"),
    "SeatRewards": ("envs.vector", "SeatRewards"),
}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'envs' has no attribute {name!r}")
    module, attr = _LAZY[name]
    mod = importlib.import_module(module)
    return mod if attr is None else getattr(mod, attr)


def __dir__():
    return sorted(list(globals()) + list(_LAZY))


__all__ = ["GIN_ENV_ID", *_LAZY]
