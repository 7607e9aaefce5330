"""RLlib on gin_rummy_v0 (or rummy_v0): multi-agent PPO with RLlib's own action-masking
module, as its PettingZoo and action-masking examples build it; the learner plays `simple`
in the other seats, then shares its module with every seat (self-play); its policy exported
with torch.export so that our tools play it (and RLlib's own checkpoint beside it, which
`load_agent` also plays: its module folder, `checkpoint/learner_group/learner/rl_module/learner`).

    pip install -e ".[ray]"
    python examples/rllib_ppo.py                                 # Gin, a few minutes on 2 cores
    python evaluate.py runs/examples/rllib_gin/policy.pt2 simple --games 200

Ours in it: `ObservationsKey` (rummyrl.envs.adapters), since RLlib's masking module reads
the observation under "observations" where PettingZoo puts it under "observation";
`AgentRLModule`, one of our agents as an RLlib module that does not learn; and `Logits`,
the module in the form `load_agent` plays. RLlib's `episode_return_mean` sums every agent's return: in a two-player
zero-sum game it is always 0, so this prints player_0's own mean return.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import torch
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule
from ray.tune.registry import register_env

from rummyrl.agents import load_agent
from rummyrl.agents.exported import save_policy
from rummyrl.envs import gin_rummy_v0, rummy_v0
from rummyrl.envs.adapters import ObservationsKey


def make_env(config: dict) -> PettingZooEnv:
    """The raw AEC env (an illegal move raises), one deal an episode, RLlib's key, RLlib's wrapper."""
    if config.get("game", "gin") == "gin":
        return PettingZooEnv(ObservationsKey(gin_rummy_v0.raw_env(episode="hand")))
    return PettingZooEnv(ObservationsKey(rummy_v0.raw_env(num_players=config["players"], episode="round")))


class AgentRLModule(RLModule):
    """One of our agents (``model_config["spec"]``) as an RLlib module; it learns nothing."""

    def setup(self):
        self.agent = load_agent(self.model_config["spec"], game=self.model_config["game"])

    def _forward_inference(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        x = np.asarray(obs["observations"], np.float32)
        return {Columns.ACTIONS: self.agent.act(x, np.asarray(obs["action_mask"]).astype(bool))}

    def _forward_exploration(self, batch, **kwargs):
        return self._forward_inference(batch, **kwargs)

    def _forward_train(self, batch, **kwargs):
        raise NotImplementedError("our agent does not learn here: leave it out of policies_to_train")


class Logits(torch.nn.Module):
    """The masking PPO module as observations and masks -> logits."""

    def __init__(self, module):
        super().__init__()
        self.module = module

    def forward(self, observations, action_mask):
        out = self.module._forward_inference({Columns.OBS: {"observations": observations, "action_mask": action_mask}})
        return out[Columns.ACTION_DIST_INPUTS]


def build(args, self_play: bool):
    """PPO with the masking module for the learner; `simple` (or the learner itself) elsewhere."""
    env_config = {"game": args.game, "players": args.players}
    agents = make_env(env_config).possible_agents
    learner = RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                           model_config={"fcnet_hiddens": [256, 256], "head_fcnet_hiddens": [256]})
    specs = {"learner": learner}
    if not self_play:
        specs["simple"] = RLModuleSpec(module_class=AgentRLModule,
                                       model_config={"spec": args.opponent, "game": args.game})
    config = (PPOConfig()
              # RLlib's env checker steps random actions, without the mask: on the raw env (which
              # raises on an illegal move, so that a finished run made none) it would fail
              .environment("rummyrl", env_config=env_config, disable_env_checking=True)
              .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=args.envs_per_runner,
                           rollout_fragment_length="auto")
              .multi_agent(policies=set(specs),
                           policy_mapping_fn=(lambda aid, *a, **k: "learner") if self_play else
                           (lambda aid, *a, **k: "learner" if aid == "player_0" else "simple"),
                           policies_to_train=["learner"])
              .training(train_batch_size_per_learner=args.batch, minibatch_size=min(256, args.batch),
                        num_epochs=4, lr=3e-4)
              .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
              .debugging(seed=args.seed))
    assert "player_0" in agents
    return config.build_algo()


def start_from(algo, weights: dict) -> None:
    """The learner module's weights set in the learner and in every env runner (this
    process's or the ``--env-runners`` processes)."""
    algo.learner_group.set_state({"learner": {"rl_module": {"learner": weights}}})
    algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group)


