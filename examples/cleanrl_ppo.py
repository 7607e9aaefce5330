"""A PPO you can read in one sitting, on the batched vector environment: CleanRL's style
(one file, no framework, every step of the algorithm in view), for a researcher who wants
to write their own trainer on the fast path rather than use train.py.

    python examples/cleanrl_ppo.py                                   # Gin against simple, then itself
    python examples/cleanrl_ppo.py --game rummy --players 4 --total-steps 2000000
    tensorboard --logdir runs/examples                               # its curves
    python evaluate.py runs/examples/cleanrl_gin/policy.pt2 simple --games 200

The environment is `GinRummyVectorEnv` / `RummyVectorEnv` (rummyrl.envs): `num_envs` games
stepped together by the batched engine, the opponent inside it, one deal an episode. The
learner is a masked actor-critic; illegal actions get a logit of -1e9, so they are never
sampled. The first part of the run plays `--opponent` (default `simple`), the rest a frozen
copy of the learner as it was at the switch; at the end the actor is exported with
torch.export, the form `load_agent` plays. train.py adds what this file leaves out (opponent
pools, evaluation on fixed deals, checkpoints and exact resume, the engine's features).
"""

from __future__ import annotations

import argparse
import copy
import json
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.utils.tensorboard import SummaryWriter

from rummyrl import games
from rummyrl.agents import load_agent
from rummyrl.agents.exported import save_policy
from rummyrl.envs import GinRummyVectorEnv, RummyVectorEnv


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="gin", choices=["gin", "rummy"])
    ap.add_argument("--players", type=int, default=4, help="Rummy's players")
    ap.add_argument("--opponent", default="simple", help="any load_agent spec, for the first part of the run")
    ap.add_argument("--self-play-from", type=float, default=0.5,
                    help="the fraction of the run after which the learner plays a frozen copy of itself")
    ap.add_argument("--total-steps", type=int, default=1_000_000)
    ap.add_argument("--minutes", type=float, default=None,
                    help="a wall-time budget as well: the run ends at whichever comes first, and --self-play-from "
                         "is then a fraction of whichever is further along")
    ap.add_argument("--num-envs", type=int, default=64)
    ap.add_argument("--num-steps", type=int, default=128, help="steps per env per rollout")
    ap.add_argument("--learning-rate", type=float, default=2.5e-4)
    ap.add_argument("--gamma", type=float, default=0.99)
    ap.add_argument("--gae-lambda", type=float, default=0.95)
    ap.add_argument("--num-minibatches", type=int, default=4)
    ap.add_argument("--update-epochs", type=int, default=4)
    ap.add_argument("--clip-coef", type=float, default=0.2)
    ap.add_argument("--ent-coef", type=float, default=0.01)
    ap.add_argument("--vf-coef", type=float, default=0.5)
    ap.add_argument("--max-grad-norm", type=float, default=0.5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="the exported actor (default runs/examples/cleanrl_GAME/policy.pt2)")
    ap.add_argument("--summary", default=None, help="write the learner's moves and the seconds trained as JSON here")
    return ap.parse_args(argv)


def make_env(args, opponent):
    if args.game == "gin":
        return GinRummyVectorEnv(args.num_envs, opponent=opponent, episode="hand")
    return RummyVectorEnv(args.num_envs, opponent=opponent, num_players=args.players, episode="round")


def layer(i: int, o: int, std: float = np.sqrt(2)) -> nn.Linear:
    """A linear layer with CleanRL's orthogonal initialisation."""
    lin = nn.Linear(i, o)
    nn.init.orthogonal_(lin.weight, std)
    nn.init.zeros_(lin.bias)
    return lin


