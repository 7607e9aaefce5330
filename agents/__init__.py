"""Agents for both games: rule-based baselines and trained policies, loadable by name.

    from rummyrl.agents import load_agent
    agent = load_agent("random", game="gin", seed=0)
"""

from __future__ import annotations

import os

from .base import GAMES, Agent, check_game
from .random_agent import RandomAgent


def _simple(game: str = "gin", seed: int | None = None) -> Agent:
    check_game(game)
    if game == "gin":
        from .gin_simple import SimpleGinAgent

        return SimpleGinAgent()
    from .rummy_simple import SimpleRummyAgent

    return SimpleRummyAgent()


def _expert(game: str = "gin", seed: int | None = None, params=None) -> Agent:
    check_game(game)
    if game == "gin":
        from .gin_expert import ExpertGinAgent

        return ExpertGinAgent(params=params)
    from .rummy_expert import ExpertRummyAgent

    return ExpertRummyAgent(params=params)


def _planner(game: str = "rummy", seed: int | None = None, params=None) -> Agent:
    check_game(game)
    from .rummy_planner import PlannerRummyAgent

    return PlannerRummyAgent(game, params=params)


def expert_params(game: str, text: str):
    """The rule expert's parameters of ``game`` from ``"key=value,..."``: Gin's
    :class:`~rummyrl.agents.gin_expert.ExpertParams` or Rummy's
    :class:`~rummyrl.agents.rummy_expert.RummyExpertParams` (each module's ``parse_params``)."""
    check_game(game)
    if game == "gin":
        from .gin_expert import parse_params
    else:
        from .rummy_expert import parse_params
    return parse_params(text)


def _options(name: str, text: str, game: str) -> dict:
    """The keyword arguments of ``name:text`` (``search:worlds=64``, ``expert:lookahead=4``,
    ``planner:swap_margin=24``)."""
    if name in ("expert", "planner"):
        return {"params": expert_params(game, text)}
    from .search import parse_options

    return parse_options(text)


def _search(game: str = "gin", seed: int | None = None, **options) -> Agent:
    check_game(game)
    from .search import SearchAgent

    return SearchAgent(game=game, seed=seed, **options)


def _pretrained(game: str = "gin", seed: int | None = None) -> Agent:
    check_game(game)
    from .neural import load_pretrained

    return load_pretrained(game, seed=seed)


#: name -> constructor(game, seed) of the built-in agents
_BUILTIN = {"random": RandomAgent, "simple": _simple, "expert": _expert, "planner": _planner,
            "search": _search, "pretrained": _pretrained}
#: built-in agents that take options in their spec, ``name:key=value,...``
_WITH_OPTIONS = {"search", "expert", "planner"}


def agent_names() -> list[str]:
    return sorted(_BUILTIN)


def register(name: str, factory) -> None:
    """Make ``factory(game=..., seed=...)`` loadable as ``name``."""
    _BUILTIN[name] = factory


def load_agent(spec, game: str = "gin", seed: int | None = None) -> Agent:
    """An agent from a name (``random``, ...), a name with options
    (``search:worlds=64,topk=3``, ``expert:lookahead=4``, ``planner:swap_margin=24``), an
    :class:`Agent`, or a checkpoint path."""
    if isinstance(spec, Agent):
        if spec.game != game:
            raise ValueError(f"agent {spec!r} plays {spec.game!r}, not {game!r}")
        return spec
    if not isinstance(spec, str):
        raise ValueError(f"an agent is a name {agent_names()} or a checkpoint path, got {spec!r}")
    if spec in _BUILTIN:
        return _BUILTIN[spec](game=game, seed=seed)
    name, colon, options = spec.partition(":")
    if colon and name in _BUILTIN:
        if name not in _WITH_OPTIONS:
            raise ValueError(f"agent {name!r} takes no options (got {spec!r}); agents with options: "
                             f"{sorted(_WITH_OPTIONS)}")
        return _BUILTIN[name](game=game, seed=seed, **_options(name, options, game))
    if os.path.sep in spec or spec.endswith(".pt") or os.path.exists(spec):
        from .neural import load_agent_from_checkpoint

        return load_agent_from_checkpoint(spec, game=game, seed=seed)
    raise ValueError(f"unknown agent {spec!r}: use one of {agent_names()} or a checkpoint file path")


__all__ = ["Agent", "GAMES", "RandomAgent", "agent_names", "load_agent", "register"]
