"""Self-play PPO and expert iteration for Gin Rummy and Rummy on the batched engines.

One job per module, in the order a run uses them:

* :mod:`.config`: :class:`TrainConfig` (every field declared with its type, range and
  documentation, :mod:`rummyrl.settings`), YAML loading with ``key=value`` overrides,
  :func:`~.config.check` against the game, the agents and this machine.
* :mod:`.device`: the ``device`` and ``precision`` options read against this machine.
* :mod:`.pool`: the opponent pool: the current policy, its past snapshots and the
  rule-based baselines, drawn per game with configurable weights.
* :mod:`.methods`: the seam between the trainer and the ways a run learns (``algo``): one
  small interface and the registry of the methods below.
* :mod:`.lanes`: :class:`Lanes`, the self-play games of one process and the one step loop
  of every method (the per-action input computed once per step); its state.
* :mod:`.rollout`: PPO's side of the step loop, its per-seat linked trajectories with their
  credit, GAE; a rollout is a plain dict of numpy arrays.
* :mod:`.ppo`: PPO as a method: its part of the lanes, one update (or two overlapped), the
  PPO update, which reads the mask and per-action input stored with each transition.
* :mod:`.exit`: expert iteration as a method: its part of the lanes and of the step loop
  (the teacher plays and is recorded), the replay buffer, distillation, the saved records.
* :mod:`.state`: random generators and arrays as plain data (checkpoints, Ray).
* :mod:`.trainer`: :class:`Trainer`, all the state of a run, set up from a config; its
  checkpoint (``state_dict``, ``save``, ``load_state_dict``: resuming exactly).
* :mod:`.evaluation`: periodic and final evaluations, the learning curve.
* :mod:`.workers`: who plays the lanes: this process (``workers=0``) or Ray actors
  (``workers=N``) that send their rollouts and receive the new weights.
* :mod:`.loop`: :func:`train`, the main loop: the method's updates, logging, evaluations,
  checkpoints and hooks.
* :mod:`.offline`: a network distilled again from the search records an expert-iteration
  run saved (``scripts/exit_fit.py``).
* :mod:`.compress`: a network distilled into a faster architecture that plays the same (its
  teacher's moves in games against the baselines, the epoch kept by agreement on held-out games).
* :mod:`.export`: a network shipped alone with its evaluations (``scripts/export_pretrained.py``).
* :mod:`.commands`: the commands a run prints, spelled as this process was started.
* :mod:`.recipe`: the stages that made a shipped network (training, fit, evaluation,
  compression, export) as one command that goes on where it stopped (``configs/recipes/``).
* :mod:`.cli`: the command line, ``python train.py`` and ``rummyrl-train``.

What a user calls is importable from here: a config (:func:`load_config`, the config
classes, :class:`ConfigError`), :func:`train` and the :class:`Trainer` it returns, the
evaluations and reports of a run, recipes and export. The parts the trainer is built from
(lanes, rollouts, the update, workers, the pool) are imported from their modules.
"""

from .config import ConfigError, EvalConfig, ExitConfig, OpponentConfig, TrainConfig, load_config
from .evaluation import evaluate_policy, final_report, plot_learning_curve, report_run
from .export import export_pretrained
from .loop import train
from .recipe import Recipe, is_recipe, load_recipe, run_recipe
from .trainer import Trainer

__all__ = [
    "ConfigError", "EvalConfig", "ExitConfig", "OpponentConfig", "Recipe", "TrainConfig", "Trainer",
    "evaluate_policy", "export_pretrained", "final_report", "is_recipe", "load_config", "load_recipe",
    "plot_learning_curve", "report_run", "run_recipe", "train",
]
