"""Text rendering of the games for the environments' ``render_mode="ansi"`` / ``"human"``.

A hand is shown sorted and grouped into its best melds (``[A♠ 2♠ 3♠] [7♦ 7♣ 7♥] · 4♥ K♠``:
melds in brackets, then the unmatched cards by suit and rank). The helpers that format
cards and melds are game-independent; :func:`render_gin` draws one Gin Rummy game of a
batch, :func:`render_rummy` one Rummy game (its table melds with their owners and
lay-offs, every hand, and how each round ended).
"""

from __future__ import annotations

import numpy as np

from rummyrl import games, gin, rummy
from rummyrl import melds as M
from rummyrl.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS, VALUE, card_str, sort_key

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


def _won(n: int, deal: str = "hand") -> str:
    return f"{n} {deal}{'' if n == 1 else 's'} won"


def _pile_text(state, b: int) -> str:
    """``"discard pile (5): top 7♦ (below: 2♣ K♥ …)"``."""
    n = int(state.pile_len[b])
    pile = state.pile[b, :n]
    if n:
        under = pile[:-1][::-1][:5]
        under_txt = f" (below: {cards_text(under)}{' …' if n > 6 else ''})" if under.size else ""
        return f"discard pile ({n}): top {card_str(int(pile[-1]), symbols=True)}{under_txt}"
    return f"discard pile ({n}): empty"


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


def gin_game_result_lines(state: gin.GinState, b: int, names, you: int | None = None) -> list[str]:
    """The end of a Gin Rummy game: who won by how much, then each player's total with the
    bonuses itemized (G-16 .. G-19). ``you`` is the seat addressed as "you" (its verb reads
    "win"), if any."""
    info = gin.game_info(state, b)
    if info["winner"] < 0:
        why = ("the one-hand episode ended without a winner" if state.config.episode == "hand"
               else f"the game was cut off after {info['hands_played']} hands (max_hands)")
        return [f"no winner ({why})"]
    w, lo = info["winner"], 1 - info["winner"]
    verb = "win" if w == you else "wins"
    lines = [f"{names[w]} {verb} {info['total'][w]} to {info['total'][lo]} (margin {info['margin']}, G-19)"]
    if state.config.episode == "game":
        for p in (w, lo):
            items = [f"hand points {info['hand_points'][p]}"]
            if info["shutout_points"][p]:
                items.append(f"shutout doubling +{info['shutout_points'][p]} (G-18)")
            if info["game_bonus"][p]:
                items.append(f"game bonus +{info['game_bonus'][p]} (G-16)")
            if info["box_bonus"][p]:
                items.append(f"box bonus +{info['box_bonus'][p]} for {_won(info['hands_won'][p])} (G-17)")
            lines.append(f"  {names[p]}: " + ", ".join(items) + f" = {info['total'][p]}")
    return lines


def _game_end_lines(state: gin.GinState, b: int, names) -> list[str]:
    first, *rest = gin_game_result_lines(state, b, names)
    return [RULE, f"Game over: {first}", *rest]


def _framed(state, b: int, names, deal_ended: bool, deal_end_lines, game_end_lines, table_lines) -> str:
    """The frame both games share: how the last deal ended (when ``deal_ended``), then the
    end of the episode or the table of the next deal."""
    lines = deal_end_lines(state, b, names) if deal_ended else []
    if state.game_over[b]:
        return "\n".join(lines + game_end_lines(state, b, names))
    if deal_ended:
        lines.append(RULE)
    return "\n".join(lines + table_lines(state, b, names))


def show(text: str, render_mode: str):
    """``render()`` of the environments: the text for ``"ansi"`` (and the HTML for
    ``"html"``), printed for ``"human"``."""
    if render_mode in ("ansi", "html"):
        return text
    print(text)
    return None


def _gin_table_lines(state: gin.GinState, b: int, names) -> list[str]:
    cfg = state.config
    dealer = int(state.dealer[b])
    cur = int(state.current[b])
    phase = gin.PHASE_NAMES[state.phase[b]]
    episode = f"game to {cfg.target}" if cfg.episode == "game" else "one hand"
    lines = [f"Gin Rummy ({episode}) · hand {int(state.hand_no[b]) + 1} · dealer {names[dealer]}"]
    lines.append("score: " + " · ".join(
        f"{names[p]} {int(state.scores[b, p])} ({_won(int(state.hands_won[b, p]))})"
        for p in range(gin.NUM_PLAYERS)))
    lines.append(f"stock: {int(state.stock_size[b])} cards · {_pile_text(state, b)}")
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
    return lines


