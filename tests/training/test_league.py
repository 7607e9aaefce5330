"""rummyrl-league: a main agent from the rules alone and exploiters of it, round by round.
Each exploiter plays only the frozen main agent of its round; the main agent plays the plain
curriculum plus every exploiter so far and never the expert; league.json records each round;
the same command run again trains nothing it has already trained."""

from __future__ import annotations

import json

import pytest

from rummyrl import league
from rummyrl.training import ConfigError
from rummyrl.agents.checkpoint import load_checkpoint

pytestmark = pytest.mark.slow  # each test trains, builds or runs a subprocess for seconds

#: seconds a stage: narrow rollouts, evaluations in hands, small games
TINY = ["num_envs=64", "rollout_steps=8", "minibatch_size=256", "net.hidden=32", "eval.every_minutes=0",
        "eval.games=10", "eval.unit=hand", "overlap=false", "checkpoint_every_minutes=0", "snapshot_every=1"]


def test_two_rounds_exploiters_play_only_the_main_agent_and_a_rerun_trains_nothing(tmp_path):
    run = tmp_path / "league"
    state = league.league("gin", rounds=2, main_minutes=0.05, exploiter_minutes=0.05, games=20, run_dir=run,
                          overrides=TINY, progress=False)
    assert state["format"] == league.FORMAT and [x["round"] for x in state["rounds"]] == [1, 2]
    r1, r2 = state["rounds"]
    assert 0 < r1["main"]["env_steps"] < r2["main"]["env_steps"]  # round 2 went on from round 1's network
    assert r1["main"]["exploiters"] == 0 and r2["main"]["exploiters"] == 1
    for r, x in enumerate(state["rounds"], 1):
        e = x["exploiter"]
        assert e["games"] == 20 and 0 <= e["win_rate"] <= 1 and e["ci95"][0] <= e["win_rate"] <= e["ci95"][1]
        cfg = load_checkpoint(run / f"exploiter_{r}" / "last.pt", "gin")["train_config"]
        # an exploiter plays the frozen main agent of its round and nobody else
        assert {k for k, w in cfg["opponents"].items() if w > 0} == {str(run / f"main_{r}.pt")}
        assert cfg["eval"]["opponents"] == [str(run / f"main_{r}.pt")]
    main = load_checkpoint(run / "main" / "last.pt", "gin")
    opp = main["train_config"]["opponents"]
    assert opp[r1["exploiter"]["path"]] == 0.25 and opp["expert"] == 0  # the exploiter joined; no expert
    assert not main["train_config"]["net"]["prior_scale"] and main["train_config"]["snapshot_sampling"] == "pfsp"
    assert {p["b"] for p in state["final"]["pairings"]} == {"simple", "expert"}
    # the final evaluation is of the league's last network, the one the last exploiter played
    assert state["final"]["evaluated"].startswith(f"{run / 'main_2.pt'} (saved at step {r2['main']['env_steps']:,}")
    assert json.loads((run / "league.json").read_text()) == state
    steps = main["counters"]["global_step"]
    again = league.league("gin", rounds=2, main_minutes=0.05, exploiter_minutes=0.05, games=20, run_dir=run,
                          overrides=TINY, progress=False)
    assert again["rounds"] == state["rounds"]
    assert load_checkpoint(run / "main" / "last.pt", "gin")["counters"]["global_step"] == steps


def test_main_only_overrides_start_the_main_agent_from_a_network_and_leave_exploiters_fresh(tmp_path):
    """``--main`` overrides reach the main agent alone (here its width, then ``init=`` a network
    of that width), are recorded in league.json, and a rerun with other ones is refused."""
    first = league.league("gin", rounds=1, main_minutes=0.05, exploiter_minutes=0.05, games=10,
                          run_dir=tmp_path / "first", overrides=TINY, progress=False, main_only=["net.hidden=48"])
    assert first["main_only"] == ["net.hidden=48"]
    assert load_checkpoint(tmp_path / "first" / "main" / "last.pt", "gin")["net_config"]["hidden"] == 48
    assert load_checkpoint(tmp_path / "first" / "exploiter_1" / "last.pt", "gin")["net_config"]["hidden"] == 32
    init = f"init={tmp_path / 'first' / 'main_1.pt'}"
    run = tmp_path / "second"
    league.league("gin", rounds=1, main_minutes=0.05, exploiter_minutes=0.05, games=10, run_dir=run,
                  overrides=TINY, progress=False, main_only=[init, "net.hidden=48"])
    main = load_checkpoint(run / "main" / "last.pt", "gin")
    assert main["train_config"]["init"] == init.removeprefix("init=")
    assert not load_checkpoint(run / "exploiter_1" / "last.pt", "gin")["train_config"]["init"]
    with pytest.raises(ConfigError, match="main-only overrides"):
        league.league("gin", rounds=1, main_minutes=0.05, exploiter_minutes=0.05, games=10, run_dir=run,
                      overrides=TINY, progress=False, main_only=["net.hidden=48"])


def test_bad_arguments_are_one_line_errors(capsys):
    assert league.main(["--rounds", "0", "--main-minutes", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--rounds 0" in err and "--main-minutes -1" in err


def test_a_league_stopped_inside_its_stages_ends_with_the_networks_of_one_never_stopped(tmp_path, monkeypatch):
    """Budgets in env steps; the main agent's first stage and the second exploiter's stage
    are each stopped after one update (as Ctrl-C leaves them: last.pt saved), and the same
    command, given again, goes on: the networks and results are those of the league that ran
    through."""
    import torch

    from rummyrl import exploit as exploit_module

    kw = dict(rounds=2, main_minutes=60, exploiter_minutes=60, games=20, overrides=TINY, progress=False,
              main_steps=1024, exploiter_steps=1024)
    whole = league.league("gin", run_dir=tmp_path / "whole", **kw)

    def stopping(real, stage):
        calls = []

        def train(cfg, **k):
            calls.append(cfg.name)
            if len(calls) == stage:  # this stage: one update, saved, then "Ctrl-C"
                tr = real(cfg, **k, max_updates=1)
                tr.interrupted = True
                return tr
            return real(cfg, **k)
        return train

    monkeypatch.setattr(league, "train", stopping(league.train, 1))  # round 1's main stage
    monkeypatch.setattr(exploit_module, "train", stopping(exploit_module.train, 2))  # round 2's exploiter
    split = tmp_path / "split"
    for _ in range(3):  # stopped, stopped, then through
        try:
            state = league.league("gin", run_dir=split, **kw)
            break
        except KeyboardInterrupt:
            pass
    else:
        raise AssertionError("the league never finished")
    assert [x["exploiter"]["win_rate"] for x in state["rounds"]] == [x["exploiter"]["win_rate"] for x in whole["rounds"]]
    assert [x["main"]["env_steps"] for x in state["rounds"]] == [1024, 2048] == \
        [x["main"]["env_steps"] for x in whole["rounds"]]
    for rel in ("main/last.pt", "exploiter_1/last.pt", "exploiter_2/last.pt"):
        a = load_checkpoint(tmp_path / "whole" / rel, "gin")["model"]
        b = load_checkpoint(split / rel, "gin")["model"]
        for name, p in a.items():
            assert torch.allclose(p, b[name], atol=1e-6, rtol=0), (rel, name)
    assert state["final"]["pairings"] == whole["final"]["pairings"]
    assert "at step 2,048" in state["final"]["evaluated"]  # the main agent's last network, not round 1's
