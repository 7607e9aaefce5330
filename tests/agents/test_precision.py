"""The trunk in bfloat16 (``precision: bf16``): float32 logits and values close to the float32
network's, the same moves almost everywhere, gradients for every weight, clear errors for
what a device cannot do, and a run that is reproducible and keeps its precision everywhere."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from rummyrl import training
from rummyrl.agents.checkpoint import load_checkpoint
from rummyrl.agents.features import action_features
from rummyrl.agents.network import ILLEGAL_LOGIT, NetConfig, PolicyNet
from rummyrl.training import device as config_module
from rummyrl.training.rollout import PolicySide

from tiny_runs import TINY


@pytest.fixture(scope="module")
def gin_batch():
    from rummyrl import gin

    rng = np.random.default_rng(1)
    st = gin.init(256, seed=1)
    obs, masks = [], []
    for _ in range(60):
        live = np.flatnonzero(~st.game_over)
        if live.size == 0:
            break
        obs.append(gin.observe(st)[live])
        masks.append(st.mask[live].copy())
        a = np.array([rng.choice(np.flatnonzero(m)) for m in st.mask])
        gin.step(st, a, inplace=True, active=~st.game_over)
    obs, masks = np.concatenate(obs), np.concatenate(masks)
    idx = rng.choice(len(obs), 2048, replace=False)
    obs, masks = np.ascontiguousarray(obs[idx], np.float32), masks[idx]
    return obs, action_features("engine", "gin", obs, masks, ""), masks


def trained_like(seed: int = 0) -> PolicyNet:
    """A plain Gin network with weights of a trained network's size (not zero heads), so that
    its logits differ from action to action."""
    torch.manual_seed(seed)
    net = PolicyNet("gin", NetConfig(hidden=128, layers=2, prior_scale=0.0, features="engine"))
    with torch.no_grad():
        for p in net.parameters():
            p.normal_(0.0, 0.3 / max(1, p.shape[-1]) ** 0.5 * 3)
    return net.eval()


def test_bf16_trunk_keeps_float32_outputs_close_to_the_float32_network(gin_batch):
    obs, prior, mask = (torch.from_numpy(x) for x in gin_batch)
    net = trained_like()
    with torch.no_grad():
        l32, v32 = net(obs, prior, mask)
        net.set_precision("bf16")
        l16, v16 = net(obs, prior, mask)
        net.set_precision("fp32")
        again, _ = net(obs, prior, mask)
    assert l16.dtype == torch.float32 and v16.dtype == torch.float32
    assert torch.equal(again, l32)  # back in float32: the same numbers as before
    assert torch.all(l16[~mask] == ILLEGAL_LOGIT)
    legal = mask
    spread = (l32[legal].std() + v32.std()).item()
    diff = (l16 - l32)[legal].abs()
    assert diff.max().item() > 0  # it did compute in bf16
    assert diff.mean().item() < 0.02 * spread  # and close: bf16 keeps 8 bits, the sums are float32
    assert (v16 - v32).abs().mean().item() < 0.02 * spread
    agree = (l16.argmax(1) == l32.argmax(1)).float().mean().item()
    assert agree >= 0.97, agree


def test_bf16_trunk_gives_float32_gradients_to_every_weight(gin_batch):
    obs, prior, mask = (torch.from_numpy(x[:256]) for x in gin_batch)
    net = trained_like().set_precision("bf16").train()
    logits, value = net(obs, prior, mask)
    (torch.log_softmax(logits, 1).where(mask, 0.0).sum() + value.sum()).backward()
    for name, p in net.named_parameters():
        assert p.dtype == torch.float32 and p.grad is not None and p.grad.dtype == torch.float32, name
        assert torch.isfinite(p.grad).all() and p.grad.abs().sum() > 0, name


def test_unknown_precision_is_refused_naming_what_is_allowed():
    with pytest.raises(ValueError, match=r"precision must be one of \('fp32', 'bf16'\), got 'fp16'"):
        trained_like().set_precision("fp16")
    with pytest.raises(training.ConfigError, match=r"precision must be one of 'fp32', 'bf16' or 'auto', got 'fp16'"):
        training.load_config(None, TINY + ["precision=fp16"])


def test_bf16_where_the_device_would_emulate_it_is_refused_and_auto_falls_back(monkeypatch):
    monkeypatch.setattr(config_module, "bf16_supported", lambda device: False)
    with pytest.raises(training.ConfigError, match="precision=bf16: cpu has no native bfloat16.*precision=auto"):
        training.load_config(None, TINY + ["precision=bf16", "device=cpu"])
    assert config_module.resolve_precision("auto", torch.device("cpu")) == "fp32"
    monkeypatch.setattr(config_module, "bf16_supported", lambda device: True)
    assert config_module.resolve_precision("auto", torch.device("cpu")) == "bf16"
    assert config_module.resolve_precision("fp32", torch.device("cpu")) == "fp32"


@pytest.mark.slow
def test_a_bf16_run_is_reproducible_learns_and_plays_in_bf16_and_evaluates_in_float32(tmp_path, monkeypatch):
    # where the CPU lacks bf16 it is emulated: slow but the same arithmetic, enough for a tiny run
    monkeypatch.setattr(config_module, "bf16_supported", lambda device: True)
    cfg = training.load_config(None, TINY + ["precision=bf16", "device=cpu"])
    played = []  # the trunk's precision each time the learner's seats were played
    real_act = PolicySide.act

    def act(side, *args):
        played.append((side.precision, side.net.trunk_dtype))
        return real_act(side, *args)

    monkeypatch.setattr(PolicySide, "act", act)
    a = training.train(cfg, run_dir=tmp_path / "a", progress=False)
    monkeypatch.setattr(PolicySide, "act", real_act)
    b = training.train(cfg, run_dir=tmp_path / "b", progress=False)
    assert a.precision == "bf16"
    # the updates and the players computed in bf16 (the learner's seats only while they play)
    assert played and all(p == "bf16" for p, _ in played)
    assert a.net.trunk_dtype is None  # between plays: float32, how the evaluations play it
    assert a.pool.snapshots and all(s.net.trunk_dtype is torch.bfloat16 for s in a.pool.snapshots)
    for name, p in a.net.state_dict().items():
        assert torch.equal(p, b.net.state_dict()[name]), name
    data = load_checkpoint(tmp_path / "a" / "final.pt", "gin")
    assert data["counters"]["precision"] == "bf16"
    fp32 = training.train(training.load_config(None, TINY + ["device=cpu"]), run_dir=tmp_path / "c", progress=False)
    assert fp32.precision == "fp32" and fp32.net.trunk_dtype is None
    assert all(s.net.trunk_dtype is None for s in fp32.pool.snapshots)
    differs = any(not torch.equal(p, fp32.net.state_dict()[n]) for n, p in a.net.state_dict().items())
    assert differs  # the bf16 run computed in bf16 (the same seed, other last bits)


def test_players_without_native_bf16_play_in_float32(monkeypatch):
    # a Ray worker's CPU may lack what the learner's device has: it plays in float32, no error
    monkeypatch.setattr(config_module, "bf16_supported", lambda device: False)
    assert config_module.play_precision("bf16", "cpu") == "fp32"
    assert config_module.play_precision("auto", "cpu") == "fp32"
    monkeypatch.setattr(config_module, "bf16_supported", lambda device: True)
    assert config_module.play_precision("auto", "cpu") == "bf16"
    assert config_module.play_precision("fp32", "cpu") == "fp32"


@pytest.mark.parametrize("rows", [1, 63, 64, 100, 640])
def test_playing_in_bf16_pads_its_rows_without_changing_them(gin_batch, rows):
    # playing pads the batch to a multiple of PLAY_ROWS (oneDNN builds its kernels per shape);
    # the padding rows are dropped, and each row's numbers are those of the rows unpadded
    obs, prior, mask = (torch.from_numpy(x[:rows]) for x in gin_batch)
    net = trained_like().set_precision("bf16")
    with torch.no_grad():
        played, v_played = net(obs, prior, mask)
    with torch.enable_grad():  # with gradients the trunk is not padded
        unpadded, v_unpadded = net(obs, prior, mask)
    assert played.shape == (rows, mask.shape[1]) and v_played.shape == (rows,)
    assert torch.allclose(played, unpadded.detach(), rtol=1e-5, atol=1e-4)
    assert torch.allclose(v_played, v_unpadded.detach(), rtol=1e-5, atol=1e-4)
    assert torch.equal(played.argmax(1), unpadded.argmax(1))


def test_computing_restores_the_precision_also_on_an_error():
    net = trained_like().set_precision("bf16")
    with pytest.raises(RuntimeError, match="inside"):
        with net.computing("fp32"):
            assert net.trunk_dtype is None
            raise RuntimeError("inside")
    assert net.precision == "bf16"
    with net.updating("fp32"):
        assert net.training and net.precision == "fp32"
    assert not net.training and net.precision == "bf16"
