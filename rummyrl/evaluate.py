"""Evaluation tournaments between agents, in Gin Rummy or Rummy, on the batched engines.

    python evaluate.py simple random                     # Gin Rummy, 2,000 duplicate games to 100
    python evaluate.py expert simple random --games 1000 # round-robin over three agents
    python evaluate.py runs/gin/final.pt expert simple   # a trained checkpoint against baselines
    python evaluate.py --game rummy expert simple        # Rummy: one expert against three simple

An agent is a baseline name (random, simple, expert) or a checkpoint path.

Matches
-------
Two agents form a pairing; with more, every pair plays (round-robin). In Gin Rummy the
deals are duplicated by default: each deal is played twice with the seats swapped, so
the luck of the cards cancels. In Rummy (``--players`` seats, default 4) a pairing is
one agent A against ``players - 1`` copies of agent B, and the seats rotate over the
same deals: A sits once in every seat of each deal. ``--unit game`` plays whole games to
the target; ``--unit hand`` single hands (rounds).

Chunks and workers
------------------
A pairing's games are cut into chunks of ``--chunk`` games (default 1000, whole duplicate
sets), each played as one batch with its agents reset from seeds drawn per chunk. The
chunks are played one after another in this process, or spread over ``--workers N`` Ray
actors (``pip install -e ".[ray]"``; ``--ray-address auto`` joins a cluster): every chunk
plays the same games either way, so the results (wins, points, hand counts) are exactly
those of the in-process run with the same seed and chunk size, for any agent.

Report
------
Per pairing: games, wins, the win rate with its 95% Wilson interval, draws (games cut off
by a cap), mean points per hand and per game of each side, and how hands ended per
agent (knock, gin, undercut, dead; in Rummy out, draw). Across agents: Bradley-Terry
ratings on the Elo scale (400 points = 10:1 odds) with their standard errors; in Rummy the
lone agent's chance against P - 1 copies is s_A / (s_A + (P - 1) s_B) (Luce's choice
model), so two equal agents get equal ratings at a 1/P win rate. The table
goes to the terminal, every figure to ``OUT/results.json``, a chart to ``OUT/results.png``.

Records
-------
``--record DIR`` writes every game played to ``DIR/games.jsonl``, one JSON line per game:
the rules, the seats, each deal's deck order and dealer, every action, how each deal
ended and the result (docs/records.md); ``rummyrl.records.replay`` plays a record again
exactly, and ``rummyrl-web --records DIR`` shows it move by move. ``--record-reasons``
also stores, at every decision, what the agent weighed (a network's move probabilities
and value, search's candidate values, a rule agent's preferences). Recording changes no
game and no result. A ``DIR/games.jsonl`` that already holds records is refused before any
game is played (exit 2): ``--record-append`` adds the new games to it instead.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from rummyrl import games as registry
from rummyrl.distributed import RayMissingError, RayUnavailableError
from rummyrl.envs.options import parse_key_values
from rummyrl.records import FILE_NAME, write_records
from rummyrl.report import format_table, write_outputs
from rummyrl.tournament import DEFAULT_CHUNK, run_tournament


# --------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Tournaments between rummyrl agents.",
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("agents", nargs="+", help="agent names (random, simple, expert, planner, search, pretrained, pretrained-plain) or checkpoint paths")
    ap.add_argument("--game", default="gin", choices=registry.names())
    ap.add_argument("--games", type=int, default=2000, help="games per pairing (default 2000)")
    ap.add_argument("--unit", default="game", choices=["game", "hand"], help="whole games to the target, or single hands")
    ap.add_argument("--players", type=int, default=None,
                    help="players per game (default the game's: Gin 2, Rummy 4 of 2-6)")
    ap.add_argument("--no-duplicate", action="store_true", help="fresh deals for every game")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a rule option of the game, e.g. --option knock_limit=5 (repeatable)")
    ap.add_argument("--out", default=None, help="folder for results.json and results.png (default eval_results/<game>-<time>)")
    ap.add_argument("--overwrite", action="store_true",
                    help="replace the results.json that --out already holds (without it such a folder is refused "
                         "before any game is played)")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    ap.add_argument("--chunk", type=int, default=DEFAULT_CHUNK,
                    help=f"games per chunk, the unit of work (default {DEFAULT_CHUNK}; results depend on it, "
                         "not on --workers)")
    ap.add_argument("--workers", type=int, default=0,
                    help="Ray actors to spread the chunks over (default 0: in this process); needs "
                         'pip install -e ".[ray]"')
    ap.add_argument("--ray-address", default="",
                    help="with --workers: the Ray cluster to join (auto, or HOST:PORT); default: a local Ray")
    ap.add_argument("--record", default=None, metavar="DIR",
                    help=f"write every game played to DIR/{FILE_NAME}, one JSON line per game (docs/records.md)")
    ap.add_argument("--record-reasons", action="store_true",
                    help="with --record: store what the agent weighed at every decision")
    ap.add_argument("--record-append", action="store_true",
                    help=f"with --record: add the games to DIR/{FILE_NAME} when it already holds records "
                         "(without it such a file is refused before any game is played)")
    args = ap.parse_args(argv)
    for flag, given in (("--record-reasons", args.record_reasons), ("--record-append", args.record_append)):
        if given and not args.record:
            print(f"evaluate.py: error: {flag} needs --record DIR (where the records go)", file=sys.stderr)
            return 2
    if args.out and (Path(args.out) / "results.json").exists() and not args.overwrite:
        print(f"evaluate.py: error: {Path(args.out) / 'results.json'} already holds a tournament's results; pass "
              "--overwrite to replace them, or choose another --out folder", file=sys.stderr)
        return 2
    rec_path = Path(args.record) / FILE_NAME if args.record else None
    if rec_path is not None and rec_path.exists() and not rec_path.is_file():
        print(f"evaluate.py: error: --record: {rec_path} is not a file", file=sys.stderr)
        return 2
    if rec_path is not None and not args.record_append:
        held = _records_held(rec_path)
        if held:
            print(f"evaluate.py: error: {rec_path} already holds {held:,} game record"
                  f"{'s' if held != 1 else ''}; pass --record-append to add the new games to it, or choose "
                  "another --record folder", file=sys.stderr)
            return 2
    try:
        t = run_tournament(args.agents, game=args.game, games=args.games, unit=args.unit, players=args.players,
                           duplicate=not args.no_duplicate, seed=args.seed, options=parse_key_values(args.option),
                           show_progress=not args.quiet, chunk=args.chunk, workers=args.workers,
                           ray_address=args.ray_address, record=bool(args.record),
                           record_reasons=args.record_reasons)
    except (ValueError, FileNotFoundError, KeyError, RayMissingError, RayUnavailableError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else e
        print(f"evaluate.py: error: {msg}", file=sys.stderr)
        return 2
    print(format_table(t))
    out = Path(args.out) if args.out else Path("eval_results") / f"{args.game}-{time.strftime('%Y%m%d-%H%M%S')}"
    jpath, ppath = write_outputs(t, out)
    print(f"\nwrote {jpath} and {ppath}")
    if args.record:
        recs = [rec for p in t.pairings for rec in p.records]
        if args.record_append and rec_path.is_file() and rec_path.stat().st_size:
            with rec_path.open("rb+") as f:  # a last line without its newline would join the first record
                f.seek(-1, 2)
                if f.read(1) != b"\n":
                    f.write(b"\n")
        path = write_records(rec_path, recs, append=args.record_append)
        if args.record_append:
            print(f"added {len(recs)} game records to {path} (it holds {_records_held(path):,})")
        else:
            print(f"wrote {len(recs)} game records to {path}")
    return 0


def _records_held(path: Path) -> int:
    """How many records (non-blank lines) the file at ``path`` holds: 0 when it is absent
    or empty, so that ``--record`` may write it."""
    try:
        with path.open("rb") as f:
            return sum(1 for line in f if line.strip())
    except FileNotFoundError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
