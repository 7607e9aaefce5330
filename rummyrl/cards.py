"""Cards: ids, text form and the rank / suit / value tables (rules C-1, C-2).

Layout
------
A card is an int ``0..51``: ``card = suit * 13 + rank``.

* ``rank`` 0..12 is A 2 3 4 5 6 7 8 9 T J Q K (Ace low, King high; C-1).
* ``suit`` 0..3 is spades, hearts, diamonds, clubs (``s h d c``; ``♠ ♥ ♦ ♣``).
* ``-1`` means "no card" wherever a card id is stored in an array.

So the 13 cards of one suit are contiguous, and a hand held as a ``(52,)`` bool
vector reshapes to ``(4, 13)`` = suit x rank. The meld solver relies on this.

Text form: rank character then suit character, ``"As"``, ``"Td"``, ``"Kh"``. Parsing also
accepts ``"10d"``, lower-case ranks and the suit symbols (``"7♥"``).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

NUM_CARDS = 52
NUM_RANKS = 13
NUM_SUITS = 4
NO_CARD = -1

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "shdc"
SUIT_SYMBOLS = "♠♥♦♣"

CARDS = np.arange(NUM_CARDS, dtype=np.int64)
#: rank of each card, 0 = Ace .. 12 = King (C-1)
RANK = CARDS % NUM_RANKS
#: suit of each card, 0..3 = s h d c
SUIT = CARDS // NUM_RANKS
#: deadwood / penalty value of each card: Ace 1, 2-10 face value, J Q K 10 (C-2)
VALUE = np.minimum(RANK + 1, 10)
#: value of a card by rank
RANK_VALUE = np.minimum(np.arange(NUM_RANKS) + 1, 10)

for _table in (RANK, SUIT, VALUE, RANK_VALUE):
    _table.setflags(write=False)

_SUIT_FROM_CHAR = {c: i for i, c in enumerate(SUIT_CHARS)}
_SUIT_FROM_CHAR.update({c: i for i, c in enumerate(SUIT_SYMBOLS)})
_SUIT_FROM_CHAR.update({"♤": 0, "♡": 1, "♢": 2, "♧": 3})
_RANK_FROM_TEXT = {c: i for i, c in enumerate(RANK_CHARS)}
_RANK_FROM_TEXT.update({"10": 9, "t": 9, "j": 10, "q": 11, "k": 12, "a": 0})


def card_id(rank: int, suit: int) -> int:
    """The id of the card of ``rank`` (0 = Ace .. 12 = King) and ``suit`` (0..3 = s h d c)."""
    if not (0 <= rank < NUM_RANKS and 0 <= suit < NUM_SUITS):
        raise ValueError(f"no card with rank {rank} and suit {suit}: rank is 0..12, suit is 0..3")
    return suit * NUM_RANKS + rank


def parse_card(text: str) -> int:
    """``"Kh"`` -> 25. Raises ``ValueError`` naming the text when it is not a card."""
    if not isinstance(text, str):
        raise ValueError(f"card must be a string like 'As', 'Td' or 'Kh', got {text!r}")
    s = text.strip()
    rank = _RANK_FROM_TEXT.get(s[:-1]) if len(s) >= 2 else None
    if rank is None and len(s) >= 2:
        rank = _RANK_FROM_TEXT.get(s[:-1].lower())
    suit = _SUIT_FROM_CHAR.get(s[-1:].lower()) if s else None
    if rank is None or suit is None:
        raise ValueError(
            f"not a card: {text!r}; write the rank ({' '.join(RANK_CHARS)}, or 10) then the suit "
            f"({' '.join(SUIT_CHARS)} or {' '.join(SUIT_SYMBOLS)}), e.g. 'As', 'Td', 'Kh'"
        )
    return suit * NUM_RANKS + rank


def parse_cards(text: str | Iterable[str]) -> list[int]:
    """``"As 2s 3s"`` (or a list of such strings) -> ``[0, 1, 2]``."""
    parts = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    return [parse_card(p) for p in parts]


def _check_card(card: int) -> int:
    c = int(card)
    if not 0 <= c < NUM_CARDS:
        raise ValueError(f"card id {card!r} is out of range: card ids are 0..51")
    return c


def card_str(card: int, symbols: bool = False) -> str:
    """25 -> ``"Kh"`` (``"K♥"`` with ``symbols=True``)."""
    c = _check_card(card)
    suits = SUIT_SYMBOLS if symbols else SUIT_CHARS
    return RANK_CHARS[c % NUM_RANKS] + suits[c // NUM_RANKS]


def cards_str(cards: Iterable[int], symbols: bool = False) -> str:
    """Space-separated text of card ids, in the order given."""
    return " ".join(card_str(c, symbols) for c in cards)


def hand_mask(cards: Iterable[int] | str) -> np.ndarray:
    """A ``(52,)`` bool vector from card ids or card text; a repeated card is an error."""
    ids = parse_cards(cards) if isinstance(cards, str) else [_check_card(c) for c in cards]
    mask = np.zeros(NUM_CARDS, dtype=bool)
    for c in ids:
        if mask[c]:
            raise ValueError(f"card {card_str(c)} is given twice")
        mask[c] = True
    return mask


def mask_cards(mask: np.ndarray) -> list[int]:
    """Card ids held in a ``(52,)`` bool vector, in id order."""
    return [int(c) for c in np.flatnonzero(mask)]


def sort_key(card: int) -> tuple[int, int]:
    """Sort by suit then rank (the order a hand is shown in)."""
    return (card // NUM_RANKS, card % NUM_RANKS)


def check_deck(deck, name: str = "deck") -> np.ndarray:
    """Validate a deck order: a permutation of 0..51, or a batch ``(..., 52)`` of them.

    Returns it as an int8 array. Raises ``ValueError`` saying what is wrong.
    """
    arr = np.asarray(deck)
    if arr.ndim == 0 or arr.shape[-1] != NUM_CARDS:
        raise ValueError(f"{name} must have 52 cards on its last axis, got shape {arr.shape}")
    if not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"{name} must hold integer card ids 0..51, got dtype {arr.dtype}")
    flat = arr.reshape(-1, NUM_CARDS)
    if flat.size and (flat.min() < 0 or flat.max() >= NUM_CARDS):
        raise ValueError(f"{name} holds card ids outside 0..51 (min {flat.min()}, max {flat.max()})")
    ok = (np.sort(flat, axis=1) == np.arange(NUM_CARDS)).all(axis=1)
    if not ok.all():
        bad = int(np.flatnonzero(~ok)[0])
        counts = np.bincount(flat[bad], minlength=NUM_CARDS)
        missing = [card_str(c) for c in np.flatnonzero(counts == 0)]
        repeated = [card_str(c) for c in np.flatnonzero(counts > 1)]
        where = f" (deck {bad} of the batch)" if flat.shape[0] > 1 else ""
        raise ValueError(
            f"{name}{where} is not a permutation of the 52 cards 0..51: "
            f"missing {missing}, repeated {repeated}"
        )
    return arr.astype(np.int8)
