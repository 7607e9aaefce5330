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
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from rummyrl.envs import render
from rummyrl.envs.options import parse_key_values
from rummyrl import gin, rummy
from rummyrl import melds as M
from rummyrl.cards import NUM_CARDS, VALUE, card_str, parse_card, sort_key

from . import load_agent
from .base import Agent

RULE = "─"
WIDTH = 64
#: what the text becomes on a terminal that cannot show the symbols (``--ascii``)
ASCII = str.maketrans({"─": "-", "·": "|", "→": "->", "…": "...", "♠": "s", "♥": "h", "♦": "d", "♣": "c"})


def _n(count: int, noun: str) -> str:
    """``"1 card"``, ``"3 cards"``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


class Refused(ValueError):
    """A command that is not a legal move now; the message says why."""


class Quit(Exception):
    """The player typed ``q``."""


@dataclass(frozen=True)
class Move:
    """A legal move as the player sees it."""

    action: int
    command: str  # what to type, e.g. "x Kd"
    text: str  # what it does, e.g. "discard K♦"


# --------------------------------------------------------------------------------------
# What both games share: card text, the command loop's common commands
# --------------------------------------------------------------------------------------
class Session:
    """One game (batch of one) of an engine, a human seat and the agents of the others."""

    engine = None
    ended_field = "hand_ended"
    commands_help = ""

    def __init__(self, state, agent: Agent, names: list[str], human: int, symbols: bool = True):
        self.state = state
        self.agent = agent
        self.names = names
        self.human = human
        self.symbols = symbols

    # --- text helpers -------------------------------------------------------------------
    def card(self, c: int) -> str:
        return card_str(int(c), symbols=self.symbols)

    def cards(self, cards) -> str:
        return " ".join(self.card(c) for c in sorted((int(c) for c in cards), key=sort_key))

    def rule(self, title: str) -> str:
        return f"{RULE * 4} {title} " + RULE * max(4, WIDTH - len(title) - 6)

    def conj(self, p: int, third: str, plain: str | None = None) -> str:
        """The verb for player ``p``: ``plain`` (default ``third`` less its final s) for you."""
        if p != self.human:
            return third
        return plain if plain is not None else third[:-1]

    def verb(self, p: int, third: str, plain: str | None = None) -> str:
        """``"you score"`` / ``"expert scores"``."""
        return f"{self.names[p]} {self.conj(p, third, plain)}"

    def grouped(self, held: np.ndarray, meld_id: np.ndarray | None = None) -> str:
        """A hand as ``[A♠ 2♠ 3♠] [7♦ 7♣ 7♥] · 4♥ K♠``: its melds, then the other cards."""
        if meld_id is None:
            meld_id = M.best_melds(held[None]).meld_id[0]
        groups = []
        for j in range(int(meld_id.max(initial=-1)) + 1):
            cs = np.flatnonzero((meld_id == j) & held)
            if cs.size:
                groups.append("[" + self.cards(cs) + "]")
        loose = np.flatnonzero(held & (meld_id < 0))
        return " ".join(groups + ["·", self.cards(loose) if loose.size else "-"])

    def pile_text(self) -> str:
        st = self.state
        n = int(st.pile_len[0])
        if not n:
            return "discard pile empty"
        pile = st.pile[0, :n]
        under = pile[:-1][::-1][:5]
        more = " …" if n > 6 else ""
        below = f", below {' '.join(self.card(c) for c in under)}{more}" if under.size else ""
        return f"discard pile ({n}): top {self.card(pile[-1])}{below}"

    def top(self) -> int:
        st = self.state
        n = int(st.pile_len[0])
        return int(st.pile[0, n - 1]) if n else -1

    def held(self, c: int) -> bool:
        return bool(self.state.hands[0, self.human, c])

    # --- commands -----------------------------------------------------------------------
    def command(self, line: str):
        """What a typed line asks for: an action id to play, a text to show, or None (just
        prompt again). Raises :class:`Refused` with the reason, :class:`Quit` for ``q``."""
        words = line.split()
        if not words:
            return None
        w = words[0].lower()
        if w in ("q", "quit", "exit"):
            raise Quit
        if w in ("?", "h", "help"):
            return self.moves_text()
        if w in ("s", "show"):
            return self.view()
        if w.isdigit():
            moves = self.legal_moves()
            n = int(w)
            if len(words) > 1:
                raise Refused(f"a move number stands alone; got {line.strip()!r}")
            if not 1 <= n <= len(moves):
                raise Refused(f"there is no move {n}: choose 1..{len(moves)} (? lists them)")
            return moves[n - 1].action
        action = self.parse_move(w, words[1:])
        if not self.state.mask[0, action]:
            raise Refused(f"{self.engine.action_name(action)} is not legal now (? lists the legal moves)")
        return action

    def moves_text(self) -> str:
        moves = self.legal_moves()
        width = max(len(m.command) for m in moves)
        lines = ["legal moves (type the command or its number):"]
        lines += [f"  {i:>2}  {m.command:<{width}}  {m.text}" for i, m in enumerate(moves, 1)]
        lines.append(f"  also: ? this list · s show the table · q quit · {self.commands_help}")
        return "\n".join(lines)

    def one_card(self, cmd: str, args: list[str], what: str) -> int:
        if len(args) != 1:
            raise Refused(f"'{cmd}' takes one card, e.g. '{cmd} Kd' ({what})")
        try:
            return parse_card(args[0])
        except ValueError as e:
            raise Refused(str(e)) from None

    def not_held(self, c: int) -> Refused:
        return Refused(f"you do not hold {self.card(c)}")

    # --- to implement per game ----------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        raise NotImplementedError

    def parse_move(self, cmd: str, args: list[str]) -> int:
        raise NotImplementedError

    def view(self) -> str:
        raise NotImplementedError

    def hand_line(self) -> str:
        raise NotImplementedError

    def prompt(self) -> str:
        raise NotImplementedError

    def header(self) -> str:
        raise NotImplementedError

    def describe(self, p: int, action: int, before: dict) -> str:
        raise NotImplementedError

    def snapshot(self) -> dict:
        """What :meth:`describe` needs from before the step."""
        return {"hand": self.state.hands[0, self.human].copy(), "top": self.top()}

    def round_end_lines(self) -> list[str]:
        raise NotImplementedError

    def game_end_lines(self) -> list[str]:
        raise NotImplementedError


# --------------------------------------------------------------------------------------
# Gin Rummy
# --------------------------------------------------------------------------------------
class GinSession(Session):
    engine = gin
    commands_help = "d draw · t take · p pass · x <card> discard · k <card> knock"

    def _opp(self) -> int:
        return 1 - self.human

    def _score_line(self) -> str:
        st = self.state
        parts = []
        for p in range(gin.NUM_PLAYERS):
            won = int(st.hands_won[0, p])
            parts.append(f"{self.names[p]} {int(st.scores[0, p])} ({_n(won, 'hand')} won)")
        return "score: " + " · ".join(parts) + f" · target {st.config.target}"

    def header(self) -> str:
        st = self.state
        return self.rule(f"Hand {int(st.hand_no[0]) + 1} · dealer: {self.names[int(st.dealer[0])]}")

    def hand_line(self) -> str:
        st = self.state
        held = st.hands[0, self.human]
        dw = int(M.deadwood(held[None])[0])
        line = f"{self.names[self.human]}: {self.grouped(held)}   deadwood {dw}"
        if st.phase[0] == gin.PHASE_DISCARD:
            after = M.deadwood_after_discard(held[None])[0]
            best = int(after.min())
            line += f" (lowest after a discard: {best}{', you can knock' if best <= st.config.knock_limit else ''})"
        return line

    def view(self) -> str:
        st = self.state
        o = self._opp()
        known = np.flatnonzero(st.known[0, o])
        k_txt = f", holds {self.cards(known)} (taken from the pile)" if known.size else ""
        return "\n".join([
            self._score_line(),
            f"stock: {_n(int(st.stock_size[0]), 'card')} · {self.pile_text()}",
            f"{self.names[o]}: {int(st.hands[0, o].sum())} cards{k_txt}",
            self.hand_line(),
        ])

    def prompt(self) -> str:
        st = self.state
        ph = int(st.phase[0])
        if ph == gin.PHASE_OFFER:
            return f"(upcard {self.card(self.top())}) t take · p pass · ? moves > "
        if ph == gin.PHASE_DRAW:
            if st.must_draw_stock[0]:
                return "(draw) d stock (both passed the upcard) · ? moves > "
            return f"(draw) d stock · t take {self.card(self.top())} · ? moves > "
        knock = st.mask[0, gin.KNOCK:gin.BIG_GIN].any()
        return "(discard) x <card> discard" + (" · k <card> knock" if knock else "") + " · ? moves > "

    def legal_moves(self) -> list[Move]:
        st = self.state
        held = st.hands[0, self.human]
        after = M.deadwood_after_discard(held[None])[0]
        offer = st.phase[0] == gin.PHASE_OFFER
        moves = []
        for a in np.flatnonzero(st.mask[0]):
            a = int(a)
            if a == gin.DRAW_STOCK:
                moves.append(Move(a, "d", "draw from the stock"))
            elif a == gin.TAKE_DISCARD:
                what = f"take the upcard {self.card(self.top())}" if offer else \
                    f"take {self.card(self.top())} from the discard pile"
                moves.append(Move(a, "t", what))
            elif a == gin.PASS:
                moves.append(Move(a, "p", f"pass the upcard {self.card(self.top())}"))
            elif gin.DISCARD <= a < gin.KNOCK:
                c = a - gin.DISCARD
                moves.append(Move(a, f"x {card_str(c)}", f"discard {self.card(c)} (deadwood {int(after[c])})"))
            elif gin.KNOCK <= a < gin.BIG_GIN:
                c = a - gin.KNOCK
                kind = "go gin" if after[c] == 0 else f"knock with {int(after[c])}"
                moves.append(Move(a, f"k {card_str(c)}", f"{kind}, discarding {self.card(c)}"))
            elif a == gin.BIG_GIN:
                moves.append(Move(a, "g", "big gin: all eleven cards melded"))
        return moves

    def parse_move(self, cmd: str, args: list[str]) -> int:
        st = self.state
        ph = int(st.phase[0])
        top = self.card(self.top()) if self.top() >= 0 else "-"
        drawn = "you have drawn already: discard (x <card>) or knock (k <card>)"
        if cmd in ("d", "t", "p", "g") and args:
            raise Refused(f"'{cmd}' takes nothing after it")
        if cmd == "d":
            if ph == gin.PHASE_OFFER:
                raise Refused(f"the upcard {top} is on offer: take it (t) or pass (p) first (G-2)")
            if ph == gin.PHASE_DISCARD:
                raise Refused(drawn)
            return gin.DRAW_STOCK
        if cmd == "t":
            if ph == gin.PHASE_DISCARD:
                raise Refused(drawn)
            if st.must_draw_stock[0]:
                raise Refused("both players passed the upcard: you must draw from the stock (d) (G-2)")
            return gin.TAKE_DISCARD
        if cmd == "p":
            if ph != gin.PHASE_OFFER:
                raise Refused("you can pass only when the upcard is offered at the start of a hand (G-2)")
            return gin.PASS
        if cmd in ("x", "k"):
            c = self.one_card(cmd, args, "discard" if cmd == "x" else "knock with that final discard")
            if ph == gin.PHASE_OFFER:
                raise Refused(f"first take the upcard {top} (t) or pass (p) (G-2)")
            if ph == gin.PHASE_DRAW:
                raise Refused("draw first: d (stock)" + ("" if st.must_draw_stock[0] else f" or t (take {top})"))
            if not self.held(c):
                raise self.not_held(c)
            if st.config.forbid_taken_discard and int(st.taken[0]) == c:
                raise Refused(f"you took {self.card(c)} from the discard pile this turn: "
                              f"you may not discard it in the same turn (C-4)")
            if cmd == "x":
                return gin.DISCARD + c
            dw = int(M.deadwood_after_discard(st.hands[0, self.human][None])[0, c])
            if dw > st.config.knock_limit:
                raise Refused(f"you cannot knock discarding {self.card(c)}: your deadwood would be {dw}, "
                              f"the knock limit is {st.config.knock_limit} (G-6)")
            return gin.KNOCK + c
        if cmd == "g":
            if st.config.big_gin_bonus is None:
                raise Refused("big gin is not played with these rules (rule option big_gin_bonus)")
            if ph != gin.PHASE_DISCARD:
                raise Refused("big gin needs eleven cards: draw first")
            if not st.mask[0, gin.BIG_GIN]:
                raise Refused("your eleven cards do not all fit in melds (G-7)")
            return gin.BIG_GIN
        raise Refused(f"unknown command {cmd!r}: {self.commands_help} · ? lists the legal moves")

    def describe(self, p: int, action: int, before: dict) -> str:
        st = self.state
        if action == gin.DRAW_STOCK:
            if p == self.human:
                new = np.flatnonzero(st.hands[0, p] & ~before["hand"])
                return f"you draw {self.cards(new)} from the stock"
            return self.verb(p, "draws") + " from the stock"
        if action == gin.TAKE_DISCARD:
            return self.verb(p, "takes") + f" {self.card(before['top'])}"
        if action == gin.PASS:
            return self.verb(p, "passes", "pass") + f" on the upcard {self.card(before['top'])}"
        if gin.DISCARD <= action < gin.KNOCK:
            return self.verb(p, "discards") + f" {self.card(action - gin.DISCARD)}"
        if gin.KNOCK <= action < gin.BIG_GIN:
            what = self.verb(p, "goes", "go") + " gin" if st.last_end[0] == gin.END_GIN else self.verb(p, "knocks")
            return f"{what}, discarding {self.card(action - gin.KNOCK)}"
        return self.verb(p, "goes", "go") + " big gin"

    def round_end_lines(self) -> list[str]:
        st = self.state
        end = int(st.last_end[0])
        k, w = int(st.last_knocker[0]), int(st.last_winner[0])
        dw = [int(x) for x in st.last_deadwood[0]]
        pts = int(st.last_points[0])
        laid = np.flatnonzero(st.last_laid_off[0])
        if end in (gin.END_KNOCK, gin.END_UNDERCUT, gin.END_GIN, gin.END_BIG_GIN):
            d = 1 - k
            if end in (gin.END_KNOCK, gin.END_UNDERCUT):
                lay = f" after laying off {self.cards(laid)}" if laid.size else ""
                what = f"{self.verb(k, 'knocked', 'knocked')} with {dw[k]}; {self.verb(d, 'has', 'have')} {dw[d]}{lay}"
            else:
                kind = "big gin" if end == gin.END_BIG_GIN else "gin"
                what = f"{self.verb(k, 'went', 'went')} {kind}; {self.verb(d, 'has', 'have')} {dw[d]} (no lay-offs)"
            how = f"{self.conj(w, 'undercuts')} and " if end == gin.END_UNDERCUT else ""
            what += f" → {self.names[w]} {how}{self.conj(w, 'scores')} {pts}"
        elif end == gin.END_DEAD:
            what = f"dead hand: the stock is down to {st.config.stock_floor} cards (G-10); nobody scores"
        else:
            what = f"the hand was cut off after {st.config.max_actions} actions (G-10a); nobody scores"
        lines = [self.rule(f"Hand {self._ended_hand_no()} over"), what]
        width = max(len(n) for n in self.names)
        for q in range(gin.NUM_PLAYERS):
            held = st.last_hands[0, q].copy()
            extra = ""
            if end in (gin.END_KNOCK, gin.END_UNDERCUT) and q != k and laid.size:
                held &= ~st.last_laid_off[0]
                extra = f"  + laid off {self.cards(laid)}"
            tag = " (knocker)" if q == k else ""
            lines.append(f"  {self.names[q]:<{width}}  {self.grouped(held, st.last_meld_id[0, q])}{extra}"
                         f"   deadwood {dw[q]}{tag}")
        lines.append(self._score_line())
        return lines

    def _ended_hand_no(self) -> int:
        """The number (from 1) of the hand that just ended: the next one is already dealt
        unless the game is over."""
        st = self.state
        return int(st.hand_no[0]) + (1 if st.game_over[0] else 0)

    def game_end_lines(self) -> list[str]:
        st = self.state
        return [self.rule("Game over"), *render.gin_game_result_lines(st, 0, self.names, you=self.human)]


# --------------------------------------------------------------------------------------
# Rummy
# --------------------------------------------------------------------------------------
#: a meld of the catalogue by its cards
_MELD_INDEX = {frozenset(m): i for i, m in enumerate(M.MELDS)}


class RummySession(Session):
    engine = rummy
    ended_field = "round_ended"
    round_word = "round"
    commands_help = "d draw · t take · m <cards> meld · l <card> <meld> lay off · x <card> discard"

    def _score_line(self) -> str:
        st = self.state
        return ("score: " + " · ".join(f"{self.names[p]} {int(st.scores[0, p])}" for p in range(st.num_players))
                + f" · target {st.config.target}")

    def header(self) -> str:
        st = self.state
        return self.rule(f"Round {int(st.round_no[0]) + 1} · dealer: {self.names[int(st.dealer[0])]}")

    def _slot_text(self, table_slot, table_by, laid_off, slot_owner, k: int) -> str:
        on = table_slot == k
        base = np.flatnonzero(on & ~laid_off)
        txt = f"#{k} {self.names[int(slot_owner[k])]}: [{self.cards(base)}]"
        extra = np.flatnonzero(on & laid_off)
        if extra.size:
            txt += " + " + ", ".join(f"{self.card(c)} by {self.names[int(table_by[c])]}"
                                     for c in sorted(extra, key=sort_key))
        return txt

    def _table_lines(self, table_slot, table_by, laid_off, slot_owner) -> list[str]:
        n = int((slot_owner >= 0).sum())
        if not n:
            return ["table: no melds yet"]
        lines = ["table:"]
        lines += [f"  {self._slot_text(table_slot, table_by, laid_off, slot_owner, k)}" for k in range(n)]
        return lines

    def hand_line(self) -> str:
        st = self.state
        held = st.hands[0, self.human]
        arr = M.best_melds(held[None])
        value = int(VALUE[held].sum())
        return (f"{self.names[self.human]}: {self.grouped(held, arr.meld_id[0])}   "
                f"({_n(int(held.sum()), 'card')}, value {value}, {int(arr.deadwood[0])} outside melds)")

    def view(self) -> str:
        st = self.state
        cfg = st.config
        left = cfg.stock_passes - int(st.passes[0])
        renew = (f"the pile can be turned over {'once more' if left == 1 else f'{left} more times'}" if left > 0
                 else "the pile cannot be turned over again")
        others = []
        for q in range(st.num_players):
            if q == self.human:
                continue
            tag = " (has melded)" if st.melded[0, q] else ""
            known = np.flatnonzero(st.known[0, q])
            k_txt = f", holds {self.cards(known)}" if known.size else ""
            others.append(f"{self.names[q]} {_n(int(st.hand_size[0, q]), 'card')}{tag}{k_txt}")
        lines = [self._score_line(),
                 f"stock: {_n(int(st.stock_size[0]), 'card')} ({renew}) · {self.pile_text()}",
                 "others: " + " · ".join(others)]
        lines += self._table_lines(st.table_slot[0], st.table_by[0], st.laid_off[0], st.slot_owner[0])
        lines.append(self.hand_line())
        return "\n".join(lines)

    def prompt(self) -> str:
        st = self.state
        if st.phase[0] == rummy.PHASE_DRAW:
            take = f" · t take {self.card(self.top())}" if st.mask[0, rummy.TAKE_DISCARD] else ""
            stock = "d stock" if st.mask[0, rummy.DRAW_STOCK] else "stock used up"
            return f"(draw) {stock}{take} · ? moves > "
        mask = st.mask[0]
        parts = []
        if mask[rummy.MELD:rummy.LAYOFF].any():
            parts.append("m <cards> meld")
        if mask[rummy.LAYOFF:].any():
            parts.append("l <card> <meld> lay off")
        parts.append("x <card> discard")
        return "(play) " + " · ".join(parts) + " · ? moves > "

    def legal_moves(self) -> list[Move]:
        st = self.state
        moves, discards = [], []
        for a in np.flatnonzero(st.mask[0]):
            a = int(a)
            if a == rummy.DRAW_STOCK:
                renew = " (the discard pile is turned over first, R-7)" if st.stock_size[0] == 0 else ""
                moves.append(Move(a, "d", "draw from the stock" + renew))
            elif a == rummy.TAKE_DISCARD:
                moves.append(Move(a, "t", f"take {self.card(self.top())} from the discard pile"))
            elif rummy.DISCARD <= a < rummy.MELD:
                c = a - rummy.DISCARD
                discards.append(Move(a, f"x {card_str(c)}", f"discard {self.card(c)}"))
            elif rummy.MELD <= a < rummy.LAYOFF:
                meld = sorted(M.MELDS[a - rummy.MELD], key=sort_key)
                moves.append(Move(a, "m " + " ".join(card_str(c) for c in meld), f"meld {self.cards(meld)}"))
            else:
                k, c = divmod(a - rummy.LAYOFF, NUM_CARDS)
                moves.append(Move(a, f"l {card_str(c)} {k}", f"lay off {self.card(c)} onto meld #{k}"))
        return moves + discards

    def parse_move(self, cmd: str, args: list[str]) -> int:
        st = self.state
        play = st.phase[0] == rummy.PHASE_PLAY
        drawn = "you have drawn already: meld (m <cards>), lay off (l <card> <meld>) or discard (x <card>)"
        draw_first = "draw first: d (stock) or t (take the top discard) (R-3)"
        if cmd in ("d", "t") and args:
            raise Refused(f"'{cmd}' takes nothing after it")
        if cmd == "d":
            if play:
                raise Refused(drawn)
            if not st.mask[0, rummy.DRAW_STOCK]:
                raise Refused("the stock is used up and the discard pile may not be turned over again (R-7): "
                              "take the top discard (t)")
            return rummy.DRAW_STOCK
        if cmd == "t":
            if play:
                raise Refused(drawn)
            if not st.mask[0, rummy.TAKE_DISCARD]:
                raise Refused("the discard pile is empty: draw from the stock (d)")
            return rummy.TAKE_DISCARD
        if cmd == "x":
            c = self.one_card(cmd, args, "discard")
            if not play:
                raise Refused(draw_first)
            if not self.held(c):
                raise self.not_held(c)
            if st.config.forbid_taken_discard and int(st.taken[0]) == c and st.hand_size[0, self.human] > 1:
                raise Refused(f"you took {self.card(c)} from the discard pile this turn: you may not discard "
                              f"it in the same turn unless it is your last card (R-5)")
            return rummy.DISCARD + c
        if cmd == "m":
            if len(args) < 3:
                raise Refused("'m' takes the cards of the meld, at least three, e.g. 'm Qc Qs Qh'")
            try:
                cards = [parse_card(a) for a in args]
            except ValueError as e:
                raise Refused(str(e)) from None
            if len(set(cards)) != len(cards):
                raise Refused("a card is named twice")
            if not play:
                raise Refused(draw_first)
            for c in cards:
                if not self.held(c):
                    raise self.not_held(c)
            m = _MELD_INDEX.get(frozenset(cards))
            if m is None:
                raise Refused(f"{self.cards(cards)} is not a meld: a set is 3 or 4 cards of one rank, a run 3 or "
                              f"more cards of one suit in sequence, Ace low, no wrapping (C-1, C-3)")
            return rummy.MELD + m
        if cmd == "l":
            if len(args) != 2:
                raise Refused("'l' takes a card and a table meld number, e.g. 'l 5h 2'")
            try:
                c = parse_card(args[0])
            except ValueError as e:
                raise Refused(str(e)) from None
            slot = args[1].lstrip("#")
            if not slot.isdigit():
                raise Refused(f"{args[1]!r} is not a table meld number (the numbers after # on the table)")
            k = int(slot)
            if not play:
                raise Refused(draw_first)
            if not self.held(c):
                raise self.not_held(c)
            n = int(st.n_melds[0])
            if n == 0:
                raise Refused("there are no melds on the table yet")
            if k >= n:
                raise Refused(f"there is no table meld #{k}: the table has #0..#{n - 1}")
            if not st.melded[0, self.human]:
                raise Refused("you may lay off only after laying down a meld of your own this round (R-4)")
            fits = [int(e) for e in st.slot_ext[0, k] if e >= 0]
            if c not in fits:
                takes = f"it takes {self.cards(fits)}" if fits else "it takes no more cards"
                raise Refused(f"{self.card(c)} does not fit meld #{k}: {takes} (C-1, C-3)")
            return rummy.LAYOFF + k * NUM_CARDS + c
        raise Refused(f"unknown command {cmd!r}: {self.commands_help} · ? lists the legal moves")

    def snapshot(self) -> dict:
        st = self.state
        return {**super().snapshot(), "n_melds": int(st.n_melds[0]), "passes": int(st.passes[0])}

    def describe(self, p: int, action: int, before: dict) -> str:
        st = self.state
        if action == rummy.DRAW_STOCK:
            turned = ("the discard pile is turned over as the new stock (R-7); "
                      if not st.round_ended[0] and int(st.passes[0]) > before["passes"] else "")
            if p == self.human:
                new = np.flatnonzero(st.hands[0, p] & ~before["hand"])
                return f"{turned}you draw {self.cards(new)} from the stock"
            return turned + self.verb(p, "draws") + " from the stock"
        if action == rummy.TAKE_DISCARD:
            return self.verb(p, "takes") + f" {self.card(before['top'])}"
        if rummy.DISCARD <= action < rummy.MELD:
            return self.verb(p, "discards") + f" {self.card(action - rummy.DISCARD)}"
        if rummy.MELD <= action < rummy.LAYOFF:
            meld = M.MELDS[action - rummy.MELD]
            return self.verb(p, "melds") + f" [{self.cards(meld)}] (table meld #{before['n_melds']})"
        k, c = divmod(action - rummy.LAYOFF, NUM_CARDS)
        return self.verb(p, "lays", "lay") + f" off {self.card(c)} onto meld #{k}"

    def round_end_lines(self) -> list[str]:
        st = self.state
        info = rummy.round_info(st, 0)
        end = int(st.last_end[0])
        w = info["winner"]
        if end == rummy.END_OUT:
            what = (f"{self.verb(w, 'goes', 'go')} out and {self.conj(w, 'scores')} {info['points']} "
                    f"(the cards left in the other hands, R-8)")
        elif end == rummy.END_DRAWN:
            what = "the round is a draw: the last stock card was drawn and nobody went out (R-7); nobody scores"
        else:
            what = f"the round was cut off after {st.config.action_cap} actions (move cap); nobody scores"
        lines = [self.rule(f"Round {info['round'] + 1} over"), what]
        width = max(len(n) for n in self.names)
        for q in range(st.num_players):
            held = st.last_hands[0, q]
            txt = self.cards(np.flatnonzero(held)) if held.any() else "(out)"
            lines.append(f"  {self.names[q]:<{width}}  {txt}   value {info['hand_values'][q]}")
        lines += self._table_lines(st.last_table_slot[0], st.last_table_by[0], st.last_laid_off[0],
                                   st.last_slot_owner[0])
        lines.append(self._score_line())
        return lines

    def game_end_lines(self) -> list[str]:
        st = self.state
        info = rummy.game_info(st, 0)
        lines = [self.rule("Game over")]
        if info["winner"] < 0:
            lines.append(f"no winner: the game was cut off after {info['rounds_played']} rounds (max_rounds)")
        else:
            w = info["winner"]
            n = info["rounds_played"]
            lines.append(f"{self.verb(w, 'wins')} with {info['scores'][w]} points after {_n(n, 'round')} "
                         f"({info['rounds_won'][w]} won)")
        order = sorted(range(st.num_players), key=lambda q: -info["scores"][q])
        lines.append("final: " + " · ".join(f"{self.names[q]} {info['scores'][q]}" for q in order))
        return lines


# --------------------------------------------------------------------------------------
# The game loop
# --------------------------------------------------------------------------------------
def play(session: Session, inp=None, out=None) -> int:
    """Run the game to its end, reading your moves from ``inp`` line by line and writing to
    ``out``. Returns the exit status: 0 (game over, ``q`` or end of input)."""
    inp = inp if inp is not None else sys.stdin
    out = out if out is not None else sys.stdout
    st = session.state
    eng = session.engine

    def write(text: str) -> None:
        out.write(text if session.symbols else text.translate(ASCII))
        out.flush()

    def say(text: str) -> None:
        write(text + "\n")

    say(session.header())
    show = "full"  # what to show before your next prompt: the whole table, your hand, or nothing
    obs = None
    while not st.game_over[0]:
        p = int(st.current[0])
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
            obs = eng.observe(st, out=obs)
            action = int(session.agent.act(obs, st.mask)[0])
        before = session.snapshot()
        eng.step(st, np.array([action], np.int64), inplace=True)
        say(("  " if p != session.human else "  > ") + session.describe(p, action, before))
        if getattr(st, session.ended_field)[0]:
            say("\n".join(session.round_end_lines()))
            if not st.game_over[0]:
                say(session.header())
            show = "full"
        elif p == session.human:
            show = "hand" if int(st.current[0]) == p else "full"
        else:
            show = "full"
    say("\n".join(session.game_end_lines()))
    return 0


# --------------------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------------------
def opponent_label(spec: str) -> str:
    """A baseline's name, or ``folder/file`` of a checkpoint (as evaluate.py labels them)."""
    p = Path(spec)
    if spec.endswith(".pt") or "/" in spec or "\\" in spec:
        return f"{p.parent.name}/{p.stem}".lstrip("/")
    return spec


