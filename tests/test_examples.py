"""examples/: each library's example trains on our environments in a tiny run, from the
library's own API plus what the example adds, and saves a network that ``evaluate.py`` plays
in a 200-game tournament against ``simple``. Each test skips where its library (an optional
extra: ``pip install -e ".[tianshou]"``) is not installed; CI installs them."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

from rummyrl import evaluate
from rummyrl.agents import load_agent
from rummyrl.agents.exported import ExportedAgent

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def example(name: str):
    """The example module ``examples/NAME.py``, imported from its file."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("game, players", [("gin", None), ("rummy", 3)])
def test_tianshou_trains_with_its_own_api_and_its_network_plays_a_tournament(tmp_path, game, players):
    """The raw env raises on an illegal move, so a finished run made none; its network is an
    agent of ours and plays 200 games against simple through evaluate.py."""
    pytest.importorskip("tianshou")
    out = tmp_path / "policy.pt2"
    args = ["--game", game, "--steps", "2000", "--epochs", "1", "--envs", "2", "--out", str(out)]
    example("tianshou_dqn").main(args + (["--players", str(players)] if players else []))
    assert isinstance(load_agent(str(out), game=game), ExportedAgent)
    games = "200" if game == "gin" else "36"  # Rummy: duplicate deals in all 6 seatings of 3 players
    rc = evaluate.main([str(out), "simple", "--game", game, "--games", games, "--out", str(tmp_path / "eval")]
                       + (["--players", str(players)] if players else []))
    assert rc == 0
    (pairing,) = json.loads((tmp_path / "eval" / "results.json").read_text())["pairings"]
    assert pairing["games"] == int(games) and pairing["b"] == "simple"
