"""
# Gin Rummy (`gin_rummy_v0`)

```python
from envs import gin_rummy_v0
env = gin_rummy_v0.env(render_mode="ansi", episode="hand", reward="hand_points")
```

|                    |                                                               |
|--------------------|---------------------------------------------------------------|
| Import             | `from envs import gin_rummy_v0`                               |
| Actions            | Discrete                                                      |
| Parallel API       | No (a player draws and then discards: turns do not alternate action by action) |
| Manual control     | No                                                            |
| Agents             | `agents = ['player_0', 'player_1']`                           |
| Number of agents   | 2                                                             |
| Action shape       | `Discrete(108)`                                               |
| Action values      | 0 .. 107                                                      |
| Observation shape  | `(638,)`, float32, plus an action mask `(108,)`, int8         |
| Observation values | 0 .. 1, except the score and hand-count scalars (see below)  |

Two-player Gin Rummy by the rule book `RULES.md` (rule ids C-1..C-4, G-1..G-19): the
rules are `rummyrl.gin`; this module only adapts it to PettingZoo's AEC API. An episode is
one hand or a whole game to the target (`episode=`), with the upcard offer, knocking, gin,
undercuts, lay-offs, dead hands and the game's bonuses.

## Observation space

`observe(agent)` returns a dict:

- `"observation"`: `Box(0, high, (638,), float32)`, what `agent` may know (`rummyrl.gin.observe`):
  12 card planes of 52 floats (card id `c = suit * 13 + rank`, suits ♠ ♥ ♦ ♣, ranks A..K),
  then 14 scalars.
- `"action_mask"`: `Box(0, 1, (108,), int8)`, 1 for the legal actions of `agent`; all 0 when
  it is not its turn or the episode is over.

| index     | name                | meaning                                                            |
|-----------|---------------------|--------------------------------------------------------------------|
| 0-51      | `hand`              | cards the player holds                                             |
| 52-103    | `top_discard`       | the top card of the discard pile                                   |
| 104-155   | `pile`              | cards in the discard pile                                          |
| 156-207   | `pile_recency`      | each pile card's (position from the bottom + 1) / pile size; top = 1 |
| 208-259   | `opp_known`         | cards the opponent took from the pile and has not thrown since     |
| 260-311   | `opp_thrown`        | cards the opponent discarded this hand                             |
| 312-363   | `opp_passed`        | top discards the opponent declined                                 |
| 364-415   | `my_thrown`         | cards the player discarded this hand                               |
| 416-467   | `unseen`            | cards in neither the hand, the pile, nor `opp_known`               |
| 468-519   | `opp_revealed`      | the opponent's final hand, once the episode is over                |
| 520-571   | `melded_revealed`   | cards in either player's final melds, once the episode is over     |
| 572-623   | `laid_off_revealed` | cards the defender laid off, once the episode is over              |
| 624       | `stock_size`        | cards in the stock / 31                                            |
| 625-628   | `phase_offer`, `phase_draw`, `phase_discard`, `phase_done` | one-hot phase    |
| 629       | `must_draw_stock`   | both passed the upcard: the stock must be drawn                    |
| 630       | `my_turn`           | the player is to act                                               |
| 631       | `i_am_dealer`       | the player dealt this hand                                         |
| 632, 633  | `my_score`, `opp_score` | points in this game / target (up to `(target + 99 + bonus) / target`) |
| 634       | `target`            | target / 100                                                       |
| 635, 636  | `my_hands_won`, `opp_hands_won` | hands won this game / 10 (up to `max_hands / 10`) |
| 637       | `hand_actions`      | actions so far in this hand / `max_actions`                        |

`rummyrl.gin.OBS_LAYOUT` maps each name to its slice. Observations are new arrays on every
call.

## Action space

| action     | meaning                                                               |
|------------|-----------------------------------------------------------------------|
| 0          | `draw_stock`: draw the top card of the stock (G-4)                    |
| 1          | `take_discard`: take the top discard; in the upcard offer, take the upcard (G-2) |
| 2          | `pass`: decline the upcard (G-2)                                      |
| 3 + c      | `discard c`: discard card `c` (G-5)                                   |
| 55 + c     | `knock c`: knock with final discard `c` (G-6); gin when nothing is left unmatched (G-7) |
| 107        | `big_gin`: all eleven cards melded (only with `big_gin_bonus` set, G-7) |

`rummyrl.gin.action_name(a)` gives the text of an action (`57` -> `"knock 3s"`).

## Rewards

Set with `reward=` (schemes combine with `+`, e.g. `"hand_points+game"`); every scheme is
zero-sum, so the two seats' rewards of a step add up to 0.

| `reward`      | when                        | winner                          | loser     |
|---------------|-----------------------------|---------------------------------|-----------|
| `hand_points` (default) | each hand's end   | `+points / 25` (`hand_points_scale`) | the negative; 0 both for a dead or capped hand |
| `game`        | end of the episode          | +1                              | -1; 0 both on truncation or a dead one-hand episode |
| `game_points` | end of the episode          | `+margin / 100` (`game_points_scale`, G-19) | the negative; 0 on truncation |

With `episode="hand"` the game is the hand: `game` is +-1 for the hand's winner and the
margin of `game_points` is the hand's points.

## Arguments

`gin_rummy_v0.env(**kwargs)` and `gin_rummy_v0.raw_env(**kwargs)` take:

| argument            | default         | meaning                                                        |
|---------------------|-----------------|----------------------------------------------------------------|
| `render_mode`       | `None`          | `"ansi"` (render() returns the text) or `"human"` (printed after every step) |
| `reward`            | `"hand_points"` | the reward scheme (table above)                                |
| `hand_points_scale` | `1/25`          | reward per hand point                                          |
| `game_points_scale` | `1/100`         | reward per point of the final margin                           |
| `max_cycles`        | `None`          | truncate the episode after `2 * max_cycles` actions (a cycle is one action per player on average) |
| `illegal_reward`    | `-1`            | `env()` only: the reward of an illegal move, which ends the episode |

and every rule option of `rummyrl.gin.GinConfig`: `episode` (`"game"` or `"hand"`,
default `"game"`), `target` (100), `knock_limit` (10), `gin_bonus` (25), `undercut_bonus`
(25), `big_gin_bonus` (`None`: off), `game_bonus` (100), `box_bonus` (25),
`loser_box_bonus` (False), `dealer_rule` (`"alternate"` or `"winner"`), `stock_floor` (2),
`max_actions` (300 per hand, G-10a: the hand is truncated), `max_hands` (100 per game),
`forbid_taken_discard` (True, C-4). An unknown argument or a bad value raises
`ValueError` naming it.

## Reset

`reset(seed=s)` deals the same game as every other rummyrl environment seeded with `s`
(the Gymnasium env, lane 0 of the batched interface). `reset()` without a seed plays the
next game of the same seed sequence. `options` fix the deal (`envs.gin_options`):
`{"deck": [52 card ids or "As 2s ..."], "dealer": 0 | 1}` for the first hand, or
`{"decks": (H, 52), "dealers": (H,)}` for the first H hands of a game. A bad value raises
`ValueError`; an unknown key is ignored with a warning (generic tools pass their own).

## Illegal moves and episode ends

`raw_env.step` raises `rummyrl.gin.IllegalActionError` naming the action, the phase and the
legal actions. `env()` wraps `raw_env` in PettingZoo's `TerminateIllegalWrapper` (an illegal
move ends the episode; the mover gets `illegal_reward`, the other 0),
`AssertOutOfBoundsWrapper` and `OrderEnforcingWrapper`, as the classic environments do
(`envs.aec_wrappers`: subclasses of those three that read the per-step attributes in one
lookup instead of one `__getattr__` call per layer; their behaviour is PettingZoo's).
When the episode ends both agents are terminated (or truncated: the G-10a cap in one-hand
episodes, `max_hands`, `max_cycles`) and each steps once more with `None`.

`infos[agent]` is `{}` except after a step that ended a hand: `{"hand": ...}`
(`rummyrl.gin.hand_info`: how it ended, deadwoods, melds, lay-offs, points, scores), and at
the end of the episode also `{"game": ...}` (`rummyrl.gin.game_info`: totals with each bonus).

## Rendering

A text table (`envs.render.render_gin`): scores, stock size, the discard pile's top, both
hands sorted and grouped into their best melds with their deadwood, whose turn it is; after
a hand ends both hands with melds and lay-offs and the score line; at the end the totals.

## Version history

* v0: first version (rummyrl).
"""

