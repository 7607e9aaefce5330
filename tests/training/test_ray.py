"""Ray workers: training with rollout workers (a checkpoint evaluate.py loads, exact resume,
a killed worker replaced), tournaments on actors equal to in process, a two-node cluster.

Skipped when Ray is not installed (``pip install -e ".[ray]"``). One Ray for the whole
session (2 CPUs); the simulated cluster runs last, in a subprocess with its own Ray.
"""

from __future__ import annotations

import json
import os
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

# Ray on 127.0.0.1 only (Ray's switch for machines that are not cluster nodes): whatever
# these tests start talks to this machine alone. Set before Ray is imported; inherited by
# the subprocesses below.
os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
ray = pytest.importorskip("ray")

import torch  # noqa: E402

from rummyrl import evaluate, training# noqa: E402
from rummyrl.agents.checkpoint import load_checkpoint  # noqa: E402
from rummyrl.agents.checkpoint import pretrained_path  # noqa: E402
from tiny_runs import NONE, TINY_EXIT  # noqa: E402
from tiny_runs import TINY as TRAIN_TINY  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

# a few seconds: test_train's tiny run (3 updates of 16 lanes, every opponent kind, snapshots),
# its lanes split over 2 workers
TINY = [o for o in TRAIN_TINY if not o.startswith("lr_schedule=")] + ["workers=2"]


@pytest.fixture(scope="module")
def whole_run(ray_session, tmp_path_factory):
    """A whole tiny run with 2 workers: its folder, weights and step count."""
    run = tmp_path_factory.mktemp("ray_whole")
    nodes = []
    tr = training.train(training.load_config(None, TINY), run_dir=run, progress=False,
                     on_update=lambda t: nodes.append([i["pid"] for i in t.workers.info]))
    return {"dir": run, "weights": {k: v.clone() for k, v in tr.net.state_dict().items()},
            "global_step": tr.global_step, "updates": tr.updates, "pids": nodes[-1]}


def test_two_workers_train_and_evaluate_loads_the_checkpoint(whole_run, tmp_path):
    run = whole_run["dir"]
    assert whole_run["updates"] == 3 and whole_run["global_step"] == 384
    assert len(set(whole_run["pids"])) == 2  # two actors, each its own process
    for name in ("last.pt", "final.pt", "best.pt", "config.yaml"):
        assert (run / name).is_file(), name
    data = load_checkpoint(run / "last.pt", "gin")
    assert data["workers"]["count"] == 2 and all(s is not None for s in data["workers"]["states"])
    assert [s["num_envs"] for s in data["workers"]["states"]] == [8, 8]  # num_envs split across workers
    assert "env" not in data  # the lanes were the workers'
    ev = subprocess.run([sys.executable, "evaluate.py", str(run / "final.pt"), "simple", "--games", "4",
                         "--quiet", "--out", str(tmp_path / "ev")], cwd=ROOT, capture_output=True, text=True,
                        timeout=300)
    assert ev.returncode == 0, ev.stderr[-3000:]
    assert f"| {run.name}/final | simple | 4 |" in ev.stdout


def test_resume_with_workers_continues_exactly(whole_run, tmp_path):
    cfg = training.load_config(None, TINY)
    first = training.train(cfg, run_dir=tmp_path / "split", max_updates=1, progress=False)
    assert first.updates == 1
    data = load_checkpoint(tmp_path / "split" / "last.pt", "gin")
    resumed = training.train(cfg, run_dir=tmp_path / "split", resume=data, progress=False)
    assert resumed.updates == 3 and resumed.global_step == whole_run["global_step"]
    for name, p in whole_run["weights"].items():  # same seed, same workers: the same run
        assert torch.equal(p, resumed.net.state_dict()[name]), name
    # the same checkpoint continues in process too (its lanes then start afresh)
    cfg0 = training.load_config(None, TINY + ["workers=0", "total_steps=512"])
    inproc = training.train(cfg0, run_dir=tmp_path / "inproc", resume=data, progress=False)
    assert inproc.updates == 4 and (tmp_path / "inproc" / "final.pt").is_file()


