"""The card table as HTML: the environments' ``render_mode="html"``, notebooks' replays and
the web app (``rummyrl-web``) draw it with the same two functions.

:func:`table_view` reads one game of a batched state into plain data (cards as text such as
``"Kd"``), seen from one seat (``viewer``: that seat's hand face up, the others' hands as
card backs, except the cards they are known to hold because they took them from the pile)
or from above (``viewer=None``: every hand face up, and the stock in draw order).
:func:`table_html` draws such a view: the scores, each seat's hand grouped into its best
melds with its deadwood (the cards outside melds) or hand value, the stock, the discard
pile, the table melds of Rummy, and, after a deal ended, every hand of that deal as it
was shown down. :data:`TABLE_CSS` is its stylesheet; :func:`page_fragment` puts the two
together for a notebook cell or a file.

Every card drawn face up carries ``data-card="Kd"``: the web app finds the cards you click
by it, and its tests find every card a page shows by it.
"""

from __future__ import annotations

import html

import numpy as np

from rummyrl import games
from rummyrl.cards import NUM_CARDS, RANK, SUIT, SUIT_SYMBOLS, VALUE, card_str, sort_key

from .render import meld_ids, render

#: how a card's rank is printed on its face (10, not T)
RANK_FACES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def _cards(mask) -> list[str]:
    return [card_str(int(c)) for c in sorted(np.flatnonzero(mask), key=sort_key)]


def _grouped(held: np.ndarray, ids: np.ndarray) -> dict:
    """A hand as its melds (lists of cards) and its loose cards, with the value of the loose
    cards (Gin's deadwood) and of the whole hand."""
    melds = []
    for j in range(int(ids.max(initial=-1)) + 1):
        on = (ids == j) & held
        if on.any():
            melds.append(_cards(on))
    loose = held & (ids < 0)
    return {"melds": melds, "loose": _cards(loose), "deadwood": int(VALUE[loose].sum()),
            "value": int(VALUE[held].sum())}


def _table(slot, by, laid_off, owner) -> list[dict]:
    out = []
    for k in np.flatnonzero(owner >= 0):
        on = slot == k
        out.append({"slot": int(k), "owner": int(owner[k]), "cards": _cards(on & ~laid_off),
                    "laid_off": [[card_str(int(c)), int(by[c])] for c in sorted(np.flatnonzero(on & laid_off),
                                                                                   key=sort_key)]})
    return out


def _stock_cards(state, b: int) -> list[str]:
    """The stock in draw order, next card first."""
    if hasattr(state, "stock_pos"):  # a stock of its own (Rummy: the pile can be turned over into it)
        cards = state.stock[b, int(state.stock_pos[b]):int(state.stock_len[b])]
    else:  # the rest of the deal order (Gin)
        cards = state.deck[b, int(state.stock_top[b]):]
    return [card_str(int(c)) for c in cards]


def _text_tail(state, b: int, names, deal_ended: bool, game) -> tuple[str, list[str]]:
    """The text renderer's line on how the last deal ended, and its game-over lines."""
    lines = render(game, state, b, list(names), deal_ended).splitlines()
    verdict = lines[1] if deal_ended and len(lines) > 1 else ""
    over = []
    if state.game_over[b]:
        i = next((k for k, ln in enumerate(lines) if ln.startswith("Game over")), len(lines))
        over = [ln.strip() for ln in lines[i:]]
    return verdict, over