from __future__ import annotations

import operator

import numpy as np
from gymnasium import logger, spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from rummyrl import gin

from .aec_wrappers import standard_wrappers
from .gin_options import make_config, observation_space, parse_reset_options
from .gin_rewards import GAME_POINTS_SCALE, HAND_POINTS_SCALE, RewardScheme
from .render import render_gin

AGENTS = ("player_0", "player_1")
_ROW0 = np.zeros(1, np.int64)
_ENV_OPTIONS = ("render_mode", "reward", "hand_points_scale", "game_points_scale", "max_cycles")


def env(illegal_reward: float = -1, **kwargs) -> AECEnv:
    """``raw_env`` in the standard PettingZoo wrappers: an illegal move ends the episode with
    ``illegal_reward`` to the mover (``TerminateIllegalWrapper``), actions outside the space
    assert, calls out of order are errors."""
    return standard_wrappers(raw_env(**kwargs), illegal_reward=illegal_reward)


class raw_env(AECEnv, EzPickle):
    """Gin Rummy as a PettingZoo AEC environment; see the module docstring."""

    metadata = {"render_modes": ["human", "ansi"], "name": "gin_rummy_v0",
                "is_parallelizable": False, "render_fps": 1}

    def __init__(self, render_mode: str | None = None, reward: str = "hand_points",
                 hand_points_scale: float = HAND_POINTS_SCALE,
                 game_points_scale: float = GAME_POINTS_SCALE,
                 max_cycles: int | None = None, **rules):
        EzPickle.__init__(self, render_mode=render_mode, reward=reward,
                          hand_points_scale=hand_points_scale,
                          game_points_scale=game_points_scale, max_cycles=max_cycles, **rules)
        super().__init__()
        where = "gin_rummy_v0"
        self.config = make_config(rules, where, _ENV_OPTIONS)
        try:
            self.reward_scheme = RewardScheme.parse(reward, hand_points_scale, game_points_scale)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"{where}: render_mode must be one of {self.metadata['render_modes']} "
                             f"or None, got {render_mode!r}")
        if max_cycles is not None and (not isinstance(max_cycles, (int, np.integer))
                                       or isinstance(max_cycles, bool) or max_cycles < 1):
            raise ValueError(f"{where}: max_cycles must be a positive int or None, got {max_cycles!r}")
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self._max_actions = 0 if max_cycles is None else int(max_cycles) * len(AGENTS)

        self.possible_agents = list(AGENTS)
        self._seat = {a: i for i, a in enumerate(AGENTS)}
        self.observation_spaces = {a: observation_space(self.config) for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(gin.NUM_ACTIONS) for a in AGENTS}
        self._state: gin.GinState | None = None
        self._act = np.zeros(1, np.int64)
        self._step_rewards = np.zeros((1, len(AGENTS)))
        self._rng = np.random.default_rng()
        self._hand_ended = False
        self._rewards_set = False

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ---------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        decks, dealers, _ = parse_reset_options(options, strict=False)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        if seed is not None or decks is not None or self._state is None:
            if seed is None:
                seed = int(self._rng.integers(2**63))
            self._state = gin.init(1, seed=seed, config=self.config, decks=decks, dealers=dealers)
        else:  # the next game of this seed, as a lane of the batched interface plays it
            gin.reset_done(self._state, _ROW0)
        self.agents = list(AGENTS)
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self._state.current[0]]
        self._actions = 0
        self._hand_ended = False
        self._rewards_set = False
        if self.render_mode == "human":
            self.render()

    def observe(self, agent):
        st = self._state
        p = self._seat[agent]
        if p == st.current[0] and not (self.terminations.get(agent, True) or self.truncations.get(agent, True)):
            return {"observation": gin.observe(st)[0], "action_mask": st.mask[0].astype(np.int8)}
        return {"observation": gin.observe(st, p)[0], "action_mask": np.zeros(gin.NUM_ACTIONS, np.int8)}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        st = self._state
        try:
            self._act[0] = operator.index(action)
        except (TypeError, OverflowError):
            raise ValueError(f"{agent} is to act: the action must be an int in 0..{gin.NUM_ACTIONS - 1}, "
                             f"got {action!r}") from None
        try:
            gin.step(st, self._act, inplace=True)
        except gin.IllegalActionError:
            raise gin.IllegalActionError(self._illegal_message(agent, int(self._act[0]))) from None
        self._cumulative_rewards[agent] = 0.0
        self._actions += 1
        self._hand_ended = bool(st.hand_ended[0])
        if self._hand_ended:
            self._end_of_hand()
        elif self._rewards_set:
            self._rewards_set = False
            for a in AGENTS:
                self.rewards[a] = 0.0
                self.infos[a] = {}
        if st.game_over[0]:
            done = {a: True for a in AGENTS}
            if st.truncated[0]:
                self.truncations = done
            else:
                self.terminations = done
        elif self._max_actions and self._actions >= self._max_actions:
            self.truncations = {a: True for a in AGENTS}
        self.agent_selection = AGENTS[st.current[0]]
        if self._rewards_set:  # rewards arise only when a hand ends; otherwise all are 0
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _end_of_hand(self) -> None:
        st = self._state
        r = self._step_rewards
        r[:] = 0.0
        self.reward_scheme.add(st, r, _ROW0)
        info = {"hand": gin.hand_info(st, 0)}
        if st.game_over[0]:
            info["game"] = gin.game_info(st, 0)
        for p, a in enumerate(AGENTS):
            self.rewards[a] = float(r[0, p])
            self.infos[a] = dict(info)
        self._rewards_set = True

    def _illegal_message(self, agent: str, action: int) -> str:
        st = self._state
        legal = np.flatnonzero(st.mask[0]).tolist()
        shown = ", ".join(f"{x} ({gin.action_name(x)})" for x in legal)
        what = gin.action_name(action) if 0 <= action < gin.NUM_ACTIONS else "out of range"
        return (f"{agent}: action {action} ({what}) is not legal in phase "
                f"{gin.PHASE_NAMES[st.phase[0]]}; legal: [{shown}]")

    # ---------------------------------------------------------------------------------
    def render(self):
        if self.render_mode is None:
            logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self._state is None:
            raise RuntimeError("gin_rummy_v0: call reset() before render()")
        text = render_gin(self._state, 0, AGENTS, hand_ended=self._hand_ended)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass
