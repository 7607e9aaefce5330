"""train.py: a smoke run of the real script, exact resume, masked sampling, config errors."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from rummyrl import training
from rummyrl.agents.checkpoint import load_checkpoint
from rummyrl.agents.features import expert_prior
from rummyrl.agents.network import NetConfig, PolicyNet, masked_entropy
from rummyrl.agents.neural import NeuralAgent, sample_actions
from rummyrl import gin
from rummyrl.random_play import random_actions
from rummyrl.training.cli import main
from rummyrl.training.config import to_overrides
from rummyrl.training.evaluation import FINAL_EVAL_SEED
from rummyrl.training.lanes import Lanes
from rummyrl.training.ppo import ppo_update

from tiny_runs import TINY  # noqa: E402  (tests/ is on sys.path)

ROOT = Path(__file__).resolve().parents[2]

@pytest.mark.slow
def test_smoke_run_of_the_script_then_evaluate_loads_its_checkpoint(tmp_path):
    run = tmp_path / "run"
    cmd = [sys.executable, "train.py", "--config", "configs/gin_rummy.yaml", "--run-dir", str(run), *TINY]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    for name in ("last.pt", "final.pt", "best.pt", "config.yaml"):
        assert (run / name).is_file(), name
    assert list(run.glob("events.out.tfevents.*")), "no TensorBoard log"
    assert "| policy | simple |" in out.stdout and "| policy | expert |" in out.stdout
    report = json.loads((run / "eval" / "results.json").read_text())
    assert report["evaluated"].startswith(str(run / "best.pt")) and "minutes" in report["evaluated"]
    # it says where it writes, and sets the network of step 0 beside the result, on the same games
    assert f"checkpoints and TensorBoard logs in {run}/" in out.stderr.splitlines()[0]
    assert "step 0: the untrained network, which plays its prior: simple" in out.stderr
    assert "what training added, on the same 4 games per opponent" in out.stdout
    assert "| simple | " in out.stdout.split("what training added")[1]
    start = {p["b"]: p["win_rate_a"] for p in report["start"]["pairings"]}
    result = {p["b"]: p["win_rate_a"] for p in report["pairings"]}
    assert report["training_added"] == {opp: {
        "start": start[opp], "start_ci95": pytest.approx(report["training_added"][opp]["start_ci95"]),
        "result": result[opp], "result_ci95": pytest.approx(report["training_added"][opp]["result_ci95"]),
        "change": pytest.approx(result[opp] - start[opp])} for opp in ("simple", "expert")}
    # the command the report prints plays its games again, game for game, with the interpreter
    # that ran the run (not whatever `python` is on the PATH)
    cmd = shlex.split(report["reproduce"])
    assert (ROOT / cmd[0]).resolve() == Path(sys.executable).resolve(), cmd
    assert cmd[1:3] == ["evaluate.py", str(run / "best.pt")] and f"the same games again: {report['reproduce']}" in out.stdout
    again = subprocess.run([sys.executable, *cmd[1:], "--quiet", "--out", str(tmp_path / "again")], cwd=ROOT,
                           capture_output=True, text=True, timeout=300)
    assert again.returncode == 0, again.stderr[-3000:]
    replay = json.loads((tmp_path / "again" / "results.json").read_text())
    outcome = [(p["b"], p["wins_a"], p["wins_b"], p["hands"], p["margin_a"]) for p in report["pairings"]]
    assert outcome == [(p["b"], p["wins_a"], p["wins_b"], p["hands"], p["margin_a"]) for p in replay["pairings"]
                       if p["a"] == "run/best"]
    ev = subprocess.run([sys.executable, "evaluate.py", str(run / "final.pt"), "simple", "--games", "4",
                         "--quiet", "--out", str(tmp_path / "ev")], cwd=ROOT, capture_output=True, text=True,
                        timeout=300)
    assert ev.returncode == 0, ev.stderr[-3000:]
    assert "| run/final | simple | 4 |" in ev.stdout
    assert (tmp_path / "ev" / "results.json").is_file() and (tmp_path / "ev" / "results.png").is_file()


def test_resume_continues_exactly_like_an_uninterrupted_run(tmp_path):
    cfg = training.load_config(None, TINY)
    whole = training.train(cfg, run_dir=tmp_path / "whole", progress=False)
    assert whole.updates == 3
    first = training.train(cfg, run_dir=tmp_path / "split", max_updates=1, progress=False)
    assert first.updates == 1
    data = load_checkpoint(tmp_path / "split" / "last.pt", "gin")
    resumed = training.train(cfg, run_dir=tmp_path / "split", resume=data, progress=False)
    assert resumed.updates == 3 and resumed.global_step == whole.global_step
    fresh = training.Trainer(cfg, tmp_path / "fresh")
    fresh.setup()  # the same seed: the weights both runs started from
    start = fresh.net.state_dict()
    a, b = whole.net.state_dict(), resumed.net.state_dict()
    moved = 0.0
    for name, p in a.items():
        assert torch.allclose(p, b[name], atol=1e-6, rtol=0), name
        moved += float((p - start[name]).abs().sum())
    assert moved > 1e-3  # training changed the weights, so the comparison means something
    assert np.array_equal(whole.lanes.env.state.hands, resumed.lanes.env.state.hands)


def test_init_starts_a_run_from_another_checkpoints_network(tmp_path):
    """init=CKPT: the run's first weights are that checkpoint's network (here a run's
    after one update, not the seed's fresh ones) and its optimizer starts afresh; a
    network of another shape, or another game, is refused naming what differs."""
    cfg = training.load_config(None, TINY)
    first = training.train(cfg, run_dir=tmp_path / "a", max_updates=1, progress=False)
    trained = first.net.state_dict()
    started = training.Trainer(training.load_config(None, TINY + [f"init={tmp_path / 'a' / 'last.pt'}"]), tmp_path / "b")
    started.setup()
    fresh = training.Trainer(cfg, tmp_path / "c")
    fresh.setup()
    for name, p in started.net.state_dict().items():
        assert torch.equal(p, trained[name]), name
    assert any(not torch.equal(p, trained[k]) for k, p in fresh.net.state_dict().items())
    assert not started.opt.state  # the optimizer is new: init is not --resume
    wider = training.load_config(None, TINY + ["net.hidden=48", f"init={tmp_path / 'a' / 'last.pt'}"])
    with pytest.raises(training.ConfigError, match=r"net.hidden \(\d+ there, 48 here\)"):
        training.Trainer(wider, tmp_path / "d").setup()
    argv = ["--run-dir", str(tmp_path / "d"), *TINY, "net.hidden=48", f"init={tmp_path / 'a' / 'last.pt'}"]
    assert main(argv) == 2  # the command line says so in one line, no traceback
    # a run started with init resumes from its own checkpoint, also when the init file is gone
    run = training.train(training.load_config(None, TINY + [f"init={tmp_path / 'a' / 'last.pt'}"]), run_dir=tmp_path / "f",
                      max_updates=1, progress=False)
    (tmp_path / "a" / "last.pt").rename(tmp_path / "a" / "moved.pt")
    again = training.train(run.cfg, run_dir=tmp_path / "f", resume=load_checkpoint(tmp_path / "f" / "last.pt", "gin"),
                        max_updates=1, progress=False)
    assert again.updates == 2
    (tmp_path / "a" / "moved.pt").rename(tmp_path / "a" / "last.pt")
    rummy = training.load_config(None, TINY + ["game=rummy", "num_players=4", f"init={tmp_path / 'a' / 'last.pt'}"])
    with pytest.raises(training.ConfigError, match="init: .*trained for 'gin'"):
        training.Trainer(rummy, tmp_path / "e").setup()


def test_resume_with_another_number_of_lanes_starts_the_games_afresh(tmp_path, capsys):
    """num_envs changed on --resume: the network, optimizer and counters continue; the
    saved games do not fit the new lanes, so these start afresh, and it says so."""
    cfg = training.load_config(None, TINY)
    first = training.train(cfg, run_dir=tmp_path / "a", max_updates=1, progress=False)
    data = load_checkpoint(tmp_path / "a" / "last.pt", "gin")
    wider = training.load_config(None, TINY + ["num_envs=24", "total_steps=512"])
    resumed = training.train(wider, run_dir=tmp_path / "b", resume=data, max_updates=1, progress=False)
    assert "16 game lanes" in capsys.readouterr().err
    assert resumed.updates == 2 and resumed.global_step == first.global_step + 8 * 24
    assert resumed.lanes.env.state.hands.shape[0] == 24 and len(resumed.lanes.kind) == 24


def test_policy_never_picks_a_masked_action():
    torch.manual_seed(0)
    net = PolicyNet("gin", NetConfig(hidden=32, layers=1, prior_scale=0.5))
    with torch.no_grad():  # a random, non-zero policy head: the prior alone does not decide
        net.policy.weight.normal_(0, 1.0)
    rng = np.random.default_rng(1)
    state = gin.init(256, seed=3)
    sampler = NeuralAgent(net, greedy=False, seed=2)
    greedy = NeuralAgent(net, greedy=True)
    checked = 0
    for _ in range(60):
        obs = gin.observe(state)
        live = ~state.game_over
        for agent in (sampler, greedy):
            acts = agent.act(obs[live], state.mask[live])
            assert state.mask[live][np.arange(acts.size), acts].all()
            checked += acts.size
        gin.step(state, random_actions(state.mask, rng), inplace=True)
        gin.reset_done(state)
    assert checked > 20_000
    # the sampler itself: rows with one legal action, and extreme logits
    probs = np.zeros((1000, 108))
    probs[np.arange(1000), rng.integers(0, 108, 1000)] = 1.0
    assert (sample_actions(probs, rng) == probs.argmax(1)).all()


def test_masked_logits_carry_no_probability_and_finite_entropy():
    net = PolicyNet("gin", NetConfig(hidden=16, layers=1))
    state = gin.init(64, seed=5)
    obs = gin.observe(state)
    prior = expert_prior("gin", obs, state.mask)
    logits, value = net(torch.from_numpy(obs), torch.from_numpy(prior), torch.from_numpy(state.mask))
    p = torch.softmax(logits, 1)
    assert float(p.detach()[~torch.from_numpy(state.mask)].max()) == 0.0
    ent = masked_entropy(logits, torch.from_numpy(state.mask))
    assert torch.isfinite(ent).all() and (ent >= 0).all()
    assert value.shape == (64,)


@pytest.mark.parametrize("override, words", [
    (["no_such_key=1"], ["no_such_key"]),
    (["net.widht=3"], ["net.widht"]),
    (["num_envs=many"], ["num_envs", "integer"]),
    (["learning_rate=-1"], ["learning_rate"]),
    (["game=chess"], ["game", "chess"]),
    (["rules.knock_limit=-5"], ["knock_limit"]),
    (["rules.colour=red"], ["colour"]),
    (["opponents.simple=-1"], ["opponents"]),
    (["eval.opponents=[simple, grandmaster]"], ["eval.opponents", "grandmaster"]),
    (["device=tpu"], ["device", "tpu"]),
    (["workers=-1"], ["workers"]),
    (["workers=600"], ["workers", "num_envs"]),
    (["net.card_channels=0"], ["net.card_channels"]),
    (["eval.best_by=random"], ["eval.best_by", "random", "'simple', 'expert'"]),
    (["reward_scale=0"], ["reward_scale", "> 0"]),
    (["reward_scale=.nan"], ["reward_scale", "finite"]),
    (["reward_scale=nan"], ["reward_scale", "must be a number", "'nan'"]),
    (["eval.every_steps=-1"], ["eval.every_steps", ">= 0"]),
    (["eval.every_steps=1.5"], ["eval.every_steps", "integer"]),
    (["eval.every_minutes=-2"], ["eval.every_minutes", ">= 0"]),
])
def test_config_errors_name_the_key(override, words):
    with pytest.raises(training.ConfigError) as e:
        training.load_config(ROOT / "configs" / "gin_rummy.yaml", override)
    for w in words:
        assert w in str(e.value)


@pytest.mark.parametrize("best_by", ["mean", "expert", "simple"])
def test_best_checkpoint_is_chosen_by_eval_best_by(best_by, tmp_path):
    """The periodic evaluation scores the policy by ``eval.best_by`` and saves best.pt only
    when that score beats the best so far."""
    from types import SimpleNamespace

    from rummyrl.training.evaluation import periodic_eval

    cfg = training.load_config(None, [f"eval.best_by={best_by}", "eval.games=20", "eval.unit=hand"])
    net = PolicyNet("gin", NetConfig(hidden=16, layers=1, prior_scale=2.0))
    saved, logged = [], {}
    writer = SimpleNamespace(add_scalar=lambda tag, v, step: logged.__setitem__(tag, v), flush=lambda: None)
    tr = SimpleNamespace(cfg=cfg, net=net, global_step=0, elapsed=0.0, best_score=-1.0, last_eval={},
                         save=saved.append)
    periodic_eval(tr, writer)
    rates = {k: logged[f"eval/win_rate_vs_{k}"] for k in ("simple", "expert")}
    assert rates["simple"] != rates["expert"]  # the scores below can tell the choices apart
    want = (rates["simple"] + rates["expert"]) / 2 if best_by == "mean" else rates[best_by]
    assert tr.last_eval["score"] == pytest.approx(want) and tr.best_score == pytest.approx(want)
    assert saved == ["best.pt"]
    periodic_eval(tr, writer)  # the same policy on the same seeds: no better, not saved again
    assert saved == ["best.pt"]


def test_config_file_errors(tmp_path):
    with pytest.raises(training.ConfigError, match="does not exist"):
        training.load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("net: [1, 2\n")
    with pytest.raises(training.ConfigError, match="not valid YAML") as e:
        training.load_config(bad)
    assert "\n" not in str(e.value) and "line 1" in str(e.value)  # the parser's where, on the one line
    with pytest.raises(training.ConfigError, match="cannot parse the value") as e:
        training.load_config(None, ["net.hidden=[1, 2"])
    assert "\n" not in str(e.value)
    listy = tmp_path / "list.yaml"
    listy.write_text("- 1\n- 2\n")
    with pytest.raises(training.ConfigError, match="mapping"):
        training.load_config(listy)


@pytest.mark.slow
def test_every_shipped_config_loads_and_cli_rejects_bad_keys():
    # the configs a user starts from, and the research's (docs/research/configs/), still runnable
    paths = sorted((ROOT / "configs").glob("*.yaml")) + sorted((ROOT / "docs" / "research" / "configs").glob("*.yaml"))
    assert len(paths) >= 8
    for path in paths:
        cfg = training.load_config(path)
        assert cfg.name and cfg.total_steps > 0
    recipes = sorted((ROOT / "configs" / "recipes").glob("*.yaml"))
    assert [p.name for p in recipes] == ["gin_plain.yaml", "gin_pretrained.yaml", "rummy_pretrained.yaml"]
    for path in recipes:
        assert training.is_recipe(path) and not training.is_recipe(ROOT / "configs" / "gin_rummy.yaml")
        assert training.load_recipe(path).stages
    out = subprocess.run([sys.executable, "train.py", "bogus_key=1"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 2
    assert "bogus_key" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow
def test_rummy_trains_and_its_checkpoint_plays(tmp_path):
    cfg = training.load_config(ROOT / "configs" / "rummy.yaml", TINY + ["num_players=3", "num_envs=8"])
    tr = training.train(cfg, run_dir=tmp_path / "rummy", progress=False)
    assert tr.updates >= 1 and (tmp_path / "rummy" / "final.pt").is_file()
    from rummyrl import evaluate

    t = evaluate.run_tournament([str(tmp_path / "rummy" / "final.pt"), "random"], game="rummy", players=3,
                                games=6, show_progress=False)
    p = t.pairings[0]
    assert p.games == 6 and p.wins_a + p.wins_b + p.draws == 6
    with pytest.raises(ValueError, match="trained for 'rummy'"):
        from rummyrl.agents import load_agent

        load_agent(str(tmp_path / "rummy" / "final.pt"), game="gin")


def test_a_minibatch_of_one_sample_keeps_the_weights_finite(tmp_path):
    cfg = training.load_config(None, TINY)
    tr = training.Trainer(cfg, tmp_path)
    tr.setup()
    tr.lanes.collect(tr.net, {})
    idx, adv, ret = tr.lanes.part.rollout.advantages(cfg.gamma, cfg.gae_lambda, cfg.rollout_steps)
    assert idx.size > 2
    import dataclasses

    one_left = dataclasses.replace(cfg, minibatch_size=idx.size - 1)  # the last minibatch: one sample
    stats = ppo_update(tr.net, tr.opt, tr.lanes.part.rollout, idx, adv, ret, one_left, tr.torch_gen)
    assert all(np.isfinite(v) for v in stats.values())
    assert all(torch.isfinite(p).all() for p in tr.net.parameters())


def test_numbers_in_scientific_notation_are_numbers():
    cfg = training.load_config(ROOT / "configs" / "gin_rummy.yaml", ["total_steps=2e6", "learning_rate=3e-4"])
    assert cfg.total_steps == 2_000_000 and cfg.learning_rate == pytest.approx(3e-4)
    with pytest.raises(training.ConfigError, match="num_envs"):
        training.load_config(ROOT / "configs" / "gin_rummy.yaml", ["num_envs=1.5e2x"])


@pytest.mark.parametrize("device", ["cpu", "auto"])
def test_cpu_and_auto_devices_train_and_checkpoints_hold_cpu_tensors(tmp_path, device):
    cfg = training.load_config(None, TINY + [f"device={device}"])
    tr = training.train(cfg, run_dir=tmp_path, progress=False)
    expected = "cuda" if device == "auto" and torch.cuda.is_available() else "cpu"
    assert tr.updates == 3 and tr.device.type == expected
    assert next(tr.net.parameters()).device.type == expected
    data = load_checkpoint(tmp_path / "final.pt", "gin")
    tensors = [t for t in data["model"].values()]
    tensors += [t for st in data["optimizer"]["state"].values() for t in st.values() if torch.is_tensor(t)]
    assert tensors and all(t.device.type == "cpu" for t in tensors)


@pytest.mark.slow
@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has CUDA")
def test_cuda_without_cuda_is_a_config_error():
    for device in ("cuda", "cuda:0"):
        with pytest.raises(training.ConfigError, match="CUDA is not available.*device=cpu"):
            training.load_config(None, TINY + [f"device={device}"])
    out = subprocess.run([sys.executable, "train.py", "device=cuda"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 2 and "device=cuda" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs CUDA")
def test_a_cuda_run_writes_checkpoints_that_load_on_cpu(tmp_path):
    from rummyrl.agents import load_agent

    tr = training.train(training.load_config(None, TINY + ["device=cuda"]), run_dir=tmp_path, progress=False)
    assert next(tr.net.parameters()).is_cuda
    data = load_checkpoint(tmp_path / "final.pt", "gin")
    assert all(t.device.type == "cpu" for t in data["model"].values())
    agent = load_agent(str(tmp_path / "final.pt"))
    assert next(agent.net.parameters()).device.type == "cpu"
    resumed = training.train(training.load_config(None, TINY + ["device=cpu", "total_steps=512"]), run_dir=tmp_path,
                          resume=load_checkpoint(tmp_path / "last.pt"), progress=False)
    assert resumed.updates == 4


def test_workers_without_ray_name_the_install_command(monkeypatch):
    import rummyrl.distributed

    monkeypatch.setattr(rummyrl.distributed, "ray_available", lambda: False)
    with pytest.raises(training.ConfigError, match=r'workers=2 needs Ray.*pip install -e "\.\[ray\]"'):
        training.load_config(None, TINY + ["workers=2"])
    assert training.load_config(None, TINY + ["workers=0"]).workers == 0


def test_restored_games_credit_the_rewards_owed_at_the_checkpoint_on_time():
    """A deal's points reach each seat when it next acts; a checkpoint taken while some seat
    is still owed its points must hand them over at that seat's next move after a resume, as
    the uninterrupted games do (not at a later deal's end)."""
    from rummyrl.training.lanes import env_state_dict, load_env_state

    cfg = training.load_config(ROOT / "configs" / "rummy.yaml", ["num_players=3", "num_envs=32"])
    rng = np.random.default_rng(1)
    whole = Lanes(cfg, np.random.default_rng(0))
    while not whole.env.seats.pending.any():
        whole.env.step(random_actions(whole.env.batch.mask, rng))
    resumed = Lanes(cfg, np.random.default_rng(0))
    load_env_state(resumed.env, env_state_dict(whole.env))
    credited = 0
    for _ in range(300):
        actions = random_actions(whole.env.batch.mask, rng)
        a, b = whole.env.step(actions), resumed.env.step(actions)
        assert np.array_equal(a.rewards, b.rewards) and np.array_equal(a.obs, b.obs)
        credited += int(np.count_nonzero(a.rewards))
    assert credited > 0


def test_a_key_this_version_does_not_know_is_one_line_naming_it_and_the_known_keys():
    """A removed or misspelt key, in an override, a config file's section or a checkpoint's
    saved config, is refused the same way: one line naming the key, its section's known keys."""
    import dataclasses

    from rummyrl.agents.network import NetConfig

    saved = dataclasses.asdict(training.load_config(ROOT / "configs" / "gin_rummy_exit.yaml"))
    saved["exit"] |= {"target": "softmax"}
    for attempt, key in ((lambda: training.load_config(None, to_overrides(saved)), "exit.target"),
                         (lambda: training.load_config(None, ["net.card_dim=32"]), "net.card_dim"),
                         (lambda: NetConfig.from_dict({"hidden": 8, "card_encoder": False}), "net.card_encoder")):
        with pytest.raises(training.ConfigError) as e:
            attempt()
        msg = str(e.value)
        assert "\n" not in msg and msg.startswith(f"unknown config key {key!r}; known keys: ["), msg
        section = key.split(".")[0]
        known = {"exit": training.ExitConfig, "net": NetConfig}[section]
        assert all(f.name in msg for f in dataclasses.fields(known)), msg


@pytest.mark.slow
def test_a_corrupt_checkpoint_is_one_line_naming_the_file_and_the_cause(tmp_path):
    """train.py --resume and evaluate.py: exit code 2, one line, no traceback and none of
    torch's advice to load the file with weights_only=False."""
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint at all")
    cut = tmp_path / "cut.pt"
    cut.write_bytes((ROOT / "agents" / "pretrained" / "gin.pt").read_bytes()[:300])
    empty = tmp_path / "empty.pt"
    empty.write_bytes(b"")
    for path, cause in ((bad, "UnpicklingError: Unsupported operand"), (cut, "RuntimeError: PytorchStreamReader"),
                        (empty, "the file is empty")):
        for cmd, tool in (([sys.executable, "train.py", "--resume", str(path)], "train.py"),
                          ([sys.executable, "evaluate.py", str(path), "simple", "--quiet"], "evaluate.py")):
            out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300)
            lines = [line for line in out.stderr.splitlines() if line.strip()]
            assert out.returncode == 2 and len(lines) == 1, out.stderr
            assert lines[0].startswith(f"{tool}: error: checkpoint {str(path)!r} is corrupt or not a checkpoint ("), lines
            assert cause in lines[0] and "weights_only" not in lines[0], lines
    # a network alone (a shipped one) is not a run to continue: it says what to do instead
    shipped = ROOT / "agents" / "pretrained" / "gin.pt"
    assert main(["--resume", str(shipped)]) == 2


def test_the_step_0_evaluation_changes_nothing_of_the_training(tmp_path):
    """start_eval plays the untrained network on the final report's deals and leaves every
    random generator as it was: the run's weights are those of a run without it."""
    cfg = training.load_config(None, TINY)
    with_start = training.train(cfg, run_dir=tmp_path / "a", max_updates=2, progress=False)
    without = training.train(cfg, run_dir=tmp_path / "b", max_updates=2, progress=False, evaluate_start=False)
    assert without.start_eval is None
    start = with_start.start_eval
    assert start["games"] == 4 and start["seed"] == FINAL_EVAL_SEED and start["step"] == 0
    assert [p["b"] for p in start["pairings"]] == ["simple", "expert"]
    for name, p in with_start.net.state_dict().items():
        assert torch.equal(p, without.net.state_dict()[name]), name
    assert load_checkpoint(tmp_path / "a" / "last.pt")["start_eval"] == start  # plain data in the checkpoint


def test_the_progress_bar_shows_the_latest_evaluation(tmp_path, monkeypatch, capsys):
    """Every periodic evaluation reaches the bar when it is made, the one at the end too."""
    from rummyrl.training import loop

    made = []

    def fake_eval(tr, writer):
        made.append(len(made))
        tr.last_eval = {"step": tr.global_step, "minutes": len(made) / 10, "win_rate": {"simple": len(made) / 100}}

    monkeypatch.setattr(loop, "periodic_eval", fake_eval)
    cfg = training.load_config(None, TINY + ["eval.every_minutes=1e-9", "eval.final_games=0"])
    training.train(cfg, run_dir=tmp_path / "run", progress=True)
    err = capsys.readouterr().err
    # step 0, after the first two updates, and at the end (not also after the third: the end's
    # evaluation is of the same step)
    assert len(made) == 4
    shown = [part.split("]")[0] for part in err.split("| eval ")[1:]]
    assert shown[-1] == f"at {len(made) / 10:.1f} min: simple={len(made) / 100:.0%}", shown
    assert {f"at {n / 10:.1f} min: simple={n / 100:.0%}" for n in range(1, len(made) + 1)} <= set(shown)


def test_reward_scale_multiplies_the_rewards_of_the_same_games():
    """reward_scale multiplies every reward of the same games (Rummy's game_points over
    one-round episodes, zero-sum), and changes nothing else."""
    from rummyrl.training.lanes import make_selfplay
    base = ["game=rummy", "num_players=4", "episode=hand", "reward=game_points", "num_envs=32"]
    envs = [make_selfplay(training.load_config(None, base + [f"reward_scale={k}"])) for k in (1, 4)]
    batches = [env.reset(seed=3) for env in envs]
    rng = np.random.default_rng(0)
    got = [np.zeros((32, 4)), np.zeros((32, 4))]
    for _ in range(2000):
        actions = random_actions(batches[0].mask, rng)
        batches = [env.step(actions) for env in envs]
        assert np.array_equal(batches[0].player, batches[1].player)
        for g, b in zip(got, batches):
            g += b.rewards
    won = np.abs(got[0]).sum(1) > 0
    assert won.sum() >= 10  # rounds went out and paid
    np.testing.assert_allclose(got[1], 4 * got[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[0].sum(1), 0, atol=1e-5)
