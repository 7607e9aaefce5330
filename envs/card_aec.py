"""A card game engine as a PettingZoo AEC environment, for any number of players.

:class:`CardGameAEC` is the environment loop of ``gin_rummy_v0.raw_env`` and
``rummy_v0.raw_env``: a game's ``raw_env`` subclasses it with its :class:`rummyrl.games.Game` (the registry's entry),
its reward scheme class and its ``metadata``, and documents itself in its module docstring.
The loop holds no game logic: one game of the batched engine (batch of one) is stepped in
place.
"""

from __future__ import annotations

import operator

import numpy as np
from gymnasium import logger, spaces
from pettingzoo import AECEnv

from rummyrl import games
from rummyrl.games import Game

from .options import agent_names, check_render_mode, env_options, make_config, observation_space, parse_reset_options
from .render import render, show
from .render_html import render_html
from .step_info import StepInfo

_ROW0 = np.zeros(1, np.int64)


class CardGameAEC(AECEnv):
    """Agents ``player_0 .. player_{P-1}``; see the game modules' docstrings."""

    game: Game
    metadata: dict

    def __init__(self, render_mode, reward, scales: tuple, max_cycles, rules: dict):
        super().__init__()
        where = self.metadata["name"]
        self.config = make_config(self.game.config_cls, rules, where, env_options(type(self)))
        self.reward_scheme = games.load(self.game.rewards).parse_for(reward, scales, where)
        check_render_mode(render_mode, self.metadata["render_modes"], where)
        if max_cycles is not None and (not isinstance(max_cycles, (int, np.integer))
                                       or isinstance(max_cycles, bool) or max_cycles < 1):
            raise ValueError(f"{where}: max_cycles must be a positive int or None, got {max_cycles!r}")
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        P = self.game.players_of(self.config)
        self._agents = agent_names(P)
        self._max_actions = 0 if max_cycles is None else int(max_cycles) * P

        core = self.game.engine
        self.possible_agents = list(self._agents)
        self._seat = {a: i for i, a in enumerate(self._agents)}
        self.observation_spaces = {a: observation_space(self.game, self.config) for a in self._agents}
        self.action_spaces = {a: spaces.Discrete(core.NUM_ACTIONS) for a in self._agents}
        self._state = None
        self._act = np.zeros(1, np.int64)
        self._step_rewards = np.zeros((1, P))
        self._rng = np.random.default_rng()
        self._info = StepInfo(self.game, self.config)
        self._deal_ended = False
        self._dealt_out = False  # a deal of this game has ended: deal_info() has something to say
        self._rewards_set = False

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ---------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        core, agents = self.game.engine, self._agents
        decks, dealers, _ = parse_reset_options(options, len(agents), strict=False)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if seed is not None or decks is not None or self._state is None:
            if seed is None:
                seed = int(self._rng.integers(2**63))
            self._state = core.init(1, seed=seed, config=self.config, decks=decks, dealers=dealers)
        else:  # the next game of this seed, as a lane of the batched interface plays it
            core.reset_done(self._state, _ROW0)
        self.agents = list(agents)
        self.rewards = {a: 0.0 for a in agents}
        self._cumulative_rewards = {a: 0.0 for a in agents}
        self.terminations = {a: False for a in agents}
        self.truncations = {a: False for a in agents}
        self.infos = {a: self._info.blank() for a in agents}
        self.agent_selection = agents[self._state.current[0]]
        self._actions = 0
        self._deal_ended = False
        self._dealt_out = False
        self._rewards_set = False
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        st, core = self._state, self.game.engine
        p = self._seat[agent]
        if p == st.current[0] and not (self.terminations.get(agent, True) or self.truncations.get(agent, True)):
            return {"observation": core.observe(st)[0], "action_mask": st.mask[0].astype(np.int8)}
        return {"observation": core.observe(st, p)[0], "action_mask": np.zeros(core.NUM_ACTIONS, np.int8)}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st, core = self._state, self.game.engine
        try:
            self._act[0] = operator.index(action)
        except (TypeError, OverflowError):
            raise ValueError(f"{agent} is to act: the action must be an int in 0..{core.NUM_ACTIONS - 1}, "
                             f"got {action!r}") from None
        try:
            core.step(st, self._act, inplace=True)
        except core.IllegalActionError:
            raise core.IllegalActionError(self.game.illegal_message(st, int(self._act[0]), agent)) from None
        self._cumulative_rewards[agent] = 0.0
        self._actions += 1
        self._deal_ended = bool(self.game.deal_ended(st)[0])
        if self._deal_ended:
            self._end_of_deal()
        elif self._rewards_set:
            self._rewards_set = False
            for a in self._agents:
                self.rewards[a] = 0.0
                self.infos[a] = self._info.blank()
        if st.game_over[0]:
            done = {a: True for a in self._agents}
            if st.truncated[0]:
                self.truncations = done
            else:
                self.terminations = done
        elif self._max_actions and self._actions >= self._max_actions:
            self.truncations = {a: True for a in self._agents}
        self.agent_selection = self._agents[st.current[0]]
        if self._rewards_set:  # rewards arise only when a deal ends; otherwise all are 0
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_of_deal(self) -> None:
        st = self._state
        r = self._step_rewards
        r[:] = 0.0
        self.reward_scheme.add(st, r, _ROW0)
        info = self._info.of(st, deal_over=True)
        for p, a in enumerate(self._agents):
            self.rewards[a] = float(r[0, p])
            self.infos[a] = {k: v.copy() for k, v in info.items()}
        self._rewards_set = True
        self._dealt_out = True

    def deal_info(self) -> dict | None:
        """How the last deal of this game ended, in words (``rummyrl.gin.hand_info``,
        ``rummyrl.rummy.round_info``: card and end names, the melds on the table); None before
        the first deal has ended. The step infos hold the same as arrays (``envs.step_info``)."""
        return self.game.deal_info(self._state, 0) if self._dealt_out else None

    def game_info(self) -> dict | None:
        """The finished game's result in words (``game_info`` of the engine: totals with each
        bonus itemized, the rounds); None while the game goes on."""
        if self._state is None or not self._state.game_over[0]:
            return None
        return self.game.engine.game_info(self._state, 0)

    # ---------------------------------------------------------------------------------
    def render(self):
        if self.render_mode is None:
            logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self._state is None:
            raise RuntimeError(f"{self.metadata['name']}: call reset() before render()")
        if self.render_mode == "html":  # the table as HTML, every hand face up (envs/render_html.py)
            return render_html(self._state, 0, self._agents, self._deal_ended)
        return show(render(self.game, self._state, 0, self._agents, self._deal_ended), self.render_mode)

    def close(self) -> None:
        pass
