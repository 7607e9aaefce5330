"""examples/: each library's example trains on our environments in a tiny run, from the
library's own API plus what the example adds, and saves a network that ``evaluate.py`` plays
in a 200-game tournament against ``simple``. Each test skips where its library (an optional
extra: ``pip install -e ".[tianshou]"``, ``[sb3]``, ``[rllib]``) is not installed; CI installs them. The CleanRL-style
PPO needs nothing beyond the project."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

import cloudpickle
import numpy as np
import pytest
import torch

from rummyrl import evaluate, games
from rummyrl.random_play import random_actions
from rummyrl.agents import load_agent
from rummyrl.agents.exported import ExportedAgent

pytestmark = pytest.mark.slow  # each test trains, builds or runs a subprocess for seconds

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(name: str):
    """The example module ``examples/NAME.py``, imported from its file."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    # worker processes (SB3's SubprocVecEnv, Ray's env runners) cannot import a module loaded
    # from a file path: its functions travel to them by value, as a script's do
    cloudpickle.register_pickle_by_value(module)
    if "ray" in sys.modules:
        import ray.cloudpickle

        ray.cloudpickle.register_pickle_by_value(module)
    return module


def mid_game(game: str, players: int | None, n: int = 64, steps: int = 30, seed: int = 3):
    """Observations and masks of ``n`` games after ``steps`` random legal moves (draws, discards,
    knocks and lay-offs among the legal actions, not only a deal's first choice)."""
    g = games.get(game)
    state = g.engine.init(n, seed=seed, config=g.make_config({"num_players": players} if players else {}))
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        g.engine.step(state, random_actions(state.mask, rng), inplace=True)
        g.engine.reset_done(state)
    return g.engine.observe(state), state.mask


def same_moves(a, b, game: str, players: int | None) -> None:
    """Agents ``a`` and ``b`` choose the same action on every observation of mid_game."""
    obs, masks = mid_game(game, players)
    assert a.act(obs, masks).tolist() == b.act(obs, masks).tolist()


def plays_a_tournament(policy: Path, game: str, players: int | None, tmp_path: Path) -> None:
    """``evaluate.py POLICY simple``: 200 games of Gin (Rummy: 36, every seating of 3 players
    six times), each a game to the target; the results file names both."""
    n = "200" if game == "gin" else "36"
    rc = evaluate.main([str(policy), "simple", "--game", game, "--games", n, "--out", str(tmp_path / "eval")]
                       + (["--players", str(players)] if players else []))
    assert rc == 0
    (pairing,) = json.loads((tmp_path / "eval" / "results.json").read_text())["pairings"]
    assert pairing["games"] == int(n) and pairing["b"] == "simple"


@pytest.mark.parametrize("game, players", [("gin", None), ("rummy", 3)])
def test_tianshou_trains_with_its_own_api_and_its_network_plays_a_tournament(tmp_path, game, players):
    """The raw env raises on an illegal move, so a finished run made none; its network is an
    agent of ours and plays 200 games against simple through evaluate.py."""
    pytest.importorskip("tianshou")
    out = tmp_path / "policy.pt2"
    args = ["--game", game, "--steps", "2000", "--epochs", "1", "--envs", "2", "--out", str(out)]
    example("tianshou_dqn").main(args + (["--players", str(players)] if players else []))
    assert isinstance(load_agent(str(out), game=game), ExportedAgent)
    plays_a_tournament(out, game, players, tmp_path)


@pytest.mark.parametrize("game, players", [("gin", None), ("rummy", 3)])
def test_sb3_maskable_ppo_trains_on_the_gymnasium_env_and_its_policy_plays_a_tournament(tmp_path, game, players):
    """MaskablePPO on gymnasium.make(...) as any Gymnasium env, against simple then itself;
    the exported policy (it reads the mask, as SB3's Dict policy does) plays through evaluate.py."""
    pytest.importorskip("sb3_contrib")
    out = tmp_path / "policy.pt2"
    args = ["--game", game, "--steps", "1024", "--n-steps", "256", "--out", str(out)]
    example("sb3_maskable_ppo").main(args + (["--players", str(players)] if players else []))
    agent = load_agent(str(out), game=game)
    assert isinstance(agent, ExportedAgent) and agent.inputs == 2
    # SB3's own .zip is an agent too, and plays as its export does
    same_moves(load_agent(str(out.with_suffix(".zip")), game=game), agent, game, players)
    plays_a_tournament(out, game, players, tmp_path)