def can_encode(stream, text: str) -> bool:
    enc = getattr(stream, "encoding", None) or "ascii"
    try:
        text.encode(enc)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def make_session(game: str, opponent: str | Agent = "simple", seat: int = 0, players: int | None = None,
                 seed: int = 0, options: dict | None = None, symbols: bool = True,
                 decks=None, dealers=None) -> Session:
    """A game to play: the engine state (one game, dealt from ``seed`` or from explicit
    ``decks`` / ``dealers`` as the engine's ``init`` takes them), the opponent agent and the
    seat names. Raises ``ValueError`` naming a bad argument."""
    options = dict(options or {})
    if game == "gin":
        if players not in (None, 2):
            raise ValueError(f"Gin Rummy is played by 2 players, not {players}")
        config = gin.GinConfig.from_dict({"episode": "game", **options})
        P, eng = gin.NUM_PLAYERS, gin
    elif game == "rummy":
        P = 4 if players is None else players
        config = rummy.RummyConfig.from_dict({"episode": "game", **options, "num_players": P})
        eng = rummy
    else:
        raise ValueError(f"unknown game {game!r}; choose 'gin' or 'rummy'")
    if not 0 <= seat < P:
        raise ValueError(f"--seat must be in 0..{P - 1} for {P} players, got {seat}")
    agent = load_agent(opponent, game=game, seed=seed)
    agent.reset(seed=seed)
    label = agent.name if isinstance(opponent, Agent) else opponent_label(opponent)
    if P == 2:
        names = [label, label]
    else:
        names = [f"{label}-{q}" for q in range(P)]
    names[seat] = "you"
    state = eng.init(1, seed=seed, config=config, decks=decks, dealers=dealers)
    cls = GinSession if game == "gin" else RummySession
    return cls(state, agent, names, seat, symbols=symbols)


