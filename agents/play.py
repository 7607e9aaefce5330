"""Play Gin Rummy or Rummy against an agent in the terminal.

    python -m rummyrl.agents.play --game gin --opponent expert
    python -m rummyrl.agents.play --game gin --opponent runs/gin_rummy/best.pt --target 50
    python -m rummyrl.agents.play --game rummy --opponent simple --players 4

You hold seat 0 (``--seat``); every other seat is played by ``--opponent``: a baseline
(``random``, ``simple``, ``expert``) or a checkpoint path (in Rummy each opponent seat is
a copy of it). One game is played to the target (``--target``; any rule option with
``--option KEY=VALUE``, as in evaluate.py). Before each of your moves you see the
scores, the stock, the discard pile, what is known of the other hands (in Rummy the
table melds, numbered, with their owners) and your hand, sorted and grouped into its
best melds with its deadwood. At the end of a hand both hands are shown with their
melds and lay-offs, then the score line.

Moves are short commands:

=============  ==================================  ===================================
command        Gin Rummy                           Rummy
=============  ==================================  ===================================
``d``          draw from the stock                 draw from the stock
``t``          take the upcard / the top discard   take the top discard
``p``          pass the upcard (G-2)               --
``x Kd``       discard K♦                          discard K♦
``k Kd``       knock discarding K♦ (gin if no      --
               deadwood is left, G-6, G-7)
``g``          big gin (only with big_gin_bonus)   --
``m Qc Qs Qh`` --                                  lay down the meld Q♣ Q♠ Q♥ (R-4)
``l 5h 2``     --                                  lay off 5♥ onto table meld 2 (R-4)
=============  ==================================  ===================================

and in both games: ``?`` lists the legal moves, numbered, with their commands; a number
plays that move of the list; ``s`` shows the table again; ``q`` quits. Cards are written
rank then suit (``As``, ``Td`` or ``10d``, ``Kh``; the suit symbols work too). A command
that is not legal is refused with the reason, and the prompt repeats.

Input is read line by line from stdin, so a game can be scripted; the end of the input
quits cleanly (exit status 0).
"""

from __future__ import annotations

import argparse
import secrets
import sys

from rummyrl import games
from rummyrl.envs.options import parse_key_values

from .play_gin import GinSession
from .play_rummy import RummySession
from .play_session import Move, Quit, Refused, Session, make_session, opponent_label

#: what the text becomes on a terminal that cannot show the symbols (``--ascii``)
ASCII = str.maketrans({"─": "-", "·": "|", "→": "->", "…": "...", "♠": "s", "♥": "h", "♦": "d", "♣": "c"})


def play(session: Session, inp=None, out=None) -> int:
    """Run the game to its end, reading your moves from ``inp`` line by line and writing to
    ``out``. Returns the exit status: 0 (game over, ``q`` or end of input)."""
    inp = inp if inp is not None else sys.stdin
    out = out if out is not None else sys.stdout

    def write(text: str) -> None:
        out.write(text if session.symbols else text.translate(ASCII))
        out.flush()

    def say(text: str) -> None:
        write(text + "\n")

    say(session.header())
    show = "full"  # what to show before your next prompt: the whole table, your hand, or nothing
    while not session.game_over:
        p = session.to_move
        if p == session.human:
            if show == "full":
                say(session.view())
            elif show == "hand":
                say(session.hand_line())
            show = ""
            write(session.prompt())
            line = inp.readline()
            if not line:
                say("\nend of input: leaving the game unfinished")
                return 0
            try:
                action = session.command(line)
            except Refused as e:
                say(f"  refused: {e}")
                continue
            except Quit:
                say("you quit: the game is left unfinished")
                return 0
            if action is None:
                continue
            if isinstance(action, str):
                say(action)
                continue
        else:
            action = session.agent_action()
        say(("  " if p != session.human else "  > ") + session.apply(action))
        if session.deal_ended:
            say("\n".join(session.round_end_lines()))
            if not session.game_over:
                say(session.header())
            show = "full"
        elif p == session.human:
            show = "hand" if session.to_move == p else "full"
        else:
            show = "full"
    say("\n".join(session.game_end_lines()))
    return 0


def can_encode(stream, text: str) -> bool:
    enc = getattr(stream, "encoding", None) or "ascii"
    try:
        text.encode(enc)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def main(argv=None, inp=None, out=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rummyrl.agents.play", description="Play against a rummyrl agent.",
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--game", default="gin", choices=games.names())
    ap.add_argument("--opponent", default="expert",
                    help="an agent name (random, simple, expert, planner: Rummy only, search, pretrained, pretrained-plain) or a checkpoint path (default expert)")
    ap.add_argument("--seat", type=int, default=0, help="your seat (default 0)")
    ap.add_argument("--players", type=int, default=None, help="Rummy: players at the table, 2-6 (default 4)")
    ap.add_argument("--seed", type=int, default=None, help="seed of the deals (default: a fresh one, printed)")
    ap.add_argument("--target", type=int, default=None, help="points that end the game (Gin 100, Rummy 200)")
    ap.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                    help="a rule option of the game, e.g. --option knock_limit=5 (repeatable)")
    ap.add_argument("--ascii", action="store_true", help="suits as s h d c instead of ♠ ♥ ♦ ♣")
    args = ap.parse_args(argv)
    out = out if out is not None else sys.stdout
    seed = args.seed if args.seed is not None else secrets.randbelow(2**31)
    try:
        options = parse_key_values(args.option)
        if args.target is not None:
            options["target"] = args.target
        symbols = not args.ascii and can_encode(out, "♠♥♦♣─·→…")
        session = make_session(args.game, args.opponent, seat=args.seat, players=args.players, seed=seed,
                               options=options, symbols=symbols)
    except (ValueError, FileNotFoundError, KeyError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else e
        print(f"play: error: {msg}", file=sys.stderr)
        return 2
    cfg = session.state.config
    others = len(session.names) - 1
    out.write(f"{games.get(args.game).title} to {cfg.target} against "
              f"{opponent_label(args.opponent)}{f' (x{others})' if others > 1 else ''}; you are seat {args.seat}. "
              f"Seed {seed} (replay with --seed {seed}). Type ? for your legal moves, q to quit.\n")
    try:
        return play(session, inp, out)
    except KeyboardInterrupt:
        out.write("\ninterrupted\n")
        return 130


__all__ = ["ASCII", "GinSession", "Move", "Quit", "Refused", "RummySession", "Session", "can_encode", "main",
           "make_session", "opponent_label", "play"]


if __name__ == "__main__":
    sys.exit(main())
