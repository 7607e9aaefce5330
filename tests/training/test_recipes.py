"""configs/recipes/: one command per shipped network. Tiny versions of both recipes run end
to end (every stage in seconds), the exported network loads and plays as an agent, a recipe
stopped after a stage goes on at the next one without redoing it, a stopped training stage
resumes from its own checkpoint, and the recipes' stages are the research's runs."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from rummyrl.agents import load_agent
from rummyrl.agents.checkpoint import load_checkpoint
from rummyrl.tournament import run_tournament
from rummyrl.training import ConfigError, load_config, load_recipe, run_recipe, train
from rummyrl.training.recipe import _set_aside_later_records

ROOT = Path(__file__).resolve().parents[2]
GIN = ROOT / "configs" / "recipes" / "gin_pretrained.yaml"
RUMMY = ROOT / "configs" / "recipes" / "rummy_pretrained.yaml"


def tiny_train(stage: str, hidden: int = 16) -> list[str]:
    """A train stage of a few updates: evaluations of 4 games, no time limit, no periodic evaluation."""
    return [f"{stage}.{o}" for o in (
        "num_envs=16", "rollout_steps=8", "total_steps=384", "minibatch_size=64", f"net.hidden={hidden}",
        "net.layers=1", "eval.every_minutes=0", "eval.games=4", "eval.final_games=4", "checkpoint_every_minutes=0",
        "time_limit_minutes=0")]


#: a compression of a few games' positions, one epoch, and its 4-game evaluation
COMPRESS_TINY = ["compress.games=4", "compress.valid_games=2", "compress.epochs=1", "compress.net.hidden=8",
                 "compress.options.max_hands=2", "compress.options.max_rounds=2", "compress_eval.games=4"]
#: the Gin recipe in seconds: search with 2 worlds makes ten iterations of data in process, a
#: one-epoch fit, three PPO updates, 4-game evaluations, a tiny compression
GIN_TINY = ["data.workers=0", "data.num_envs=12", "data.rollout_steps=12", "data.total_steps=1440",
            "data.net.hidden=16", "data.net.layers=1", "data.eval.every_minutes=0", "data.time_limit_minutes=0",
            "data.checkpoint_every_minutes=0", "data.exit.teacher=search:opponent=simple,knock=10,worlds=2,topk=2",
            "fit.epochs=1", "fit.valid_every=2", "fit.minibatch_size=32", *tiny_train("ppo"), "eval.games=4",
            *[o for o in COMPRESS_TINY if "max_rounds" not in o]]
RUMMY_TINY = [*tiny_train("ppo", hidden=4), "eval.games=4", *[o for o in COMPRESS_TINY if "max_hands" not in o]]


def stamps(*paths: Path) -> list[int]:
    return [p.stat().st_mtime_ns for p in paths]


@pytest.mark.slow
def test_the_gin_recipe_runs_end_to_end_and_goes_on_after_the_stage_it_stopped_at(tmp_path):
    run = tmp_path / "gin"
    lines: list[str] = []
    done = run_recipe(load_recipe(GIN, GIN_TINY, run), until="fit", progress=False, log=lines.append)
    assert done == {"data": "ran", "fit": "ran"}
    assert not (run / "ppo").exists()
    assert any(f"into {run / 'data'}/" in line for line in lines)  # it says where it writes
    assert any("the same command without --until goes on at ppo" in line for line in lines)
    records = sorted((run / "data" / "records").glob("records_*.npz"))
    assert len(records) >= 2 and (run / "fit" / "fit.pt.json").is_file()
    made = [run / "data" / "final.pt", run / "fit" / "fit.pt", *records]
    before = stamps(*made)

    lines.clear()
    done = run_recipe(load_recipe(GIN, GIN_TINY, run), progress=False, log=lines.append)
    assert done == {"data": "done", "fit": "done", "ppo": "ran", "eval": "ran", "compress": "ran",
                    "compress_eval": "ran", "export": "ran"}
    assert stamps(*made) == before  # the data and the fit were not made again
    # PPO started from the fit's network, and its report sets its start beside its result
    assert load_checkpoint(run / "ppo" / "final.pt")["train_config"]["init"] == str(run / "fit" / "fit.pt")
    report = json.loads((run / "ppo" / "eval" / "results.json").read_text())
    assert report["start"]["network"] == f"step 0: the network of init={run / 'fit' / 'fit.pt'}"
    assert set(report["training_added"]) == {"simple", "expert"}
    # the student of ppo/best.pt: no card head, the epoch kept by agreement on held-out positions
    student = load_checkpoint(run / "compress" / "student.pt", "gin")
    assert student["net_config"]["card_head"] is False and student["net_config"]["hidden"] == 8
    assert student["about"]["source"] == f"compressed from {run / 'ppo' / 'best.pt'}"
    rows = json.loads((run / "compress" / "student.pt.json").read_text())["rows"]
    assert [r["epoch"] for r in rows] == [0, 1] and all(0 <= r["valid_agreement"] <= 1 for r in rows)
    # the exported network is the student: small, with the evaluation it was shipped on, and it plays
    exported = run / "export" / "gin.pt"
    data = load_checkpoint(exported, "gin")
    assert "optimizer" not in data and data["about"]["source"] == str(run / "compress" / "student.pt")
    shipped_on = json.loads(data["about"]["results"])
    assert {(p["a"], p["b"]) for p in shipped_on} == {("compress/student", "simple"), ("compress/student", "expert")}
    agent = load_agent(str(exported), game="gin")
    assert agent.game == "gin"
    t = run_tournament([str(exported), "simple"], game="gin", games=2, show_progress=False)
    assert t.pairings[0].games == 2
    # run again, everything is done and nothing is redone
    after = stamps(exported, run / "eval" / "results.json", run / "ppo" / "final.pt")
    assert set(run_recipe(load_recipe(GIN, GIN_TINY, run), progress=False, log=lines.append).values()) == {"done"}
    assert stamps(exported, run / "eval" / "results.json", run / "ppo" / "final.pt") == after


@pytest.mark.slow
def test_the_rummy_recipe_runs_as_the_real_script(tmp_path):
    """python train.py --config configs/recipes/rummy_pretrained.yaml, tiny: every stage, what it
    does and where it writes; the exported network plays Rummy."""
    run = tmp_path / "rummy"
    cmd = [sys.executable, "train.py", "--config", str(RUMMY), "--run-dir", str(run), *RUMMY_TINY]
    out = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    for stage, line in (("ppo", "[1/5] ppo (train): training"), ("eval", "[2/5] eval (evaluate):"),
                        ("compress", "[3/5] compress (compress): distilling"),
                        ("compress_eval", "[4/5] compress_eval (evaluate):"), ("export", "[5/5] export (export): wrote")):
        assert line in out.stderr and str(run / stage) in out.stderr, stage
    assert "what training added" in out.stdout and "step 0: the untrained network" in out.stdout
    assert "| ppo/final | simple | 4 |" in out.stdout and "| compress/student | simple | 4 |" in out.stdout
    exported = run / "export" / "rummy.pt"
    assert load_checkpoint(exported)["net_config"]["trunk_features"] is False
    agent = load_agent(str(exported), game="rummy")
    t = run_tournament([str(exported), "simple"], game="rummy", games=4, show_progress=False)
    assert agent.game == "rummy" and t.pairings[0].games == 4
    again = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0 and again.stderr.count("skipped") == 5, again.stderr[-3000:]


@pytest.mark.slow
def test_a_stopped_training_stage_resumes_from_its_own_checkpoint(tmp_path):
    """A train stage that left last.pt and no final.pt (stopped, or killed) goes on from there."""
    run = tmp_path / "rummy"
    recipe = load_recipe(RUMMY, RUMMY_TINY, run)
    first = train(recipe.train_config("ppo"), run_dir=run / "ppo", max_updates=1, progress=False)
    assert first.updates == 1 and not (run / "ppo" / "final.pt").exists()
    lines: list[str] = []
    done = run_recipe(load_recipe(RUMMY, RUMMY_TINY, run), until="ppo", progress=False, log=lines.append)
    assert done == {"ppo": "resumed"}
    assert any(f"resuming from {run / 'ppo' / 'last.pt'} (update 1" in line for line in lines)
    final = load_checkpoint(run / "ppo" / "final.pt")
    assert final["counters"]["updates"] == 3  # 384 steps of 128: two more updates, not three
    assert final["start_eval"] == first.start_eval  # the step-0 result travels in the checkpoint
    report = json.loads((run / "ppo" / "eval" / "results.json").read_text())
    assert report["start"] == first.start_eval and set(report["training_added"]) == {"simple", "expert"}


@pytest.mark.slow
def test_a_stage_stopped_before_its_first_checkpoint_starts_again(tmp_path):
    run = tmp_path / "rummy"
    (run / "ppo").mkdir(parents=True)
    (run / "ppo" / "events.out.tfevents.0.stale").write_text("")
    lines: list[str] = []
    assert run_recipe(load_recipe(RUMMY, RUMMY_TINY, run), until="ppo", progress=False,
                      log=lines.append) == {"ppo": "ran"}
    assert not (run / "ppo" / "events.out.tfevents.0.stale").exists()
    assert any("left no checkpoint; starting again" in line for line in lines)


def test_records_written_after_the_checkpoint_are_set_aside_on_resume(tmp_path):
    """The resumed data run makes those updates again: the fit must not read them twice."""
    records = tmp_path / "records"
    records.mkdir()
    for name in ("records_000000.npz", "records_000001.npz", "records_000002.npz", "records_000002_1.npz",
                 "records_000003.npz"):
        np.savez(records / name, target=np.zeros(1))
    lines: list[str] = []
    _set_aside_later_records(tmp_path, 2, lines.append)
    assert sorted(f.name for f in records.iterdir()) == ["records_000000.npz", "records_000001.npz"]
    assert sorted(f.name for f in (tmp_path / "records_after_checkpoint").iterdir()) == [
        "records_000002.npz", "records_000002_1.npz", "records_000003.npz"]


def _without(cfg, *keys) -> dict:
    d = dataclasses.asdict(cfg)
    for k in keys:
        d.pop(k)
    return d


def test_the_recipes_stages_are_the_research_runs():
    """The stages' configs are those of docs/research/pretrained.md's commands."""
    gin = load_recipe(GIN)
    research = load_config(ROOT / "docs" / "research" / "configs" / "gin_rummy_exit_simple.yaml")
    data = gin.train_config("data")
    # the data run: the research's config (a data run never steps its optimizer: its rate is moot)
    assert _without(data, "name", "learning_rate") == _without(research, "name", "learning_rate")
    assert not data.exit.learn
    fit = gin.train_config("fit")
    assert (fit.learning_rate, fit.minibatch_size, fit.net) == (1e-3, 256, research.net)
    spec = gin.stages["fit"].spec
    assert (spec.epochs, spec.select, spec.valid_every) == (6, "q_gain", 10)
    ppo = gin.train_config("ppo")
    by_hand = load_config(ROOT / "configs" / "gin_rummy.yaml", [
        f"init={gin.run_dir / 'fit' / 'fit.pt'}", "net.card_head=true", "time_limit_minutes=30",
        "opponents.simple=0.6", "opponents.expert=0.2", "opponents.self_play=0.1", "opponents.snapshots=0.1",
        "eval.best_by=simple", "eval.games=1000", "eval.every_minutes=5"])
    assert _without(ppo, "name") == _without(by_hand, "name") and ppo.net == fit.net
    ev = gin.stages["eval"].spec
    assert (ev.checkpoint, ev.against, ev.games, ev.seed, ev.options) == (
        "ppo/best.pt", ["simple", "expert"], 2000, 20011, {"max_hands": 30})
    rummy = load_recipe(RUMMY)
    by_hand = load_config(ROOT / "configs" / "rummy.yaml", ["time_limit_minutes=25", "eval.every_minutes=6",
                                                            "eval.games=1000", "eval.max_hands=30"])
    assert _without(rummy.train_config("ppo"), "name") == _without(by_hand, "name")
    ev = rummy.stages["eval"].spec
    assert (ev.checkpoint, ev.games, ev.seed, ev.options) == ("ppo/final.pt", 2000, 20011, {"max_rounds": 30})
    # both ship the student of the network the research made, evaluated on the teacher's deals
    for recipe, teacher in ((gin, "ppo/best.pt"), (rummy, "ppo/final.pt")):
        assert recipe.stages["compress"].spec.teacher == teacher
        ev, student = recipe.stages["eval"].spec, recipe.stages["compress_eval"].spec
        assert (student.checkpoint, student.against, student.games, student.seed, student.options) == (
            "compress", ev.against, ev.games, ev.seed, ev.options)
        assert (recipe.stages["export"].spec.checkpoint, recipe.stages["export"].spec.results) == (
            "compress", ["compress_eval"])


@pytest.mark.parametrize("overrides, words", [
    (["total_steps=5"], "names its stage"),
    (["nosuch.total_steps=5"], "no stage 'nosuch'"),
    (["ppo.nosuch=5"], "unknown config key"),
    (["eval.nosuch=5"], "no field 'nosuch'"),
    (["eval.games=many"], "games must be an integer, got 'many'"),
    (["fit.select=best"], "select must be one of"),
    (["data.exit.save_records=false"], "saves no records"),
    (["compress.games=0"], r"stage 'compress' \(compress\): games must be >= 1, got 0"),
    (["compress.net.hiden=64"], r"stage 'compress' \(compress\): compress.net: unknown network field\(s\) \['hiden'\]"),
    (["compress.net.card_channels=0"], "compress 'compress': net.card_channels must be > 0, got 0"),
])
def test_recipe_errors_name_what_is_wrong(overrides, words):
    with pytest.raises(ConfigError, match=words):
        load_recipe(GIN, overrides)


@pytest.mark.slow
def test_recipe_file_errors(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("recipe: x\nstages:\n  ev:\n    do: evaluate\n    checkpoint: later/best.pt\n"
                   "  later:\n    do: train\n    config: configs/gin_rummy.yaml\n")
    with pytest.raises(ConfigError, match="names stage 'later', which does not come before it"):
        load_recipe(bad)
    bad.write_text("recipe: x\nstages:\n  a:\n    do: bake\n")
    with pytest.raises(ConfigError, match="'do' one of"):
        load_recipe(bad)
    bad.write_text("recipe: x\nstages:\n  a:\n    do: train\n    config: configs/gin_rummy.yaml\n    sett: {}\n")
    with pytest.raises(ConfigError, match=r"stage 'a' \(train\): unknown config key 'sett'"):
        load_recipe(bad)
    # the command line: one line, exit code 2, and no recipe flags on a plain config
    out = subprocess.run([sys.executable, "train.py", "--config", str(GIN), "ppo.nosuch=1"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert out.returncode == 2 and len(lines) == 1 and "unknown config key" in lines[0], out.stderr
    out = subprocess.run([sys.executable, "train.py", "--config", str(GIN), "--until", "nosuch"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and "no stage 'nosuch'" in out.stderr.splitlines()[-1], out.stderr
    out = subprocess.run([sys.executable, "train.py", "--until", "fit"], cwd=ROOT, capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 2 and "--until needs a recipe" in out.stderr