def render_gin(state: gin.GinState, b: int = 0, names=("player_0", "player_1"),
               hand_ended: bool | None = None) -> str:
    """A text table of game ``b``: scores, stock, discard pile, both hands grouped into their
    best melds and whose turn it is; after a hand ended (``hand_ended``, default
    ``state.hand_ended[b]``) the revealed hands with melds and lay-offs and the score line,
    and at the end of the episode the final totals."""
    if hand_ended is None:
        hand_ended = bool(state.hand_ended[b])
    return _framed(state, b, names, hand_ended, _hand_end_lines, _game_end_lines, _gin_table_lines)


# --------------------------------------------------------------------------------------
# Rummy
# --------------------------------------------------------------------------------------
def _sets_first(held: np.ndarray) -> np.ndarray:
    """Meld ids of a hand the deadwood solver does not take (five or more ranks held three
    times, 15+ cards): every such rank as a set, then each suit's blocks of 3+ as runs."""
    ids = np.full(NUM_CARDS, -1, np.int8)
    grid = held.reshape(NUM_SUITS, NUM_RANKS).copy()
    j = 0
    for r in np.flatnonzero(grid.sum(0) >= 3):
        ids[np.flatnonzero(grid[:, r]) * NUM_RANKS + r] = j
        grid[:, r] = False
        j += 1
    for s in range(NUM_SUITS):
        r = 0
        while r < NUM_RANKS:
            end = r
            while end < NUM_RANKS and grid[s, end]:
                end += 1
            if end - r >= 3:
                ids[s * NUM_RANKS + r: s * NUM_RANKS + end] = j
                j += 1
            r = end + 1
    return ids


def meld_ids(hands: np.ndarray) -> np.ndarray:
    """``(n, 52)`` meld number of each card of each hand (-1: unmatched) for hands of any
    size: the deadwood solver's best melds (``rummyrl.melds.best_melds``) where it applies."""
    ids = np.full(hands.shape, -1, np.int8)
    set_ranks = (hands.reshape(-1, NUM_SUITS, NUM_RANKS).sum(1) >= 3).sum(1)
    ok = set_ranks <= M.MAX_SET_RANKS
    if ok.any():
        ids[ok] = M.best_melds(hands[ok]).meld_id
    for i in np.flatnonzero(~ok):
        ids[i] = _sets_first(hands[i])
    return ids


def _table_lines(slot, by, laid_off, owner, names) -> list[str]:
    """The table melds: each slot's meld with its owner, then the cards laid off onto it
    and who laid them off (R-4)."""
    lines = []
    for k in np.flatnonzero(owner >= 0):
        on = slot == k
        meld = cards_text(sorted_cards(np.flatnonzero(on & ~laid_off)))
        extra = [f"{card_str(c, symbols=True)} ({names[by[c]]})" for c in sorted_cards(np.flatnonzero(on & laid_off))]
        lay = f" + laid off {', '.join(extra)}" if extra else ""
        lines.append(f"  meld {k}: [{meld}] by {names[owner[k]]}{lay}")
    return lines or ["  (no melds)"]


def _hand_lines(hands: np.ndarray, names, tags) -> list[str]:
    ids = meld_ids(hands)
    width = max(len(n) for n in names)
    lines = []
    for p, held in enumerate(hands):
        n = int(held.sum())
        value = int(VALUE[held].sum())
        if n:
            lines.append(f"{names[p]:<{width}} {grouped_text(ids[p], held)}   "
                         f"{n} card{'' if n == 1 else 's'}, value {value}{tags[p]}")
        else:
            lines.append(f"{names[p]:<{width}} (no cards){tags[p]}")
    return lines


def _round_end_lines(state: rummy.RummyState, b: int, names) -> list[str]:
    """How the last round of game ``b`` ended: the result, the table, every hand, the scores."""
    end = int(state.last_end[b])
    w = int(state.last_winner[b])
    values = state.last_hand_values[b]
    P = state.num_players
    if end == rummy.END_OUT:
        given = ", ".join(f"{names[q]} {int(values[q])}" for q in range(P) if q != w)
        what = f"Round ended: {names[w]} went out (R-6) and scores {int(state.last_points[b])} ({given}, R-8)"
    elif end == rummy.END_DRAWN:
        what = "Round ended in a draw: the last stock ran out and nobody went out (R-7); nobody scores"
    else:
        what = f"Round cut off after {state.config.action_cap} actions (move cap); nobody scores"
    lines = [RULE, what, "table:"]
    lines += _table_lines(state.last_table_slot[b], state.last_table_by[b], state.last_laid_off[b],
                          state.last_slot_owner[b], names)
    tags = ["   ← went out" if q == w else "" for q in range(P)]
    lines += ["  " + x for x in _hand_lines(state.last_hands[b], names, tags)]
    lines.append("  score: " + " · ".join(f"{names[q]} {int(state.scores[b, q])}" for q in range(P)))
    return lines


