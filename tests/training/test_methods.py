"""The seam between the trainer and the ways a run learns (rummyrl.training.methods).

A way to learn written here, outside the package, and registered with one line runs in the
trainer unchanged: its side plays the learner's seats, its update is called once per update
and logged under its section, its state and its lanes' state travel in the checkpoint, and
a stopped run goes on exactly. The two shipped methods are reached through the registry."""

from __future__ import annotations

import time

import numpy as np
import pytest
import torch

from rummyrl import training
from rummyrl.agents.checkpoint import load_checkpoint
from rummyrl.training import methods
from rummyrl.training.methods import Update

from tiny_runs import TINY


class _Side:
    """Plays a uniformly random legal action at the learner's rows and counts them."""

    def __init__(self, part):
        self.part, self.now = part, 0

    def act(self, step, lanes, seats, obs, mask, prior):
        self.now += lanes.size
        u = self.part.rng.random(mask.shape) * mask
        return u.argmax(1)

    def credit(self, rewards, done):
        self.part.ended += int(done.sum())

    def result(self, stats):
        self.part.decisions += self.now
        return {"decisions": np.array([self.now])}


class CountingLanes:
    def __init__(self, lanes):
        self.rng, self.decisions, self.ended = lanes.rng, 0, 0

    def side(self, net):
        return _Side(self)

    def state_dict(self):
        return {"counting": {"decisions": self.decisions, "ended": self.ended}}

    def load_state_dict(self, d):
        self.decisions, self.ended = d["counting"]["decisions"], d["counting"]["ended"]


class Counting:
    """A way to 'learn' that learns nothing: it counts the learner's decisions."""

    section = "counting"
    lanes_part = CountingLanes

    @staticmethod
    def concat(parts):
        return {"decisions": np.concatenate([p["decisions"] for p in parts])}

    def __init__(self, tr):
        self.tr, self.total, self.closed = tr, 0, False

    def update(self, update_threads):
        t0 = time.perf_counter()
        data, games = self.tr.workers.collect()
        t1 = time.perf_counter()
        n = int(data["decisions"].sum())
        self.total += n
        steps = self.tr.cfg.rollout_steps * self.tr.cfg.num_envs
        self.tr.end_update(steps)
        return Update({"decisions": float(n)}, games, steps, (t0, t1, time.perf_counter()), n)

    def state_dict(self, resumable):
        return {"counting_total": self.total}

    def load_state_dict(self, data):
        self.total = data["counting_total"]

    def close(self):
        self.closed = True


@pytest.fixture
def counting(monkeypatch):
    monkeypatch.setitem(methods.METHODS, "counting", Counting)
    return TINY + ["algo=counting", "overlap=false"]


def test_a_method_registered_in_one_line_trains_logs_and_resumes_exactly(tmp_path, counting, monkeypatch):
    cfg = training.load_config(None, counting)
    logged = []
    from rummyrl.training import loop
    real = loop._log_update
    monkeypatch.setattr(loop, "_log_update", lambda w, tr, u: (logged.append(dict(u.stats)), real(w, tr, u)))
    whole = training.train(cfg, run_dir=tmp_path / "whole", progress=False)
    assert whole.updates == 3 and isinstance(whole.method, Counting) and whole.method.closed
    part = whole.lanes.part
    # every decision of the learner's rows was the method's: per update at least one per lane
    # (the learner holds a seat in every game) and never more than every row of every step
    assert whole.method.total == part.decisions and 3 * cfg.num_envs <= part.decisions <= 3 * cfg.num_envs * 8
    assert [x["decisions"] for x in logged] and sum(x["decisions"] for x in logged) == whole.method.total
    fresh = training.Trainer(cfg, tmp_path / "fresh")
    fresh.setup()
    for name, p in fresh.net.state_dict().items():  # it learns nothing: the seed's weights
        assert torch.equal(p, whole.net.state_dict()[name]), name
    data = load_checkpoint(tmp_path / "whole" / "last.pt", "gin")
    assert data["counting_total"] == whole.method.total
    assert data["lanes"]["counting"] == {"decisions": part.decisions, "ended": part.ended}
    # stopped after one update and resumed: the same games, the same counts
    training.train(cfg, run_dir=tmp_path / "split", max_updates=1, progress=False)
    resumed = training.train(cfg, run_dir=tmp_path / "split", resume=load_checkpoint(tmp_path / "split" / "last.pt", "gin"),
                          progress=False)
    assert resumed.updates == 3 and resumed.method.total == whole.method.total
    assert (resumed.lanes.part.decisions, resumed.lanes.part.ended) == (part.decisions, part.ended)
    assert np.array_equal(whole.lanes.env.state.hands, resumed.lanes.env.state.hands)


def test_the_registry_names_every_method_and_refuses_others():
    assert methods.names() == ["ppo", "exit"]
    assert methods.get("ppo").section == "losses" and methods.get("exit").section == "exit"
    with pytest.raises(training.ConfigError, match=r"algo must be one of \['ppo', 'exit'\], got 'a2c'"):
        training.load_config(None, TINY + ["algo=a2c"])
