"""Batched Rummy for training: B games of 2-6 players stepped at once, no Python loop over
games (the Rummy side of ``rummyrl.envs.batched``, whose docstring describes the interface).

Self-play (:class:`RummySelfPlay`): one learner plays every seat of every game::

    env = RummySelfPlay(num_envs=1024, num_players=4, episode="game", reward="round_points+game")
    batch = env.reset(seed=0)
    while training:
        actions = policy(batch.obs, batch.mask)   # (B,) one action per game, for batch.player
        batch = env.step(actions)

``batch.player`` ``(B,)`` is the seat to act, ``batch.obs`` its observation (``rummyrl.rummy``
layout, ``(B, 3061)``), ``batch.mask`` its legal actions ``(B, 1267)`` bool,
``batch.rewards`` ``(B, P)`` the rewards credited to each seat now (the acting seat receives
everything that reached it since it last acted; when a game ends every seat receives its
remainder; each reward is credited exactly once), ``batch.done`` the games that ended in this
step (and were reset at once) and ``batch.final`` their results: ``winner`` (-1: none),
``margin`` (the winner's total minus the best other total), ``total`` ``(B, P)`` (0 without a
winner), ``round_points`` ``(B, P)`` (points won in rounds, R-8), ``rounds_won`` ``(B, P)``,
``rounds_played``. ``env.state`` is the ``rummyrl.rummy.RummyState`` of the games and
``env.seats.pending`` ``(B, P)`` what each seat is owed but not yet credited.

Single agent (:class:`RummyVectorEnv`): a ``gymnasium.vector.VectorEnv`` in which the learner
plays one seat of each game and opponent policies the others, inside the env: the games where
an opponent is to act move together, with ``rummyrl.rummy.step(..., active=)``.
"""

from __future__ import annotations

from rummyrl import games

from .rummy_rewards import GAME_POINTS_SCALE, ROUND_POINTS_SCALE
from .batched import OpponentVectorEnv, SelfPlay


class RummySelfPlay(SelfPlay):
    """Batched Rummy self-play (see the module docstring). Keyword arguments: ``reward``,
    ``round_points_scale``, ``game_points_scale`` (``rummyrl.envs.rummy_rewards``),
    ``final_observations`` (the ended game's last observation of every seat in
    ``batch.final_obs`` ``(B, P, 3061)``) and every rule option of ``rummyrl.rummy.RummyConfig``
    (``num_players``, ``episode``, ``target``, ...). Reset options: ``decks`` and ``dealers``
    as ``rummyrl.rummy.init`` takes them (one deck for all lanes, ``(B, 52)``, or a schedule
    ``(B, H, 52)``)."""

    def __init__(self, num_envs: int, reward: str = "round_points",
                 round_points_scale: float = ROUND_POINTS_SCALE,
                 game_points_scale: float = GAME_POINTS_SCALE,
                 final_observations: bool = False, **rules):
        super().__init__("rummy", num_envs, reward, round_points_scale, game_points_scale, final_observations,
                         **rules)


class RummyVectorEnv(OpponentVectorEnv):
    """``num_envs`` single-agent Rummy games as a ``gymnasium.vector.VectorEnv``.

    The learner plays one seat per game (``seat=None``: random each episode), ``opponent``
    the others, as in :class:`rummyrl.envs.gym_rummy.RummyEnv`, whose arguments it takes (one
    opponent for all other seats, or a list per relative seat). Episodes reset in the same
    step (``AutoresetMode.SAME_STEP``): where ``terminations | truncations`` the returned
    observation is the next episode's first, and ``infos["final_obs"]`` and
    ``infos["final_info"]`` (``winner``, ``margin``, ``total``, ``round_points``,
    ``rounds_played``, ``seat``, each ``(B, ...)``) describe the ended one, rows valid where
    ``infos["_final_info"]``. ``infos["action_mask"]`` is the learner's mask. An illegal
    learner action raises ``IllegalActionError`` naming the game.
    """

    game = games.get("rummy")

    def __init__(self, num_envs: int = 8, opponent="random", seat=None, reward: str = "round_points",
                 round_points_scale: float = ROUND_POINTS_SCALE,
                 game_points_scale: float = GAME_POINTS_SCALE,
                 final_observations: bool = True, render_mode: str | None = None, **rules):
        super().__init__(num_envs, opponent, seat, reward, (round_points_scale, game_points_scale),
                         final_observations, render_mode, rules)
