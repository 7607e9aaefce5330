"""Scripted Gin Rummy deals shared by the environment tests.

KNOCK_DEAL, dealt by player_1, so player_0 (the non-dealer) acts first:

    player_0  A♠ 2♠ 3♠ | 4♥ 5♥ 6♥ | 7♦ 8♦ 9♦ | K♣          upcard 2♣
    player_1  K♠ Q♥ J♦ T♠ 9♥ 8♣ 7♠ 6♣ 5♦ 4♠             (no meld)

player_0 takes the upcard and knocks discarding K♣ with deadwood 2 (the 2♣); player_1 lays
off 4♠ on A♠ 2♠ 3♠ (G-9) and keeps 75 deadwood, so player_0 scores 75 - 2 = 73 (G-11).
"""

from __future__ import annotations

import numpy as np

from rummyrl import gin
from rummyrl.cards import parse_cards

NON_DEALER = "As 2s 3s 4h 5h 6h 7d 8d 9d Kc"
DEALER = "Ks Qh Jd Ts 9h 8c 7s 6c 5d 4s"
UPCARD = "2c"
KNOCK_POINTS = 73
#: the actions of player_0 that end the hand: take the upcard, knock with K♣
KNOCK_ACTIONS = (gin.TAKE_DISCARD, gin.KNOCK + parse_cards("Kc")[0])


def deck_of(non_dealer: str, dealer: str, upcard: str) -> np.ndarray:
    """A 52-card order dealing these hands and upcard (the stock: the other cards by id)."""
    head = parse_cards(non_dealer) + parse_cards(dealer) + parse_cards(upcard)
    return np.array(head + [c for c in range(52) if c not in head], np.int64)


KNOCK_DECK = deck_of(NON_DEALER, DEALER, UPCARD)
