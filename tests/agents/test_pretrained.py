"""The shipped networks: ``pretrained`` loads in load_agent, evaluate.py and the terminal
player, plays legal moves, and beats random play; the files stay small."""

from __future__ import annotations

import dataclasses
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import torch
import pytest

from rummyrl import gin, rummy
from rummyrl.agents import load_agent
from rummyrl.agents.checkpoint import load_checkpoint, pretrained_path, save_weights
from rummyrl.agents.network import NetConfig, PolicyNet
from rummyrl.agents.neural import NeuralAgent

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("game", ["gin", "rummy"])
def test_pretrained_files_are_small_and_say_where_they_came_from(game):
    path = pretrained_path(game)
    assert path.is_file(), f"{path} is not shipped"
    assert path.stat().st_size < 3_000_000
    data = load_checkpoint(path, game)
    assert "optimizer" not in data and "env" not in data  # the network alone
    assert data["about"]["source"] and data["about"]["results"]


@pytest.mark.parametrize("game", ["gin", "rummy"])
def test_pretrained_plays_legal_moves(game):
    agent = load_agent("pretrained", game=game)
    assert isinstance(agent, NeuralAgent) and agent.game == game
    engine = gin if game == "gin" else rummy
    st = engine.init(64, seed=3)
    for _ in range(60):
        live = ~st.game_over
        a = np.zeros(64, np.int64)
        obs = engine.observe(st)
        a[live] = agent.act(obs[live], st.mask[live])
        assert st.mask[live, a[live]].all()
        engine.step(st, a, inplace=True, active=live)


def _random_positions(game: str, n: int, seed: int):
    engine = gin if game == "gin" else rummy
    rng = np.random.default_rng(seed)
    st = engine.init(n, seed=seed)
    obs, masks = [], []
    for _ in range(40):
        live = np.flatnonzero(~st.game_over)
        obs.append(engine.observe(st)[live])
        masks.append(st.mask[live].copy())
        a = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in st.mask])
        engine.step(st, a, inplace=True, active=~st.game_over)
    return np.concatenate(obs), np.concatenate(masks)


@pytest.mark.slow
@pytest.mark.parametrize("game, spec, net, shaken", [
    ("gin", "pretrained", None, False), ("gin", "pretrained-plain", None, False), ("rummy", "pretrained", None, False),
    # untrained: the head is zero, so actions tie on their features and the first must win
    ("rummy", None, NetConfig(hidden=8, layers=1, prior_scale=0.0, features="engine", trunk_features=False), False),
    ("rummy", None, NetConfig(hidden=8, layers=1, prior_scale=1.0, features="expert", trunk_features=False), False),
    ("gin", None, NetConfig(hidden=8, layers=1, card_head=True, card_channels=4, prior_scale=1.0), False),
    # every weight random, the engine features' too (Rummy's columns past the actions included)
    ("rummy", None, NetConfig(hidden=8, layers=1, prior_scale=0.0, features="engine"), True),
])
def test_a_greedy_network_plays_the_argmax_of_its_logits(game, spec, net, shaken):
    """PolicyNet.greedy (the legal actions only, or the whole head where that is cheaper) picks
    what argmax over forward's logits picks, ties to the first, on positions of every phase."""
    agent = load_agent(spec, game=game) if spec else NeuralAgent(PolicyNet(game, net))
    if shaken:
        torch.manual_seed(0)
        with torch.no_grad():
            for p in agent.net.parameters():
                p.normal_(0.0, 0.3)
    obs, masks = _random_positions(game, 128, seed=5)
    obs, masks = agent.check_batch(obs, masks)
    prior = agent.features(obs, masks)
    want = agent.logits(obs, masks, prior).argmax(1)
    got = agent.act_with_prior(obs, masks, prior)
    assert len(obs) > 1000 and np.array_equal(got, want)
    assert masks[np.arange(len(got)), got].all()


@pytest.mark.slow
def test_evaluate_py_takes_pretrained(tmp_path):
    out = subprocess.run([sys.executable, "evaluate.py", "pretrained", "random", "--games", "20", "--quiet",
                          "--seed", "3", "--unit", "hand", "--out", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    row = re.search(r"\| pretrained \| random \| 20 \| (\d+) \|", out.stdout)
    assert row and int(row.group(1)) >= 16  # it wins nearly every hand against random play


def test_play_in_the_terminal_against_pretrained():
    from rummyrl.agents import play

    session = play.make_session("gin", "pretrained", seat=0, seed=0, dealers=0, decks=np.arange(52))
    out = io.StringIO()
    assert play.play(session, io.StringIO("?\n"), out) == 0
    assert re.search(r"pretrained (passes on|takes) the upcard", out.getvalue())


def test_export_keeps_only_the_pairings_of_the_network_it_ships(tmp_path):
    # a results.json of a round robin also holds simple vs expert: not the network's result
    sys.path.insert(0, str(ROOT / "scripts"))
    import export_pretrained

    net = PolicyNet("rummy", NetConfig(hidden=8, layers=1))
    ckpt = save_weights(tmp_path / "run" / "final.pt", "rummy", 4, dataclasses.asdict(net.cfg), net.state_dict())
    pairing = {"games": 8, "win_rate_a": 0.5}
    results = tmp_path / "results.json"
    results.write_text(json.dumps({"pairings": [{"a": "run/final", "b": "simple", **pairing},
                                                {"a": "simple", "b": "expert", **pairing}]}))
    out = tmp_path / "rummy.pt"
    assert export_pretrained.main([str(ckpt), "--results", str(results), "--out", str(out)]) == 0
    kept = json.loads(load_checkpoint(out, "rummy")["about"]["results"])
    assert [(p["a"], p["b"]) for p in kept] == [("run/final", "simple")]
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"pairings": [{"a": "simple", "b": "expert", **pairing}]}))
    assert export_pretrained.main([str(ckpt), "--results", str(other), "--out", str(tmp_path / "x.pt")]) == 2
    assert not (tmp_path / "x.pt").exists()