class ActorCritic(nn.Module):
    def __init__(self, obs_dim: int, num_actions: int, hidden: int = 256):
        super().__init__()
        self.critic = nn.Sequential(layer(obs_dim, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(),
                                    layer(hidden, 1, std=1.0))
        self.actor = nn.Sequential(layer(obs_dim, hidden), nn.Tanh(), layer(hidden, hidden), nn.Tanh(),
                                   layer(hidden, num_actions, std=0.01))

    def value(self, obs):
        return self.critic(obs).squeeze(-1)

    def act(self, obs, mask, action=None):
        """A sampled action (or the given one), its log-probability, the entropy and the value."""
        logits = self.actor(obs).masked_fill(~mask, -1e9)  # illegal actions: never sampled
        dist = torch.distributions.Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(obs)


def main(argv=None) -> Path:
    args = parse_args(argv)
    torch.set_num_threads(1)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    g = games.get(args.game)
    out = Path(args.out or f"runs/examples/cleanrl_{args.game}/policy.pt2")
    writer = SummaryWriter(str(out.parent))
    batch_size = args.num_envs * args.num_steps
    minibatch = batch_size // args.num_minibatches
    num_updates = max(1, args.total_steps // batch_size)

    model = ActorCritic(g.obs_dim, g.num_actions)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate, eps=1e-5)
    envs = make_env(args, args.opponent)

    # rollout storage
    obs = torch.zeros(args.num_steps, args.num_envs, g.obs_dim)
    masks = torch.zeros(args.num_steps, args.num_envs, g.num_actions, dtype=torch.bool)
    actions = torch.zeros(args.num_steps, args.num_envs, dtype=torch.long)
    logprobs = torch.zeros(args.num_steps, args.num_envs)
    rewards = torch.zeros(args.num_steps, args.num_envs)
    dones = torch.zeros(args.num_steps, args.num_envs)
    values = torch.zeros(args.num_steps, args.num_envs)

    o, _ = envs.reset(seed=args.seed)
    next_obs, next_mask = torch.from_numpy(o["observation"]), torch.from_numpy(o["action_mask"].astype(bool))
    next_done = torch.zeros(args.num_envs)
    episode_return = np.zeros(args.num_envs)
    global_step, start, self_play = 0, time.time(), False
    for update in range(1, num_updates + 1):
        done_share = (update - 1) / num_updates  # of the steps, or of the minutes if further along
        if args.minutes is not None:
            done_share = max(done_share, (time.time() - start) / (args.minutes * 60))
            if done_share >= 1:
                break
        if not self_play and 0 < args.self_play_from <= done_share:  # from here on: a frozen copy of the learner
            self_play = True
            frozen = load_agent(str(save_policy(copy.deepcopy(model.actor), args.game, out.with_name("frozen.pt2"))),
                                game=args.game)
            envs = make_env(args, frozen)
            o, _ = envs.reset(seed=args.seed + update)
            next_obs, next_mask = torch.from_numpy(o["observation"]), torch.from_numpy(o["action_mask"].astype(bool))
            next_done = torch.zeros(args.num_envs)
            episode_return[:] = 0

        # 1. play num_steps steps in every env
        finished = []
        for step in range(args.num_steps):
            global_step += args.num_envs
            obs[step], masks[step], dones[step] = next_obs, next_mask, next_done
            with torch.no_grad():
                action, logprob, _, value = model.act(next_obs, next_mask)
            actions[step], logprobs[step], values[step] = action, logprob, value
            o, r, term, trunc, _ = envs.step(action.numpy())
            done = term | trunc
            rewards[step] = torch.from_numpy(r.astype(np.float32))
            episode_return += r
            finished += episode_return[done].tolist()
            episode_return[done] = 0
            next_obs, next_mask = torch.from_numpy(o["observation"]), torch.from_numpy(o["action_mask"].astype(bool))
            next_done = torch.from_numpy(done.astype(np.float32))

        # 2. advantages by GAE, bootstrapped from the value of the next observation
        with torch.no_grad():
            next_value = model.value(next_obs)
            advantages = torch.zeros_like(rewards)
            last = torch.zeros(args.num_envs)
            for t in reversed(range(args.num_steps)):
                not_done = 1.0 - (next_done if t == args.num_steps - 1 else dones[t + 1])
                following = next_value if t == args.num_steps - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * following * not_done - values[t]
                advantages[t] = last = delta + args.gamma * args.gae_lambda * not_done * last
            returns = advantages + values

        # 3. PPO's clipped update over shuffled minibatches
        b_obs, b_masks = obs.reshape(-1, g.obs_dim), masks.reshape(-1, g.num_actions)
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_adv, b_returns = advantages.reshape(-1), returns.reshape(-1)
        for _ in range(args.update_epochs):
            for idx in torch.randperm(batch_size).split(minibatch):
                _, newlogprob, entropy, newvalue = model.act(b_obs[idx], b_masks[idx], b_actions[idx])
                ratio = (newlogprob - b_logprobs[idx]).exp()
                adv = (b_adv[idx] - b_adv[idx].mean()) / (b_adv[idx].std() + 1e-8)
                pg_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
                v_loss = 0.5 * ((newvalue - b_returns[idx]) ** 2).mean()
                loss = pg_loss - args.ent_coef * entropy.mean() + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()

        sps = int(global_step / (time.time() - start))
        writer.add_scalar("charts/steps_per_second", sps, global_step)
        writer.add_scalar("losses/policy", pg_loss.item(), global_step)
        writer.add_scalar("losses/value", v_loss.item(), global_step)
        writer.add_scalar("losses/entropy", entropy.mean().item(), global_step)
        if finished:
            writer.add_scalar("charts/episodic_return", float(np.mean(finished)), global_step)
        against = "itself" if self_play else args.opponent
        print(f"update {update}/{num_updates}: {global_step:,} steps, {sps:,}/s, against {against}, "
              f"mean return {np.mean(finished) if finished else float('nan'):+.3f} over {len(finished)} episodes")
    writer.close()
    if args.summary:  # every env step is one of the learner's moves: the opponent moves inside the env
        Path(args.summary).write_text(json.dumps({"learner_moves": global_step, "seconds": time.time() - start}))
    save_policy(model.actor, args.game, out)  # observations -> logits: load_agent plays it greedily
    players = f" --players {args.players}" if args.game == "rummy" else ""
    print(f"wrote {out}: python evaluate.py {out} simple --game {args.game}{players} --games 200")
    return out


if __name__ == "__main__":
    main()
