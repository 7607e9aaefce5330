"""Per-action facts of the meld arithmetic, with no player's judgement in them.

A network with no expert in it (``NetConfig.features = "engine"``) reads these beside the
observation: what each action does to the hand's deadwood, computed by the engine's own
meld solver (:mod:`rummyrl.melds`), and in Rummy also the loose cards and the outs of the
hand each draw or discard leaves. They are counts, not preferences: how much each one
matters is the network's to learn. The game registry names each game's function
(``Game.engine_features``), the action each feature column scores (``Game.feature_actions``)
and the kinds of column that get their own learned weight (``Game.feature_groups``).
"""

from __future__ import annotations

import numpy as np

from . import gin, melds, rummy
from .cards import VALUE

#: the value of an illegal action's feature (finite, so no op ever meets -inf or NaN)
ILLEGAL = -60.0

#: Gin: the kind of each action for the weight on its feature: 1 discards, 2 knocks, 0 the rest
GIN_FEATURE_GROUPS = np.zeros(gin.NUM_ACTIONS, np.int64)
GIN_FEATURE_GROUPS[gin.DISCARD:gin.KNOCK] = 1
GIN_FEATURE_GROUPS[gin.KNOCK:gin.BIG_GIN] = 2
GIN_FEATURE_GROUPS.setflags(write=False)

#: Gin: the action each feature column scores (one column per action)
GIN_FEATURE_ACTIONS = np.arange(gin.NUM_ACTIONS)
GIN_FEATURE_ACTIONS.setflags(write=False)

#: Rummy's actions that also get the hand's loose cards and outs (:func:`rummy_features`):
#: the draws and the discards, actions 0..53
RUMMY_HAND_ACTIONS = np.arange(rummy.MELD)
_H = RUMMY_HAND_ACTIONS.size
#: Rummy: the action each feature column scores: the deadwood of every action, then the
#: loose cards and the outs of the draws and discards
RUMMY_FEATURE_ACTIONS = np.concatenate([np.arange(rummy.NUM_ACTIONS), RUMMY_HAND_ACTIONS, RUMMY_HAND_ACTIONS])
RUMMY_FEATURE_ACTIONS.setflags(write=False)
#: Rummy, per column: deadwood of 0 the draws, 1 discards, 2 melds, 3 lay-offs; loose cards
#: of 4 the draws, 5 discards; outs of 6 the draws, 7 discards
RUMMY_FEATURE_GROUPS = np.zeros(RUMMY_FEATURE_ACTIONS.size, np.int64)
RUMMY_FEATURE_GROUPS[rummy.DISCARD:rummy.MELD] = 1
RUMMY_FEATURE_GROUPS[rummy.MELD:rummy.LAYOFF] = 2
RUMMY_FEATURE_GROUPS[rummy.LAYOFF:rummy.NUM_ACTIONS] = 3
for _first, _column in ((4, rummy.NUM_ACTIONS), (6, rummy.NUM_ACTIONS + _H)):
    RUMMY_FEATURE_GROUPS[_column:_column + _H] = _first
    RUMMY_FEATURE_GROUPS[_column + rummy.DISCARD:_column + _H] = _first + 1
RUMMY_FEATURE_GROUPS.setflags(write=False)

#: the three-card melds as rows of a (M3, 52) matrix: a card lies in some meld of a hand
#: exactly when it lies in a three-card one (a longer run holds a window of three around
#: each of its cards, a set of four a set of three with each), and a card completes a
#: meld with a hand exactly when it completes a three-card one with two of its cards
_MELDS3 = np.zeros((sum(len(m) == 3 for m in melds.MELDS), 52), np.float32)
for _i, _m in enumerate(m for m in melds.MELDS if len(m) == 3):
    _MELDS3[_i, list(_m)] = 1.0

_VALUE = np.asarray(VALUE, np.float32)
#: the points of each meld's cards
_MELD_POINTS = np.array([sum(VALUE[c] for c in m) for m in melds.MELDS], np.float32)
#: the card each lay-off action puts on the table
_LAYOFF_CARD = np.arange(rummy.NUM_ACTIONS - rummy.LAYOFF) % 52
_UNSEEN, _FITS = rummy.OBS_LAYOUT["unseen"], rummy.OBS_LAYOUT["table_fits"]
#: the observation's "this player melded this round" flag (relative seat 0)
_MELDED_ME = rummy.OBS_LAYOUT["melded"].start


