"""The built wheel, installed into a fresh virtual environment, provides one namespace.

The wheel is built from the checkout and installed without its dependencies into a new
venv; the dependencies (numpy, numba, ...) come from the test environment's site-packages
through a path file, which adds that folder to ``sys.path`` without running its own path
files, so the checkout's editable install is not visible there. Everything then runs
from a folder outside the checkout.
"""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a wheel built and installed into a fresh environment

ROOT = Path(__file__).resolve().parents[1]

PROBE = r"""
import importlib.util, json, sys
import gymnasium
import rummyrl
from rummyrl import gin, rummy, melds
from rummyrl.agents import load_agent
from rummyrl.envs import gin_rummy_v0
import rummyrl.envs

env = gin_rummy_v0.env(episode="hand")
env.reset(seed=3)
expert = load_agent("expert", game="gin")
actions, totals = 0, {}
for agent in env.agent_iter():
    obs, reward, term, trunc, info = env.last()
    totals[agent] = totals.get(agent, 0.0) + reward
    env.step(None if term or trunc else expert(obs["observation"], obs["action_mask"]))
    actions += 0 if term or trunc else 1
g = gymnasium.make("rummyrl/GinRummy-v0", opponent="pretrained")
g.reset(seed=0)
pretrained = load_agent("pretrained", game="rummy")
print(json.dumps({
    "rummyrl": rummyrl.__file__,
    "envs": rummyrl.envs.__file__,
    "agents": sys.modules["rummyrl.agents"].__file__,
    "actions": actions,
    "rewards": sorted(totals.values()),
    "top_level": {name: importlib.util.find_spec(name) is not None
                  for name in ("envs", "agents", "train", "evaluate")},
}))
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(out), str(ROOT)], check=True, capture_output=True, text=True)
    (path,) = out.glob("rummyrl-*.whl")
    return path


def test_wheel_holds_only_the_rummyrl_namespace(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names if not n.split("/")[0].endswith((".dist-info", ".data"))}
    assert top == {"rummyrl"}, top
    for module in ("rummyrl/gin.py", "rummyrl/envs/gin_rummy_v0.py", "rummyrl/agents/gin_expert.py",
                   "rummyrl/training/cli.py", "rummyrl/settings.py", "rummyrl/training/loop.py", "rummyrl/evaluate.py",
                   "rummyrl/agents/play.py", "rummyrl/agents/search.py", "rummyrl/gin_beliefs.py",
                   "rummyrl/agents/pretrained/gin.pt", "rummyrl/agents/pretrained/rummy.pt",
                   "rummyrl/web/server.py", "rummyrl/web/static/index.html", "rummyrl/web/static/app.js",
                   "rummyrl/web/static/app.css", "rummyrl/records.py", "rummyrl/envs/render_html.py"):
        assert module in names, module


def test_installed_wheel_imports_and_plays(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = env_dir / "bin" / "python"
    subprocess.run([str(py), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
                   check=True, capture_output=True, text=True)
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    (Path(site) / "test_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    run = subprocess.run([str(py), "-c", PROBE], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout.strip().splitlines()[-1])
    for key in ("rummyrl", "envs", "agents"):
        assert Path(got[key]).is_relative_to(env_dir), (key, got[key])
    assert got["actions"] > 0
    assert len(got["rewards"]) == 2 and got["rewards"][0] == -got["rewards"][1]
    assert got["top_level"] == {"envs": False, "agents": False, "train": False, "evaluate": False}

    cli = subprocess.run([str(env_dir / "bin" / "rummyrl-evaluate"), "simple", "random", "--games", "4",
                          "--out", str(tmp_path / "eval")], cwd=tmp_path, capture_output=True, text=True)
    assert cli.returncode == 0, cli.stderr
    assert "simple" in cli.stdout
