"""Gin Rummy in the terminal game: its moves, commands, table and hand-end summaries.

:class:`GinSession` is the :class:`~.play_session.Session` of the Gin Rummy engine: the
upcard offer, draws, discards, knocks and gin, each command refused with the rule that
forbids it (G-…, C-… ids of ``docs/rules.md``), and the showdown of both hands with lay-offs
and the score.
"""

from __future__ import annotations

import numpy as np

from rummyrl import games, gin
from rummyrl import melds as M
from rummyrl.cards import card_str
from rummyrl.envs import render

from .play_session import Move, Refused, Session, plural


class GinSession(Session):
    engine = gin
    game = games.get("gin")
    commands_help = "d draw · t take · p pass · x <card> discard · k <card> knock"

    def _opp(self) -> int:
        return 1 - self.human

    def _score_line(self) -> str:
        st = self.state
        parts = []
        for p in range(gin.NUM_PLAYERS):
            won = int(st.hands_won[0, p])
            parts.append(f"{self.names[p]} {int(st.scores[0, p])} ({plural(won, 'hand')} won)")
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
            f"stock: {plural(int(st.stock_size[0]), 'card')} · {self.pile_text()}",
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
