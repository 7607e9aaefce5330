"""Options every environment shares, for any number of seats: rule options, seats, reset
options that fix the deal, and the observation space.

Rule options are the fields of the engine's config dataclass (``rummyrl.gin.GinConfig``,
``rummyrl.rummy.RummyConfig``), passed to an environment as keyword arguments; an unknown
name or a bad value is a ``ValueError`` that names it.

Reset options (``env.reset(options={...})``) fix the deal, as the engines' ``init`` does:

=============  ==============================================================================
key            value
=============  ==============================================================================
``deck``       the first deal's 52-card order: card ids 0..51 or card text (``"As 2s ..."``);
               which position goes where is the engine's (``rummyrl.envs.gin_options``,
               ``rummyrl.envs.rummy_options``)
``dealer``     the first deal's dealer: a seat ``0..P-1`` or ``"player_i"``; without it the
               seeded first dealer
``decks``      a schedule: the decks of the game's first H deals, shape ``(H, 52)`` (later
               deals are shuffled from the seed); not together with ``deck``
``dealers``    the dealer of each scheduled deal, ``(H,)`` (``-1``: by the dealer rule)
=============  ==============================================================================
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import warnings

import numpy as np
from gymnasium import spaces

from rummyrl import games
from rummyrl.cards import check_deck, parse_cards

#: reset-option keys that fix the deal
DEAL_OPTIONS = ("deck", "dealer", "decks", "dealers")


def env_options(cls) -> tuple[str, ...]:
    """The keyword arguments of ``cls.__init__`` other than the rule options (``**rules``):
    listed next to the rule options when an unknown option is given."""
    params = inspect.signature(cls.__init__).parameters.values()
    return tuple(p.name for p in params if p.name != "self" and p.kind is not p.VAR_KEYWORD)


def make_config(config_cls, rules: dict, where: str, env_options: tuple[str, ...] = ()):
    """A ``config_cls`` from keyword arguments; errors name the bad option and list the
    environment's own options next to the rule options."""
    rule_options = [f.name for f in dataclasses.fields(config_cls)]
    unknown = sorted(set(rules) - set(rule_options))
    if unknown:
        raise ValueError(
            f"{where}: unknown option(s) {unknown}; rule options: {sorted(rule_options)}; "
            f"environment options: {sorted(env_options)}"
        )
    try:
        return config_cls(**rules)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None


def check_render_mode(render_mode, allowed, where: str) -> None:
    if render_mode is not None and render_mode not in allowed:
        raise ValueError(f"{where}: render_mode must be one of {list(allowed)} or None, got {render_mode!r}")


def agent_names(num_players: int) -> tuple[str, ...]:
    return tuple(f"player_{p}" for p in range(num_players))


def seat_choices(num_players: int) -> str:
    """``"0, 1, 'player_0', 'player_1'"``: how a seat may be given, for error messages."""
    return ", ".join([str(p) for p in range(num_players)] + [repr(a) for a in agent_names(num_players)])


def as_seat(value, num_players: int) -> int | None:
    """``value`` as a seat ``0..P-1`` (an int or ``"player_i"``); None when it is neither."""
    names = agent_names(num_players)
    if isinstance(value, str):
        return names.index(value) if value in names else None
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= value < num_players:
        return int(value)
    return None


def parse_seat(seat, num_players: int, where: str) -> int | None:
    """The learner's seat argument: ``None`` (random each episode) or a seat."""
    if seat is None:
        return None
    p = as_seat(seat, num_players)
    if p is None:
        raise ValueError(f"{where}: seat must be None (random each episode), {seat_choices(num_players)}, "
                         f"got {seat!r}")
    return p


def _dealer(value, name: str, num_players: int) -> int:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value == -1:
        return -1
    p = as_seat(value, num_players)
    if p is None:
        raise ValueError(f"reset option {name!r} must be {seat_choices(num_players)} (or -1: by the dealer "
                         f"rule), got {value!r}")
    return p


def _deck(value, name: str) -> np.ndarray:
    if isinstance(value, str):
        value = parse_cards(value)
    elif isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        value = parse_cards(value)
    try:
        return check_deck(np.asarray(value), name)
    except ValueError as e:
        raise ValueError(f"reset option {e}") from None


