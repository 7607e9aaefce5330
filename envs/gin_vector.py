"""Batched Gin Rummy: the Gin side of ``rummyrl.envs.batched``, whose docstring describes
the interface.

Self-play (:class:`GinSelfPlay`): one learner plays both seats of every game::

    env = GinSelfPlay(num_envs=1024, episode="game", reward="hand_points")
    batch = env.reset(seed=0)

``batch.obs`` is ``(B, 794)`` (the ``rummyrl.gin.observe`` layout), ``batch.mask`` ``(B, 108)``,
and ``batch.final`` holds ``winner``, ``margin`` (G-19), ``total``, ``hand_points``,
``hands_won`` and ``hands_played``. Single agent (:class:`GinRummyVectorEnv`): a
``gymnasium.vector.VectorEnv`` with the opponent inside.
"""

from __future__ import annotations

from rummyrl import games

from .batched import OpponentVectorEnv, SelfPlay
from .gin_rewards import GAME_POINTS_SCALE, HAND_POINTS_SCALE


class GinSelfPlay(SelfPlay):
    """Batched Gin Rummy self-play (see the module docstring). Keyword arguments: ``reward``,
    ``hand_points_scale``, ``game_points_scale`` (``rummyrl.envs.gin_rewards``),
    ``final_observations`` and every rule option of ``rummyrl.gin.GinConfig``. Reset options:
    ``decks`` and ``dealers`` as ``rummyrl.gin.init`` takes them (one deck for all lanes,
    ``(B, 52)``, or a schedule ``(B, H, 52)``)."""

    def __init__(self, num_envs: int, reward: str = "hand_points",
                 hand_points_scale: float = HAND_POINTS_SCALE,
                 game_points_scale: float = GAME_POINTS_SCALE,
                 final_observations: bool = False, **rules):
        super().__init__("gin", num_envs, reward, hand_points_scale, game_points_scale, final_observations, **rules)


class GinRummyVectorEnv(OpponentVectorEnv):
    """``num_envs`` single-agent Gin Rummy games as a ``gymnasium.vector.VectorEnv``.

    The learner plays one seat per game (``seat=None``: random each episode), ``opponent``
    the other, as in :class:`rummyrl.envs.gym_gin.GinRummyEnv`, whose arguments it takes. Episodes
    reset in the same step (``AutoresetMode.SAME_STEP``): where ``terminations | truncations``
    the returned observation is the next episode's first, and ``infos["final_obs"]`` (dict of
    ``(B, ...)`` arrays) and ``infos["final_info"]`` (``winner``, ``margin``, ``total``,
    ``hand_points``, ``hands_played``, ``seat``, each ``(B, ...)``) describe the ended one, rows valid where
    ``infos["_final_info"]``. ``infos["action_mask"]`` is the learner's mask. An illegal
    learner action raises ``IllegalActionError`` naming the game.
    """

    game = games.get("gin")

    def __init__(self, num_envs: int = 8, opponent="random", seat=None, reward: str = "hand_points",
                 hand_points_scale: float = HAND_POINTS_SCALE,
                 game_points_scale: float = GAME_POINTS_SCALE,
                 final_observations: bool = True, render_mode: str | None = None, **rules):
        super().__init__(num_envs, opponent, seat, reward, (hand_points_scale, game_points_scale),
                         final_observations, render_mode, rules)
