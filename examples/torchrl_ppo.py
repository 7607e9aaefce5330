"""TorchRL on gin_rummy_v0 (or rummy_v0): PPO with TorchRL's own pieces, `PettingZooWrapper`
(`use_mask=True`), a `ProbabilisticActor` over a `MaskedCategorical`, `Collector` and
`ClipPPOLoss`; the learner in seat player_0 against `simple`, then against a frozen copy of
itself; the actor exported with torch.export so that our tools play it.

    pip install -e ".[torchrl]"
    python examples/torchrl_ppo.py                               # Gin, a few minutes on 2 cores
    python evaluate.py runs/examples/torchrl_gin/policy.pt2 simple --games 200

The wrapper steps a turn-based (AEC) game one agent at a time and asks every group for an
action at every step; two things follow that a user must handle, and this file does:

* the seat that is not to act has an all-False mask, on which a masked distribution is
  undefined: `SeatMask` opens it for those rows (their actions are ignored by the wrapper);
* PPO must learn from the learner's own turns only, and a deal ended by the other seat's
  move brings the learner's reward on a row where it did not act: `learner_batch` keeps the
  learner's rows and adds such a reward to its last move before it.
"""

from __future__ import annotations

import argparse
import copy
import functools
import json
import time
from pathlib import Path

import torch
from tensordict import TensorDict
from tensordict.nn import TensorDictModule, TensorDictSequential
from torch import nn
from torchrl.collectors import Collector
from torchrl.envs import ParallelEnv, PettingZooWrapper
from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
from torchrl.objectives import ClipPPOLoss

from rummyrl import games
from rummyrl.agents import load_agent
from rummyrl.agents.exported import save_policy
from rummyrl.envs import gin_rummy_v0, rummy_v0

ME = "player_0"


def make_env(args, worker: int = 0) -> PettingZooWrapper:
    """The raw env (an illegal move raises: a finished run made none), one deal an episode;
    each worker's env its own seed."""
    raw = (gin_rummy_v0.raw_env(episode="hand") if args.game == "gin"
           else rummy_v0.raw_env(num_players=args.players, episode="round"))
    return PettingZooWrapper(raw, use_mask=True, categorical_actions=True, seed=args.seed + worker)


def make_envs(args):
    """``args.envs`` envs: one in this process, or each in its own (TorchRL's ``ParallelEnv``,
    whose batches are ``[env, time]``)."""
    if args.envs == 1:
        return make_env(args)
    return ParallelEnv(args.envs, [functools.partial(make_env, args, i) for i in range(args.envs)],
                       mp_start_method="fork")


def mlp(i: int, o: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(i, 256), nn.Tanh(), nn.Linear(256, 256), nn.Tanh(), nn.Linear(256, o))


class SeatMask(nn.Module):
    """The mask a distribution can use: a seat not to act has no legal action at all."""

    def forward(self, action_mask, acting):
        return action_mask | ~acting.unsqueeze(-1)


class AgentPolicy(nn.Module):
    """One of our agents (or a frozen actor) choosing a seat's actions."""

    def __init__(self, agent):
        super().__init__()
        self.agent = agent

    def forward(self, observation, action_mask):
        """Any leading batch dims (a ``ParallelEnv``'s env dim, the group's agent dim)."""
        lead = observation.shape[:-1]
        acts = self.agent.act(observation.reshape(-1, observation.shape[-1]).numpy(),
                              action_mask.reshape(-1, action_mask.shape[-1]).numpy())
        return torch.from_numpy(acts).reshape(lead)


def seat_policy(group: str, agent) -> TensorDictSequential:
    return TensorDictSequential(
        TensorDictModule(SeatMask(), [(group, "action_mask"), (group, "mask")], [(group, "safe_mask")]),
        TensorDictModule(AgentPolicy(agent), [(group, "observation", "observation"), (group, "safe_mask")],
                         [(group, "action")]))


def learner_actor(net: nn.Module, obs_key, mask_key, action_key) -> ProbabilisticActor:
    return ProbabilisticActor(TensorDictModule(net, [obs_key], ["logits"]), in_keys={"logits": "logits", "mask": mask_key},
                              out_keys=[action_key], distribution_class=MaskedCategorical, return_log_prob=True)


def learner_batch(data: TensorDict, gamma: float, lam: float, critic: nn.Module) -> TensorDict:
    """The learner's own rows, each with the rewards that reached it until its next move, and
    GAE advantages over them (a deal's end closes the chain; a deal that goes on past the
    batch is bootstrapped from the value of the learner's last move in it)."""
    acting = data[ME, "mask"].reshape(-1).numpy()
    reward = data["next", ME, "reward"].reshape(-1).numpy()
    done = data["next", "done"].reshape(-1).numpy()
    rows, r_acc, d_acc = [], [], []
    for t in range(acting.size):
        if acting[t]:
            rows.append(t)
            r_acc.append(0.0)
            d_acc.append(False)
        if rows and not d_acc[-1]:
            r_acc[-1] += float(reward[t])  # a reward of a step after its move is still the learner's
            d_acc[-1] = bool(done[t])
    rows = torch.tensor(rows, dtype=torch.long)
    obs = data[ME, "observation", "observation"].reshape(-1, data[ME, "observation", "observation"].shape[-1])[rows]
    with torch.no_grad():
        values = critic(obs).squeeze(-1)
    r, d = torch.tensor(r_acc), torch.tensor(d_acc, dtype=torch.float32)
    # the last move, when its deal goes on into the next batch, has no successor here: it is
    # not trained, and the moves before it are bootstrapped from its value
    n = len(rows) - (0 if d_acc and d_acc[-1] else 1)
    adv, last = torch.zeros_like(r), 0.0
    for i in reversed(range(n)):
        delta = r[i] + gamma * values[i + 1] * (1 - d[i]) - values[i] if i + 1 < len(rows) else r[i] - values[i]
        adv[i] = last = delta + gamma * lam * (1 - d[i]) * last
    rows, obs, r, adv, values = rows[:n], obs[:n], r[:n], adv[:n], values[:n]
    flat = lambda key: data[key].reshape(-1, *data[key].shape[2:])[rows]  # noqa: E731  (batch, agent dims)
    return TensorDict({"observation": obs, "action_mask": flat((ME, "action_mask")), "action": flat((ME, "action")),
                       "action_log_prob": flat((ME, "action_log_prob")), "advantage": adv.unsqueeze(-1),
                       "value_target": (adv + values).unsqueeze(-1), "reward": r.unsqueeze(-1)},
                      batch_size=[len(rows)])


