"""A training run killed with SIGKILL at any moment, in the middle of a checkpoint write
included, resumes from its last good checkpoint and runs to its end.

The real script (``python train.py``) runs in a subprocess with a checkpoint after every
update (``checkpoint_every_minutes`` far below one update's time), so writes are frequent,
and is killed five times at moments drawn from a seeded generator: a random delay after
the first checkpoint, a random delay after the start (sometimes before any write), and
kills aimed at a write (the moment ``last.pt.tmp`` appears). After every kill ``last.pt``
must load as a checkpoint and as an agent, whatever ``.tmp`` file the kill left, and its
update counter may only have grown; each ``--resume`` goes on from that counter, and the
last one, told to stop ``MORE`` updates later, finishes the run (``final.pt``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

pytestmark = pytest.mark.slow  # each test trains, builds or runs a subprocess for seconds

ROOT = Path(__file__).resolve().parents[2]

NUM_ENVS, ROLLOUT, MORE = 16, 8, 6
STEPS = NUM_ENVS * ROLLOUT  # env steps per update
#: a small, quick run that writes last.pt after every update, too long to end before the kills
RUN = [f"num_envs={NUM_ENVS}", f"rollout_steps={ROLLOUT}", f"total_steps={STEPS * 10**6}",
       "minibatch_size=64", "net.hidden=64", "net.layers=2", "snapshot_every=2", "pool_size=2",
       "opponents.self_play=1", "opponents.snapshots=1", "opponents.simple=1", "opponents.expert=0",
       "opponents.random=1", "eval.every_minutes=0", "eval.games=4", "eval.final_games=4",
       "checkpoint_every_minutes=0.000001", "time_limit_minutes=0"]
TIMEOUT = 120  # seconds any one process may take


def counters(path: Path) -> dict:
    """The counters of a checkpoint; it must load as a whole (and as an agent)."""
    from rummyrl.agents import load_agent

    data = torch.load(path, map_location="cpu", weights_only=True)
    load_agent(str(path), "gin")
    return data["counters"]


def start(args: list[str], log: Path) -> subprocess.Popen:
    with open(log, "ab") as out:
        return subprocess.Popen([sys.executable, "train.py", "--no-eval", *args], cwd=ROOT, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)


def wait_until(proc: subprocess.Popen, ready, timeout: float = TIMEOUT, poll: float = 0.0005) -> bool:
    """Poll ``ready()`` until it holds (True) or ``proc`` ends (False)."""
    t0 = time.monotonic()
    while not ready():
        if proc.poll() is not None:
            return False
        if time.monotonic() - t0 > timeout:
            kill(proc)
            pytest.fail(f"train.py did not get there in {timeout} s")
        time.sleep(poll)
    return True


def kill(proc: subprocess.Popen) -> None:
    """SIGKILL the process group this test started (train.py and anything it spawned)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait(timeout=30)


def mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime_ns
    except FileNotFoundError:
        return -1


def tmp_state(tmp: Path) -> str:
    """What the kill left in ``last.pt.tmp`` (for the log: whether it cut a write short)."""
    if not tmp.exists():
        return ""
    try:
        torch.load(tmp, map_location="cpu", weights_only=True)
        return f", a complete .tmp left ({tmp.stat().st_size} bytes)"
    except Exception as e:  # noqa: BLE001 - any failure: a write cut short
        return f", a .tmp cut short left ({tmp.stat().st_size} bytes, {type(e).__name__})"


def test_sigkill_at_random_moments_always_resumes_from_the_last_good_checkpoint(tmp_path):
    rng = np.random.default_rng(9)
    run, log = tmp_path / "run", tmp_path / "train.log"
    last, tmp = run / "last.pt", run / "last.pt.tmp"

    def tail() -> str:
        return log.read_text(errors="replace")[-3000:]

    # how each process is killed: (what it waits for, then a random delay drawn here)
    plan = [("first checkpoint", rng.uniform(0.0, 1.0)),
            ("write", 0.0),  # aimed at a checkpoint write
            ("start", rng.uniform(0.5, 6.0)),  # sometimes before any write, sometimes after some
            ("new checkpoint, then a write", 0.0),  # a write after the resumed run saved once
            ("new checkpoint", rng.uniform(0.0, 1.5))]
    updates = 0
    writes_hit = 0
    for i, (moment, delay) in enumerate(plan):
        args = (["--config", "configs/gin_rummy.yaml", "--run-dir", str(run), "name=kill9", *RUN] if i == 0
                else ["--resume", str(last)])
        before = mtime(last)
        proc = start(args, log)
        if moment == "first checkpoint":
            alive = wait_until(proc, last.exists)
        elif moment == "write":
            alive = wait_until(proc, tmp.exists)
        elif moment == "start":
            alive = True
        else:
            alive = wait_until(proc, lambda: mtime(last) != before)
            if alive and moment.endswith("a write"):
                tmp.unlink(missing_ok=True)
                alive = wait_until(proc, tmp.exists)
        assert alive, f"kill {i}: train.py ended before the kill (rc {proc.returncode}):\n{tail()}"
        time.sleep(delay)
        kill(proc)
        assert proc.returncode == -signal.SIGKILL, f"kill {i}: train.py ended by itself first:\n{tail()}"
        if moment.endswith("write") and tmp.exists():
            writes_hit += 1  # the kill caught a write between torch.save and os.replace
        assert last.is_file(), f"kill {i} ({moment}): no last.pt"
        c = counters(last)  # loads, whatever .tmp the kill left next to it
        assert c["updates"] >= updates, f"kill {i} ({moment}): last.pt went back from {updates} to {c['updates']}"
        if moment.startswith("new checkpoint"):  # the resumed run went on from the checkpoint's counter
            assert c["updates"] > updates
        assert c["global_step"] == c["updates"] * STEPS
        print(f"kill {i} ({moment}, +{delay:.2f} s): last.pt at update {c['updates']}{tmp_state(tmp)}")
        updates = c["updates"]
    assert writes_hit >= 1, "no kill landed inside a checkpoint write"
    assert updates > 0

    # the last resume, left alone, finishes the run from where the kills left it
    end = updates + MORE
    proc = start(["--resume", str(last), f"total_steps={end * STEPS}"], log)
    try:
        rc = proc.wait(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        kill(proc)
        pytest.fail(f"the resumed run did not finish in {TIMEOUT} s:\n{tail()}")
    assert rc == 0, tail()
    final = counters(run / "final.pt")
    assert final["updates"] == end and final["global_step"] == end * STEPS
    assert counters(last)["updates"] == end
