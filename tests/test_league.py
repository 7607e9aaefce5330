"""rummyrl-league: a main agent from the rules alone and exploiters of it, round by round.
Each exploiter plays only the frozen main agent of its round; the main agent plays the plain
curriculum plus every exploiter so far and never the expert; league.json records each round;
the same command run again trains nothing it has already trained."""

from __future__ import annotations

import json

from rummyrl import league
from rummyrl.agents.checkpoint import load_checkpoint

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
    assert json.loads((run / "league.json").read_text()) == state
    steps = main["counters"]["global_step"]
    again = league.league("gin", rounds=2, main_minutes=0.05, exploiter_minutes=0.05, games=20, run_dir=run,
                          overrides=TINY, progress=False)
    assert again["rounds"] == state["rounds"]
    assert load_checkpoint(run / "main" / "last.pt", "gin")["counters"]["global_step"] == steps


def test_bad_arguments_are_one_line_errors(capsys):
    assert league.main(["--rounds", "0", "--main-minutes", "-1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--rounds 0" in err and "--main-minutes -1" in err