def learner_batches(data: TensorDict, gamma: float, lam: float, critic: nn.Module) -> TensorDict:
    """:func:`learner_batch` of each env's trajectory (a ``ParallelEnv``'s batch is
    ``[env, time]``), joined."""
    if data.batch_dims == 1:
        return learner_batch(data, gamma, lam, critic)
    return torch.cat([learner_batch(data[i], gamma, lam, critic) for i in range(data.batch_size[0])])


def main(argv=None) -> Path:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="gin", choices=["gin", "rummy"])
    ap.add_argument("--players", type=int, default=4, help="Rummy's players")
    ap.add_argument("--opponent", default="simple", help="any load_agent spec, for the first half of the run")
    ap.add_argument("--frames", type=int, default=200_000, help="env steps in all (every seat's moves)")
    ap.add_argument("--frames-per-batch", type=int, default=4096)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--minibatch", type=int, default=512)
    ap.add_argument("--envs", type=int, default=1, help="envs, each in its own process when more than 1 (default 1)")
    ap.add_argument("--minutes", type=float, default=None, help="a wall-time budget as well (half of it against the opponent)")
    ap.add_argument("--no-self-play", action="store_true", help="the whole budget against the opponent")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="the exported actor (default runs/examples/torchrl_GAME/policy.pt2)")
    ap.add_argument("--summary", default=None, help="write the learner's moves and the seconds trained as JSON here")
    args = ap.parse_args(argv)
    if args.envs < 1:
        ap.error(f"--envs must be >= 1, got {args.envs}")
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    g = games.get(args.game)
    out = Path(args.out or f"runs/examples/torchrl_{args.game}/policy.pt2")
    env = make_env(args)
    others = [grp for grp in env.group_map if grp != ME]

    actor_net, critic_net = mlp(g.obs_dim, g.num_actions), mlp(g.obs_dim, 1)
    collecting = TensorDictSequential(
        TensorDictModule(SeatMask(), [(ME, "action_mask"), (ME, "mask")], [(ME, "safe_mask")]),
        learner_actor(actor_net, (ME, "observation", "observation"), (ME, "safe_mask"), (ME, "action")))
    loss = ClipPPOLoss(learner_actor(actor_net, "observation", "action_mask", "action"),
                       ValueOperator(critic_net, in_keys=["observation"]), clip_epsilon=0.2, entropy_coeff=0.01)
    optimizer = torch.optim.Adam(loss.parameters(), lr=3e-4)

    start, moves = time.time(), 0
    share = 1.0 if args.no_self_play else 0.5
    phases = [("against " + args.opponent, load_agent(args.opponent, game=args.game), share)]
    if not args.no_self_play:
        phases.append(("against itself", None, 1.0))
    for phase, opponent, until in phases:
        deadline = None if args.minutes is None else start + until * args.minutes * 60
        if opponent is None:  # a frozen copy of the learner as it is now
            frozen = save_policy(copy.deepcopy(actor_net), args.game, out.with_name("frozen.pt2"))
            opponent = load_agent(str(frozen), game=args.game)
        policy = TensorDictSequential(collecting, *[seat_policy(grp, opponent) for grp in others])
        collector = Collector(make_envs(args), policy, frames_per_batch=args.frames_per_batch, total_frames=int(args.frames * share),
                              auto_register_policy_transforms=False)
        for data in collector:
            batch = learner_batches(data, 0.99, 0.95, critic_net)
            moves += batch.batch_size[0]
            for _ in range(args.epochs):
                for idx in torch.randperm(batch.batch_size[0]).split(args.minibatch):
                    losses = loss(batch[idx])
                    total = losses["loss_objective"] + losses["loss_critic"] + losses["loss_entropy"]
                    optimizer.zero_grad()
                    total.backward()
                    nn.utils.clip_grad_norm_(loss.parameters(), 0.5)
                    optimizer.step()
            ended = batch["reward"][batch["reward"] != 0]
            print(f"{phase}: {batch.batch_size[0]} learner moves, mean reward at a deal's end "
                  f"{ended.mean().item() if ended.numel() else float('nan'):+.3f}")
            if deadline is not None and time.time() > deadline:
                break
        collector.shutdown()
    if args.summary:
        Path(args.summary).write_text(json.dumps({"learner_moves": moves, "seconds": time.time() - start}))
    save_policy(copy.deepcopy(actor_net), args.game, out)
    players = f" --players {args.players}" if args.game == "rummy" else ""
    print(f"wrote {out}: python evaluate.py {out} simple --game {args.game}{players} --games 200")
    return out


if __name__ == "__main__":
    main()