def table_view(state, b: int, names, viewer: int | None = None, deal_ended: bool | None = None) -> dict:
    """Game ``b`` of ``state`` as plain data, seen by seat ``viewer`` (None: every card face
    up). ``deal_ended`` (default: the state's flag) adds ``ended``, the deal that just ended
    with every hand as shown down."""
    game = games.of_config(state.config)
    eng = game.engine
    P = game.players_of(state.config)
    names = [str(n) for n in names]
    if len(names) != P:
        raise ValueError(f"names must name the {P} seats, got {names}")
    if viewer is not None and not 0 <= viewer < P:
        raise ValueError(f"viewer must be a seat 0..{P - 1} or None, got {viewer!r}")
    if deal_ended is None:
        deal_ended = bool(game.deal_ended(state)[b])
    over = bool(state.game_over[b])
    hands = state.hands[b]
    ids = meld_ids(hands)
    cur = int(state.current[b])
    seats = []
    for q in range(P):
        face_up = viewer is None or q == viewer
        seat = {"seat": q, "name": names[q], "count": int(hands[q].sum()), "you": q == viewer,
                "dealer": q == int(state.dealer[b]), "to_act": q == cur and not over,
                "known": _cards(hands[q] & state.known[b, q]) if not face_up else [],
                "score": int(state.scores[b, q]), "won": int(game.deals_won(state)[b, q])}
        if hasattr(state, "melded"):
            seat["melded"] = bool(state.melded[b, q])
        if face_up:
            seat.update(_grouped(hands[q], ids[q]))
        seats.append(seat)
    pile = state.pile[b, :int(state.pile_len[b])]
    view = {
        "game": game.name, "title": game.title, "deal": game.deal, "deal_no": int(game.deals_played(state)[b]),
        "players": P, "viewer": viewer, "target": int(state.config.target), "over": over,
        "phase": eng.PHASE_NAMES[int(state.phase[b])], "to_act": -1 if over else cur,
        "seats": seats, "pile": [card_str(int(c)) for c in pile],
        "stock": {"count": int(state.stock_size[b])},
    }
    if viewer is None:
        view["stock"]["cards"] = _stock_cards(state, b)
    if hasattr(state, "must_draw_stock"):  # Gin: the upcard offer (G-2)
        view["upcard_offer"] = view["phase"] == "OFFER"
    if hasattr(state, "slot_owner"):  # Rummy: the melds on the table
        view["table"] = _table(state.table_slot[b], state.table_by[b], state.laid_off[b], state.slot_owner[b])
        view["stock"]["turned_over"] = int(state.passes[b])
    verdict, over_lines = _text_tail(state, b, names, deal_ended, game)
    if deal_ended:
        view["ended"] = _ended(state, b, names, game, verdict)
    if over:
        view["result"] = over_lines
    return view


def _ended(state, b: int, names, game, verdict: str) -> dict:
    """The deal that just ended, every hand as shown down."""
    P = len(names)
    last = state.last_hands[b]
    if hasattr(state, "last_meld_id"):  # Gin: the melds the showdown used; the defender's lay-offs
        ids = state.last_meld_id[b]
        laid = state.last_laid_off[b]
        knocker = int(state.last_knocker[b])
        score, label = [int(x) for x in state.last_deadwood[b]], "deadwood"
    else:
        ids = meld_ids(last)
        laid = np.zeros(NUM_CARDS, bool)
        knocker = -1
        score, label = [int(x) for x in state.last_hand_values[b]], "value"
    hands = []
    for q in range(P):
        held = last[q] & ~laid if q != knocker else last[q]
        hand = _grouped(held, ids[q])
        hand.update({"seat": q, "name": names[q], label: score[q], "knocker": q == knocker,
                     "winner": q == int(state.last_winner[b]),
                     "laid_off": _cards(laid) if knocker >= 0 and q != knocker else []})
        hands.append(hand)
    out = {"end": game.end_names[int(state.last_end[b])], "winner": int(state.last_winner[b]),
           "points": int(state.last_points[b]), "text": verdict, "label": label, "hands": hands,
           "scores": [int(x) for x in state.scores[b]]}
    if hasattr(state, "last_slot_owner"):
        out["table"] = _table(state.last_table_slot[b], state.last_table_by[b], state.last_laid_off[b],
                              state.last_slot_owner[b])
    return out


# --------------------------------------------------------------------------------------
# Drawing
# --------------------------------------------------------------------------------------
_ID = {card_str(c): c for c in range(NUM_CARDS)}


def card_html(card: str | None, cls: str = "") -> str:
    """One card face up (``"Kd"``), or its back (None)."""
    if card is None:
        return f'<span class="rrl-card back {cls}"></span>'
    c = _ID[card]
    suit = SUIT_SYMBOLS[SUIT[c]]
    red = " red" if SUIT[c] in (1, 2) else ""
    face = RANK_FACES[RANK[c]]
    return (f'<span class="rrl-card{red} {cls}" data-card="{card}" title="{face}{suit}">'
            f'<span class="rk">{face}</span><span class="st">{suit}</span></span>')


