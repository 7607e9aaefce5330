"""Environments over the rummyrl engines: PettingZoo, Gymnasium and batched self-play.

    from rummyrl.envs import gin_rummy_v0, rummy_v0  # PettingZoo AEC: env(), raw_env()
    import gymnasium, rummyrl.envs  # noqa: F401 (registers the Gymnasium ids)
    env = gymnasium.make("rummyrl/GinRummy-v0", opponent="random")   # one seat vs an opponent
    env = gymnasium.make("rummyrl/Rummy-v0", num_players=4, opponent="simple")
    from rummyrl.envs.batched import SelfPlay       # batched self-play of any game, for training
    from rummyrl.envs.gin_vector import GinSelfPlay, GinRummyVectorEnv
    from rummyrl.envs.rummy_vector import RummySelfPlay, RummyVectorEnv

Importing ``rummyrl.envs`` registers the Gymnasium ids and nothing else: the modules load on first
use (the registration imports neither torch nor the game engines).
"""

from __future__ import annotations

import importlib

import gymnasium

#: Gymnasium id of the single-agent Gin Rummy environment (``rummyrl.envs.gym_gin.GinRummyEnv``)
GIN_ENV_ID = "rummyrl/GinRummy-v0"
#: Gymnasium id of the single-agent Rummy environment (``rummyrl.envs.gym_rummy.RummyEnv``)
RUMMY_ENV_ID = "rummyrl/Rummy-v0"

if GIN_ENV_ID not in gymnasium.registry:
    gymnasium.register(id=GIN_ENV_ID, entry_point="rummyrl.envs.gym_gin:GinRummyEnv",
                       vector_entry_point="rummyrl.envs.gin_vector:GinRummyVectorEnv")
if RUMMY_ENV_ID not in gymnasium.registry:
    gymnasium.register(id=RUMMY_ENV_ID, entry_point="rummyrl.envs.gym_rummy:RummyEnv",
                       vector_entry_point="rummyrl.envs.rummy_vector:RummyVectorEnv")

_LAZY = {
    "gin_rummy_v0": ("rummyrl.envs.gin_rummy_v0", None),
    "rummy_v0": ("rummyrl.envs.rummy_v0", None),
    "gym_gin": ("rummyrl.envs.gym_gin", None),
    "gym_rummy": ("rummyrl.envs.gym_rummy", None),
    "batched": ("rummyrl.envs.batched", None),
    "gin_vector": ("rummyrl.envs.gin_vector", None),
    "rummy_vector": ("rummyrl.envs.rummy_vector", None),
    "render": ("rummyrl.envs.render", None),
    "GinRummyEnv": ("rummyrl.envs.gym_gin", "GinRummyEnv"),
    "RummyEnv": ("rummyrl.envs.gym_rummy", "RummyEnv"),
    "SelfPlay": ("rummyrl.envs.batched", "SelfPlay"),
    "GinSelfPlay": ("rummyrl.envs.gin_vector", "GinSelfPlay"),
    "GinRummyVectorEnv": ("rummyrl.envs.gin_vector", "GinRummyVectorEnv"),
    "RummySelfPlay": ("rummyrl.envs.rummy_vector", "RummySelfPlay"),
    "RummyVectorEnv": ("rummyrl.envs.rummy_vector", "RummyVectorEnv"),
    "SeatRewards": ("rummyrl.envs.batched", "SeatRewards"),
}


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'rummyrl.envs' has no attribute {name!r}")
    module, attr = _LAZY[name]
    mod = importlib.import_module(module)
    return mod if attr is None else getattr(mod, attr)


def __dir__():
    return sorted(list(globals()) + list(_LAZY))


__all__ = ["GIN_ENV_ID", "RUMMY_ENV_ID", *_LAZY]