def _rummy_game_end_lines(state: rummy.RummyState, b: int, names) -> list[str]:
    info = rummy.game_info(state, b)
    cfg = state.config
    if info["winner"] < 0:
        if not info["truncated"]:
            why = "the one-round episode ended in a draw"
        elif cfg.episode == "round":
            why = "the round was cut off by the move cap"
        else:
            why = f"the game was cut off after {info['rounds_played']} rounds (max_rounds)"
        return [RULE, f"Game over: no winner ({why})"]
    w = info["winner"]
    order = sorted(range(len(names)), key=lambda q: -info["scores"][q])
    others = ", ".join(f"{names[q]} {info['scores'][q]}" for q in order if q != w)
    margin = int(rummy.game_result(state, np.array([b])).margin[0])
    if cfg.episode == "round":
        return [RULE, f"Game over: {names[w]} wins the round with {info['scores'][w]}; {others} (margin {margin})"]
    won = " · ".join(f"{names[q]} {info['rounds_won'][q]}" for q in range(len(names)))
    return [RULE, f"Game over: {names[w]} wins with {info['scores'][w]} (R-9); {others} (margin {margin})",
            f"  rounds won: {won} of {info['rounds_played']}"]


def _to_act(state: rummy.RummyState, b: int) -> str:
    p = int(state.current[b])
    if state.phase[b] == rummy.PHASE_DRAW:
        if state.stock_size[b] == 0:
            return "draw (the stock is empty: drawing from it turns the pile over, R-7) or take the discard"
        return "draw from the stock or take the discard"
    plays = "meld, lay off or discard" if state.melded[b, p] else "meld or discard (lay-offs after a meld, R-4)"
    if state.taken[b] >= 0 and state.config.forbid_taken_discard and state.hand_size[b, p] > 1:
        plays += f"; not {card_str(int(state.taken[b]), symbols=True)}, just taken (R-5)"
    return plays


def _rummy_table_lines(state: rummy.RummyState, b: int, names) -> list[str]:
    P = state.num_players
    cfg = state.config
    episode = f"game to {cfg.target}" if cfg.episode == "game" else "one round"
    lines = [f"Rummy ({P} players, {episode}) · round {int(state.round_no[b]) + 1} · "
             f"dealer {names[int(state.dealer[b])]}"]
    lines.append("score: " + " · ".join(f"{names[q]} {int(state.scores[b, q])} "
                                        f"({_won(int(state.rounds_won[b, q]), 'round')})" for q in range(P)))
    lines.append(f"stock: {int(state.stock_size[b])} cards (pile turned over {int(state.passes[b])} of "
                 f"{cfg.stock_passes}) · {_pile_text(state, b)}")
    lines.append("table:")
    lines += _table_lines(state.table_slot[b], state.table_by[b], state.laid_off[b], state.slot_owner[b], names)
    cur = int(state.current[b])
    tags = [(" · has melded" if state.melded[b, q] else "")
            + (f"   ← to act: {_to_act(state, b)}" if q == cur else "") for q in range(P)]
    return lines + _hand_lines(state.hands[b], names, tags)


def render_rummy(state: rummy.RummyState, b: int = 0, names=None, round_ended: bool | None = None) -> str:
    """A text table of Rummy game ``b``: scores, stock, discard pile, the table melds with
    their owners and lay-offs, every hand grouped into melds, and whose turn it is; after a
    round ended (``round_ended``, default ``state.round_ended[b]``) the round's result, table
    and hands, and at the end of the episode the final scores."""
    if names is None:
        names = tuple(f"player_{p}" for p in range(state.num_players))
    if round_ended is None:
        round_ended = bool(state.round_ended[b])
    return _framed(state, b, names, round_ended, _round_end_lines, _rummy_game_end_lines, _rummy_table_lines)


__all__ = ["cards_text", "grouped_text", "meld_ids", "render_gin", "render_rummy", "show", "sorted_cards"]


def render(game, state, b: int, names, deal_ended: bool | None) -> str:
    """Game ``b`` of ``state`` as text, drawn by ``game``'s renderer (``Game.renderer``)."""
    return games.load(games.get(game).renderer)(state, b, names, deal_ended)