def hand_html(hand: dict, label: str = "deadwood") -> str:
    """A hand's melds (each in a frame) then its loose cards."""
    parts = ['<span class="rrl-meld">' + "".join(card_html(c) for c in m) + "</span>" for m in hand["melds"]]
    if hand["loose"]:
        parts.append('<span class="rrl-loose">' + "".join(card_html(c) for c in hand["loose"]) + "</span>")
    if not parts:
        parts.append('<span class="rrl-facts">no cards left</span>')
    return '<div class="rrl-hand">' + "".join(parts) + "</div>"


def _seat_line(seat: dict, view: dict) -> str:
    tags = []
    if seat["dealer"]:
        tags.append('<span class="rrl-tag">dealer</span>')
    if seat.get("melded"):
        tags.append('<span class="rrl-tag">has melded</span>')
    if seat["to_act"]:
        tags.append('<span class="rrl-tag act">to act</span>')
    won = f'{seat["won"]} {view["deal"]}{"" if seat["won"] == 1 else "s"} won'
    return (f'<div class="rrl-seat-head"><b>{html.escape(seat["name"])}</b> {"".join(tags)}'
            f'<span class="rrl-score">{seat["score"]} points · {won}</span></div>')


def _seat_html(seat: dict, view: dict) -> str:
    if "melds" in seat:
        body = hand_html(seat)
        n = seat["count"]
        facts = (f'{n} card{"" if n == 1 else "s"} · deadwood {seat["deadwood"]}'
                 + (f' · value {seat["value"]}' if "table" in view else ""))
    else:
        known = seat["known"]
        backs = "".join(card_html(None, "small") for _ in range(seat["count"] - len(known)))
        body = f'<div class="rrl-hand hidden">{"".join(card_html(c) for c in known)}{backs}</div>'
        n = seat["count"]
        facts = f'{n} card{"" if n == 1 else "s"}' + (f" · {len(known)} known (taken from the pile)" if known else "")
    cls = " you" if seat["you"] else ""
    cls += " acting" if seat["to_act"] else ""
    return (f'<div class="rrl-seat{cls}" data-seat="{seat["seat"]}">{_seat_line(seat, view)}{body}'
            f'<div class="rrl-facts">{facts}</div></div>')


def _meld_html(m: dict, names) -> str:
    extra = "".join(card_html(c, "laid") for c, _ in m["laid_off"])
    by = ", ".join(f"{c[0]} by {html.escape(names[q])}" for c, q in m["laid_off"])
    title = f' title="laid off: {html.escape(by)}"' if by else ""
    return (f'<div class="rrl-tmeld" data-slot="{m["slot"]}"{title}><span class="rrl-slot">#{m["slot"]} '
            f'{html.escape(names[m["owner"]])}</span><span class="rrl-meld">'
            f'{"".join(card_html(c) for c in m["cards"])}{extra}</span></div>')


def _centre_html(view: dict) -> str:
    names = [s["name"] for s in view["seats"]]
    stock = view["stock"]
    turned = f', turned over {stock["turned_over"]}x' if stock.get("turned_over") else ""
    stock_html = (f'<div class="rrl-zone" data-zone="stock"><div class="rrl-label">stock · {stock["count"]}{turned}'
                  f'</div><div class="rrl-stack">{card_html(None) if stock["count"] else "<i>empty</i>"}</div></div>')
    pile = view["pile"]
    shown = pile[-8:]
    fan = "".join(card_html(c, "under") for c in shown[:-1]) + (card_html(shown[-1], "top") if shown else "")
    more = f" ({len(pile) - len(shown)} more below)" if len(pile) > len(shown) else ""
    what = "upcard" if view.get("upcard_offer") else "discard pile"
    pile_html = (f'<div class="rrl-zone" data-zone="pile"><div class="rrl-label">{what} · {len(pile)}{more}</div>'
                 f'<div class="rrl-fan">{fan or "<i>empty</i>"}</div></div>')
    parts = [stock_html, pile_html]
    if "table" in view:
        melds = "".join(_meld_html(m, names) for m in view["table"]) or "<i>no melds yet</i>"
        parts.append(f'<div class="rrl-zone wide" data-zone="table"><div class="rrl-label">table melds</div>'
                     f'<div class="rrl-tmelds">{melds}</div></div>')
    if "cards" in stock:
        parts.append(f'<div class="rrl-zone wide"><div class="rrl-label">stock, next card first</div>'
                     f'<div class="rrl-hand small">{"".join(card_html(c, "small") for c in stock["cards"])}</div></div>')
    return '<div class="rrl-centre">' + "".join(parts) + "</div>"