@pytest.mark.parametrize("game, players", [("gin", None), ("rummy", 3)])
def test_the_cleanrl_style_ppo_learns_from_the_vector_env_and_its_actor_plays_a_tournament(tmp_path, game, players):
    """The single-file PPO: its updates change the actor, it switches to a frozen copy of
    itself half way, and the exported actor plays through evaluate.py."""
    module = example("cleanrl_ppo")
    out = tmp_path / "policy.pt2"
    args = ["--game", game, "--total-steps", "4096", "--num-envs", "16", "--num-steps", "64", "--out", str(out)]
    module.main(args + (["--players", str(players)] if players else []))
    assert (tmp_path / "frozen.pt2").is_file() and any(tmp_path.glob("events.out.tfevents.*"))
    g = games.get(game)
    torch.manual_seed(0)  # the untrained actor the run started from
    fresh = module.ActorCritic(g.obs_dim, g.num_actions).actor
    trained = torch.export.load(str(out)).module()
    x = torch.rand(4, g.obs_dim)
    assert not torch.allclose(fresh(x), trained(x))
    plays_a_tournament(out, game, players, tmp_path)


@pytest.mark.parametrize("game, players", [("gin", None), ("rummy", 3)])
def test_rllib_ppo_trains_with_its_masking_module_and_its_policy_plays_a_tournament(ray_session, tmp_path, game,
                                                                                     players):
    """RLlib's PPO with its own action-masking module (our ObservationsKey adapter gives it
    the key it reads) against simple, then self-play; the raw env raises on an illegal move,
    so a finished run made none; the exported policy plays through evaluate.py."""
    pytest.importorskip("ray.rllib")
    out = tmp_path / "policy.pt2"
    args = ["--game", game, "--iterations", "2", "--batch", "400", "--out", str(out)]
    example("rllib_ppo").main(args + (["--players", str(players)] if players else []))
    agent = load_agent(str(out), game=game)
    assert agent.inputs == 2
    # RLlib's own checkpoint (of the self-play algorithm: one module), and its module's folder,
    # are agents too, and play as the export does
    module = tmp_path / "checkpoint" / "learner_group" / "learner" / "rl_module" / "learner"
    same_moves(load_agent(str(tmp_path / "checkpoint"), game=game), agent, game, players)
    same_moves(load_agent(str(module), game=game), agent, game, players)
    two = tmp_path / "two"  # a checkpoint of two modules: which one is meant is the user's to say
    (two / "rllib_checkpoint.json").parent.mkdir()
    (two / "rllib_checkpoint.json").write_text("{}")
    for name in ("learner", "simple"):
        (two / "learner_group" / "learner" / "rl_module" / name).mkdir(parents=True)
        (two / "learner_group" / "learner" / "rl_module" / name / "class_and_ctor_args.pkl").write_bytes(b"")
    with pytest.raises(ValueError, match=r"holds 2 modules \(learner, simple\): give the folder"):
        load_agent(str(two), game=game)
    plays_a_tournament(out, game, players, tmp_path)


@pytest.mark.parametrize("game, players", [("gin", None), ("rummy", 3)])
def test_torchrl_ppo_trains_with_its_own_modules_and_its_actor_plays_a_tournament(tmp_path, game, players):
    """TorchRL's PettingZooWrapper, MaskedCategorical actor, collector and ClipPPOLoss against
    simple, then a frozen copy; the raw env raises on an illegal move, so a finished run made
    none; the exported actor plays through evaluate.py."""
    pytest.importorskip("torchrl")
    out = tmp_path / "policy.pt2"
    args = ["--game", game, "--frames", "2048", "--frames-per-batch", "1024", "--out", str(out)]
    example("torchrl_ppo").main(args + (["--players", str(players)] if players else []))
    assert isinstance(load_agent(str(out), game=game), ExportedAgent)
    plays_a_tournament(out, game, players, tmp_path)


def actor_outputs(path: Path, game: str) -> torch.Tensor:
    """An exported network's outputs on fixed random inputs (the observation and, for
    networks that read it, an all-legal mask, as float32 0/1 as ExportedAgent gives it)."""
    agent = load_agent(str(path), game=game)
    x = torch.rand(8, games.get(game).obs_dim, generator=torch.Generator().manual_seed(0))
    inputs = (x, torch.ones(8, games.get(game).num_actions))[:agent.inputs]
    return torch.export.load(str(path)).module()(*inputs)


def summary_moves(path: Path) -> int:
    return json.loads(path.read_text())["learner_moves"]


