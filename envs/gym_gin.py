"""Gin Rummy as a single-agent Gymnasium environment: the learner plays one seat, an opponent
policy the other (registered as ``rummyrl/GinRummy-v0`` on ``import envs``).

    import gymnasium, envs
    env = gymnasium.make("rummyrl/GinRummy-v0", opponent="random", episode="hand")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(obs["action_mask"])[0]))

Spaces, observation layout, actions and reward schemes are those of the PettingZoo env
(``envs/gin_rummy_v0.py``): observations are ``{"observation": (638,) float32,
"action_mask": (108,) int8}``, actions ``Discrete(108)``. The mask is also in
``info["action_mask"]`` and, as a bool array, from :meth:`GinRummyEnv.action_masks` (the
method sb3-contrib's ``MaskablePPO`` calls).

Arguments: ``opponent`` (a baseline by name, ``"random"`` by default, an ``agents.Agent``,
or any callable ``(observation (638,) float32, action_mask (108,) bool) -> action``);
``seat`` (``None``: random each episode; 0 / 1 or ``"player_0"`` / ``"player_1"`` fixes it);
``reward``, ``hand_points_scale``, ``game_points_scale`` (``envs.gin_rewards``);
``illegal_action``: ``"terminate"`` (default: the episode ends with ``illegal_reward``, -1,
and ``info["illegal_action"] = True``) or ``"raise"`` (``IllegalActionError``);
``render_mode`` (``"ansi"`` / ``"human"``); and every rule option of ``rummyrl.gin.GinConfig``.

Each ``step`` plays the learner's action, then the opponent's actions until the learner is
to act again or the episode ends; the reward is the learner's share of everything that
happened meanwhile. A reward that reaches the learner before its first action of an episode
(the opponent opens the game and ends a hand) is added to its first step's reward. A
one-hand episode that ends before the learner acts at all (the opponent knocks on its first
turn) is not returned: the next game is dealt, and ``info["skipped_episodes"]`` of ``reset``
counts them.

``reset(seed=s)`` deals the same game as the PettingZoo env and lane 0 of the batched
interface seeded with ``s``; the seat and the opponent's own randomness come from the env's
``np_random``. Reset options: those of ``envs.gin_options`` (``deck``/``dealer``,
``decks``/``dealers``) and ``seat``; an unknown key or a bad value raises ``ValueError``.
"""

from __future__ import annotations

import operator

import gymnasium
import numpy as np
from gymnasium import spaces

from rummyrl import gin

from .gin_options import make_config, observation_space, parse_reset_options
from .gin_rewards import GAME_POINTS_SCALE, HAND_POINTS_SCALE, RewardScheme
from .render import render_gin

_ROW0 = np.zeros(1, np.int64)
_ENV_OPTIONS = ("opponent", "seat", "reward", "hand_points_scale", "game_points_scale",
                "illegal_action", "illegal_reward", "render_mode")
#: tries to deal an episode in which the learner gets to act before giving up
_MAX_SKIPS = 1000


def parse_seat(seat, where: str) -> int | None:
    """``None`` (random), 0 / 1 or ``"player_0"`` / ``"player_1"``."""
    if seat is None:
        return None
    if isinstance(seat, str) and seat in ("player_0", "player_1"):
        return int(seat[-1])
    if isinstance(seat, (int, np.integer)) and not isinstance(seat, bool) and seat in (0, 1):
        return int(seat)
    raise ValueError(f"{where}: seat must be None (random each episode), 0, 1, 'player_0' or "
                     f"'player_1', got {seat!r}")


def make_opponent(opponent, where: str):
    """An opponent from a baseline name (``agents.load_agent``), an ``Agent`` or a callable."""
    if isinstance(opponent, str):
        from agents import load_agent  # here, not at import: registration must stay light

        return load_agent(opponent, game="gin")
    if callable(opponent):
        if getattr(opponent, "game", "gin") != "gin":
            raise ValueError(f"{where}: opponent {opponent!r} plays {opponent.game!r}, not 'gin'")
        return opponent
    raise ValueError(f"{where}: opponent must be a baseline name (e.g. 'random'), an agents.Agent or a "
                     f"callable (observation, action_mask) -> action, got {opponent!r}")


def reseed_opponent(opponent, rng: np.random.Generator) -> None:
    """Give an opponent with a ``reset(seed=...)`` method (an ``agents.Agent``) a seed drawn
    from ``rng``, so that a seeded episode replays the opponent's moves too."""
    reset = getattr(opponent, "reset", None)
    if callable(reset):
        reset(seed=int(rng.integers(2**31)))