def ended_html(ended: dict, names, deal: str = "hand") -> str:
    """The showdown of a deal that ended: the verdict, every hand, the scores."""
    rows = []
    for h in ended["hands"]:
        tag = " (knocker)" if h["knocker"] else (" (went out)" if h["winner"] and ended["label"] == "value" else "")
        lay = (f' <span class="rrl-facts">+ laid off</span> <span class="rrl-meld">'
               f'{"".join(card_html(c) for c in h["laid_off"])}</span>') if h["laid_off"] else ""
        rows.append(f'<div class="rrl-show{" won" if h["winner"] else ""}"><div class="rrl-seat-head">'
                    f'<b>{html.escape(h["name"])}</b>{tag}<span class="rrl-score">{ended["label"]} '
                    f'{h[ended["label"]]}</span></div><div class="rrl-hand">{hand_html(h)}{lay}</div></div>')
    table = ""
    if ended.get("table"):
        table = ('<div class="rrl-label">the table</div><div class="rrl-tmelds">'
                 + "".join(_meld_html(m, names) for m in ended["table"]) + "</div>")
    scores = " · ".join(f"{html.escape(n)} {s}" for n, s in zip(names, ended["scores"]))
    return (f'<div class="rrl-ended"><div class="rrl-verdict">{html.escape(ended["text"])}</div>'
            f'{"".join(rows)}{table}<div class="rrl-facts">score: {scores}</div></div>')


def table_html(view: dict) -> str:
    """A :func:`table_view` as HTML (the stylesheet is :data:`TABLE_CSS`)."""
    seats = view["seats"]
    names = [s["name"] for s in seats]
    viewer = view["viewer"]
    head = (f'<div class="rrl-top"><b>{html.escape(view["title"])}</b> · {view["deal"]} {view["deal_no"]} · '
            f'{view["players"]} players · game to {view["target"]}'
            + ("" if view["over"] else f' · {html.escape(names[view["to_act"]])} to act ({view["phase"].lower()})')
            + "</div>")
    if viewer is None:
        others, mine = seats, []
    else:
        others = [s for s in seats if s["seat"] != viewer]
        mine = [seats[viewer]]
    body = [head]
    if view.get("result"):
        body.append('<div class="rrl-result">' + "<br>".join(html.escape(x) for x in view["result"]) + "</div>")
    if "ended" in view:  # the deal just shown down, above the next one
        body.append(ended_html(view["ended"], names, view["deal"]))
    body += ['<div class="rrl-others">' + "".join(_seat_html(s, view) for s in others) + "</div>",
             _centre_html(view)]
    if mine:
        body.append('<div class="rrl-mine">' + _seat_html(mine[0], view) + "</div>")
    return f'<div class="rrl-table" data-game="{view["game"]}">' + "".join(body) + "</div>"


def page_fragment(view: dict, title: str | None = None) -> str:
    """A view as self-contained HTML (its stylesheet inline), for a notebook or a file."""
    cap = f'<div class="rrl-caption">{html.escape(title)}</div>' if title else ""
    return f"<div class='rrl'><style>{TABLE_CSS}</style>{cap}{table_html(view)}</div>"


def render_html(state, b: int = 0, names=None, deal_ended: bool | None = None, viewer: int | None = None) -> str:
    """Game ``b`` as self-contained HTML: the environments' ``render_mode="html"``."""
    game = games.of_config(state.config)
    if names is None:
        names = [f"player_{p}" for p in range(game.players_of(state.config))]
    return page_fragment(table_view(state, b, names, viewer=viewer, deal_ended=deal_ended))


