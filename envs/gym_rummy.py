"""Rummy as a single-agent Gymnasium environment: the learner plays one seat, opponent
policies the others (registered as ``rummyrl/Rummy-v0`` on ``import rummyrl.envs``).

    import gymnasium, rummyrl.envs  # noqa: F401 (registers the Gymnasium ids)
    env = gymnasium.make("rummyrl/Rummy-v0", num_players=4, opponent="simple", episode="round")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))

Spaces, observation layout, actions and reward schemes are those of the PettingZoo env
(``envs/rummy_v0.py``): observations are ``{"observation": (3061,) float32,
"action_mask": (1267,) int8}``, actions ``Discrete(1267)``, for every number of players. The
mask is also in ``info["action_mask"]`` and, as a bool array, from
:meth:`RummyEnv.action_masks` (the method sb3-contrib's ``MaskablePPO`` calls).

Arguments: ``opponent``: one opponent for every other seat (a baseline by name, ``"random"``
by default, ``"simple"`` or ``"expert"``; an ``agents.Agent``; or any callable
``(observation (3061,) float32, action_mask (1267,) bool) -> action``), or a list of
``num_players - 1`` of them, one per seat relative to the learner: ``opponent[i]`` plays the
seat ``i + 1`` places clockwise from the learner, which acts ``i + 1`` turns after it (so the
list keeps its meaning when the learner's seat changes); a name in the list loads its own
agent. ``seat`` (``None``: random each episode; ``0..P-1`` or ``"player_i"`` fixes it);
``reward``, ``round_points_scale``, ``game_points_scale`` (``rummyrl.envs.rummy_rewards``);
``illegal_action``: ``"terminate"`` (default: the episode ends with ``illegal_reward``, -1,
and ``info["illegal_action"] = True``) or ``"raise"`` (``IllegalActionError``);
``render_mode`` (``"ansi"`` / ``"html"`` / ``"human"``); and every rule option of
``rummyrl.rummy.RummyConfig`` (``num_players``, ``episode``, ``target``, ...).

Each ``step`` plays the learner's action, then the opponents' actions until the learner is
to act again or the episode ends; the reward is the learner's share of everything that
happened meanwhile. A turn is several actions, so the opponents move only after the learner
discards. A reward that reaches the learner before its first action of an episode (an
opponent goes out in the first round of a game before the learner's first turn) is added to
its first step's reward. A one-round episode that ends before the learner acts at all is not
returned: the next game is dealt, and ``info["skipped_episodes"]`` of ``reset`` counts them.
The info of ``reset`` and ``step`` has the same keys, shapes and dtypes every time
(``rummyrl.envs.step_info``): the mask, ``seat``, ``illegal_action``, ``skipped_episodes``,
``deals_ended`` (rounds that ended during the step), the arrays of the last of them and the
game's result once it is over, as in the PettingZoo env's infos. In words:
``env.unwrapped.deal_infos()`` (the rounds that ended during the step, ``rummyrl.rummy.round_info``)
and ``env.unwrapped.game_info()`` (the game's record once it is over).

``reset(seed=s)`` deals the same game as the PettingZoo env and lane 0 of the batched
interface seeded with ``s``; the seat and the opponents' own randomness come from the env's
``np_random``. Reset options: those of ``rummyrl.envs.options`` (``deck``/``dealer``,
``decks``/``dealers``; Rummy deck positions in ``rummyrl.envs.rummy_options``) and ``seat``; an
unknown key or a bad value raises ``ValueError``. The loop is ``rummyrl.envs.seat_env.SeatEnv``,
shared with the Gin Rummy env.
"""

from __future__ import annotations

from rummyrl import games

from .rummy_rewards import GAME_POINTS_SCALE, ROUND_POINTS_SCALE
from .seat_env import SeatEnv


class RummyEnv(SeatEnv):
    """One seat of Rummy against opponent policies; see the module docstring."""

    game = games.get("rummy")

    def __init__(self, opponent="random", seat=None, reward: str = "round_points",
                 round_points_scale: float = ROUND_POINTS_SCALE,
                 game_points_scale: float = GAME_POINTS_SCALE,
                 illegal_action: str = "terminate", illegal_reward: float = -1.0,
                 render_mode: str | None = None, **rules):
        super().__init__(opponent, seat, reward, (round_points_scale, game_points_scale), illegal_action,
                         illegal_reward, render_mode, rules)