@pytest.mark.parametrize("library, module, args", [
    ("sb3_contrib", "sb3_maskable_ppo", ["--steps", "1024", "--n-steps", "256", "--envs", "2"]),
    ("tianshou", "tianshou_dqn", ["--steps", "2000", "--epochs", "1", "--envs", "2"]),
])
def test_envs_in_worker_processes_train_the_same_network_as_in_one(tmp_path, library, module, args):
    """A user's second core: the library's own subprocess vector env (``--subproc``) gives
    the same learner moves and the same network, for the same seed, as its in-process one."""
    pytest.importorskip(library)
    runs = {}
    for how, extra in (("one", []), ("procs", ["--subproc"])):
        out = tmp_path / how / "policy.pt2"
        out.parent.mkdir()
        example(module).main(args + extra + ["--out", str(out), "--summary", str(out.with_name("summary.json"))])
        runs[how] = (summary_moves(out.with_name("summary.json")), actor_outputs(out, "gin"))
    assert runs["one"][0] == runs["procs"][0] > 0
    assert torch.equal(runs["one"][1], runs["procs"][1])


def test_torchrl_in_a_parallel_env_learns_from_each_envs_own_trajectory(tmp_path):
    """``--envs 2``: TorchRL's ParallelEnv, batches of [env, time]; each env's rows go through
    learner_batch on their own (a trajectory that crossed from one env into the other would
    credit one env's rewards to the other's moves), and the run makes no illegal move."""
    pytest.importorskip("torchrl")
    trl = example("torchrl_ppo")
    out = tmp_path / "policy.pt2"
    trl.main(["--frames", "2048", "--frames-per-batch", "1024", "--envs", "2", "--out", str(out),
              "--summary", str(tmp_path / "summary.json")])
    assert summary_moves(tmp_path / "summary.json") > 0 and isinstance(load_agent(str(out), game="gin"), ExportedAgent)
    from tensordict import TensorDict

    me, n = trl.ME, 4  # two envs: env 0's learner ends its deal at its last step, env 1's goes on
    acting = torch.tensor([[True, False, True, False], [True, False, True, False]])
    reward = torch.tensor([[0.0, 0.0, 0.0, 3.0], [0.0, 0.0, 0.0, 0.0]])
    done = torch.tensor([[False, False, False, True], [False, False, False, False]])
    data = TensorDict({me: {"mask": acting[..., None], "observation": {"observation": torch.rand(2, n, 1, 4)},
                            "action_mask": torch.ones(2, n, 1, 3, dtype=torch.bool),
                            "action": torch.zeros(2, n, 1).long(), "action_log_prob": torch.zeros(2, n, 1)},
                       "next": {me: {"reward": reward[..., None, None]}, "done": done[..., None]}},
                      batch_size=[2, n])
    batch = trl.learner_batches(data, gamma=1.0, lam=1.0, critic=lambda obs: torch.zeros(len(obs), 1))
    # env 0: both moves trained, each with the deal's 3 points; env 1: its last move waits
    assert batch["reward"].squeeze(-1).tolist() == [0.0, 3.0, 0.0]
    assert batch["advantage"].squeeze(-1).tolist() == [3.0, 3.0, 0.0]


def test_rllib_with_env_runner_processes_trains_and_self_play_starts_from_the_learners_weights(ray_session,
                                                                                                 tmp_path):
    """``--env-runners 1``: sampling in a runner process; the self-play algorithm starts from
    the weights trained against simple in its learner and in its runner (start_from)."""
    pytest.importorskip("ray.rllib")
    rl = example("rllib_ppo")
    out = tmp_path / "policy.pt2"
    rl.main(["--iterations", "2", "--batch", "400", "--env-runners", "1", "--out", str(out)])
    assert load_agent(str(out), game="gin").inputs == 2
    from ray.tune.registry import register_env

    register_env("rummyrl", rl.make_env)
    args = argparse.Namespace(game="gin", players=2, opponent="simple", batch=400, seed=0, env_runners=1,
                                 envs_per_runner=1)
    first = rl.build(args, self_play=False)
    first.train()
    weights = first.get_module("learner").get_state()
    first.stop()
    algo = rl.build(args, self_play=True)
    try:
        fresh = algo.env_runner_group.foreach_env_runner(lambda r: r.module["learner"].get_state(),
                                                         local_env_runner=False)
        rl.start_from(algo, weights)
        runners = algo.env_runner_group.foreach_env_runner(lambda r: r.module["learner"].get_state(),
                                                           local_env_runner=False)
        learner = algo.learner_group.get_state()["learner"]["rl_module"]["learner"]
    finally:
        algo.stop()

    def same(a, b):
        shared = [k for k in b if k in a]
        assert shared, "the two states share no weights"
        return all(torch.allclose(torch.as_tensor(a[k]), torch.as_tensor(b[k])) for k in shared)

    assert len(runners) == 1 and not same(fresh[0], weights)
    assert same(runners[0], weights) and same(learner, weights)


