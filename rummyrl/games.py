"""The game registry: what every layer above the engines needs to know of a game.

Each game is one :class:`Game` entry: its engine module, rules config, player counts,
sizes and layouts, the names of its deals and ends, its kinds of action, its reward
constants, its belief sampler for search, and the rule agents and renderer that play and
draw it. The environments, agents, training, evaluation and play ask the registry
(``games.get("gin")``) instead of branching on a game's name::

    from rummyrl import games
    game = games.get("rummy")
    config = game.make_config({"target": 150}, players=3)
    state = game.engine.init(8, seed=0, config=config)

Layers and entry points
-----------------------
The registry sits just above the engines (``rummyrl.gin``, ``rummyrl.rummy``, the meld
arithmetic and the belief samplers), which it imports. What lives in a higher layer (a
rule agent in ``rummyrl.agents``, a renderer in ``rummyrl.envs``) it names by an *entry
point*, ``"module:attribute"``, as Gymnasium's registry does; that layer resolves it with
:func:`load` when it needs it. So the registry never imports an upper layer, and a new
game adds its own agents without editing the agents package.

Adding a game
-------------
A third game (a Gin variant such as Oklahoma Gin, say) is an engine module with the
engine API of ``rummyrl.gin`` (``init``, ``step``, ``observe``, ``reset_done``,
``game_result``, ``game_info``, ``<deal>_info``, ``<deal>_arrays``, ``action_name``,
``IllegalActionError``, ``NUM_ACTIONS``, ``OBS_DIM``, ``OBS_LAYOUT``, ``PHASE_NAMES``,
``END_NAMES``) and one :func:`register` call
with its entry. docs/architecture.md walks through it.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import Callable, Mapping

import numpy as np

from . import engine_features, gin, gin_beliefs, rummy, rummy_beliefs
from .cards import NUM_CARDS


@dataclass(frozen=True)
class Game:
    """One game of the registry. Fields name what differs between games; the methods
    read the engine's state in the game's own words (a Gin *hand* is a Rummy *round*)."""

    name: str
    """The id every layer uses: ``load_agent(..., game=name)``, ``train.py game=name``."""
    title: str
    """The name people read: ``"Gin Rummy"``."""
    engine: ModuleType
    """The batched engine (``init``, ``step``, ``observe``, ...)."""
    config_cls: type
    """The engine's rules dataclass (``GinConfig``); ``from_dict`` checks every field."""
    deal: str
    """One deal in the game's words, ``"hand"`` or ``"round"``: the state fields
    ``<deal>_ended``, ``<deal>_no``, ``<deal>s_won`` and ``last_*`` describe it."""
    min_players: int
    max_players: int
    default_players: int
    card_planes: int
    """The observation starts with this many 52-card planes (the card grid a network reads)."""
    draw_actions: tuple[int, ...]
    """The actions of a draw decision (the start of a turn)."""
    take_action: int
    """The action that takes the top discard; its card is the observation's ``top_discard``."""
    card_blocks: tuple[slice, ...]
    """Blocks of one action per card, card ``c`` at ``block.start + c`` (discard; Gin's knock)."""
    meld_block: slice | None
    """Actions that lay down a meld of ``rummyrl.melds.MELDS`` (in order), or None."""
    layoff_block: slice | None
    """Actions that lay card ``(a - start) % 52`` off onto a table meld, or None."""
    end_actions: slice | None
    """Actions that end the hand by the mover's choice (Gin's knocks and big gin), or None."""
    no_winner_ends: tuple[int, ...]
    """End codes (``state.last_end``) of deals nobody won."""
    points_reward: str
    """The reward scheme of a deal's points (``rummyrl.envs.rewards``)."""
    points_scale: float
    """Reward per point of ``points_reward`` (about 1 for a usual deal)."""
    game_points_scale: float
    """Reward per point of the final margin in the ``game_points`` scheme (about 1-3)."""
    beliefs: ModuleType
    """Search's sampler of worlds consistent with an observation (``sample_worlds``)."""
    search_defaults: Mapping[str, tuple]
    """The game's own search options and defaults, ``option -> (type, default)``."""
    belief_options: tuple[str, ...]
    """The search options that ``beliefs.sample_worlds`` takes."""
    engine_features: Callable | None
    """``(observations, masks) -> (B, F)`` per-action facts of the meld arithmetic for a
    network with no expert in it (``rummyrl.engine_features``), or None."""
    feature_groups: np.ndarray | None
    """``(F,)`` per column of the engine features: the kind of column that gets its own weight."""
    feature_actions: np.ndarray | None
    """``(F,)`` per column of the engine features: the action whose logit it scores (the
    first ``A`` columns are the actions in order; Rummy adds columns for the draws and
    discards)."""
    readout_planes: tuple[int, ...] = ()
    """The card planes (indices of the observation's 52-card planes) that a network's card
    readout reads (``NetConfig.card_readout``): what a card's worth to keep or to throw
    depends on, the hand, the face-up card, the unseen cards, and what the next player and
    the table could use."""
    agents: Mapping[str, str] = field(default_factory=dict)
    """Rule agents: name -> entry point of the class, constructed as ``cls(params=...)``."""
    preferences: Mapping[str, str] = field(default_factory=dict)
    """Preference functions of the rule agents with parameters: name -> entry point of
    ``(observations, masks, params) -> (B, A)`` (the expert's prior of a network)."""
    params: Mapping[str, str] = field(default_factory=dict)
    """Parameter parsers of the rule agents with options: name -> entry point of
    ``parse_params("key=value,...")``."""
    rewards: str = ""
    """Entry point of the game's reward schemes class (``rummyrl.envs.rewards.ZeroSumRewards``)."""
    renderer: str = ""
    """Entry point of ``render(state, b, names, deal_ended) -> str`` (``rummyrl.envs.render``)."""
    observation_high: str = ""
    """Entry point of ``observation_high(config) -> (OBS_DIM,)`` upper bounds."""
    session: str = ""
    """Entry point of the terminal game's session class (``rummyrl.agents.play``)."""
    stock_rows: str = ""
    """Entry point of ``(observations, masks) -> (B,) bool``: the draws at which the stock's
    next card is known (Rummy's turned-over pile, R-7), or ``""`` where there are none."""

    # -- sizes -----------------------------------------------------------------------
    @property
    def num_actions(self) -> int:
        return self.engine.NUM_ACTIONS

    @property
    def obs_dim(self) -> int:
        """Length of the flat observation (the same for every player count)."""
        return self.engine.OBS_DIM

    @property
    def obs_layout(self) -> dict:
        """Part name -> slice of the flat observation."""
        return self.engine.OBS_LAYOUT

    @property
    def top_discard(self) -> slice:
        return self.engine.OBS_LAYOUT["top_discard"]

    @property
    def end_names(self) -> tuple[str, ...]:
        return self.engine.END_NAMES

    # -- players and rules -----------------------------------------------------------
    def check_players(self, players: int | None) -> int:
        """``players`` (default: the game's), or ValueError naming the allowed range."""
        if players is None:
            return self.default_players
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)):
            raise ValueError(f"{self.title}: the number of players must be an integer, got {players!r}")
        if not self.min_players <= players <= self.max_players:
            allowed = (f"{self.min_players}" if self.min_players == self.max_players
                       else f"{self.min_players}..{self.max_players}")
            raise ValueError(f"{self.title} is played by {allowed} players, not {players}")
        return int(players)

    def players_of(self, config) -> int:
        """The number of players of a rules config of this game."""
        return getattr(config, "num_players", self.default_players)

    def episode_word(self, unit: str) -> str:
        """The engine's ``episode`` for ``"hand"`` (one deal) or ``"game"``."""
        if unit not in ("hand", "game"):
            raise ValueError(f"an episode is 'hand' (one deal) or 'game', got {unit!r}")
        return self.deal if unit == "hand" else "game"

    def make_config(self, rules: dict | None = None, players: int | None = None, episode: str | None = None):
        """The engine's rules config from ``rules`` (``key: value``), the number of players
        and the episode (``"hand"``/``"game"``, in either game's words); every value is
        checked by the config itself."""
        d = dict(rules or {})
        if episode is not None:
            d["episode"] = self.episode_word("hand" if episode == self.deal else episode)
        fields = self.config_cls.__dataclass_fields__
        if "num_players" in fields:
            d["num_players"] = self.check_players(players if players is not None else d.get("num_players"))
        else:
            self.check_players(players)
        return self.config_cls.from_dict(d)

    # -- reading a state in the game's words -----------------------------------------
    def deal_ended(self, state) -> np.ndarray:
        """``(B,)`` bool: a deal ended in the last step."""
        return getattr(state, f"{self.deal}_ended")

    def deals_won(self, state) -> np.ndarray:
        return getattr(state, f"{self.deal}s_won")

    def deals_played(self, state) -> np.ndarray:
        """Deals of each game so far, the current one included."""
        return getattr(state, f"{self.deal}_no") + 1

    def deal_info(self, state, b: int) -> dict:
        """How the last deal of game ``b`` ended, as plain data."""
        return getattr(self.engine, f"{self.deal}_info")(state, b)

    def deal_arrays(self, state, b: int) -> dict:
        """How the last deal of game ``b`` ended, as arrays of fixed shape and dtype."""
        return getattr(self.engine, f"{self.deal}_arrays")(state, b)

    def illegal_message(self, state, action: int, who: str) -> str:
        """The error text of an illegal action in a batch of one: ``"{who}: action 2 (discard As)
        is not legal in phase DRAW; legal: [0 (draw_stock), 1 (take_discard)]"``."""
        core = self.engine
        legal = np.flatnonzero(state.mask[0]).tolist()
        shown = ", ".join(f"{x} ({core.action_name(x)})" for x in legal)
        what = core.action_name(action) if 0 <= action < core.NUM_ACTIONS else "out of range"
        return (f"{who}: action {action} ({what}) is not legal in phase "
                f"{core.PHASE_NAMES[state.phase[0]]}; legal: [{shown}]")

    def __repr__(self) -> str:
        return f"Game({self.name!r})"