def parse_reset_options(options, num_players: int, extra: tuple[str, ...] = (), strict: bool = True):
    """Split ``options`` into ``(decks, dealers, rest)`` for an engine's ``init`` with a batch
    of one: ``decks`` is ``None``, ``(1, 52)`` or a schedule ``(1, H, 52)``; ``rest`` holds the
    keys in ``extra`` (wrapper-specific options such as ``seat``).

    An unknown key is a ``ValueError`` naming it, or, with ``strict=False``, a warning (PettingZoo's
    API test resets with ``options={"options": 1}`` to check that the argument exists).
    """
    if options is None:
        return None, None, {}
    if not isinstance(options, dict):
        raise ValueError(f"reset options must be a dict, got {type(options).__name__}")
    known = DEAL_OPTIONS + tuple(extra)
    unknown = sorted(set(options) - set(known), key=str)
    if unknown:
        msg = f"unknown reset option(s) {unknown}; known: {list(known)}"
        if strict:
            raise ValueError(msg)
        warnings.warn(msg + " (ignored)", stacklevel=3)
    rest = {k: options[k] for k in extra if k in options}
    if "deck" in options and "decks" in options:
        raise ValueError("reset options 'deck' and 'decks' exclude each other: give one deal's deck or a schedule")
    if "dealers" in options and "decks" not in options:
        raise ValueError("reset option 'dealers' goes with 'decks' (one dealer per scheduled deal)")
    if "dealer" in options and "deck" not in options:
        raise ValueError("reset option 'dealer' goes with 'deck' (the dealer of that deal)")
    if "deck" in options:
        deck = _deck(options["deck"], "deck")
        if deck.ndim != 1:
            raise ValueError(f"reset option 'deck' must be one deck of 52 cards, got shape {deck.shape}; "
                             "use 'decks' for a schedule")
        dealer = _dealer(options.get("dealer", -1), "dealer", num_players)
        return deck[None], np.array([dealer], np.int8), rest
    if "decks" in options:
        decks = _deck(options["decks"], "decks")
        if decks.ndim != 2:
            raise ValueError(f"reset option 'decks' must have shape (H, 52), got {decks.shape}")
        H = decks.shape[0]
        dealers = np.full(H, -1, np.int8)
        if "dealers" in options:
            raw = options["dealers"]
            raw = [raw] if np.ndim(raw) == 0 else list(raw)
            if len(raw) > H:
                raise ValueError(f"reset option 'dealers' has {len(raw)} entries for {H} decks")
            dealers[: len(raw)] = [_dealer(d, "dealers", num_players) for d in raw]
        return decks[None], dealers[None], rest
    return None, None, rest


def observation_space(game, config) -> spaces.Dict:
    """``Dict(observation=Box(0, high, (OBS_DIM,), float32), action_mask=Box(0, 1, (A,), int8))``
    of ``game`` (a registry entry) under the rules ``config``; the bounds are the game's
    ``observation_high`` (the same shapes for every number of players)."""
    return dict_space(games.load(game.observation_high)(config), game.num_actions)


class ObservationBox(spaces.Box):
    """A Box whose repr says its bounds in one line: Gymnasium's prints every element of a
    bound that is not the same everywhere (here ``high``, hundreds of numbers), which floods
    every log and error message that shows the space. Otherwise it is a ``Box``."""

    def __repr__(self) -> str:
        def bound(b: np.ndarray) -> str:
            lo, hi = float(b.min()), float(b.max())
            return f"{lo:g}" if lo == hi else f"<{b.size} values in [{lo:g}, {hi:g}]>"
        return f"Box({bound(self.low)}, {bound(self.high)}, {self.shape}, {self.dtype})"


def dict_space(high: np.ndarray, num_actions: int) -> spaces.Dict:
    """``Dict(observation=Box(0, high, (D,), float32), action_mask=Box(0, 1, (A,), int8))``."""
    return spaces.Dict({
        "observation": ObservationBox(0.0, high, high.shape, np.float32),
        "action_mask": spaces.Box(0, 1, (num_actions,), np.int8),
    })


def parse_key_values(items: list[str]) -> dict:
    """Command-line ``--option KEY=VALUE`` items -> a dict; values are read as JSON where
    they parse (``50``, ``true``, ``null``), else kept as strings."""
    opts = {}
    for it in items:
        if "=" not in it:
            raise ValueError(f"--option takes KEY=VALUE, got {it!r}")
        k, v = it.split("=", 1)
        try:
            opts[k.strip()] = json.loads(v)
        except json.JSONDecodeError:
            opts[k.strip()] = v
    return opts
