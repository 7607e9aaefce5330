"""
# Rummy (`rummy_v0`)

```python
from rummyrl.envs import rummy_v0
env = rummy_v0.env(num_players=4, render_mode="ansi", episode="round", reward="round_points")
```

|                    |                                                               |
|--------------------|---------------------------------------------------------------|
| Import             | `from rummyrl.envs import rummy_v0`                           |
| Actions            | Discrete                                                      |
| Parallel API       | No (a turn is a draw, any number of melds and lay-offs, then a discard: turns do not alternate action by action) |
| Manual control     | No                                                            |
| Agents             | `agents = ['player_0', ..., 'player_{P-1}']` (`num_players=P`, default 4) |
| Number of agents   | 2 to 6                                                        |
| Action shape       | `Discrete(1267)`                                              |
| Action values      | 0 .. 1266                                                     |
| Observation shape  | `(3061,)`, float32, plus an action mask `(1267,)`, int8 (the same for every number of players) |
| Observation values | 0 .. 1, except scores, hand sizes and a few counters (see below) |

Basic Rummy for 2-6 players by the rule book `docs/rules.md` (rule ids C-1..C-4, R-1..R-9): the
rules are `rummyrl.rummy`; this module only adapts it to PettingZoo's AEC API. Each player
gets 7 cards; a turn is a draw (stock or top discard), any number of plays (lay down a meld,
or lay off single cards onto any table meld once the player has a meld of its own) and a
discard. A player who plays its last card goes out and scores the value of every card left
in the other hands. An episode is one round or a whole game to the target (`episode=`).

## Observation space

`observe(agent)` returns a dict:

- `"observation"`: `Box(0, high, (3061,), float32)`, what `agent` may know (`rummyrl.rummy.observe`):
  58 planes of 52 cards (card id `c = suit * 13 + rank`, suits ♠ ♥ ♦ ♣, ranks A..K), then 45
  numbers. Seats are relative to the observer: relative seat 0 is the player, 1 the next to
  act after it, and so on. Per-seat parts have room for 6 seats; seats beyond the game's
  players are 0 (`seat_present` says which exist).
- `"action_mask"`: `Box(0, 1, (1267,), int8)`, 1 for the legal actions of `agent`; all 0
  when it is not its turn or the episode is over.

| index     | name            | size | meaning                                                         |
|-----------|-----------------|------|-----------------------------------------------------------------|
| 0-51      | `hand`          | 52   | cards the player holds                                          |
| 52-363    | `table_by_seat` | 312  | cards in the melds laid down by each relative seat (6 x 52), lay-offs onto them included |
| 364-1247  | `table_slots`   | 884  | cards in each table meld slot `k` (17 x 52), as in `LAYOFF`     |
| 1248-1299 | `table_fits`    | 52   | cards that could be laid off onto some table meld               |
| 1300-1351 | `top_discard`   | 52   | the top card of the discard pile                                |
| 1352-1403 | `pile`          | 52   | cards in the discard pile                                       |
| 1404-1455 | `pile_recency`  | 52   | for a pile card, (position from the bottom + 1) / pile size     |
| 1456-1767 | `known`         | 312  | cards each relative seat took from the pile and has not played since (6 x 52) |
| 1768-1819 | `taken`         | 52   | the card the player took from the pile this turn (R-5)          |
| 1820-1871 | `unseen`        | 52   | cards not in the hand, on the table, in the pile, or known to be held by another seat |
| 1872-2183 | `thrown`        | 312  | cards each relative seat discarded this round (6 x 52; R-3)     |
| 2184-2495 | `passed`        | 312  | top discards each relative seat declined by drawing from the stock this round (6 x 52) |
| 2496-2807 | `drawn_seen`    | 312  | cards each relative seat drew from a stock turned over from the pile and has not played since (6 x 52; R-7: everyone saw the pile, so the card is known) |
| 2808-2859 | `pile_by`       | 52   | for a pile card, (relative seat that threw it + 1) / 6; 0 for the upcard |
| 2860-2911 | `laid_off_by`   | 52   | for a card laid off onto a table meld, (relative seat that laid it off + 1) / 6 (R-4) |
| 2912-2963 | `stock_order`   | 52   | once the pile was turned over (R-7), for each stock card (draws until it comes up) / stock size |
| 2964-3015 | `actor_taken`   | 52   | the card the player to act, whoever it is, took from the pile this turn (R-5) |
| 3016-3021 | `hand_sizes`    | 6    | cards held by each relative seat / `hand_size` (up to 52 / `hand_size`) |
| 3022-3027 | `melded`        | 6    | 1 where the seat laid down a meld this round (R-4)              |
| 3028-3033 | `scores`        | 6    | each seat's points in this game / target (up to `(target - 1 + 340) / target`) |
| 3034-3039 | `seat_present`  | 6    | 1 for the seats in the game                                     |
| 3040-3045 | `dealer`        | 6    | one-hot relative seat of the dealer                             |
| 3046-3051 | `to_act`        | 6    | one-hot relative seat of the player to act (all 0 once the episode is over) |
| 3052      | `stock_size`    | 1    | cards in the stock / 52                                         |
| 3053      | `stock_passes`  | 1    | times the pile was turned over this round (R-7; up to `stock_passes`) |
| 3054      | `passes_left`   | 1    | 1 while the stock may still be renewed from the pile            |
| 3055-3057 | `phase`         | 3    | one-hot DRAW, PLAY, DONE                                        |
| 3058      | `my_turn`       | 1    | 1 when the player is to act                                     |
| 3059      | `target`        | 1    | target / 200                                                    |
| 3060      | `round_actions` | 1    | actions so far this round / the move cap                        |

`rummyrl.rummy.OBS_LAYOUT` maps each name to its slice and `rummyrl.rummy.observation_dict`
splits an observation into named parts. Observations are new arrays on every call.

## Action space

| action                | ids        | meaning                                                      |
|-----------------------|------------|--------------------------------------------------------------|
| `DRAW_STOCK`          | 0          | draw the top card of the stock; with the stock empty, first turn the discard pile over as the new stock (R-3, R-7) |
| `TAKE_DISCARD`        | 1          | take the top card of the discard pile (R-3)                  |
| `DISCARD + c`         | 2..53      | discard card `c`: ends the turn, or the round when it was the last card (R-3, R-5, R-6) |
| `MELD + m`            | 54..382    | lay down meld `m` of `rummyrl.melds.MELDS` (329 runs and sets) from the hand (R-4) |
| `LAYOFF + k * 52 + c` | 383..1266  | lay off card `c` onto table meld slot `k` (slots numbered in the order the melds were laid down, `k < 17`; R-4) |

A turn is a draw (phase DRAW), then melds and lay-offs and a discard (phase PLAY): the same
agent acts until it discards, so `agent_selection` stays on it for several steps. The mask
is exact: lay-offs only once the player has laid down a meld of its own this round (R-4),
never the card just taken from the pile as the discard unless it is the last card (R-5).
`rummyrl.rummy.action_name(a)` gives the text of an action (`452` -> `"lay off 5h on slot 1"`).

## Rewards

Set with `reward=` (schemes combine with `+`, e.g. `"round_points+game"`); every scheme is
zero-sum, so the players' rewards of a step add up to 0 (`rummyrl.envs.rummy_rewards`).

| `reward`                 | when               | the player who went out / the winner | each other player |
|--------------------------|--------------------|--------------------------------------|-------------------|
| `round_points` (default) | each round's end   | `+points / 50`                       | `-value / 50`     |
| `game`                   | end of the episode | `+1`                                 | `-1 / (P - 1)`    |
| `game_points`            | end of the episode | `(total - mean of the others' totals) / 200` | the same: its total minus the mean of the others', `/ 200` |

`points` is what the round scores (R-8: the value of the cards left in every other hand)
and `value` the value (C-2) of the cards left in the player's own hand: its share of those
points. A drawn (R-7) or capped round gives 0 to everyone; `game` and `game_points` give 0
to everyone when the episode is truncated or a one-round episode ends drawn. The divisors
are `round_points_scale` (1/50) and `game_points_scale` (1/200); with two players
`game_points` is `+-margin / 200`.

With `episode="round"` the game is the round: `game` is +1 for the player who went out and
the totals of `game_points` are the round's points.

## Arguments

`rummy_v0.env(**kwargs)` and `rummy_v0.raw_env(**kwargs)` take:

| argument             | default          | meaning                                                       |
|----------------------|------------------|---------------------------------------------------------------|
| `num_players`        | `4`              | players at the table, 2..6 (R-1); the agents are `player_0 .. player_{P-1}` |
| `render_mode`        | `None`           | `"ansi"` (render() returns the text), `"html"` (the table as HTML) or `"human"` (printed after every step) |
| `reward`             | `"round_points"` | the reward scheme (table above)                               |
| `round_points_scale` | `1/50`           | reward per round point                                        |
| `game_points_scale`  | `1/200`          | reward per point of a final total over the mean of the others |
| `max_cycles`         | `None`           | truncate the episode after `num_players * max_cycles` actions (a cycle is one action per player on average) |
| `illegal_reward`     | `-1`             | `env()` only: the reward of an illegal move, which ends the episode |

and every rule option of `rummyrl.rummy.RummyConfig`: `episode` (`"game"` or `"round"`,
default `"game"`), `target` (200, R-9), `stock_passes` (1: how often the discard pile may be
turned over as a new stock, R-7), `hand_size` (7, R-1), `max_actions` (the move cap of a
round: by default 10 actions per stock card a round may draw, 760 / 480 / 200 actions with
2 / 4 / 6 players; a capped round scores nothing, and in one-round episodes it truncates the
episode), `max_rounds` (100 per game: the game is truncated), `forbid_taken_discard` (True,
C-4 / R-5). An unknown argument or a bad value raises `ValueError` naming it.

## Reset

`reset(seed=s)` deals the same game as every other rummyrl environment seeded with `s` (the
Gymnasium env, lane 0 of the batched interface). `reset()` without a seed plays the next game
of the same seed sequence. `options` fix the deal (`rummyrl.envs.options`, deck positions in
`rummyrl.envs.rummy_options`): `{"deck": [52 card ids or "As 2s ..."], "dealer": seat}` for the
first round (`deck[7*i : 7*i + 7]` is the hand of the player `i + 1` seats left of the
dealer, `deck[7*P]` the upcard, the rest the stock), or `{"decks": (H, 52), "dealers": (H,)}`
for the first H rounds of a game. A seat is `0..P-1` or `"player_i"`. A bad value raises
`ValueError`; an unknown key is ignored with a warning (generic tools pass their own).

## Illegal moves and episode ends

`raw_env.step` raises `rummyrl.rummy.IllegalActionError` naming the action, the phase and the
legal actions. `env()` wraps `raw_env` in PettingZoo's `TerminateIllegalWrapper` (an illegal
move ends the episode; the mover gets `illegal_reward`, the others 0),
`AssertOutOfBoundsWrapper` and `OrderEnforcingWrapper` (`rummyrl.envs.aec_wrappers`), as the classic
environments do. When the episode ends all agents are terminated (or truncated: the move cap
in one-round episodes, `max_rounds`, `max_cycles`) and each steps once more with `None`.

`infos[agent]` has the same keys, shapes and dtypes at every step, numbers only, so that a
library can stack them (`rummyrl.envs.step_info`): `deal_over` (1 after a step that ended a
round), that round's `round`, its end as a `rummy.END_*` code, `winner`, `points`, `dealer`,
`hand_values` (P,), `scores` (P,), and `hands`, `melds` (the table cards each player melded),
`laid_off` (those each player laid off) as (P, 52) int8 card masks (`rummyrl.rummy.round_arrays`;
"nothing", 0 or -1, at other steps); and `game_over`, `game_winner`, `game_total` (P,),
`game_margin`. The same in words: `env.unwrapped.deal_info()` (`rummyrl.rummy.round_info`: the
table melds with their owners and lay-offs) and `env.unwrapped.game_info()`
(`rummyrl.rummy.game_info`: each round's result, rounds won; None while the game goes on).

`max_cycles`: PettingZoo's `max_cycles_test` cannot run here: it needs a parallel API (turns
here are several actions long, so the environment is not parallelizable) and steps with
actions sampled without the mask, which are illegal almost always. `max_cycles=N` truncates
the episode after `N * num_players` actions; the tests check that, as the Gin env's do.

## Rendering

`render_mode="html"` draws the same table as cards (`rummyrl.envs.render_html`, as the web app
`rummyrl-web` does; a notebook shows it with `IPython.display.HTML(env.render())`). The text
table (`rummyrl.envs.render.render_rummy`): scores and rounds won, the stock size and how
often the pile was turned over, the discard pile's top, the table melds with their owners and
the cards laid off onto them (and by whom), every hand sorted and grouped into its best
melds with its card count and value, and whose turn it is with what it may do; after a round
ends its result (who went out and the points each other hand gave, or a draw, or the move
cap), the final table and hands and the score line; at the end the final totals.

## Version history

* v0: first version (rummyrl). The observation later grew from 1911 to 3061 floats (`thrown`,
  `passed`, `drawn_seen`, `pile_by`, `laid_off_by`, `stock_order`, `actor_taken`, `to_act`), so
  that it holds everything the player knows (`rummyrl.rummy_beliefs` rebuilds full states from it).
"""

