"""Scripted Rummy deals and the card helpers that build them, shared by the rule and the
environment tests.

OUT_DEAL: four players, player_3 deals, so player_0 acts first (R-2):

    player_0  2♥ 3♥ 4♥ 5♥ 6♥ Q♠ Q♣        upcard 7♦
    player_1  K♠ K♦ K♣ 7♥ 8♣ 4♠ A♣        stock  9♦ T♥ J♥ 8♦ Q♥ ...
    player_2  J♠ T♦ 7♣ 3♠ 5♦ 6♣ 2♣  (43)
    player_3  A♠ A♦ 2♠ 3♣ 5♠ 8♥ 9♥  (29)

player_0 draws 9♦, lays down 2♥-6♥ and throws 9♦; player_1 draws T♥, lays down the kings,
lays off 7♥ onto player_0's run (R-4: it has a meld of its own) and throws T♥, keeping
8♣ 4♠ A♣ (13); player_2 and player_3 draw and throw J♥ and 8♦; player_0 draws Q♥ and melds
Q♠ Q♥ Q♣ with no discard: out (R-6), scoring 13 + 43 + 29 = 85 (R-8).
"""

from __future__ import annotations

import numpy as np

from rummyrl import melds as Mcat
from rummyrl import rummy
from rummyrl.cards import parse_card, parse_cards


def deck_of(P, dealer, hands, upcard, stock=""):
    """A deck giving ``hands[seat]`` (card text) to each seat, the upcard, and the stock
    starting with ``stock``; cards named nowhere fill the rest of the stock in id order."""
    order = []
    for i in range(P):
        order += parse_cards(hands[(dealer + 1 + i) % P])
    order.append(parse_card(upcard))
    order += parse_cards(stock)
    assert len(set(order)) == len(order), "a card is named twice"
    order += [c for c in range(52) if c not in set(order)]
    return np.array(order)


def meld(text):
    return rummy.MELD + Mcat.MELDS.index(tuple(sorted(parse_cards(text))))


def discard(card):
    return rummy.DISCARD + parse_card(card)


def layoff(card, slot):
    return rummy.LAYOFF + slot * 52 + parse_card(card)

HANDS = {
    0: "2h 3h 4h 5h 6h Qs Qc",
    1: "Ks Kd Kc 7h 8c 4s Ac",
    2: "Js Td 7c 3s 5d 6c 2c",
    3: "As Ad 2s 3c 5s 8h 9h",
}
DEALER = 3
OUT_DECK = deck_of(4, DEALER, HANDS, "7d", "9d Th Jh 8d Qh")
#: (seat, action) of the whole round
OUT_ACTIONS = (
    (0, rummy.DRAW_STOCK), (0, meld("2h 3h 4h 5h 6h")), (0, discard("9d")),
    (1, rummy.DRAW_STOCK), (1, meld("Ks Kd Kc")), (1, layoff("7h", 0)), (1, discard("Th")),
    (2, rummy.DRAW_STOCK), (2, discard("Jh")),
    (3, rummy.DRAW_STOCK), (3, discard("8d")),
    (0, rummy.DRAW_STOCK), (0, meld("Qs Qh Qc")),
)
OUT_POINTS = 85
#: the value of the cards left in each hand at the end (C-2)
OUT_VALUES = (0, 13, 43, 29)

#: three players, player_0 deals and player_1 goes out in its first turn with a seven-card
#: run, drawing Q♦ and throwing it (R-8: 50 + 46 = 96 points)
QUICK_HANDS = {
    1: "As 2s 3s 4s 5s 6s 7s",
    2: "Kh Qh Jh Th Ah 2d 3d",  # 46
    0: "Kc Kd 9h 9c Ac 5d 6h",  # 50
}
QUICK_DECK = deck_of(3, 0, QUICK_HANDS, "8d", "Qd")
QUICK_ACTIONS = (rummy.DRAW_STOCK, meld("As 2s 3s 4s 5s 6s 7s"), discard("Qd"))
QUICK_VALUES = (50, 0, 46)
