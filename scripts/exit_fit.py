"""Distil saved search records into a network again, offline: the command line of
:func:`rummyrl.training.offline.fit_to_file` (the ``fit`` stage of configs/recipes/gin_pretrained.yaml).

    python train.py --config configs/gin_rummy_exit.yaml exit.save_records=true   # makes runs/gin_rummy_exit/records/
    python scripts/exit_fit.py runs/gin_rummy_exit/records --config configs/gin_rummy_exit.yaml \\
        --epochs 8 --out runs/gin_fit/fit.pt learning_rate=3e-4 exit.depart_weight=2
    python evaluate.py runs/gin_fit/fit.pt simple expert

Trailing ``key=value`` arguments override the config as in train.py (the network's width,
``learning_rate``, ``minibatch_size``, ``vf_coef``, ``exit.depart_weight``, ``seed``).
Prints one line per epoch (validation loss, accuracy, accuracy on search's departures and,
for records of ``exit.record_values=true``, ``q_gain``: search's value of the network's moves
minus that of the moves of the network that made the data, and ``q_gain_expert``: minus the
expert's, points per decision) and writes them to ``<out>.json`` and to TensorBoard
(``distill/<metric>`` by epoch, in ``--logdir``: by default the folder of ``<out>`` without
its suffix, e.g. ``runs/rummy_fit/fit/``); the checkpoint is the epoch with the lowest
validation loss (``--select q_gain``: the highest q_gain).
"""

from __future__ import annotations

import argparse
import sys

from rummyrl.training import ConfigError, load_config
from rummyrl.training.offline import SELECT, default_logdir, describe_kept, fit_to_file

__all__ = ["default_logdir", "main"]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("records", help="a records/ folder written by a run with exit.save_records=true")
    ap.add_argument("--config", required=True, help="the YAML config (game, network, learning rate)")
    ap.add_argument("--out", required=True, help="the checkpoint to write")
    ap.add_argument("--epochs", type=int, default=8, help="passes over the training records (default 8)")
    ap.add_argument("--valid-every", type=int, default=10,
                    help="hold out one records file in this many for validation (default 10)")
    ap.add_argument("--select", choices=SELECT, default="loss",
                    help="keep the epoch with the lowest validation loss (default) or the highest q_gain "
                         "(search's value of the network's moves, records of exit.record_values=true)")
    ap.add_argument("--first", type=int,
                    help="fit the first FIRST records files only (the data of a run's first minutes)")
    ap.add_argument("--init", help="start from this checkpoint's network instead of a fresh one")
    ap.add_argument("--min-gain", type=float,
                    help="teach search's departures only where its values put its choice at least this many "
                         "points above the network's (elsewhere the network's own choice)")
    ap.add_argument("--logdir", help="TensorBoard folder for the epochs' metrics (default: OUT without its "
                                     "suffix, e.g. runs/fit/fit.pt -> runs/fit/fit/; no suffix: OUT_tb/)")
    ap.add_argument("overrides", nargs="*", help="config overrides key=value")
    args = ap.parse_intermixed_args(argv)
    try:
        cfg = load_config(args.config, args.overrides)
        best = fit_to_file(cfg, args.records, args.out, args.epochs, args.valid_every, args.init, select=args.select,
                           first=args.first, logdir=args.logdir, min_gain=args.min_gain)
    except (ConfigError, OSError, ValueError) as e:
        print(f"exit_fit.py: error: {e}", file=sys.stderr)
        return 2
    print(describe_kept(args.out, best))
    return 0


if __name__ == "__main__":
    sys.exit(main())
