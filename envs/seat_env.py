"""One seat of a card game as a single-agent Gymnasium environment: the learner plays one
seat, opponent policies the others.

:class:`SeatEnv` is the loop of ``rummyrl.envs.gym_gin.GinRummyEnv`` and ``rummyrl.envs.gym_rummy.RummyEnv``:
a game's env subclasses it with its :class:`rummyrl.games.Game` (the registry's entry) and reward scheme class.
Opponents are given per relative seat: ``opponents[i]`` plays the seat ``i + 1`` places
clockwise from the learner (it acts ``i + 1`` turns after the learner); one opponent serves
every other seat. The helpers :func:`make_opponents` and :func:`reseed_opponents` serve the
batched single-agent env too (``rummyrl.envs.batched``).
"""

from __future__ import annotations

import operator

import gymnasium
import numpy as np
from gymnasium import spaces

from rummyrl.agents import load_agent
from rummyrl.agents.base import tell_rules
from rummyrl import games
from rummyrl.games import Game

from .options import (check_render_mode, env_options, make_config, observation_space, parse_reset_options,
                      parse_seat)
from .render import render, show
from .render_html import render_html
from .step_info import StepInfo

_ROW0 = np.zeros(1, np.int64)
#: tries to deal an episode in which the learner gets to act before giving up
_MAX_SKIPS = 1000
_OPPONENT_FORMS = ("a baseline name (e.g. 'random'), an agents.Agent or a callable "
                   "(observation, action_mask) -> action")


def _make_opponent(opponent, game: str, where: str):
    if isinstance(opponent, str):
        return load_agent(opponent, game=game)
    if callable(opponent):
        if getattr(opponent, "game", game) != game:
            raise ValueError(f"{where}: opponent {opponent!r} plays {opponent.game!r}, not {game!r}")
        return opponent
    raise ValueError(f"{where}: opponent must be {_OPPONENT_FORMS}, got {opponent!r}")


def make_opponents(opponent, game: str, num_players: int, where: str, config=None) -> tuple:
    """The opponent of each relative seat ``1 .. P-1``: one opponent (a baseline name, an
    ``agents.Agent`` or a callable) for all of them, or a list or tuple of ``P - 1``. Each
    agent is told the rules ``config`` of the env's games (``Agent.set_rules``: search deals
    its worlds and plays its rollouts by them)."""
    if isinstance(opponent, (list, tuple)):
        if len(opponent) != num_players - 1:
            raise ValueError(f"{where}: a list of opponents needs one per other seat ({num_players - 1} for "
                             f"{num_players} players), got {len(opponent)}")
        out = tuple(_make_opponent(o, game, where) for o in opponent)
    else:
        out = (_make_opponent(opponent, game, where),) * (num_players - 1)
    if config is not None:
        tell_rules(distinct(out), config)
    return out


def distinct(opponents) -> list:
    """The distinct opponent objects, in seat order."""
    seen: dict[int, object] = {}
    for o in opponents:
        seen.setdefault(id(o), o)
    return list(seen.values())


def reseed_opponents(opponents, rng: np.random.Generator) -> None:
    """Give each opponent with a ``reset(seed=...)`` method (an ``agents.Agent``) a seed drawn
    from ``rng``, so that a seeded episode replays the opponents' moves too."""
    for o in distinct(opponents):
        reset = getattr(o, "reset", None)
        if callable(reset):
            reset(seed=int(rng.integers(2**31)))


