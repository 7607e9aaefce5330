"""Ship a trained network as the ``pretrained`` agent of its game: the command line of
:func:`rummyrl.training.export.export_pretrained` (the ``export`` stage of configs/recipes/).

    python scripts/export_pretrained.py runs/gin_rummy_exit/best.pt --results runs/gin_rummy_exit/eval/results.json

(``--results`` may be given more than once: evaluations against several baselines. Only
the pairings that involve the checkpoint, by ``evaluate.py``'s label for it, are kept.)

writes ``agents/pretrained/<game>.pt``: the network alone (no optimizer, games or
snapshots), with its training config and, from ``--results``, the evaluation it was shipped
on. README, "Pretrained agents", lists what is shipped and the commands that made it.
"""

from __future__ import annotations

import argparse
import sys

from rummyrl.training.export import export_pretrained


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint", help="a checkpoint written by train.py")
    ap.add_argument("--results", action="append", default=[],
                    help="evaluate.py's results.json of that checkpoint, kept in the file (repeatable)")
    ap.add_argument("--out", help="where to write (default agents/pretrained/<game>.pt)")
    args = ap.parse_args(argv)
    try:
        out = export_pretrained(args.checkpoint, args.out, args.results)
    except (OSError, ValueError, KeyError) as e:
        print(f"export_pretrained.py: error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
