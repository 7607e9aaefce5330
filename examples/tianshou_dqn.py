"""Tianshou on gin_rummy_v0 (or rummy_v0), as its own PettingZoo tutorial trains
tic-tac-toe: DQN in Tianshou's multi-agent algorithm, the mask respected by its policy, first
against `simple`, then against frozen copies of itself; the network saved with torch.export
so that our tools play it.

    pip install -e ".[tianshou]"
    python examples/tianshou_dqn.py                              # Gin, about 4 minutes on 2 cores
    python evaluate.py runs/examples/tianshou_gin/policy.pt2 simple --games 200
    python examples/tianshou_dqn.py --game rummy --players 4      # runs/examples/tianshou_rummy/

What is ours and what is Tianshou's: `PettingZooEnv`, `DummyVectorEnv` (`SubprocVectorEnv`
with `--subproc`), `Collector`, `DQN` and `MultiAgentOffPolicyAlgorithm` are used as
Tianshou's tutorial uses them. Three things are added here, none a fix of either side:
`LearnerMoves`, Tianshou's `PettingZooEnv` counting the learner's moves; `AgentOpponent`,
one of our agents (`simple`) seated as a Tianshou algorithm that does not learn; and
`QValues`, the Q-network in the form `load_agent` plays (saved with
`rummyrl.agents.exported.save_policy`). The environment is the plain `raw_env` with
`episode="hand"` (one deal an episode: a whole game is thousands of steps and a collector
would see no episode end for a long time), so an illegal move would raise instead of ending
the episode quietly: a run that finishes made none.
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path

import numpy as np
import torch
from tianshou.algorithm import DQN, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.algorithm_base import OffPolicyAlgorithm, TrainingStats
from tianshou.algorithm.algorithm_base import Policy as TianshouPolicy
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, SubprocVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from rummyrl.agents import load_agent
from rummyrl.agents.exported import save_policy
from rummyrl.envs import gin_rummy_v0, rummy_v0


class LearnerMoves(PettingZooEnv):
    """Tianshou's wrapper that also counts the moves of seat player_0 (the learner) in
    ``learner_moves``: Tianshou counts every seat's. An attribute of the env, so that it is
    read the same way from a worker process (``get_env_attr``)."""

    learner_moves = 0

    def step(self, action):
        self.learner_moves += self.env.agent_selection == "player_0"
        return super().step(action)


def env_maker(game: str, players: int):
    """The game's raw AEC env, one deal an episode, in Tianshou's PettingZoo wrapper."""
    def make():
        raw = (gin_rummy_v0.raw_env(episode="hand") if game == "gin"
               else rummy_v0.raw_env(num_players=players, episode="round"))
        return LearnerMoves(raw)
    return make


class AgentOpponent(OffPolicyAlgorithm):
    """One of our agents (any `load_agent` spec) in a Tianshou seat; it learns nothing."""

    class Policy(TianshouPolicy):
        def __init__(self, action_space, agent):
            super().__init__(action_space=action_space)
            self.agent = agent

        def forward(self, batch, state=None, **kwargs):
            obs = np.asarray(batch.obs.obs, np.float32)
            return Batch(act=self.agent.act(obs, np.asarray(batch.obs.mask, bool)))

    def __init__(self, action_space, spec: str, game: str):
        super().__init__(policy=self.Policy(action_space, load_agent(spec, game=game)))

    def _update_with_batch(self, batch):
        return TrainingStats()


class FrozenCopy(AgentOpponent):
    """The learner as it is now, greedy and frozen: the opponent of self-play."""

    def __init__(self, action_space, learner: DQN):
        net = copy.deepcopy(learner.policy.model).eval()

        def act(obs, mask):
            with torch.no_grad():
                q = net(obs)[0].numpy()
            return np.where(mask, q, -np.inf).argmax(1)

        OffPolicyAlgorithm.__init__(self, policy=self.Policy(action_space, _Fn(act)))


class _Fn:
    def __init__(self, fn):
        self.act = fn


class QValues(torch.nn.Module):
    """The Q-network as observations -> action values, the form `load_agent` plays."""

    def __init__(self, net: Net):
        super().__init__()
        self.net = net

    def forward(self, obs):
        return self.net(obs)[0]


def train_phase(learner: DQN, opponent, args, name: str, steps: int, deadline: float | None) -> int:
    """Tianshou's off-policy training loop, the learner in seat player_0, `opponent` in the
    others, for ``steps`` env steps or until the clock passes ``deadline``; the learner's moves
    in the training envs. ``--subproc`` steps each env in its own process (``SubprocVectorEnv``)."""
    get_env = env_maker(args.game, args.players)
    env = get_env()
    marl = MultiAgentOffPolicyAlgorithm(algorithms=[learner] + [opponent] * (len(env.agents) - 1), env=env)
    vector_env = SubprocVectorEnv if args.subproc else DummyVectorEnv
    train_envs = vector_env([get_env for _ in range(args.envs)])
    test_envs = vector_env([get_env for _ in range(args.envs)])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed + 1)
    collector = Collector[CollectStats](marl, train_envs, VectorReplayBuffer(args.buffer, args.envs),
                                        exploration_noise=True)
    collector.reset()
    collector.collect(n_step=args.batch * args.envs)
    result = marl.run_training(OffPolicyTrainerParams(
        training_collector=collector,
        test_collector=Collector[CollectStats](marl, test_envs, exploration_noise=False),
        max_epochs=args.epochs, epoch_num_steps=steps // args.epochs,
        stop_fn=None if deadline is None else (lambda score: time.time() > deadline),  # checked after each epoch
        collection_step_num_env_steps=10 * args.envs, test_step_num_episodes=args.envs,
        batch_size=args.batch, update_step_num_gradient_steps_per_sample=0.1,
        multi_agent_return_reduction=lambda rews: rews[:, 0], show_progress=False))
    print(f"{name}: best test return (hand points, scaled) {result.best_reward:.3f}")
    moves = sum(train_envs.get_env_attr("learner_moves"))
    train_envs.close()
    test_envs.close()
    return moves


def main(argv=None) -> Path:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="gin", choices=["gin", "rummy"])
    ap.add_argument("--players", type=int, default=4, help="Rummy's players (default 4)")
    ap.add_argument("--steps", type=int, default=100_000, help="env steps in all, half against simple (default 1e5)")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--envs", type=int, default=8)
    ap.add_argument("--subproc", action="store_true", help="each env in its own process (SubprocVectorEnv)")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--buffer", type=int, default=50_000)
    ap.add_argument("--minutes", type=float, default=None,
                    help="a wall-time budget as well, checked after each epoch (half of it against simple)")
    ap.add_argument("--no-self-play", action="store_true", help="the whole budget against simple")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="where to save the network (default runs/examples/tianshou_GAME/policy.pt2)")
    ap.add_argument("--summary", default=None, help="write the learner's moves and the seconds trained as JSON here")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)  # Tianshou steps one small batch at a time: more threads only wait
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    env = env_maker(args.game, args.players)()
    net = Net(state_shape=env.observation_space["observation"].shape, action_shape=env.action_space.n,
              hidden_sizes=[256, 256])
    learner = DQN(policy=DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1,
                                                 eps_inference=0.0),
                  optim=AdamOptimizerFactory(lr=1e-4), gamma=0.99, n_step_return_horizon=3, target_update_freq=320)
    start = time.time()
    share = 1.0 if args.no_self_play else 0.5
    deadline = lambda part: None if args.minutes is None else start + part * args.minutes * 60  # noqa: E731
    moves = train_phase(learner, AgentOpponent(env.action_space, "simple", args.game), args, "against simple",
                        int(args.steps * share), deadline(share))
    if not args.no_self_play:
        moves += train_phase(learner, FrozenCopy(env.action_space, learner), args, "against itself",
                             args.steps - args.steps // 2, deadline(1.0))
    if args.summary:
        Path(args.summary).write_text(json.dumps({"learner_moves": moves, "seconds": time.time() - start}))
    out = Path(args.out or f"runs/examples/tianshou_{args.game}/policy.pt2")
    save_policy(QValues(copy.deepcopy(net)), args.game, out)
    players = f" --players {args.players}" if args.game == "rummy" else ""
    print(f"wrote {out}: python evaluate.py {out} simple --game {args.game}{players} --games 200")
    return out


if __name__ == "__main__":
    main()