_GAMES: dict[str, Game] = {}
#: the registered games by name (read-only; :func:`register` adds one)
GAMES: Mapping[str, Game] = MappingProxyType(_GAMES)


def register(game: Game) -> Game:
    """Add ``game`` to the registry; its name must be new."""
    if game.name in _GAMES:
        raise ValueError(f"a game named {game.name!r} is registered already")
    _GAMES[game.name] = game
    return game


def names() -> list[str]:
    """The registered games' names."""
    return list(_GAMES)


def get(name) -> Game:
    """The entry of game ``name`` (a :class:`Game` is returned as it is)."""
    if isinstance(name, Game):
        return name
    try:
        return _GAMES[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown game {name!r}; choose one of {names()}") from None


def of_config(config) -> Game:
    """The game whose rules dataclass ``config`` is."""
    for game in _GAMES.values():
        if isinstance(config, game.config_cls):
            return game
    raise ValueError(f"{config!r} is not the rules config of any registered game {names()}")


def load(entry_point: str):
    """The object an entry point ``"package.module:attribute"`` names."""
    module, colon, attr = entry_point.partition(":")
    if not colon or not module or not attr:
        raise ValueError(f"an entry point is 'module:attribute', got {entry_point!r}")
    return getattr(importlib.import_module(module), attr)


# --------------------------------------------------------------------------------------
# The two games
# --------------------------------------------------------------------------------------
#: search options and defaults of every game (a game's ``search_defaults`` add to them)
SEARCH_DEFAULTS = {
    "worlds": (int, 32),
    "topk": (int, 3),
    "rollout": (str, "expert"),
    "opponent": (str, ""),
    "belief": (str, "weighted"),
    "z": (float, 1.0),
}

def _planes(engine, *parts) -> tuple[int, ...]:
    """The indices of the observation's 52-card planes named ``part`` or ``(part, seat)``
    (the relative seat's plane of a part with one per seat)."""
    out = []
    for part in parts:
        name, seat = part if isinstance(part, tuple) else (part, 0)
        out.append(engine.OBS_LAYOUT[name].start // NUM_CARDS + seat)
    return tuple(out)


register(Game(
    name="gin", title="Gin Rummy", engine=gin, config_cls=gin.GinConfig, deal="hand",
    min_players=2, max_players=2, default_players=2,
    card_planes=len(gin.OBS_PLANES),
    draw_actions=(gin.DRAW_STOCK, gin.TAKE_DISCARD, gin.PASS),
    take_action=gin.TAKE_DISCARD,
    card_blocks=(slice(gin.DISCARD, gin.DISCARD + NUM_CARDS), slice(gin.KNOCK, gin.KNOCK + NUM_CARDS)),
    meld_block=None, layoff_block=None,
    end_actions=slice(gin.KNOCK, gin.NUM_ACTIONS),
    no_winner_ends=(gin.END_NONE, gin.END_DEAD, gin.END_TRUNCATED),
    # a typical knock (10-20 points) is about 0.5; gin against 20 deadwood (45) is 1.8
    points_reward="hand_points", points_scale=1 / 25,
    # winning a game to 100 by a usual margin (150-300 with the game and box bonuses): 1.5-3
    game_points_scale=1 / 100,
    beliefs=gin_beliefs,
    search_defaults=MappingProxyType({
        "beta": (float, gin_beliefs.DEFAULT_BETA),
        "gamma": (float, gin_beliefs.DEFAULT_GAMMA),
        "steps": (int, gin_beliefs.DEFAULT_STEPS),
        "knock": (float, -1.0),
        "game_value": (float, 100.0),
        "horizon": (int, 100),
    }),
    belief_options=("beta", "gamma", "steps", "knock"),
    engine_features=engine_features.gin_features,
    feature_groups=engine_features.GIN_FEATURE_GROUPS,
    feature_actions=engine_features.GIN_FEATURE_ACTIONS,
    readout_planes=_planes(gin, "hand", "top_discard", "pile", "unseen", "opp_known", "opp_thrown",
                           "opp_passed"),
    agents=MappingProxyType({
        "simple": "rummyrl.agents.gin_simple:SimpleGinAgent",
        "expert": "rummyrl.agents.gin_expert:ExpertGinAgent",
    }),
    preferences=MappingProxyType({"expert": "rummyrl.agents.gin_expert:expert_preferences"}),
    params=MappingProxyType({"expert": "rummyrl.agents.gin_expert:parse_params"}),
    rewards="rummyrl.envs.gin_rewards:GinRewards",
    renderer="rummyrl.envs.render:render_gin",
    observation_high="rummyrl.envs.gin_options:observation_high",
    session="rummyrl.agents.play_gin:GinSession",
))

register(Game(
    name="rummy", title="Rummy", engine=rummy, config_cls=rummy.RummyConfig, deal="round",
    min_players=rummy.MIN_PLAYERS, max_players=rummy.MAX_PLAYERS,
    default_players=rummy.RummyConfig().num_players,
    card_planes=rummy.OBS_LAYOUT["hand_sizes"].start // NUM_CARDS,  # the card planes come first
    draw_actions=(rummy.DRAW_STOCK, rummy.TAKE_DISCARD),
    take_action=rummy.TAKE_DISCARD,
    card_blocks=(slice(rummy.DISCARD, rummy.DISCARD + NUM_CARDS),),
    meld_block=slice(rummy.MELD, rummy.LAYOFF),
    layoff_block=slice(rummy.LAYOFF, rummy.NUM_ACTIONS),
    end_actions=None,
    no_winner_ends=rummy.NO_WINNER_ENDS,
    # a round won between the simple and expert baselines: a median 45 points with 4
    # players (6 with 2, 125 with 6), about 0.9
    points_reward="round_points", points_scale=1 / 50,
    # a game to 200 won by a median 160 points over the others' mean (4 players): 0.8
    game_points_scale=1 / 200,
    beliefs=rummy_beliefs,
    search_defaults=MappingProxyType({
        # uniform worlds, more of them and a bonus for going out search better in Rummy
        # than the Gin defaults (docs/research: search)
        "worlds": (int, 64),
        "belief": (str, "uniform"),
        "win_value": (float, 100.0),
        "beta": (float, rummy_beliefs.DEFAULT_BETA),
        "oversample": (int, 4),
        "game_value": (float, 100.0),
        "horizon": (int, 400),
    }),
    belief_options=("beta", "oversample"),
    engine_features=engine_features.rummy_features,
    feature_groups=engine_features.RUMMY_FEATURE_GROUPS,
    feature_actions=engine_features.RUMMY_FEATURE_ACTIONS,
    # the next player's (relative seat 1) known cards, throws and passes, the two after it
    # known cards (with four players; seats past the table's are zero planes)
    readout_planes=_planes(rummy, "hand", "table_fits", "top_discard", "pile", "unseen", ("known", 1),
                           ("known", 2), ("known", 3), ("thrown", 1), ("passed", 1)),
    agents=MappingProxyType({
        "simple": "rummyrl.agents.rummy_simple:SimpleRummyAgent",
        "expert": "rummyrl.agents.rummy_expert:ExpertRummyAgent",
        "planner": "rummyrl.agents.rummy_planner:PlannerRummyAgent",
    }),
    preferences=MappingProxyType({"expert": "rummyrl.agents.rummy_expert:expert_preferences",
                                  "planner": "rummyrl.agents.rummy_planner:planned_preferences"}),
    params=MappingProxyType({"expert": "rummyrl.agents.rummy_expert:parse_params",
                             "planner": "rummyrl.agents.rummy_expert:parse_params"}),
    rewards="rummyrl.envs.rummy_rewards:RummyRewards",
    renderer="rummyrl.envs.render:render_rummy",
    observation_high="rummyrl.envs.rummy_options:observation_high",
    session="rummyrl.agents.play_rummy:RummySession",
    stock_rows="rummyrl.agents.rummy_planner:stock_rows",
))
