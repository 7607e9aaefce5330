"""Agents for both games: rule-based baselines and trained policies, loadable by name.

    from rummyrl.agents import load_agent
    agent = load_agent("random", game="gin", seed=0)

Importing this package imports neither torch nor search: a network loads torch when one
is asked for (:mod:`.loading`).
"""

from __future__ import annotations

from .base import Agent
from .loading import agent_names, expert_params, load_agent, register, rule_agent
from .random_agent import RandomAgent

__all__ = ["Agent", "RandomAgent", "agent_names", "expert_params", "load_agent", "register", "rule_agent"]