def test_workers_play_any_agent_spec_and_resume_exactly(ray_session, tmp_path):
    """opponents: a checkpoint path and a name with options, on two workers: the run plays,
    and stopped after one update then resumed it ends with the uninterrupted run's weights."""
    ckpt = str(pretrained_path("gin", "pretrained"))
    cfg = training.load_config(None, TINY + [f"opponents={{'{ckpt}': 1, 'expert:lookahead=4': 1}}", *NONE])
    assert {k for k, w in cfg.opponents.items() if w} == {ckpt, "expert:lookahead=4"}
    whole = training.train(cfg, run_dir=tmp_path / "whole", progress=False)
    first = training.train(cfg, run_dir=tmp_path / "split", max_updates=1, progress=False)
    assert first.updates == 1
    data = load_checkpoint(tmp_path / "split" / "last.pt", "gin")
    resumed = training.train(cfg, run_dir=tmp_path / "split", resume=data, progress=False)
    assert resumed.global_step == whole.global_step == 384
    for name, p in whole.net.state_dict().items():
        assert torch.equal(p, resumed.net.state_dict()[name]), name


def test_a_killed_worker_is_replaced_and_the_run_finishes(ray_session, tmp_path):
    seen = {}

    def kill_one(tr):
        if tr.updates == 1:
            seen["pid"] = tr.workers.info[0]["pid"]
            ray.kill(tr.workers.handles[0])  # gone for good: the learner must start a new actor
        seen["restarts"], seen["after"] = tr.workers.restarts, tr.workers.info[0]

    cfg = training.load_config(None, TINY + ["total_steps=512"])
    tr = training.train(cfg, run_dir=tmp_path / "kill", progress=False, on_update=kill_one)
    assert tr.updates == 4 and (tmp_path / "kill" / "final.pt").is_file()
    assert seen["restarts"] == 1
    assert seen["after"]["generation"] == 1 and seen["after"]["pid"] != seen["pid"]
    data = load_checkpoint(tmp_path / "kill" / "last.pt", "gin")
    assert [s["generation"] for s in data["workers"]["states"]] == [1, 0]


def test_expert_iteration_makes_its_search_data_on_two_workers(ray_session, tmp_path):
    """algo: exit with workers=2: each actor's teacher plays its share of the lanes, the
    learner distils the records of both, and the same seed gives the same network."""

    cfg = training.load_config(ROOT / "configs" / "gin_rummy_exit.yaml", TINY_EXIT + ["workers=2"])
    runs = [training.train(cfg, run_dir=tmp_path / name, progress=False) for name in ("a", "b")]
    tr = runs[0]
    assert tr.updates == 3 and tr.method.buffer.size > 0
    buf, n = tr.method.buffer.data, tr.method.buffer.size
    assert buf["mask"][np.arange(n), buf["target"][:n]].all(), "a recorded search choice is illegal"
    assert np.abs(buf["ret"][:n]).max() > 0
    for name, p in tr.net.state_dict().items():
        assert torch.equal(p, runs[1].net.state_dict()[name]), name
    data = load_checkpoint(tmp_path / "a" / "last.pt", "gin")
    assert data["workers"]["count"] == 2 and [s["num_envs"] for s in data["workers"]["states"]] == [6, 6]
    assert "env" not in data  # the lanes were the workers'


def _same(t1, t2):
    strip = [p.to_dict() | {"seconds": 0} for p in t1.pairings]
    assert strip == [p.to_dict() | {"seconds": 0} for p in t2.pairings]
    assert t1.ratings == t2.ratings


