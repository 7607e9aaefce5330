"""The trainer's command line: ``python train.py`` and ``rummyrl-train`` run :func:`main`.

    python train.py                                        # configs/gin_rummy.yaml
    python train.py --config configs/rummy.yaml
    python train.py --config configs/gin_rummy.yaml total_steps=2e6 net.hidden=128
    python train.py --quick                                # a few-minute first look
    python train.py --resume runs/gin_rummy/last.pt        # continue a run
    python train.py workers=2                              # rollouts on 2 Ray actors (pip install -e ".[ray]")
    python train.py ray_address=auto workers=16 device=cuda  # join a Ray cluster, learn on the GPU
    python train.py --config configs/recipes/gin_pretrained.yaml   # every stage that made a shipped network

A config file with ``stages`` is a recipe (:mod:`rummyrl.training.recipe`): its stages
(training, offline fit, evaluation, export) run in order into ``runs/<recipe>/<stage>/``,
and the same command run again goes on at the first stage not done; its overrides name
their stage (``ppo.time_limit_minutes=10``), ``--until STAGE`` stops after one.

The trainer itself is the package :mod:`rummyrl.training`; in Python, ``from rummyrl.training
import load_config, train`` runs what this command runs.

TensorBoard logs and checkpoints (``last.pt``, ``best.pt``, ``final.pt``) go to
``runs/<name>/``; Ctrl-C saves before exiting. ``workers``, ``ray_address`` and ``device``
are config fields like the others (docs/scaling.md).
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path

from rummyrl.agents.checkpoint import load_checkpoint
from rummyrl.distributed import RayMissingError, RayUnavailableError

from .commands import command_line
from .config import ConfigError, load_config, to_overrides
from .evaluation import final_report
from .loop import train
from .recipe import Stopped, is_recipe, load_recipe, run_recipe

#: the overrides of ``--quick``
QUICK = ["total_steps=400000", "time_limit_minutes=4", "num_envs=128", "eval.every_minutes=1",
         "eval.games=100", "eval.final_games=200", "checkpoint_every_minutes=1"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Self-play PPO for rummyrl.", epilog=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", default=None, help="YAML config (default configs/gin_rummy.yaml)")
    ap.add_argument("--resume", default=None, help="checkpoint to continue (its config, plus overrides)")
    ap.add_argument("--quick", action="store_true", help="a few-minute run for a first look")
    ap.add_argument("--run-dir", default=None, help="folder for logs and checkpoints (default runs/<name>)")
    ap.add_argument("--no-eval", action="store_true", help="skip the evaluation after training")
    ap.add_argument("--until", default=None, metavar="STAGE", help="with a recipe: stop after this stage")
    ap.add_argument("overrides", nargs="*", help="config overrides key=value (e.g. total_steps=2e6 net.hidden=128; "
                                                 "with a recipe STAGE.KEY=VALUE)")
    args = ap.parse_args(argv)
    if args.config and is_recipe(args.config):
        return _recipe(args, sys.argv[1:] if argv is None else list(argv))
    if args.until:
        print("train.py: error: --until needs a recipe (--config configs/recipes/...)", file=sys.stderr)
        return 2
    try:
        resume = None
        if args.resume:
            resume = load_checkpoint(args.resume)
            if "counters" not in resume or "optimizer" not in resume:
                raise ValueError(f"{args.resume} holds a network alone (a shipped or exported one), not a run to "
                                 f"continue; start a run from its network with init={args.resume}")
            cfg = load_config(None, to_overrides(resume["train_config"]) + (QUICK if args.quick else []) + args.overrides)
        else:
            path = args.config or "configs/gin_rummy.yaml"
            cfg = load_config(path, (QUICK if args.quick else []) + args.overrides)
        if args.quick and not any(o.startswith("name=") for o in args.overrides):
            cfg = dataclasses.replace(cfg, name=cfg.name + "_quick")
    except (ConfigError, ValueError, FileNotFoundError) as e:
        print(f"train.py: error: {e}", file=sys.stderr)
        return 2
    run_dir = Path(args.run_dir) if args.run_dir else (Path(args.resume).parent if args.resume else None)
    try:
        tr = train(cfg, run_dir=run_dir, resume=resume, evaluate_start=not args.no_eval)
    except (RayUnavailableError, ConfigError) as e:  # ConfigError: an init checkpoint that does not fit
        print(f"train.py: error: {e}", file=sys.stderr)
        return 2
    if tr.interrupted:
        print(f"stopped; continue with: {command_line('train', '--resume', tr.run_dir / 'last.pt')}", file=sys.stderr)
        return 130
    if not args.no_eval:
        final_report(tr)
    return 0


def _recipe(args, argv: list[str]) -> int:
    """Run the recipe of ``--config`` (:mod:`rummyrl.training.recipe`)."""
    for flag, given in (("--resume", args.resume), ("--quick", args.quick), ("--no-eval", args.no_eval)):
        if given:
            print(f"train.py: error: {flag} does not go with a recipe (run the same command again to continue it; "
                  f"its stages' overrides set the rest)", file=sys.stderr)
            return 2
    try:
        recipe = load_recipe(args.config, args.overrides, args.run_dir)
        run_recipe(recipe, until=args.until)
    except (Stopped, KeyboardInterrupt) as e:
        print(f"\nstopped{': ' + str(e) if str(e) else ''}; run the same command to go on where it stopped: "
              f"{command_line('train', *argv)}", file=sys.stderr)
        return 130
    except (ConfigError, ValueError, FileNotFoundError, RayMissingError, RayUnavailableError) as e:
        print(f"train.py: error: {e}", file=sys.stderr)
        return 2
    return 0


__all__ = ["QUICK", "main"]

if __name__ == "__main__":
    sys.exit(main())