from __future__ import annotations

from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from .aec_wrappers import standard_wrappers
from .card_aec import CardGameAEC
from rummyrl import games

from .rummy_rewards import GAME_POINTS_SCALE, ROUND_POINTS_SCALE


def env(illegal_reward: float = -1, **kwargs) -> AECEnv:
    """``raw_env`` in the standard PettingZoo wrappers: an illegal move ends the episode with
    ``illegal_reward`` to the mover (``TerminateIllegalWrapper``), actions outside the space
    assert, calls out of order are errors."""
    return standard_wrappers(raw_env(**kwargs), illegal_reward=illegal_reward)


class raw_env(CardGameAEC, EzPickle):
    """Rummy for 2-6 players as a PettingZoo AEC environment; see the module docstring (the
    loop is ``rummyrl.envs.card_aec.CardGameAEC``)."""

    metadata = {"render_modes": ["human", "ansi", "html"], "name": "rummy_v0",
                "is_parallelizable": False, "render_fps": 1}
    game = games.get("rummy")

    def __init__(self, render_mode: str | None = None, reward: str = "round_points",
                 round_points_scale: float = ROUND_POINTS_SCALE,
                 game_points_scale: float = GAME_POINTS_SCALE,
                 max_cycles: int | None = None, **rules):
        EzPickle.__init__(self, render_mode=render_mode, reward=reward,
                          round_points_scale=round_points_scale,
                          game_points_scale=game_points_scale, max_cycles=max_cycles, **rules)
        super().__init__(render_mode, reward, (round_points_scale, game_points_scale), max_cycles, rules)
