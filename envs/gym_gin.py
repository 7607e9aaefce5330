"""Gin Rummy as a single-agent Gymnasium environment: the learner plays one seat, an opponent
policy the other (registered as ``rummyrl/GinRummy-v0`` on ``import rummyrl.envs``).

    import gymnasium, rummyrl.envs  # noqa: F401 (registers the Gymnasium ids)
    env = gymnasium.make("rummyrl/GinRummy-v0", opponent="random", episode="hand")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))

Spaces, observation layout, actions and reward schemes are those of the PettingZoo env
(``envs/gin_rummy_v0.py``): observations are ``{"observation": (794,) float32,
"action_mask": (108,) int8}``, actions ``Discrete(108)``. The mask is also in
``info["action_mask"]`` and, as a bool array, from :meth:`GinRummyEnv.action_masks` (the
method sb3-contrib's ``MaskablePPO`` calls).

Arguments: ``opponent`` (a baseline by name, ``"random"`` by default, an ``agents.Agent``,
or any callable ``(observation (794,) float32, action_mask (108,) bool) -> action``);
``seat`` (``None``: random each episode; 0 / 1 or ``"player_0"`` / ``"player_1"`` fixes it);
``reward``, ``hand_points_scale``, ``game_points_scale`` (``rummyrl.envs.gin_rewards``);
``illegal_action``: ``"terminate"`` (default: the episode ends with ``illegal_reward``, -1,
and ``info["illegal_action"] = True``) or ``"raise"`` (``IllegalActionError``);
``render_mode`` (``"ansi"`` / ``"html"`` / ``"human"``); and every rule option of ``rummyrl.gin.GinConfig``.

Each ``step`` plays the learner's action, then the opponent's actions until the learner is
to act again or the episode ends; the reward is the learner's share of everything that
happened meanwhile. A reward that reaches the learner before its first action of an episode
(the opponent opens the game and ends a hand) is added to its first step's reward. A
one-hand episode that ends before the learner acts at all (the opponent knocks on its first
turn) is not returned: the next game is dealt, and ``info["skipped_episodes"]`` of ``reset``
counts them.

The info of ``reset`` and ``step`` has the same keys, shapes and dtypes every time
(``rummyrl.envs.step_info``): the mask, ``seat``, ``illegal_action``, ``skipped_episodes``,
``deals_ended`` (hands that ended during the step), the arrays of the last of them and the
game's result once it is over, as in the PettingZoo env's infos. In words:
``env.unwrapped.deal_infos()`` (the hands that ended during the step, ``rummyrl.gin.hand_info``)
and ``env.unwrapped.game_info()`` (the totals with each bonus, once the game is over).

``reset(seed=s)`` deals the same game as the PettingZoo env and lane 0 of the batched
interface seeded with ``s``; the seat and the opponent's own randomness come from the env's
``np_random``. Reset options: those of ``rummyrl.envs.options`` (``deck``/``dealer``,
``decks``/``dealers``; Gin deck positions in ``rummyrl.envs.gin_options``) and ``seat``; an unknown
key or a bad value raises ``ValueError``. The loop is ``rummyrl.envs.seat_env.SeatEnv``, shared with
the Rummy env.
"""

from __future__ import annotations

from rummyrl import games

from .gin_rewards import GAME_POINTS_SCALE, HAND_POINTS_SCALE
from .seat_env import SeatEnv


class GinRummyEnv(SeatEnv):
    """One seat of Gin Rummy against an opponent policy; see the module docstring."""

    game = games.get("gin")

    def __init__(self, opponent="random", seat=None, reward: str = "hand_points",
                 hand_points_scale: float = HAND_POINTS_SCALE,
                 game_points_scale: float = GAME_POINTS_SCALE,
                 illegal_action: str = "terminate", illegal_reward: float = -1.0,
                 render_mode: str | None = None, **rules):
        super().__init__(opponent, seat, reward, (hand_points_scale, game_points_scale), illegal_action,
                         illegal_reward, render_mode, rules)
