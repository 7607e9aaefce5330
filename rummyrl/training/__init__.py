"""Self-play PPO for Gin Rummy and Rummy on the batched engines.

One job per module, in the order a run uses them:

* :mod:`.config`: :class:`TrainConfig` (every field documented), YAML loading with
  ``key=value`` overrides, the checks behind :class:`ConfigError`.
* :mod:`.pool`: the opponent pool: the current policy, its past snapshots and the
  rule-based baselines, drawn per game with configurable weights.
* :mod:`.rollout`: the self-play environments, per-seat linked trajectories with their
  credit, GAE; a rollout is a plain dict of numpy arrays.
* :mod:`.ppo`: the PPO update with the action mask and the expert prior applied again.
* :mod:`.trainer`: :class:`Trainer`, all the state of a run, set up from a config.
* :mod:`.checkpoint`: what a checkpoint holds, saving it and resuming from it exactly.
* :mod:`.evaluation`: periodic and final evaluations, the learning curve.
* :mod:`.workers`: who plays the lanes: this process (``workers=0``) or Ray actors
  (``workers=N``) that send their rollouts and receive the new weights.
* :mod:`.loop`: :func:`train`, the main loop with its logging and hooks.
* :mod:`.offline`: a network distilled again from the search records an expert-iteration
  run saved (``scripts/exit_fit.py``).

The command line is :mod:`rummyrl.train` (``python train.py --help``).
"""

from .checkpoint import env_state_dict, load_env_state
from .config import (ConfigError, EvalConfig, OpponentConfig, TrainConfig, load_config, resolve_device,
                     reward_scheme, to_overrides)
from .evaluation import EVAL_SEED, FINAL_EVAL_SEED, evaluate_policy, final_report, plot_learning_curve
from .loop import train
from .pool import EXPERT, KINDS, RANDOM, SELF, SIMPLE, SNAPSHOT, OpponentPool
from .ppo import ppo_update
from .rollout import FIELDS, Rollout, collect_rollout, gae, make_selfplay
from .trainer import Trainer
from .workers import InProcessWorkers, RayWorkers, RolloutWorker, make_workers, worker_seed

__all__ = [
    "ConfigError", "EVAL_SEED", "EXPERT", "EvalConfig", "FIELDS", "FINAL_EVAL_SEED", "InProcessWorkers", "KINDS",
    "OpponentConfig", "OpponentPool", "RANDOM", "RayWorkers", "Rollout", "RolloutWorker", "SELF", "SIMPLE",
    "SNAPSHOT", "TrainConfig", "Trainer", "collect_rollout", "env_state_dict", "evaluate_policy", "final_report",
    "gae", "load_config", "load_env_state", "make_selfplay", "make_workers", "plot_learning_curve", "ppo_update",
    "resolve_device", "reward_scheme", "to_overrides", "train", "worker_seed",
]