def test_tournament_on_two_workers_equals_in_process(ray_session, whole_run, capsys):
    # random draws too, and a checkpoint: every chunk plays the same games on an actor
    specs = ["simple", "random", str(whole_run["dir"] / "final.pt")]
    here = evaluate.run_tournament(specs, games=24, chunk=8, seed=4, show_progress=False)
    capsys.readouterr()
    there = evaluate.run_tournament(specs, games=24, chunk=8, seed=4, show_progress=True, workers=2)
    _same(here, there)
    assert all(p.games == 24 for p in there.pairings)
    assert "72/72" in capsys.readouterr().err  # one bar over the three pairings, at its end
    rummy = dict(game="rummy", players=3, games=12, chunk=12, seed=1, show_progress=False)
    _same(evaluate.run_tournament(["expert", "random"], **rummy),
          evaluate.run_tournament(["expert", "random"], workers=2, **rummy))
    assert "1 chunk(s) for 2 workers, 1 idle" in capsys.readouterr().err


def test_ctrl_c_in_a_terminal_saves_the_workers_games(tmp_path):
    """SIGINT to train.py's whole process group, as Ctrl-C in a terminal sends it: the
    update finishes, last.pt holds both workers' games, the exit code is 130."""
    run = tmp_path / "ctrlc"
    log = tmp_path / "stderr.txt"
    with open(log, "w") as err:
        proc = subprocess.Popen([sys.executable, "train.py", "--run-dir", str(run), *TINY, "total_steps=1e7"],
                                cwd=ROOT, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True)
        try:
            deadline = time.monotonic() + 120
            while "steps/s" not in log.read_text() and proc.poll() is None and time.monotonic() < deadline:
                time.sleep(0.5)
            assert proc.poll() is None, log.read_text()[-3000:]
            os.killpg(proc.pid, signal.SIGINT)
            assert proc.wait(timeout=120) == 130, log.read_text()[-3000:]
        finally:
            if proc.poll() is None:
                proc.kill()
    # the command to go on, spelled with the interpreter that ran the run
    said = [line for line in log.read_text().splitlines() if "continue with: " in line]
    cmd = shlex.split(said[-1].split("continue with: ", 1)[1])
    assert (ROOT / cmd[0]).resolve() == Path(sys.executable).resolve(), cmd
    assert cmd[1:] == ["train.py", "--resume", str(run / "last.pt")], cmd
    data = load_checkpoint(run / "last.pt", "gin")
    assert data["counters"]["updates"] >= 1
    assert data["workers"]["count"] == 2 and all(st is not None for st in data["workers"]["states"])


CLUSTER = textwrap.dedent('''
    import json, sys
    from ray.cluster_utils import Cluster
    from rummyrl import evaluate, training

    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    cluster.add_node(num_cpus=1)
    cluster.wait_for_nodes()
    try:
        cfg = training.load_config(None, sys.argv[2:] + [f"ray_address={cluster.address}"])
        nodes = []
        tr = training.train(cfg, run_dir=sys.argv[1], progress=False,
                         on_update=lambda t: nodes.append([i["node"] for i in t.workers.info]))
        t = evaluate.run_tournament(["expert", "simple"], games=16, chunk=4, show_progress=False, workers=2,
                                    ray_address=cluster.address)
        print(json.dumps({"updates": tr.updates, "nodes": nodes[-1], "wins": t.pairings[0].wins_a}))
    finally:
        cluster.shutdown()
''')


def test_two_node_cluster_trains_with_ray_address(tmp_path):
    """Last: its own Ray (a head and a second node, one CPU each) in a subprocess."""
    out = subprocess.run([sys.executable, "-c", CLUSTER, str(tmp_path / "cluster"), *TINY], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert res["updates"] == 3 and (tmp_path / "cluster" / "final.pt").is_file()
    assert len(set(res["nodes"])) == 2  # one worker per node: each asks for the node's one CPU
    local = evaluate.run_tournament(["expert", "simple"], games=16, chunk=4, show_progress=False)
    assert res["wins"] == local.pairings[0].wins_a
