"""Tournaments between agents: the command line of :mod:`rummyrl.evaluate` (``python evaluate.py --help``)."""

import sys

from rummyrl.evaluate import main

if __name__ == "__main__":
    sys.exit(main())