class SeatEnv(gymnasium.Env):
    """The learner's seat against opponent policies; see the game modules' docstrings."""

    metadata = {"render_modes": ["human", "ansi", "html"], "render_fps": 1}
    game: Game

    def __init__(self, opponent, seat, reward, scales: tuple, illegal_action: str, illegal_reward: float,
                 render_mode: str | None, rules: dict):
        where = type(self).__name__
        core = self.game.engine
        self.config = make_config(self.game.config_cls, rules, where, env_options(type(self)))
        self.reward_scheme = games.load(self.game.rewards).parse_for(reward, scales, where)
        if illegal_action not in ("terminate", "raise"):
            raise ValueError(f"{where}: illegal_action must be 'terminate' or 'raise', got {illegal_action!r}")
        if not isinstance(illegal_reward, (int, float)) or isinstance(illegal_reward, bool):
            raise ValueError(f"{where}: illegal_reward must be a number, got {illegal_reward!r}")
        check_render_mode(render_mode, self.metadata["render_modes"], where)
        self.num_players = P = self.game.players_of(self.config)
        self.opponents = make_opponents(opponent, self.game.name, P, where, self.config)
        self.fixed_seat = parse_seat(seat, P, where)
        self.illegal_action = illegal_action
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.observation_space = observation_space(self.game, self.config)
        self.action_space = spaces.Discrete(core.NUM_ACTIONS)
        self.seat = 0
        self.skipped_episodes = 0
        self._state = None
        self._act = np.zeros(1, np.int64)
        self._r = np.zeros((1, P))
        self._over = True
        self._carry = 0.0
        self._deals: list[dict] = []  # the deals that ended in the last step, in words (deal_infos())
        self._step_info = StepInfo(self.game, self.config)
        self._last_deal: dict | None = None  # the arrays of the last deal that ended in the last step
        self._render_deal_end = False

    # ---------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            raise ValueError(f"{type(self).__name__}.reset: seed must be a non-negative int or None, got {seed!r}")
        super().reset(seed=seed)
        core, P = self.game.engine, self.num_players
        decks, dealers, extra = parse_reset_options(options, P, extra=("seat",))
        seat = parse_seat(extra["seat"], P, "reset option") if "seat" in extra else self.fixed_seat
        if seed is not None or decks is not None or self._state is None:
            game_seed = seed if seed is not None else int(self.np_random.integers(2**63))
            self._state = core.init(1, seed=game_seed, config=self.config, decks=decks, dealers=dealers)
        else:  # the next game of this seed, as a lane of the batched interface plays it
            core.reset_done(self._state, _ROW0)
        skipped = 0
        while True:
            self.seat = int(self.np_random.integers(P)) if seat is None else seat
            reseed_opponents(self.opponents, self.np_random)
            self._over = False
            self._deals = []
            self._last_deal = None
            self._carry = self._play_opponents()
            if not self._state.game_over[0]:
                break
            skipped += 1  # the learner never got to act: deal the next game
            if skipped >= _MAX_SKIPS:
                raise RuntimeError(f"{type(self).__name__}: {skipped} episodes in a row ended before the "
                                   "learner acted")
            core.reset_done(self._state, _ROW0)
        self.skipped_episodes += skipped
        self._render_deal_end = bool(self._deals)
        info = self._info()
        info["skipped_episodes"] = np.int64(skipped)
        if self.render_mode == "human":
            self.render()
        return self._obs(), info

    def step(self, action):
        where = type(self).__name__
        if self._over:
            raise RuntimeError(f"{where}: the episode is over; call reset()")
        st, core = self._state, self.game.engine
        try:
            a = operator.index(action)
        except TypeError:
            raise ValueError(f"{where}: the action must be an int in 0..{core.NUM_ACTIONS - 1}, "
                             f"got {action!r}") from None
        if not (0 <= a < core.NUM_ACTIONS and st.mask[0, a]):
            if self.illegal_action == "raise":
                raise core.IllegalActionError(self.game.illegal_message(st, a, where))
            self._over = True
            self._deals = []
            self._last_deal = None
            info = self._info()
            info["illegal_action"] = True
            return self._obs(), self.illegal_reward, True, False, info
        self._deals = []
        self._last_deal = None
        self._act[0] = a
        core.step(st, self._act, inplace=True)
        reward = self._carry + self._collect()
        self._carry = 0.0
        reward += self._play_opponents()
        self._render_deal_end = bool(self._deals)
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
        """The learner's legal actions as ``(NUM_ACTIONS,)`` bool (all False once the episode
        is over): the method sb3-contrib's ``MaskablePPO`` calls."""
        if self._over:
            return np.zeros(self.game.engine.NUM_ACTIONS, bool)
        return self._state.mask[0].copy()

    # ---------------------------------------------------------------------------------
    def _collect(self) -> float:
        """The learner's reward from the last core step, and the record of an ended deal."""
        st = self._state
        if not self.game.deal_ended(st)[0]:
            return 0.0
        self._deals.append(self.game.deal_info(st, 0))
        self._last_deal = self._step_info.of(st, deal_over=True)
        r = self._r
        r[:] = 0.0
        self.reward_scheme.add(st, r, _ROW0)
        return float(r[0, self.seat])

    def _play_opponents(self) -> float:
        """Opponent actions until the learner is to act or the episode is over."""
        st, core = self._state, self.game.engine
        reward = 0.0
        while not st.game_over[0] and st.current[0] != self.seat:
            opponent = self.opponents[(st.current[0] - self.seat) % self.num_players - 1]
            obs = core.observe(st)[0]
            a = opponent(obs, st.mask[0].copy())
            try:
                self._act[0] = operator.index(a)
                core.step(st, self._act, inplace=True)
            except (TypeError, core.IllegalActionError) as e:
                raise core.IllegalActionError(f"{type(self).__name__}: the opponent {opponent!r} returned "
                                              f"action {a!r}: {e}") from None
            reward += self._collect()
        return reward

    def _mask(self) -> np.ndarray:
        core = self.game.engine
        return np.zeros(core.NUM_ACTIONS, np.int8) if self._over else self._state.mask[0].astype(np.int8)

    def _obs(self) -> dict:
        return {"observation": self.game.engine.observe(self._state, self.seat)[0], "action_mask": self._mask()}

    def _info(self) -> dict:
        """The info of ``reset`` and ``step``: the same keys, shapes and dtypes every time
        (``envs.step_info``): the learner's mask and seat, whether its action was illegal, how
        many episodes ``reset`` skipped, how many deals ended in the step and the arrays of the
        last of them, and the game's result once it is over."""
        st = self._state
        info = {"action_mask": self._mask(), "seat": np.int64(self.seat), "illegal_action": False,
                "skipped_episodes": np.int64(0), "deals_ended": np.int64(len(self._deals))}
        info.update(self._last_deal if self._last_deal is not None else self._step_info.blank())
        if st.game_over[0]:
            info.update(self._step_info.game_part(st))
        return info

    def deal_infos(self) -> list[dict]:
        """The deals that ended during the last ``step`` (or ``reset``), in words
        (``rummyrl.gin.hand_info``, ``rummyrl.rummy.round_info``); usually none or one."""
        return list(self._deals)

    def game_info(self) -> dict | None:
        """The finished game's result in words (the engine's ``game_info``); None while it goes on."""
        if self._state is None or not self._state.game_over[0]:
            return None
        return self.game.engine.game_info(self._state, 0)

    # ---------------------------------------------------------------------------------
    def render(self):
        where = type(self).__name__
        if self.render_mode is None:
            gymnasium.logger.warn(f"{where}.render() called without a render_mode")
            return None
        if self._state is None:
            raise RuntimeError(f"{where}: call reset() before render()")
        names = tuple(f"player_{p} ({'you' if p == self.seat else 'opponent'})" for p in range(self.num_players))
        if self.render_mode == "html":  # the table as HTML, every hand face up (envs/render_html.py)
            return render_html(self._state, 0, names, self._render_deal_end)
        return show(render(self.game, self._state, 0, names, self._render_deal_end), self.render_mode)

    def close(self) -> None:
        pass
