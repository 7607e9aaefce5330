"""Ship a trained network as the ``pretrained`` agent of its game.

    python scripts/export_pretrained.py runs/gin_rummy_exit/best.pt --results runs/gin_rummy_exit/eval/results.json

(``--results`` may be given more than once: evaluations against several baselines. Only
the pairings that involve the checkpoint, by ``evaluate.py``'s label for it, are kept.)

writes ``agents/pretrained/<game>.pt``: the network alone (no optimizer, games or
snapshots), with its training config and, from ``--results``, the evaluation it was shipped
on. README, "Pretrained agents", lists what is shipped and the commands that made it.
"""

from __future__ import annotations

import argparse
import json
import sys

from rummyrl.agents.checkpoint import export_weights, load_checkpoint, pretrained_path
from rummyrl.tournament import display_names


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint", help="a checkpoint written by train.py")
    ap.add_argument("--results", action="append", default=[],
                    help="evaluate.py's results.json of that checkpoint, kept in the file (repeatable)")
    ap.add_argument("--out", help="where to write (default agents/pretrained/<game>.pt)")
    args = ap.parse_args(argv)
    try:
        game = load_checkpoint(args.checkpoint)["game"]
        about = {"source": args.checkpoint}
        label = display_names([args.checkpoint])[0]
        pairings = []
        for path in args.results:
            with open(path) as f:
                found = [p for p in json.load(f).get("pairings", []) if label in (p.get("a"), p.get("b"))]
            if not found:
                raise ValueError(f"{path} holds no pairing of {label!r} (evaluate.py's label for {args.checkpoint})")
            pairings += found
        if pairings:
            about["results"] = json.dumps(pairings)
        out = export_weights(args.checkpoint, args.out or pretrained_path(game), about)
    except (OSError, ValueError, KeyError) as e:
        print(f"export_pretrained.py: error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
