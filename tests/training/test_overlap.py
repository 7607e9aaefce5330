"""``overlap: true``: the learner updates on the last rollout while the next one is played by the
weights it started from; the run is reproducible, resumes exactly, and is exactly one update
stale (its first update is a sequential run's)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from rummyrl import training
from rummyrl.agents.checkpoint import load_checkpoint
from rummyrl.training.state import pack_arrays, unpack_arrays

from tiny_runs import TINY

OVERLAP = TINY + ["overlap=true"]


def same_weights(a, b) -> bool:
    sa, sb = a.net.state_dict(), b.net.state_dict()
    return all(torch.equal(p, sb[n]) for n, p in sa.items())


@pytest.mark.slow
def test_an_overlapped_run_is_reproducible_and_resumes_exactly(tmp_path):
    cfg = training.load_config(None, OVERLAP)
    whole = training.train(cfg, run_dir=tmp_path / "whole", progress=False)
    again = training.train(cfg, run_dir=tmp_path / "again", progress=False)
    assert whole.updates == 3 and same_weights(whole, again)
    first = training.train(cfg, run_dir=tmp_path / "split", max_updates=1, progress=False)
    assert first.updates == 1
    data = load_checkpoint(tmp_path / "split" / "last.pt", "gin")
    assert "pending" in data  # the rollout played by the old weights, not yet learned from
    assert "pending" not in load_checkpoint(tmp_path / "whole" / "final.pt", "gin")
    resumed = training.train(cfg, run_dir=tmp_path / "split", resume=data, progress=False)
    assert resumed.updates == 3 and resumed.global_step == whole.global_step
    assert same_weights(whole, resumed)
    assert np.array_equal(whole.lanes.env.state.hands, resumed.lanes.env.state.hands)


@pytest.mark.slow
def test_the_learner_is_exactly_one_update_behind_the_players(tmp_path):
    seq_cfg = training.load_config(None, TINY + ["torch_threads=1"])
    ov_cfg = training.load_config(None, OVERLAP + ["torch_threads=1"])
    # the first update learns from the same first rollout, played by the same start
    seq1 = training.train(seq_cfg, run_dir=tmp_path / "s1", max_updates=1, progress=False)
    ov1 = training.train(ov_cfg, run_dir=tmp_path / "o1", max_updates=1, progress=False)
    assert same_weights(seq1, ov1)
    # the second learns from a rollout the start played (sequential: the first update did)
    seq2 = training.train(seq_cfg, run_dir=tmp_path / "s2", max_updates=2, progress=False)
    ov2 = training.train(ov_cfg, run_dir=tmp_path / "o2", max_updates=2, progress=False)
    assert not same_weights(seq2, ov2)


@pytest.mark.parametrize("override, words", [
    ("algo=exit", "overlap: true is for algo: ppo"),
    ("workers=2", "needs workers: 0, got workers: 2"),
])
def test_overlap_where_it_cannot_run_names_why(override, words):
    with pytest.raises(training.ConfigError, match=words):
        training.load_config(None, OVERLAP + [override])


def test_packed_arrays_come_back_bit_for_bit():
    rng = np.random.default_rng(0)
    arrays = {"obs": (rng.random((300, 50)) < 0.1).astype(np.float32) * rng.normal(size=(300, 50)).astype(np.float32),
              "mask": rng.random((300, 7)) < 0.5, "action": rng.integers(0, 7, 300),
              "value": rng.normal(size=300), "empty": np.zeros((0, 3), np.float32)}
    back = unpack_arrays(pack_arrays(arrays))
    assert back.keys() == arrays.keys()
    for k, a in arrays.items():
        assert back[k].dtype == a.dtype and back[k].shape == a.shape and np.array_equal(back[k], a), k
        assert back[k].flags.writeable
    assert pack_arrays({"z": np.zeros((1000, 100), np.float32)})["z"]["data"].numel() < 4000  # compressed
