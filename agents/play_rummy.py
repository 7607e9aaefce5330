"""Rummy in the terminal game: its moves, commands, table and round-end summaries.

:class:`RummySession` is the :class:`~.play_session.Session` of the Rummy engine: draws,
melds, lay-offs onto the numbered table melds and discards, each command refused with the
rule that forbids it (R-…, C-… ids of ``docs/rules.md``), and the end of each round with
every hand, the table and the score.
"""

from __future__ import annotations

import numpy as np

from rummyrl import melds as M
from rummyrl import games, rummy
from rummyrl.cards import NUM_CARDS, VALUE, card_str, parse_card, sort_key

from .play_session import Move, Refused, Session, plural

#: a meld of the catalogue by its cards
_MELD_INDEX = {frozenset(m): i for i, m in enumerate(M.MELDS)}


class RummySession(Session):
    engine = rummy
    game = games.get("rummy")
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
                f"({plural(int(held.sum()), 'card')}, value {value}, {int(arr.deadwood[0])} outside melds)")

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
            others.append(f"{self.names[q]} {plural(int(st.hand_size[0, q]), 'card')}{tag}{k_txt}")
        lines = [self._score_line(),
                 f"stock: {plural(int(st.stock_size[0]), 'card')} ({renew}) · {self.pile_text()}",
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
            lines.append(f"{self.verb(w, 'wins')} with {info['scores'][w]} points after {plural(n, 'round')} "
                         f"({info['rounds_won'][w]} won)")
        order = sorted(range(st.num_players), key=lambda q: -info["scores"][q])
        lines.append("final: " + " · ".join(f"{self.names[q]} {info['scores'][q]}" for q in order))
        return lines