#: the table's stylesheet: every rule under .rrl-table (or .rrl), so it can sit in any page
TABLE_CSS = """
.rrl-table{font:14px/1.35 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#13261b;
 background:#2f7a4b;background:radial-gradient(ellipse at center,#3a8d59 0%,#256640 100%);
 border-radius:14px;padding:12px 14px;box-shadow:inset 0 0 0 3px #1c4f31;max-width:1100px}
.rrl-table .rrl-top{color:#f4f8f2;margin-bottom:8px}
.rrl-table .rrl-others{display:flex;flex-wrap:wrap;gap:8px}
.rrl-table .rrl-seat{background:rgba(255,255,255,.88);border-radius:10px;padding:6px 8px;flex:1 1 300px;
 border:2px solid transparent}
.rrl-table .rrl-seat.acting{border-color:#f2c14e;box-shadow:0 0 0 2px rgba(242,193,78,.45)}
.rrl-table .rrl-seat.you{background:#fffdf5}
.rrl-table .rrl-seat-head{display:flex;gap:6px;align-items:center;margin-bottom:4px}
.rrl-table .rrl-score{margin-left:auto;color:#3d5245;font-size:12px}
.rrl-table .rrl-tag{font-size:11px;background:#dfe9e2;border-radius:8px;padding:0 6px;color:#2a4434}
.rrl-table .rrl-tag.act{background:#f2c14e;color:#3b2b00}
.rrl-table .rrl-facts{font-size:12px;color:#3d5245;margin-top:3px}
.rrl-table .rrl-hand{display:flex;flex-wrap:wrap;gap:8px;align-items:flex-end;min-height:30px}
.rrl-table .rrl-hand.hidden,.rrl-table .rrl-hand.small{gap:2px}
.rrl-table .rrl-meld{display:inline-flex;gap:3px;padding:3px;border-radius:8px;background:#cfe6d6;
 box-shadow:inset 0 0 0 1px #8fb89b}
.rrl-table .rrl-loose{display:inline-flex;gap:3px;padding:3px}
.rrl-table .rrl-card{display:inline-flex;flex-direction:column;align-items:flex-start;justify-content:space-between;
 width:40px;height:56px;box-sizing:border-box;padding:3px 4px;background:#fff;border:1px solid #9aa59e;
 border-radius:6px;color:#1b1b1b;font-weight:600;box-shadow:0 1px 2px rgba(0,0,0,.25);user-select:none}
.rrl-table .rrl-card .rk{font-size:16px;line-height:1}
.rrl-table .rrl-card .st{font-size:20px;line-height:1;align-self:flex-end}
.rrl-table .rrl-card.red{color:#c0262d}
.rrl-table .rrl-card.back{background:repeating-linear-gradient(45deg,#21497a 0 5px,#2d5f9c 5px 10px);
 border-color:#17365c}
.rrl-table .rrl-card.small{width:26px;height:38px;padding:1px 2px}
.rrl-table .rrl-card.small .rk{font-size:12px}.rrl-table .rrl-card.small .st{font-size:13px}
.rrl-table .rrl-card.laid{outline:2px dashed #7b8f82;outline-offset:-3px}
.rrl-table .rrl-centre{display:flex;flex-wrap:wrap;gap:10px;margin:10px 0}
.rrl-table .rrl-zone{background:rgba(0,0,0,.14);border-radius:10px;padding:6px 8px;color:#f4f8f2}
.rrl-table .rrl-zone.wide{flex:1 1 320px}
.rrl-table .rrl-label{font-size:12px;margin-bottom:4px;color:#e6efe8}
.rrl-table .rrl-stack,.rrl-table .rrl-fan{display:flex;min-height:56px;align-items:center}
.rrl-table .rrl-fan .rrl-card.under{margin-right:-17px}
.rrl-table .rrl-tmelds{display:flex;flex-wrap:wrap;gap:6px}
.rrl-table .rrl-tmeld{background:rgba(255,255,255,.85);border-radius:8px;padding:3px 5px;color:#13261b}
.rrl-table .rrl-slot{font-size:11px;display:block;margin-bottom:2px}
.rrl-table .rrl-mine{margin-top:4px}
.rrl-table .rrl-ended{background:#fbf6e4;border-radius:10px;padding:8px 10px;margin:6px 0 10px;
 border:2px solid #e0b74a}
.rrl-table .rrl-verdict{font-weight:600;margin-bottom:6px}
.rrl-table .rrl-ended .rrl-label{color:#3d5245;margin-top:6px}
.rrl-table .rrl-show{padding:4px 0;border-top:1px solid #eadfb8}
.rrl-table .rrl-show.won .rrl-seat-head b{color:#1d6b3a}
.rrl-table .rrl-result{background:#fff;border-radius:10px;padding:8px 10px;margin:6px 0;font-weight:600}
.rrl .rrl-caption{font:600 13px system-ui,sans-serif;margin:10px 0 4px}
""".strip()


__all__ = ["TABLE_CSS", "card_html", "ended_html", "hand_html", "page_fragment", "render_html", "table_html",
           "table_view"]