def mean_learner_return(result) -> float:
    """player_0's mean return (the learner's seat; RLlib's episode_return_mean adds up both)."""
    by_agent = result.get("env_runners", {}).get("agent_episode_returns_mean", {})
    return float(by_agent.get("player_0", float("nan")))


def learner_moves(result) -> int:
    """The moves the learning module made in this algorithm's lifetime (RLlib's env steps count every seat's)."""
    by_module = result.get("env_runners", {}).get("num_module_steps_sampled_lifetime", {})
    return int(by_module.get("learner", 0))


def main(argv=None) -> Path:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="gin", choices=["gin", "rummy"])
    ap.add_argument("--players", type=int, default=4, help="Rummy's players")
    ap.add_argument("--opponent", default="simple", help="any load_agent spec, for the first part of the run")
    ap.add_argument("--iterations", type=int, default=20, help="PPO iterations, half against the opponent")
    ap.add_argument("--batch", type=int, default=4000, help="env steps an iteration")
    ap.add_argument("--env-runners", type=int, default=0,
                    help="env runner processes (default 0: sample in the learner's process)")
    ap.add_argument("--envs-per-runner", type=int, default=1, help="envs each runner steps together (default 1)")
    ap.add_argument("--minutes", type=float, default=None, help="a wall-time budget as well (half of it against the opponent)")
    ap.add_argument("--no-self-play", action="store_true", help="the whole budget against the opponent")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="the exported policy (default runs/examples/rllib_GAME/policy.pt2)")
    ap.add_argument("--summary", default=None, help="write the learner's moves and the seconds trained as JSON here")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)  # RLlib's learner and env runner share 2 cores: crawls without this
    register_env("rummyrl", make_env)
    out = Path(args.out or f"runs/examples/rllib_{args.game}/policy.pt2")
    start, moves = time.time(), 0
    share = 1.0 if args.no_self_play else 0.5
    phases = [(False, int(args.iterations * share), share)] + ([] if args.no_self_play else [(True, args.iterations, 1.0)])
    weights, done = None, 0
    for self_play, until, budget in phases:
        algo, phase_moves = build(args, self_play=self_play), 0
        if weights is not None:  # self-play goes on from the weights trained against the opponent
            start_from(algo, weights)
        deadline = None if args.minutes is None else start + budget * args.minutes * 60
        while done < until and (deadline is None or time.time() < deadline):
            r = algo.train()
            done += 1
            phase_moves = learner_moves(r)
            print(f"iteration {done} against {'itself' if self_play else args.opponent}: "
                  f"player_0's return {mean_learner_return(r):+.3f}")
        weights, moves = algo.get_module("learner").get_state(), moves + phase_moves
        if (self_play, until) != phases[-1][:2]:
            algo.stop()
    if args.summary:
        Path(args.summary).write_text(json.dumps({"learner_moves": moves, "seconds": time.time() - start}))
    save_policy(Logits(algo.get_module("learner")), args.game, out, reads_mask=True, strict=False)
    algo.save(str(out.with_name("checkpoint").resolve()))  # RLlib's own checkpoint: load_agent plays its module too
    algo.stop()
    players = f" --players {args.players}" if args.game == "rummy" else ""
    print(f"wrote {out}: python evaluate.py {out} simple --game {args.game}{players} --games 200")
    return out


if __name__ == "__main__":
    main()