def main(argv=None, inp=None, out=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m rummyrl.agents.play", description="Play against a rummyrl agent.",
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--game", default="gin", choices=["gin", "rummy"])
    ap.add_argument("--opponent", default="expert",
                    help="a baseline (random, simple, expert) or a checkpoint path (default expert)")
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
        if args.game == "gin" and args.players not in (None, 2):
            raise ValueError(f"--players: Gin Rummy is played by 2 players, not {args.players}")
        symbols = not args.ascii and can_encode(out, "♠♥♦♣─·→…")
        session = make_session(args.game, args.opponent, seat=args.seat, players=args.players, seed=seed,
                               options=options, symbols=symbols)
    except (ValueError, FileNotFoundError, KeyError) as e:
        msg = e.args[0] if isinstance(e, KeyError) and e.args else e
        print(f"play: error: {msg}", file=sys.stderr)
        return 2
    cfg = session.state.config
    others = len(session.names) - 1
    out.write(f"{'Gin Rummy' if args.game == 'gin' else 'Rummy'} to {cfg.target} against "
              f"{opponent_label(args.opponent)}{f' (x{others})' if others > 1 else ''}; you are seat {args.seat}. "
              f"Seed {seed} (replay with --seed {seed}). Type ? for your legal moves, q to quit.\n")
    try:
        return play(session, inp, out)
    except KeyboardInterrupt:
        out.write("\ninterrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