class GinRummyEnv(gymnasium.Env):
    """One seat of Gin Rummy against an opponent policy; see the module docstring."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}

    def __init__(self, opponent="random", seat=None, reward: str = "hand_points",
                 hand_points_scale: float = HAND_POINTS_SCALE,
                 game_points_scale: float = GAME_POINTS_SCALE,
                 illegal_action: str = "terminate", illegal_reward: float = -1.0,
                 render_mode: str | None = None, **rules):
        where = "GinRummyEnv"
        self.config = make_config(rules, where, _ENV_OPTIONS)
        try:
            self.reward_scheme = RewardScheme.parse(reward, hand_points_scale, game_points_scale)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"{where}: illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")
        if not isinstance(illegal_reward, (int, float)) or isinstance(illegal_reward, bool):
            raise ValueError(f"{where}: illegal_reward must be a number, got {illegal_reward!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"{where}: render_mode must be one of {self.metadata['render_modes']} "
                             f"or None, got {render_mode!r}")
        self.opponent = make_opponent(opponent, where)
        self.fixed_seat = parse_seat(seat, where)
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.observation_space = observation_space(self.config)
        self.action_space = spaces.Discrete(gin.NUM_ACTIONS)
        self.seat = 0
        self.skipped_episodes = 0
        self._state: gin.GinState | None = None
        self._act = np.zeros(1, np.int64)
        self._r = np.zeros((1, gin.NUM_PLAYERS))
        self._over = True
        self._carry = 0.0
        self._hands: list[dict] = []
        self._render_hand_end = False

    # ---------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        decks, dealers, extra = parse_reset_options(options, extra=("seat",))
        seat = parse_seat(extra["seat"], "reset option") if "seat" in extra else self.fixed_seat
        if seed is not None or decks is not None or self._state is None:
            game_seed = seed if seed is not None else int(self.np_random.integers(2**63))
            self._state = gin.init(1, seed=game_seed, config=self.config, decks=decks, dealers=dealers)
        else:  # the next game of this seed, as a lane of the batched interface plays it
            gin.reset_done(self._state, _ROW0)
        skipped = 0
        while True:
            self.seat = int(self.np_random.integers(2)) if seat is None else seat
            reseed_opponent(self.opponent, self.np_random)
            self._over = False
            self._hands = []
            self._carry = self._play_opponent()
            if not self._state.game_over[0]:
                break
            skipped += 1  # the learner never got to act: deal the next game
            if skipped >= _MAX_SKIPS:
                raise RuntimeError(f"GinRummyEnv: {skipped} episodes in a row ended before the learner acted")
            gin.reset_done(self._state, _ROW0)
        self.skipped_episodes += skipped
        self._render_hand_end = bool(self._hands)
        info = self._info()
        info["skipped_episodes"] = skipped
        if self.render_mode == "human":
            self.render()
        return self._obs(), info

    def step(self, action):
        if self._over:
            raise RuntimeError("GinRummyEnv: the episode is over; call reset()")
        st = self._state
        try:
            a = operator.index(action)
        except TypeError:
            raise ValueError(f"GinRummyEnv: the action must be an int in 0..{gin.NUM_ACTIONS - 1}, "
                             f"got {action!r}") from None
        if not (0 <= a < gin.NUM_ACTIONS and st.mask[0, a]):
            if self.illegal_action == "raise":
                raise gin.IllegalActionError(self._illegal_message(a))
            self._over = True
            info = self._info()
            info["illegal_action"] = True
            return self._obs(), self.illegal_reward, True, False, info
        self._hands = []
        self._act[0] = a
        gin.step(st, self._act, inplace=True)
        reward = self._carry + self._collect()
        self._carry = 0.0
        reward += self._play_opponent()
        self._render_hand_end = bool(self._hands)
        terminated = truncated = False
        if st.game_over[0]:
            self._over = True
            truncated = bool(st.truncated[0])
            terminated = not truncated
        info = self._info()
        if self.render_mode == "human":
            self.render()
        return self._obs(), float(reward), terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as ``(108,)`` bool (all False once the episode is over)."""
        if self._over:
            return np.zeros(gin.NUM_ACTIONS, bool)
        return self._state.mask[0].copy()

    # ---------------------------------------------------------------------------------
    def _collect(self) -> float:
        """The learner's reward from the last core step, and the record of an ended hand."""
        st = self._state
        if not st.hand_ended[0]:
            return 0.0
        self._hands.append(gin.hand_info(st, 0))
        r = self._r
        r[:] = 0.0
        self.reward_scheme.add(st, r, _ROW0)
        return float(r[0, self.seat])

    def _play_opponent(self) -> float:
        """Opponent actions until the learner is to act or the episode is over."""
        st = self._state
        reward = 0.0
        while not st.game_over[0] and st.current[0] != self.seat:
            obs = gin.observe(st)[0]
            a = self.opponent(obs, st.mask[0].copy())
            try:
                self._act[0] = operator.index(a)
                gin.step(st, self._act, inplace=True)
            except (TypeError, gin.IllegalActionError) as e:
                raise gin.IllegalActionError(f"GinRummyEnv: the opponent {self.opponent!r} returned "
                                             f"action {a!r}: {e}") from None
            reward += self._collect()
        return reward

    def _obs(self) -> dict:
        st = self._state
        if self._over:
            mask = np.zeros(gin.NUM_ACTIONS, np.int8)
        else:
            mask = st.mask[0].astype(np.int8)
        return {"observation": gin.observe(st, self.seat)[0], "action_mask": mask}

    def _info(self) -> dict:
        st = self._state
        mask = np.zeros(gin.NUM_ACTIONS, np.int8) if self._over else st.mask[0].astype(np.int8)
        info = {"action_mask": mask, "seat": self.seat}
        if self._hands:
            info["hands"] = self._hands
        if st.game_over[0]:
            info["game"] = gin.game_info(st, 0)
        return info

    def _illegal_message(self, action: int) -> str:
        st = self._state
        legal = np.flatnonzero(st.mask[0]).tolist()
        shown = ", ".join(f"{x} ({gin.action_name(x)})" for x in legal)
        what = gin.action_name(action) if 0 <= action < gin.NUM_ACTIONS else "out of range"
        return (f"GinRummyEnv: action {action} ({what}) is not legal in phase "
                f"{gin.PHASE_NAMES[st.phase[0]]}; legal: [{shown}]")

    # ---------------------------------------------------------------------------------
    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn("GinRummyEnv.render() called without a render_mode")
            return None
        if self._state is None:
            raise RuntimeError("GinRummyEnv: call reset() before render()")
        names = tuple(f"player_{p} ({'you' if p == self.seat else 'opponent'})" for p in range(gin.NUM_PLAYERS))
        text = render_gin(self._state, 0, names, hand_ended=self._render_hand_end)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass
