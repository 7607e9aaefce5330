"""Where does a teacher's edge lie: at the draw (or Gin's knock), or in the rest of the turn?

Plays the same deals four times against ``--opponent``: the base agent alone, the teacher
alone, the teacher at the ``--phase``'s decisions only (``draw``, the default; ``knock``:
Gin positions that allow ending the hand; ``stock``: Rummy draws at which the stock's next
card is known; the base agent plays the rest), and the teacher
everywhere but there (agents/split.py). ``--split-only`` skips the first two, which do not
depend on the phase; ``--inside-only`` skips the teacher everywhere but the phase (costly when
the phase is rare). A network distilled
from the teacher can only keep the edge its decisions carry; this says which decisions
those are before the search data are paid for.

    python docs/research/scripts/search_where.py --game rummy --unit hand --games 400 --seed 777
    python docs/research/scripts/search_where.py --teacher search:worlds=128 --opponent expert --games 200
    python docs/research/scripts/search_where.py --game gin --phase knock --split-only --opponent expert
    python docs/research/scripts/search_where.py --game rummy --phase stock --inside-only --unit game --games 1000 --seed 555

Prints one line per agent (win rate, 95% interval, points per hand of each side) and writes
them to ``--out`` as JSON. In Gin, read the points as well as the hands won: a player that
knocks early wins more hands and fewer points (an expert that knocks with up to 7 deadwood
won 60.8% of 400 hands against the expert and 27.0% of 1,000 games).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rummyrl import tournament
from rummyrl.agents import load_agent
from rummyrl.agents.split import PHASES, PhaseSplitAgent


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--game", choices=["gin", "rummy"], default="rummy")
    ap.add_argument("--teacher", default="search", help="the strong agent (default search)")
    ap.add_argument("--base", default="expert", help="the agent it is compared with (default expert)")
    ap.add_argument("--opponent", default="simple", help="who they play against (default simple)")
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--unit", choices=["game", "hand"], default="hand")
    ap.add_argument("--players", type=int, default=4, help="Rummy: players per game (default 4)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--phase", choices=sorted(PHASES), default="draw",
                    help="the decisions the teacher takes alone (knock: Gin only; stock: Rummy only)")
    ap.add_argument("--split-only", action="store_true", help="play only the two split agents")
    ap.add_argument("--inside-only", action="store_true",
                    help="skip the teacher everywhere but the phase (the base still plays, unless --split-only)")
    ap.add_argument("--out", help="write the results here as JSON")
    args = ap.parse_args(argv)
    try:
        teacher = load_agent(args.teacher, game=args.game, seed=args.seed)
        base = load_agent(args.base, game=args.game, seed=args.seed)
        agents = {} if args.split_only else {"base": base}
        if not (args.split_only or args.inside_only):
            agents["teacher"] = teacher
        agents[f"teacher at the {args.phase}"] = PhaseSplitAgent(teacher, base, phase=args.phase)
        if not args.inside_only:
            agents[f"teacher but the {args.phase}"] = PhaseSplitAgent(base, teacher, phase=args.phase)
        rows = []
        for label, agent in agents.items():
            t = tournament.run_tournament(["a", args.opponent], game=args.game, games=args.games, unit=args.unit,
                                        players=args.players, seed=args.seed, show_progress=False,
                                        agents={"a": agent})
            p = t.pairings[0]
            lo, hi = p.interval
            pts = [p.points_hand[p.a], p.points_hand[p.b]]
            rows.append({"agent": label, "win_rate": p.win_rate, "ci95": [lo, hi], "games": p.games,
                         "points_per_hand": pts})
            print(f"{label:22s} {100 * p.win_rate:5.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] of {p.games} "
                  f"{args.unit}s against {args.opponent}, points per hand {pts[0]:.1f} vs {pts[1]:.1f}", flush=True)
    except (OSError, ValueError) as e:
        print(f"search_where.py: error: {e}", file=sys.stderr)
        return 2
    if args.out:
        Path(args.out).write_text(json.dumps({"settings": vars(args), "results": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
