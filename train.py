"""Self-play training: the command line of :mod:`rummyrl.train` (``python train.py --help``)."""

import sys

from rummyrl.train import main

if __name__ == "__main__":
    sys.exit(main())
