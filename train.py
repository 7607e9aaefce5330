"""Self-play training: the command line of :mod:`rummyrl.training.cli` (``python train.py --help``)."""

import sys

from rummyrl.training.cli import main

if __name__ == "__main__":
    sys.exit(main())
