"""``python scripts/docs_gen.py NAME ARGS``: one generated part printed, to look at it without a
build; ``--list`` lists the generators."""

from __future__ import annotations

import inspect
import logging
import sys

import _gen
from _gen.generators import GENERATORS


def main(argv=None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "--list"):
        print(_gen.__doc__.split("Run as a script")[0].strip() if args[:1] != ["--list"] else "")
        for name, fn in GENERATORS.items():
            sig = inspect.signature(fn)
            print(f"  {name} {' '.join(sig.parameters)}: {(fn.__doc__ or '').strip().splitlines()[0]}")
        return 0
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s")
    name, rest = args[0], args[1:]
    if name not in GENERATORS:
        print(f"unknown generator {name!r}; known: {', '.join(GENERATORS)}", file=sys.stderr)
        return 2
    print(GENERATORS[name](*rest))
    return 0

