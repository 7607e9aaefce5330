"""Stable-Baselines3 on the Gymnasium environments, as sb3-contrib's MaskablePPO is meant to
be used: `MultiInputPolicy` on the Dict observation, the mask read from the env's
`action_masks()`. First against `simple`, then against a frozen copy of itself; the policy
exported with torch.export so that our tools play it.

    pip install -e ".[sb3]"
    python examples/sb3_maskable_ppo.py                          # Gin, about 3 minutes on 2 cores
    python evaluate.py runs/examples/sb3_gin/policy.pt2 simple --games 200
    python examples/sb3_maskable_ppo.py --game rummy --players 4 # runs/examples/sb3_rummy/

Nothing here adapts either side: the environment is `gymnasium.make("rummyrl/GinRummy-v0",
...)` as any Gymnasium env, the opponent any `load_agent` spec or an agent. `export_policy`
takes SB3's actor (its features extractor, the actor's layers and the action head) as a
module of the observation and the mask, the form `load_agent` plays; the `.zip` SB3 saves
beside it is SB3's own format, for SB3 to load.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import gymnasium
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

from rummyrl import envs
from rummyrl.agents.exported import save_policy


def make_env(game: str, players: int, opponent):
    if game == "gin":
        return gymnasium.make(envs.GIN_ENV_ID, opponent=opponent, episode="hand")
    return gymnasium.make(envs.RUMMY_ENV_ID, opponent=opponent, num_players=players, episode="round")


def make_envs(args, opponent: str, seed: int):
    """``args.envs`` copies of the env, SB3's way: one process (``DummyVecEnv``, the policy
    batched over the copies) or one process each (``--subproc``, ``SubprocVecEnv``). The
    opponent is a ``load_agent`` spec, so that each process builds its own."""
    return make_vec_env(lambda: make_env(args.game, args.players, opponent), n_envs=args.envs, seed=seed,
                        vec_env_cls=SubprocVecEnv if args.subproc else DummyVecEnv)


class Actor(torch.nn.Module):
    """SB3's actor as observations and masks -> logits."""

    def __init__(self, policy):
        super().__init__()
        self.policy = policy

    def forward(self, observation, action_mask):
        p = self.policy
        features = p.extract_features({"observation": observation, "action_mask": action_mask},
                                      p.pi_features_extractor)
        return p.action_net(p.mlp_extractor.forward_actor(features))


class Deadline(BaseCallback):
    """Stops ``learn`` once the wall clock passes ``deadline`` (None: never)."""

    def __init__(self, deadline: float | None):
        super().__init__()
        self.deadline = deadline

    def _on_step(self) -> bool:
        return self.deadline is None or time.time() < self.deadline


def export_policy(model: MaskablePPO, game: str, path: Path) -> Path:
    return save_policy(Actor(model.policy), game, path, reads_mask=True)


def main(argv=None) -> Path:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="gin", choices=["gin", "rummy"])
    ap.add_argument("--players", type=int, default=4, help="Rummy's players (default 4)")
    ap.add_argument("--steps", type=int, default=100_000, help="env steps in all, half against simple (default 1e5)")
    ap.add_argument("--n-steps", type=int, default=1024, help="MaskablePPO's rollout length (per env)")
    ap.add_argument("--envs", type=int, default=1, help="copies of the env (default 1)")
    ap.add_argument("--subproc", action="store_true", help="each copy in its own process (SubprocVecEnv)")
    ap.add_argument("--minutes", type=float, default=None, help="a wall-time budget as well (half of it against simple)")
    ap.add_argument("--no-self-play", action="store_true", help="the whole budget against simple")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=None, help="the exported policy (default runs/examples/sb3_GAME/policy.pt2)")
    ap.add_argument("--summary", default=None, help="write the learner's moves and the seconds trained as JSON here")
    args = ap.parse_args(argv)
    if args.envs < 1:
        ap.error(f"--envs must be >= 1, got {args.envs}")
    torch.set_num_threads(1)  # small batches: more threads only wait
    out = Path(args.out or f"runs/examples/sb3_{args.game}/policy.pt2")
    start = time.time()
    share = 1.0 if args.no_self_play else 0.5
    deadline = lambda part: None if args.minutes is None else start + part * args.minutes * 60  # noqa: E731
    model = MaskablePPO("MultiInputPolicy", make_envs(args, "simple", args.seed), n_steps=args.n_steps,
                        batch_size=min(256, args.n_steps), seed=args.seed, verbose=0)
    model.learn(int(args.steps * share), callback=Deadline(deadline(share)))
    print(f"against simple: {model.num_timesteps:,} env steps")
    if not args.no_self_play:
        frozen = str(export_policy(model, args.game, out.with_name("frozen.pt2")))
        model.set_env(make_envs(args, frozen, args.seed + 1))
        model.learn(args.steps - args.steps // 2, reset_num_timesteps=False, callback=Deadline(deadline(1.0)))
        print(f"against itself: {model.num_timesteps:,} env steps in all")
    if args.summary:  # every env step is one of the learner's moves: the opponent moves inside the env
        Path(args.summary).write_text(json.dumps({"learner_moves": model.num_timesteps, "seconds": time.time() - start}))
    model.save(out.with_suffix(".zip"))
    export_policy(model, args.game, out)
    players = f" --players {args.players}" if args.game == "rummy" else ""
    print(f"wrote {out}: python evaluate.py {out} simple --game {args.game}{players} --games 200")
    return out


if __name__ == "__main__":
    main()