def test_torchrl_learner_batch_credits_a_deal_ended_by_the_other_seat_to_the_learners_last_move():
    """The wrapper gives the learner its reward on the row where the other seat's move ended
    the deal; PPO must see it on the learner's own last move, and GAE must stop there."""
    pytest.importorskip("torchrl")
    from tensordict import TensorDict

    trl = example("torchrl_ppo")
    me = trl.ME
    acting = torch.tensor([True, False, True, False, True, True])  # the learner moves at 0, 2, 4, 5
    reward = torch.tensor([0.0, 0.0, 0.0, -2.0, 0.0, 1.0])  # the other seat ends deal 1 at step 3
    done = torch.tensor([False, False, False, True, False, True])
    n, d = acting.numel(), 4
    data = TensorDict({me: {"mask": acting[:, None], "observation": {"observation": torch.rand(n, 1, d)},
                            "action_mask": torch.ones(n, 1, 3, dtype=torch.bool), "action": torch.zeros(n, 1).long(),
                            "action_log_prob": torch.zeros(n, 1)},
                       "next": {me: {"reward": reward[:, None, None]}, "done": done[:, None]}}, batch_size=[n, 1])
    batch = trl.learner_batch(data, gamma=1.0, lam=1.0, critic=lambda obs: torch.zeros(len(obs), 1))
    assert batch["reward"].squeeze(-1).tolist() == [0.0, -2.0, 0.0, 1.0]
    # zero values, gamma = lambda = 1: each advantage is the rest of its own deal's rewards
    assert batch["advantage"].squeeze(-1).tolist() == [-2.0, -2.0, 1.0, 1.0]


#: each example's arguments for a run its wall-time budget ends (the step budget never does)
BUDGETED = {
    "cleanrl_ppo": (None, ["--total-steps", str(10**12), "--num-envs", "8", "--num-steps", "16",
                           "--self-play-from", "1"]),
    "sb3_maskable_ppo": ("sb3_contrib", ["--steps", str(10**12), "--n-steps", "128", "--no-self-play"]),
    "torchrl_ppo": ("torchrl", ["--frames", str(10**12), "--frames-per-batch", "256", "--no-self-play"]),
    "tianshou_dqn": ("tianshou", ["--steps", str(10**9), "--epochs", str(10**6), "--envs", "2", "--no-self-play"]),
}


@pytest.mark.parametrize("name", sorted(BUDGETED))
def test_every_example_stops_at_its_minutes_and_reports_its_learners_moves(tmp_path, name):
    """``--minutes`` ends a run whose step budget is out of reach (benchmarks/bench_trainers.py
    runs them so), and ``--summary`` says how many of the learner's moves it trained on in how
    many seconds; the policy is written."""
    needs, args = BUDGETED[name]
    if needs:
        pytest.importorskip(needs)
    out, summary = tmp_path / "policy.pt2", tmp_path / "summary.json"
    example(name).main(args + ["--minutes", "0.02", "--out", str(out), "--summary", str(summary)])
    s = json.loads(summary.read_text())
    assert out.is_file() and 0 < s["learner_moves"] < 10**6 and 1.2 <= s["seconds"] < 120
    if name == "cleanrl_ppo":  # whole rollouts of 8 envs x 16 steps, every step one of the learner's moves
        assert s["learner_moves"] % 128 == 0


def test_torchrl_learner_batch_bootstraps_a_deal_that_goes_on_past_the_batch():
    """The learner's last move, its deal unfinished at the batch's end, has no successor in
    the batch: it is left out, and the move before it is bootstrapped from its value (not
    treated as the deal's end)."""
    pytest.importorskip("torchrl")
    from tensordict import TensorDict

    trl = example("torchrl_ppo")
    me = trl.ME
    acting = torch.tensor([True, False, True, False, True, True])  # deal 1: moves 0, 2; deal 2: 4, 5 (going on)
    reward = torch.tensor([0.0, 0.0, 0.0, -2.0, 0.0, 0.0])
    done = torch.tensor([False, False, False, True, False, False])
    n = acting.numel()
    obs = torch.tensor([0.1, 0.0, 0.2, 0.0, 0.3, 0.7])[:, None, None].expand(n, 1, 4).clone()  # the value, read back
    data = TensorDict({me: {"mask": acting[:, None], "observation": {"observation": obs},
                            "action_mask": torch.ones(n, 1, 3, dtype=torch.bool), "action": torch.zeros(n, 1).long(),
                            "action_log_prob": torch.zeros(n, 1)},
                       "next": {me: {"reward": reward[:, None, None]}, "done": done[:, None]}}, batch_size=[n, 1])
    batch = trl.learner_batch(data, gamma=1.0, lam=1.0, critic=lambda o: o[:, :1])
    assert batch.batch_size[0] == 3  # move 5 waits for the next batch
    assert batch["value_target"].squeeze(-1).tolist() == pytest.approx([-2.0, -2.0, 0.7])
    assert batch["advantage"].squeeze(-1).tolist() == pytest.approx([-2.1, -2.2, 0.4])
