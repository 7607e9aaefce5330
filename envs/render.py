"""Text rendering of the games for the environments' ``render_mode="ansi"`` / ``"human"``.

A hand is shown sorted and grouped into its best melds (``[A♠ 2♠ 3♠] [7♦ 7♣ 7♥] · 4♥ K♠``:
melds in brackets, then the unmatched cards by suit and rank). The helpers that format
cards and melds are game-independent; :func:`render_gin` draws one Gin Rummy game of a batch.
"""

from __future__ import annotations

import numpy as np

from rummyrl import gin
from rummyrl import melds as M
from rummyrl.cards import card_str, sort_key

RULE = "─" * 64


def cards_text(cards) -> str:
    """Card ids as ``"A♠ 2♠ 3♠"``, in the order given."""
    return " ".join(card_str(c, symbols=True) for c in cards)


def sorted_cards(cards) -> list[int]:
    """Card ids sorted by suit, then rank."""
    return sorted((int(c) for c in cards), key=sort_key)


def grouped_text(meld_id: np.ndarray, held: np.ndarray, extra: str = "") -> str:
    """A hand as its melds in brackets, ``extra`` (e.g. lay-offs), then its other cards.

    ``meld_id``: ``(52,)`` meld number of each card, -1 for none (``Arrangement.meld_id``);
    ``held``: ``(52,)`` bool, the cards of the hand.
    """
    groups = []
    for j in range(int(meld_id.max(initial=-1)) + 1):
        cards = np.flatnonzero(meld_id == j)
        if cards.size:
            groups.append("[" + cards_text(sorted_cards(cards)) + "]")
    loose = sorted_cards(np.flatnonzero(held & (meld_id < 0)))
    parts = [" ".join(groups)] if groups else []
    if extra:
        parts.append(extra)
    parts.append("· " + (cards_text(loose) if loose else "-"))
    return " ".join(parts)


def _hands_won(n: int) -> str:
    return f"{n} hand{'' if n == 1 else 's'} won"


def _hand_end_lines(state: gin.GinState, b: int, names) -> list[str]:
    """How the last hand of game ``b`` ended: the result, both hands, the score line."""
    end = int(state.last_end[b])
    k, w = int(state.last_knocker[b]), int(state.last_winner[b])
    dw = state.last_deadwood[b]
    pts = int(state.last_points[b])
    laid = np.flatnonzero(state.last_laid_off[b])
    if end in (gin.END_KNOCK, gin.END_UNDERCUT):
        d = 1 - k
        lay = f" after laying off {cards_text(sorted_cards(laid))}" if laid.size else ""
        verdict = (f"{names[w]} undercuts and scores {pts}" if end == gin.END_UNDERCUT
                   else f"{names[w]} scores {pts}")
        what = f"{names[k]} knocked with {dw[k]}; {names[d]} has {dw[d]}{lay} → {verdict}"
    elif end in (gin.END_GIN, gin.END_BIG_GIN):
        d = 1 - k
        kind = "big gin" if end == gin.END_BIG_GIN else "gin"
        what = f"{names[k]} went {kind}; {names[d]} has {dw[d]} (no lay-offs) → {names[w]} scores {pts}"
    elif end == gin.END_DEAD:
        what = f"dead hand: the stock is down to {state.config.stock_floor} cards (G-10); nobody scores"
    else:
        what = f"hand cut off after {state.config.max_actions} actions (G-10a); nobody scores"
    lines = [RULE, f"Hand ended: {what}"]
    width = max(len(n) for n in names)
    for p in range(gin.NUM_PLAYERS):
        held = state.last_hands[b, p]
        is_defender = end in (gin.END_KNOCK, gin.END_UNDERCUT) and p != k
        extra = ""
        if is_defender and laid.size:
            extra = f"+ laid off {cards_text(sorted_cards(laid))}"
            held = held & ~state.last_laid_off[b]
        tag = " (knocker)" if p == k else ""
        lines.append(f"  {names[p]:<{width}} {grouped_text(state.last_meld_id[b, p], held, extra)}"
                     f"   deadwood {dw[p]}{tag}")
    s = state.scores[b]
    lines.append("  score: " + " · ".join(f"{names[p]} {int(s[p])}" for p in range(gin.NUM_PLAYERS)))
    return lines


