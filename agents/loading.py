"""Loading agents by name: the built-in agents, the games' rule agents, checkpoints.

    from rummyrl.agents import load_agent
    agent = load_agent("expert:lookahead=4", game="gin", seed=0)

The rule agents of a game come from the game registry (``Game.agents``). The other
built-in agents are named here by entry points, ``"module:attribute"`` (resolved with
:func:`rummyrl.games.load`), so that loading ``simple`` never imports torch (only a
network or search that asks for one does) and search, which loads its rollout policy
through :func:`load_agent`, can import this module without a cycle.
"""

from __future__ import annotations

import os

from rummyrl import games

from .base import Agent, check_game
from .foreign import is_callable_spec, is_exported, is_rllib_checkpoint, is_sb3_zip, load_callable


def rule_agent(name: str, game, params=None) -> Agent:
    """The rule agent ``name`` of ``game`` (``Game.agents``), with its parameters."""
    g = games.get(game)
    if name not in g.agents:
        raise ValueError(f"{g.title} has no {name!r} agent; its rule agents: {sorted(g.agents)}")
    cls = games.load(g.agents[name])
    return cls(params=params) if params is not None else cls()


def expert_params(game, text: str, name: str = "expert"):
    """The parameters of rule agent ``name`` (``expert``, ``planner``) of ``game`` from
    ``"key=value,..."`` (the parser ``Game.params`` names)."""
    g = games.get(game)
    if name not in g.params:
        raise ValueError(f"{g.title}'s {name!r} agent takes no parameters")
    return games.load(g.params[name])(text)


def _rule(name):
    def make(game: str = "gin", seed: int | None = None, params=None) -> Agent:
        return rule_agent(name, game, params)

    make.__name__ = name
    return make


#: name -> constructor ``(game=..., seed=..., **options)`` of the built-in agents: a
#: callable, or the entry point of one
_BUILTIN = {"random": "rummyrl.agents.random_agent:RandomAgent", "simple": _rule("simple"),
            "expert": _rule("expert"), "planner": _rule("planner"),
            "search": "rummyrl.agents.search:SearchAgent",
            "pretrained": "rummyrl.agents.neural:load_pretrained",
            "pretrained-plain": "rummyrl.agents.neural:load_pretrained_plain"}
#: built-in agents whose spec takes options, ``name:key=value,...``: name -> the parser of
#: the option text into the constructor's keyword arguments, ``(text, game) -> dict``
_WITH_OPTIONS = {
    "expert": lambda text, game: {"params": expert_params(game, text, "expert")},
    "planner": lambda text, game: {"params": expert_params(game, text, "planner")},
    "search": lambda text, game: games.load("rummyrl.agents.search:parse_options")(text),
}


def _make(name: str, **kwargs) -> Agent:
    factory = _BUILTIN[name]
    return (games.load(factory) if isinstance(factory, str) else factory)(**kwargs)


def agent_names() -> list[str]:
    return sorted(_BUILTIN)


def register(name: str, factory) -> None:
    """Make ``factory(game=..., seed=...)`` (a callable or its entry point) loadable as ``name``."""
    _BUILTIN[name] = factory


def load_agent(spec, game: str = "gin", seed: int | None = None) -> Agent:
    """An agent from a name (``random``, ...), a name with options
    (``search:worlds=64,topk=3``, ``expert:lookahead=4``, ``planner:swap_margin=24``), an
    :class:`Agent`, a checkpoint path, an exported policy's path (``torch.export``), a
    Stable-Baselines3 ``.zip`` or an RLlib checkpoint (``rummyrl.agents.libraries``), or a
    policy function ``package.module:function`` (agents trained elsewhere: ``rummyrl.agents.foreign``)."""
    if isinstance(spec, Agent):
        if spec.game != game:
            raise ValueError(f"agent {spec!r} plays {spec.game!r}, not {game!r}")
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"an agent is a name {agent_names()}, a checkpoint path or 'module:function', "
                         f"got {spec!r}")
    check_game(game)
    if spec in _BUILTIN:
        return _make(spec, game=game, seed=seed)
    name, colon, options = spec.partition(":")
    if colon and name in _BUILTIN:
        if not options.strip(" ,"):
            raise ValueError(f"agent spec {spec!r} has an empty option list: write {name!r} for the defaults, "
                             f"or {name}:KEY=VALUE,...")
        if name not in _WITH_OPTIONS:
            raise ValueError(f"agent {name!r} takes no options (got {spec!r}); agents with options: "
                             f"{sorted(_WITH_OPTIONS)}")
        return _make(name, game=game, seed=seed, **_WITH_OPTIONS[name](options, game))
    if colon and is_callable_spec(spec) and not os.path.exists(spec):
        return load_callable(spec, game)
    if os.path.sep in spec or spec.endswith(".pt") or os.path.exists(spec):
        if is_exported(spec):
            return games.load("rummyrl.agents.exported:load_exported")(spec, game=game, seed=seed)
        if is_sb3_zip(spec):
            return games.load("rummyrl.agents.libraries:load_sb3")(spec, game=game, seed=seed)
        if is_rllib_checkpoint(spec):
            return games.load("rummyrl.agents.libraries:load_rllib")(spec, game=game, seed=seed)
        return games.load("rummyrl.agents.neural:load_agent_from_checkpoint")(spec, game=game, seed=seed)
    raise ValueError(f"unknown agent {spec!r}: use one of {agent_names()}, a checkpoint or exported (.pt2) file "
                     f"path, an SB3 .zip or RLlib checkpoint, or a policy function 'package.module:function'")


