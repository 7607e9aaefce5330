"""
# Gin Rummy (`gin_rummy_v0`)

```python
from rummyrl.envs import gin_rummy_v0
env = gin_rummy_v0.env(render_mode="ansi", episode="hand", reward="hand_points")
```

|                    |                                                               |
|--------------------|---------------------------------------------------------------|
| Import             | `from rummyrl.envs import gin_rummy_v0`                       |
| Actions            | Discrete                                                      |
| Parallel API       | No (a player draws and then discards: turns do not alternate action by action) |
| Manual control     | No                                                            |
| Agents             | `agents = ['player_0', 'player_1']`                           |
| Number of agents   | 2                                                             |
| Action shape       | `Discrete(108)`                                               |
| Action values      | 0 .. 107                                                      |
| Observation shape  | `(794,)`, float32, plus an action mask `(108,)`, int8         |
| Observation values | 0 .. 1, except the score and hand-count scalars (see below)  |

Two-player Gin Rummy by the rule book `docs/rules.md` (rule ids C-1..C-4, G-1..G-19): the
rules are `rummyrl.gin`; this module only adapts it to PettingZoo's AEC API. An episode is
one hand or a whole game to the target (`episode=`), with the upcard offer, knocking, gin,
undercuts, lay-offs, dead hands and the game's bonuses.

## Observation space

`observe(agent)` returns a dict:

- `"observation"`: `Box(0, high, (794,), float32)`, what `agent` may know (`rummyrl.gin.observe`):
  15 card planes of 52 floats (card id `c = suit * 13 + rank`, suits ♠ ♥ ♦ ♣, ranks A..K),
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
| 624-675   | `my_known`          | cards the player took from the pile and has not thrown since (the opponent knows them) |
| 676-727   | `my_passed`         | top discards the player declined (the opponent saw it)             |
| 728-779   | `taken`             | the card the player to act took from the pile this turn (C-4)      |
| 780       | `stock_size`        | cards in the stock / 31                                            |
| 781-784   | `phase_offer`, `phase_draw`, `phase_discard`, `phase_done` | one-hot phase    |
| 785       | `must_draw_stock`   | both passed the upcard: the stock must be drawn                    |
| 786       | `my_turn`           | the player is to act                                               |
| 787       | `i_am_dealer`       | the player dealt this hand                                         |
| 788, 789  | `my_score`, `opp_score` | points in this game / target (up to `(target + 99 + bonus) / target`) |
| 790       | `target`            | target / 100                                                       |
| 791, 792  | `my_hands_won`, `opp_hands_won` | hands won this game / 10 (up to `max_hands / 10`) |
| 793       | `hand_actions`      | actions so far in this hand / `max_actions`                        |

Everything the player knows is in it (the belief sampler `rummyrl.gin_beliefs` rebuilds full
states from an observation alone).

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
| `render_mode`       | `None`          | `"ansi"` (render() returns the text), `"html"` (the table as HTML) or `"human"` (printed after every step) |
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
next game of the same seed sequence. `options` fix the deal (`rummyrl.envs.options`; Gin deck
positions in `rummyrl.envs.gin_options`):
`{"deck": [52 card ids or "As 2s ..."], "dealer": 0 | 1}` for the first hand, or
`{"decks": (H, 52), "dealers": (H,)}` for the first H hands of a game. A bad value raises
`ValueError`; an unknown key is ignored with a warning (generic tools pass their own).

## Illegal moves and episode ends

`raw_env.step` raises `rummyrl.gin.IllegalActionError` naming the action, the phase and the
legal actions. `env()` wraps `raw_env` in PettingZoo's `TerminateIllegalWrapper` (an illegal
move ends the episode; the mover gets `illegal_reward`, the other 0),
`AssertOutOfBoundsWrapper` and `OrderEnforcingWrapper`, as the classic environments do
(`rummyrl.envs.aec_wrappers`: subclasses of those three that read the per-step attributes in one
lookup instead of one `__getattr__` call per layer; their behaviour is PettingZoo's).
When the episode ends both agents are terminated (or truncated: the G-10a cap in one-hand
episodes, `max_hands`, `max_cycles`) and each steps once more with `None`.

`infos[agent]` has the same keys, shapes and dtypes at every step, numbers only, so that a
library can stack them (`rummyrl.envs.step_info`): `deal_over` (1 after a step that ended a
hand), that hand's end as a `gin.END_*` code, `knocker`, `winner`, `points`, `deadwood` (2,),
`scores` (2,), and `hands`, `melds`, `laid_off` as (2, 52) int8 card masks (`rummyrl.gin.hand_arrays`;
"nothing", 0 or -1, at other steps); and `game_over`, `game_winner`, `game_total` (2,),
`game_margin`. The same in words: `env.unwrapped.deal_info()` (`rummyrl.gin.hand_info`: card and
end names, each player's melds) and `env.unwrapped.game_info()` (`rummyrl.gin.game_info`: the
totals with each bonus itemized; None while the game goes on).

## Rendering

`render_mode="html"` draws the same table as cards (`rummyrl.envs.render_html`, as the web app
`rummyrl-web` does; a notebook shows it with `IPython.display.HTML(env.render())`). The text
table (`rummyrl.envs.render.render_gin`): scores, stock size, the discard pile's top, both
hands sorted and grouped into their best melds with their deadwood, whose turn it is; after
a hand ends both hands with melds and lay-offs and the score line; at the end the totals.

## Version history

* v0: first version (rummyrl). The observation later grew from 638 to 794 floats (`my_known`,
  `my_passed`, `taken`), so that it holds everything the player knows (`rummyrl.gin_beliefs`
  rebuilds full states from it); the version was not bumped, since no release had shipped.
"""

from __future__ import annotations

from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from .aec_wrappers import standard_wrappers
from .card_aec import CardGameAEC
from rummyrl import games

from .gin_rewards import GAME_POINTS_SCALE, HAND_POINTS_SCALE


def env(illegal_reward: float = -1, **kwargs) -> AECEnv:
    """``raw_env`` in the standard PettingZoo wrappers: an illegal move ends the episode with
    ``illegal_reward`` to the mover (``TerminateIllegalWrapper``), actions outside the space
    assert, calls out of order are errors."""
    return standard_wrappers(raw_env(**kwargs), illegal_reward=illegal_reward)


class raw_env(CardGameAEC, EzPickle):
    """Gin Rummy as a PettingZoo AEC environment; see the module docstring (the loop is
    ``rummyrl.envs.card_aec.CardGameAEC``)."""

    metadata = {"render_modes": ["human", "ansi", "html"], "name": "gin_rummy_v0",
                "is_parallelizable": False, "render_fps": 1}
    game = games.get("gin")

    def __init__(self, render_mode: str | None = None, reward: str = "hand_points",
                 hand_points_scale: float = HAND_POINTS_SCALE,
                 game_points_scale: float = GAME_POINTS_SCALE,
                 max_cycles: int | None = None, **rules):
        EzPickle.__init__(self, render_mode=render_mode, reward=reward,
                          hand_points_scale=hand_points_scale,
                          game_points_scale=game_points_scale, max_cycles=max_cycles, **rules)
        super().__init__(render_mode, reward, (hand_points_scale, game_points_scale), max_cycles, rules)
