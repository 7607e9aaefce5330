"""rummyrl.training.compress: a network distilled into another architecture. A smaller
student whose trunk does not read the features learns a teacher whose departures from its
rule are learnable, and agrees with it on most held-out positions; the positions are the
same for the same seed; bad options are clear errors."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
import torch

from rummyrl import gin
from rummyrl.agents import load_agent
from rummyrl.agents.checkpoint import load_checkpoint, save_weights
from rummyrl.agents.network import NetConfig, PolicyNet
from rummyrl.agents.neural import NeuralAgent
from rummyrl.training.compress import CompressConfig, compress, compress_to_file, positions
from rummyrl.training.recipe import ConfigError, load_recipe

#: a short game: a few hands to 100 at most
SHORT = {"max_hands": 3}


#: the student: a trunk half as wide, one layer, reading the observation alone
STUDENT = {"hidden": 8, "layers": 1, "trunk_features": False}


def learnable_teacher(path, game="gin"):
    """A teacher whose moves depart from its rule's by a fixed preference per action (its
    policy bias): what the student can learn exactly, in a few hundred steps."""
    torch.manual_seed(0)
    cfg = NetConfig(hidden=16, layers=2, prior_scale=1.0)
    net = PolicyNet(game, cfg)
    with torch.no_grad():
        net.policy.bias.copy_(torch.randn(net.policy.bias.shape) * 2.0)
    return save_weights(path, game, 2, dataclasses.asdict(cfg), net.state_dict())


def test_the_student_learns_the_teacher_and_keeps_the_epoch_that_agrees_most(tmp_path):
    teacher = learnable_teacher(tmp_path / "teacher.pt")
    out = tmp_path / "student.pt"
    cfg = CompressConfig(net=STUDENT, opponents={"simple": 1.0}, games=6, valid_games=2, epochs=8,
                         learning_rate=0.1, minibatch_size=16, options=SHORT)
    lines: list[str] = []
    best = compress_to_file(teacher, out, cfg, log=lines.append)
    rows = json.loads((tmp_path / "student.pt.json").read_text())["rows"]
    assert [r["epoch"] for r in rows] == list(range(9))
    first = rows[0]
    assert first["valid_agreement"] == first["valid_rule_agreement"] < 0.85  # the untrained student is the rule
    assert first["train_positions"] > 100 and first["valid_positions"] > 50
    assert best == max(rows, key=lambda r: r["valid_agreement"])
    assert best["valid_agreement"] >= 0.9 and best["valid_agreement"] >= first["valid_agreement"] + 0.1
    # the file is the kept epoch's student, and it agrees as the row says
    data = load_checkpoint(out, "gin")
    assert data["net_config"] == {**load_checkpoint(teacher)["net_config"], **STUDENT}
    assert data["about"]["epoch"] == best["epoch"]
    student, t = load_agent(str(out), game="gin"), load_agent(str(teacher), game="gin")
    assert isinstance(student, NeuralAgent) and student.net.trunk[0].in_features == gin.OBS_DIM
    rec = positions(t, 2, {"expert": 1.0}, 2, seed=7, options=SHORT, log=lines.append)
    agree = (student.act(rec["obs"], rec["mask"]) == t.act(rec["obs"], rec["mask"])).mean()
    assert agree >= 0.85  # also on positions against another opponent
    assert any("positions of the teacher" in line for line in lines)


def test_the_positions_depend_on_the_seed_only(tmp_path):
    teacher = load_agent(str(learnable_teacher(tmp_path / "t.pt")), game="gin")
    a, b = (positions(teacher, 2, {"simple": 1.0, "expert": 1.0}, 4, seed=3, options=SHORT, keep=0.5, explore=0.2,
                      log=lambda s: None) for _ in range(2))
    assert sorted(a) == sorted(b) == ["logp", "mask", "obs", "prior", "value"]
    for k in a:
        np.testing.assert_array_equal(a[k], b[k])
    c = positions(teacher, 2, {"simple": 1.0, "expert": 1.0}, 4, seed=3, split=1, options=SHORT,
                  log=lambda s: None)
    assert len(c["obs"]) != len(a["obs"]) or not np.array_equal(c["obs"], a["obs"])
    # the teacher's policy over the legal actions: probabilities that add to one
    p = np.where(a["mask"], np.exp(a["logp"]), 0.0).sum(1)
    np.testing.assert_allclose(p, 1.0, rtol=1e-4)


def test_the_teacher_as_opponent_is_the_teacher_greedy_and_no_other_agent(tmp_path, monkeypatch):
    path = learnable_teacher(tmp_path / "t.pt")
    teacher = load_agent(str(path), game="gin")
    own = positions(teacher, 2, {"teacher": 1.0}, 4, seed=5, options=SHORT, log=lambda s: None)
    named = positions(teacher, 2, {str(path): 1.0}, 4, seed=5, options=SHORT, log=lambda s: None)
    for k in own:  # the same games as against the same network loaded from its file
        np.testing.assert_array_equal(own[k], named[k])
    import rummyrl.training.compress as compress_module

    def no_agents(spec, **kw):
        raise AssertionError(f"loaded {spec}")
    monkeypatch.setattr(compress_module, "load_agent", no_agents)  # 'teacher' loads nothing, no expert among it
    again = positions(teacher, 2, {"teacher": 1.0}, 4, seed=5, options=SHORT, log=lambda s: None)
    np.testing.assert_array_equal(again["obs"], own["obs"])


@pytest.mark.parametrize("fields, words", [
    ({"games": 0}, "compress.games must be >= 1, got 0"),
    ({"epochs": 1.5}, "compress.epochs must be an integer, got 1.5"),
    ({"keep": 0.0}, r"compress.keep must be in \(0, 1\], got 0.0"),
    ({"explore": 1.0}, r"compress.explore must be in \[0, 1\), got 1.0"),
    ({"learning_rate": -1.0}, "compress.learning_rate must be > 0, got -1.0"),
    ({"opponents": {}}, "compress.opponents must not be empty"),
    ({"opponents": {"simple": 0}}, "compress.opponents.simple must be > 0, got 0"),
    ({"net": {"hiden": 64}}, r"unknown network field\(s\) \['hiden'\]"),
    ({"net": {"trunk_features": False, "prior_scale": 0.0}}, "net.trunk_features is false and nothing else"),
    ({"net": {"hidden": 0}}, "net.hidden must be > 0, got 0"),
])
def test_bad_options_are_clear_errors(tmp_path, fields, words):
    teacher = learnable_teacher(tmp_path / "t.pt")
    with pytest.raises(ValueError, match=words):
        compress(teacher, tmp_path / "s.pt", CompressConfig(**fields))
    assert not (tmp_path / "s.pt").exists()


def test_a_recipe_compress_stage_is_checked_when_the_recipe_loads(tmp_path):
    recipe = tmp_path / "r.yaml"
    base = "recipe: r\nstages:\n  ppo:\n    do: train\n    config: configs/gin_rummy.yaml\n"
    recipe.write_text(base + "  small:\n    do: compress\n    teacher: ppo\n    net: {card_channels: 0}\n")
    with pytest.raises(ConfigError, match="compress 'small': net.card_channels must be > 0, got 0"):
        load_recipe(recipe)
    recipe.write_text(base + "  small:\n    do: compress\n    net: {card_head: false}\n")
    with pytest.raises(ConfigError, match="compress 'small' needs a teacher"):
        load_recipe(recipe)
    recipe.write_text(base + "  small:\n    do: compress\n    teacher: ppo\n    games: many\n")
    with pytest.raises(ConfigError, match="games must be an integer, got 'many'"):
        load_recipe(recipe)
    recipe.write_text(base + "  small:\n    do: compress\n    teacher: ppo/best.pt\n"
                      "  ship:\n    do: export\n    checkpoint: small\n")
    r = load_recipe(recipe, ["small.net.hidden=64", "small.epochs=2"], run_dir=tmp_path / "run")
    spec = r.stages["small"].spec
    assert spec.net == {"hidden": 64} and spec.config() == CompressConfig(net={"hidden": 64}, epochs=2)
    assert r.resolve("small", "ship") == tmp_path / "run" / "small" / "student.pt"