def _game_end_lines(state: gin.GinState, b: int, names) -> list[str]:
    info = gin.game_info(state, b)
    if info["winner"] < 0:
        why = ("the one-hand episode ended without a winner" if state.config.episode == "hand"
               else f"the game was cut off after {info['hands_played']} hands (max_hands)")
        return [RULE, f"Game over: no winner ({why})"]
    w, l = info["winner"], 1 - info["winner"]
    lines = [RULE, f"Game over: {names[w]} wins {info['total'][w]} to {info['total'][l]} "
                   f"(margin {info['margin']}, G-19)"]
    if state.config.episode == "game":
        for p in (w, l):
            items = [f"hand points {info['hand_points'][p]}"]
            if info["shutout_points"][p]:
                items.append(f"shutout doubling +{info['shutout_points'][p]}")
            if info["game_bonus"][p]:
                items.append(f"game bonus +{info['game_bonus'][p]}")
            if info["box_bonus"][p]:
                items.append(f"box bonus +{info['box_bonus'][p]} ({_hands_won(info['hands_won'][p])})")
            lines.append(f"  {names[p]}: " + ", ".join(items) + f" = {info['total'][p]}")
    return lines


def render_gin(state: gin.GinState, b: int = 0, names=("player_0", "player_1"),
               hand_ended: bool | None = None) -> str:
    """A text table of game ``b``: scores, stock, discard pile, both hands grouped into their
    best melds and whose turn it is; after a hand ended (``hand_ended``, default
    ``state.hand_ended[b]``) the revealed hands with melds and lay-offs and the score line,
    and at the end of the episode the final totals."""
    if hand_ended is None:
        hand_ended = bool(state.hand_ended[b])
    cfg = state.config
    lines = []
    if hand_ended:
        lines += _hand_end_lines(state, b, names)
    if state.game_over[b]:
        lines += _game_end_lines(state, b, names)
        return "\n".join(lines)
    dealer = int(state.dealer[b])
    cur = int(state.current[b])
    phase = gin.PHASE_NAMES[state.phase[b]]
    if hand_ended:
        lines.append(RULE)
    episode = f"game to {cfg.target}" if cfg.episode == "game" else "one hand"
    lines.append(f"Gin Rummy ({episode}) · hand {int(state.hand_no[b]) + 1} · dealer {names[dealer]}")
    lines.append("score: " + " · ".join(
        f"{names[p]} {int(state.scores[b, p])} ({_hands_won(int(state.hands_won[b, p]))})"
        for p in range(gin.NUM_PLAYERS)))
    n = int(state.pile_len[b])
    pile = state.pile[b, :n]
    if n:
        under = pile[:-1][::-1][:5]
        under_txt = f" (below: {cards_text(under)}{' …' if n > 6 else ''})" if under.size else ""
        pile_txt = f"top {card_str(int(pile[-1]), symbols=True)}{under_txt}"
    else:
        pile_txt = "empty"
    lines.append(f"stock: {int(state.stock_size[b])} cards · discard pile ({n}): {pile_txt}")
    arr = M.best_melds(state.hands[b])
    width = max(len(x) for x in names)
    for p in range(gin.NUM_PLAYERS):
        held = state.hands[b, p]
        turn = ""
        if p == cur:
            what = {"OFFER": "take the upcard or pass", "DRAW": "draw", "DISCARD": "discard or knock"}[phase]
            if state.must_draw_stock[b]:
                what = "draw from the stock (both passed the upcard)"
            turn = f"   ← to act: {what}"
        lines.append(f"{names[p]:<{width}} {grouped_text(arr.meld_id[p], held)}"
                     f"   deadwood {int(arr.deadwood[p])}{turn}")
    return "\n".join(lines)


__all__ = ["cards_text", "grouped_text", "render_gin", "sorted_cards"]
