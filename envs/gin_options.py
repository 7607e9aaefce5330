"""What every Gin Rummy wrapper shares: rule options, reset options (explicit deals) and spaces.

Rule options are the fields of :class:`rummyrl.gin.GinConfig` (``episode``, ``target``,
``knock_limit``, ...), passed to an environment as keyword arguments; an unknown name or a
bad value is a ``ValueError`` that names it.

Reset options (``env.reset(options={...})``) fix the deal, as ``rummyrl.gin.init`` does:

=============  ==============================================================================
key            value
=============  ==============================================================================
``deck``       the first hand's 52-card order: card ids 0..51 or card text (``"As 2s ..."``);
               ``deck[0:10]`` is the non-dealer's hand, ``deck[10:20]`` the dealer's,
               ``deck[20]`` the upcard, ``deck[21]`` the first stock card
``dealer``     the first hand's dealer: 0 / 1 or ``"player_0"`` / ``"player_1"``; without it
               the seeded first dealer (G-3)
``decks``      a schedule: the decks of the game's first H hands, shape ``(H, 52)`` (later
               hands are shuffled from the seed); not together with ``deck``
``dealers``    the dealer of each scheduled hand, ``(H,)`` (``-1``: by the dealer rule)
=============  ==============================================================================
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
from gymnasium import spaces

from rummyrl import gin
from rummyrl.cards import check_deck, parse_cards

#: reset-option keys that fix the deal
DEAL_OPTIONS = ("deck", "dealer", "decks", "dealers")
RULE_OPTIONS = tuple(f.name for f in dataclasses.fields(gin.GinConfig))


def make_config(rules: dict, where: str, env_options: tuple[str, ...] = ()) -> gin.GinConfig:
    """A :class:`GinConfig` from keyword arguments; errors name the bad option and list the
    environment's own options next to the rule options."""
    unknown = sorted(set(rules) - set(RULE_OPTIONS))
    if unknown:
        raise ValueError(
            f"{where}: unknown option(s) {unknown}; rule options: {sorted(RULE_OPTIONS)}; "
            f"environment options: {sorted(env_options)}"
        )
    try:
        return gin.GinConfig(**rules)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None


def _seat(value, name: str) -> int:
    if isinstance(value, str) and value in ("player_0", "player_1"):
        return int(value[-1])
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value in (-1, 0, 1):
        return int(value)
    raise ValueError(f"reset option {name!r} must be 0, 1, 'player_0', 'player_1' (or -1: by the "
                     f"dealer rule), got {value!r}")


def _deck(value, name: str) -> np.ndarray:
    if isinstance(value, str):
        value = parse_cards(value)
    elif isinstance(value, (list, tuple)) and value and all(isinstance(v, str) for v in value):
        value = parse_cards(value)
    try:
        return check_deck(np.asarray(value), name)
    except ValueError as e:
        raise ValueError(f"reset option {e}") from None


def parse_reset_options(options, extra: tuple[str, ...] = (), strict: bool = True):
    """Split ``options`` into ``(decks, dealers, rest)`` for ``gin.init`` with a batch of one:
    ``decks`` is ``None``, ``(1, 52)`` or a schedule ``(1, H, 52)``; ``rest`` holds the keys in
    ``extra`` (wrapper-specific options such as ``seat``).

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
        raise ValueError("reset options 'deck' and 'decks' exclude each other: give one hand's deck or a schedule")
    if "dealers" in options and "decks" not in options:
        raise ValueError("reset option 'dealers' goes with 'decks' (one dealer per scheduled hand)")
    if "dealer" in options and "deck" not in options:
        raise ValueError("reset option 'dealer' goes with 'deck' (the dealer of that deal)")
    if "deck" in options:
        deck = _deck(options["deck"], "deck")
        if deck.ndim != 1:
            raise ValueError(f"reset option 'deck' must be one deck of 52 cards, got shape {deck.shape}; "
                             "use 'decks' for a schedule")
        dealer = _seat(options.get("dealer", -1), "dealer")
        return deck[None], np.array([dealer], np.int8), rest
    if "decks" in options:
        decks = _deck(options["decks"], "decks")
        if decks.ndim != 2:
            raise ValueError(f"reset option 'decks' must have shape (H, 52), got {decks.shape}")
        H = decks.shape[0]
        if "dealers" in options:
            raw = options["dealers"]
            raw = [raw] if np.ndim(raw) == 0 else list(raw)
            if len(raw) > H:
                raise ValueError(f"reset option 'dealers' has {len(raw)} entries for {H} decks")
            dealers = np.full(H, -1, np.int8)
            dealers[: len(raw)] = [_seat(d, "dealers") for d in raw]
        else:
            dealers = np.full(H, -1, np.int8)
        return decks[None], dealers[None], rest
    return None, None, rest


def observation_high(config: gin.GinConfig) -> np.ndarray:
    """Upper bounds of the flat observation (lower bounds are 0). Card planes and most
    scalars are in [0, 1]; scores are divided by the target and can pass 1 when the
    game-ending hand overshoots it; hand counts are divided by 10."""
    high = np.ones(gin.OBS_DIM, np.float32)
    # one hand scores at most the defender's deadwood (<= 100 for 10 cards) plus a bonus
    bonus = max(config.gin_bonus, config.big_gin_bonus or 0, config.undercut_bonus + config.knock_limit)
    score_high = (config.target - 1 + 100 + bonus) / config.target
    for name in ("my_score", "opp_score"):
        high[gin.OBS_LAYOUT[name]] = score_high
    for name in ("my_hands_won", "opp_hands_won"):
        high[gin.OBS_LAYOUT[name]] = max(1.0, config.max_hands / 10)
    high[gin.OBS_LAYOUT["target"]] = max(1.0, config.target / 100)
    return high


def observation_space(config: gin.GinConfig) -> spaces.Dict:
    """``Dict(observation=Box(0, high, (OBS_DIM,), float32), action_mask=Box(0, 1, (A,), int8))``."""
    return spaces.Dict({
        "observation": spaces.Box(0.0, observation_high(config), (gin.OBS_DIM,), np.float32),
        "action_mask": spaces.Box(0, 1, (gin.NUM_ACTIONS,), np.int8),
    })