def gin_features(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Gin Rummy, ``(B, A)`` float32, higher is better, illegal actions read
    :data:`ILLEGAL`: for a discard or knock of card ``c``, minus a quarter of the deadwood
    left without ``c``; for taking the face-up card, minus a quarter of the lowest deadwood
    after taking it and discarding another card; for drawing from the stock and passing,
    minus a quarter of the hand's deadwood as it is; 0 for big gin. (A quarter keeps every
    deadwood, up to 98, inside the range a network's input is clipped to.)"""
    obs = np.asarray(observations)
    hands = obs[:, gin.OBS_LAYOUT["hand"]] > 0.5
    out = np.zeros(masks.shape, np.float32)
    # each part only at the rows where its actions are legal (the rest read ILLEGAL anyway):
    # a hand discards or draws, never both, which halves the meld solves
    throwing = masks[:, gin.DISCARD:gin.BIG_GIN].any(1)
    if throwing.any():
        after = -0.25 * melds.deadwood_after_discard(hands[throwing]).astype(np.float32)
        out[throwing, gin.DISCARD:gin.DISCARD + 52] = after
        out[throwing, gin.KNOCK:gin.KNOCK + 52] = after
    drawing = masks[:, gin.DRAW_STOCK] | masks[:, gin.PASS]
    if drawing.any():  # a 10-card hand: its deadwood as it stands
        now = -0.25 * melds.deadwood(hands[drawing]).astype(np.float32)
        out[drawing, gin.DRAW_STOCK] = now
        out[drawing, gin.PASS] = now
    r, top, with_top = _taking(obs, masks, hands, gin)
    if r.size:
        best = melds.deadwood_after_discard(with_top).astype(np.float32)
        best[np.arange(r.size), top] = np.inf  # the card just taken cannot be thrown (C-4)
        out[r, gin.TAKE_DISCARD] = -0.25 * best.min(1)
    return np.where(masks, np.maximum(out, ILLEGAL), ILLEGAL).astype(np.float32)


def hand_facts(hands: np.ndarray, live: np.ndarray, fits: np.ndarray | None = None,
               melded: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(loose, outs)``, each ``(n,)`` float32, of the hands ``(n, 52)`` bool: the cards of
    the hand that lie in no meld inside it (C-3) and would not go onto a table meld, and the
    ``live`` cards (``(n, 52)`` bool) that would each complete a meld with cards of the hand.
    A card goes onto the table when it ``fits`` a table meld (``(n, 52)`` bool) and the
    player may lay off: it has ``melded`` this round (``(n,)`` bool) or the hand holds a meld
    to lay down first (R-4). Without ``fits``, no card goes onto the table."""
    meldable = melds.meldable(hands)
    unmelded = hands & ~meldable
    if fits is not None:
        may = meldable.any(1) if melded is None else melded | meldable.any(1)
        unmelded &= ~(fits & may[:, None])
    two = (hands.astype(np.float32) @ _MELDS3.T) == 2  # three-card melds that lack one card
    completes = (two.astype(np.float32) @ _MELDS3) > 0
    outs = (completes & ~hands & live).sum(1)
    return unmelded.sum(1).astype(np.float32), outs.astype(np.float32)


def _facts_at(obs: np.ndarray, rows: np.ndarray, hands: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`hand_facts` of ``hands``, one for each position ``obs[rows]``: the live cards
    are its observation's ``unseen``, the table's fits its ``table_fits``."""
    return hand_facts(hands, obs[rows, _UNSEEN] > 0.5, obs[rows, _FITS] > 0.5, obs[rows, _MELDED_ME] > 0.5)


def _taking(obs: np.ndarray, masks: np.ndarray, hands: np.ndarray,
            engine=rummy) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rows, top, with_top)``: the positions where taking the face-up card is legal, that
    card, and each one's hand with it (``engine``: the game's module, :mod:`rummyrl.rummy`
    or :mod:`rummyrl.gin`)."""
    rows = np.flatnonzero(masks[:, engine.TAKE_DISCARD])
    top = obs[rows, engine.OBS_LAYOUT["top_discard"]].argmax(1)
    with_top = hands[rows]
    with_top[np.arange(rows.size), top] = True
    return rows, top, with_top


def _rummy_hand_columns(obs: np.ndarray, masks: np.ndarray, hands: np.ndarray, taken) -> np.ndarray:
    """``(B, 2 * 54)``: minus the loose cards, then the outs (:func:`_facts_at`) of the hand
    each draw or discard leaves: a discard's hand without its card, the stock's as it stands
    (the card it draws is unknown), and for the face-up card the hand after taking it and
    discarding another (C-4: not the card taken): the fewest loose cards and the most outs
    any such discard leaves, so that a draw compares hands of the same size, as the deadwood
    of the take does (``taken``: :func:`_taking`). :data:`ILLEGAL` where the action is not
    legal. A player holds a card at every draw (a round ends when a hand is empty, R-6), so
    every take has a discard."""
    out = np.full((masks.shape[0], 2 * _H), ILLEGAL, np.float32)
    rows, actions = np.nonzero(masks[:, :_H] & (np.arange(_H) != rummy.TAKE_DISCARD))
    if rows.size:
        after = hands[rows]
        k = np.arange(rows.size)
        thrown = actions >= rummy.DISCARD
        after[k[thrown], actions[thrown] - rummy.DISCARD] = False
        loose, outs = _facts_at(obs, rows, after)
        out[rows, actions] = -loose
        out[rows, _H + actions] = outs
    taking, top, with_top = taken
    if taking.size:
        # one row per (take, card it could discard next)
        t, thrown = np.nonzero(with_top)
        keep = thrown != top[t]
        t, thrown = t[keep], thrown[keep]
        after = with_top[t]
        after[np.arange(t.size), thrown] = False
        loose, outs = _facts_at(obs, taking[t], after)
        fewest = np.full(taking.size, np.inf, np.float32)
        most = np.full(taking.size, -np.inf, np.float32)
        np.minimum.at(fewest, t, loose)
        np.maximum.at(most, t, outs)
        out[taking, rummy.TAKE_DISCARD] = -fewest
        out[taking, _H + rummy.TAKE_DISCARD] = most
    return out


def rummy_features(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Rummy, ``(B, A + 2 * 54)`` float32, the columns scoring the actions
    :data:`RUMMY_FEATURE_ACTIONS` names, illegal actions read :data:`ILLEGAL`.

    The first ``A``, one per action, higher is better, each a quarter of a count of points:
    for a discard of card ``c``, minus the deadwood left without ``c`` (the points no meld of
    the rest can hold); for a meld or a lay-off, minus the points still in the hand after it
    (what the hand pays if another player goes out now); for drawing from the stock, minus
    the hand's deadwood as it is; for taking the face-up card, minus the lowest deadwood
    after taking it and discarding another card.

    Then, for the 54 draws and discards, what going out takes (R-6: every card melded) and
    the points do not say: minus the loose cards of the hand the action leaves (in no meld of
    it, and not going onto the table), and its outs (:func:`_rummy_hand_columns`). Deadwood
    alone would throw a high card of a pair before a low card that fits nothing, and rates a
    face-up card that melds no higher than one that is merely low."""
    obs = np.asarray(observations)
    masks = np.asarray(masks, bool)
    hands = obs[:, rummy.OBS_LAYOUT["hand"]] > 0.5
    out = np.full(masks.shape, ILLEGAL, np.float32)  # each block written where its actions are legal
    points = hands.astype(np.float32) @ _VALUE
    melding = -0.25 * (points[:, None] - _MELD_POINTS)
    np.copyto(out[:, rummy.MELD:rummy.LAYOFF], melding, where=masks[:, rummy.MELD:rummy.LAYOFF])
    laying = -0.25 * (points[:, None] - _VALUE[_LAYOFF_CARD])
    np.copyto(out[:, rummy.LAYOFF:], laying, where=masks[:, rummy.LAYOFF:])
    throwing = np.flatnonzero(masks[:, rummy.DISCARD:rummy.MELD].any(1))
    if throwing.size:
        after = -0.25 * melds.deadwood_after_discard(hands[throwing]).astype(np.float32)
        legal = masks[throwing, rummy.DISCARD:rummy.MELD]
        out[throwing, rummy.DISCARD:rummy.MELD] = np.where(legal, after, ILLEGAL)
    drawing = masks[:, rummy.DRAW_STOCK]
    if drawing.any():
        out[drawing, rummy.DRAW_STOCK] = -0.25 * melds.deadwood(hands[drawing])
    taken = taking, top, with_top = _taking(obs, masks, hands)
    if taking.size:
        best = melds.deadwood_after_discard(with_top).astype(np.float32)
        best[np.arange(taking.size), top] = np.inf  # the card just taken stays for the turn (C-4)
        out[taking, rummy.TAKE_DISCARD] = -0.25 * best.min(1)
    np.maximum(out, ILLEGAL, out=out)
    return np.concatenate([out, _rummy_hand_columns(obs, masks, hands, taken)], axis=1)
