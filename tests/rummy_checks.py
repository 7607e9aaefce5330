"""The Rummy engine's state invariants, checked lane by lane in one compiled pass: shared by
the invariant tests and the belief tests (a sampled world must be a state the engine could hold)."""

import numpy as np
from numba import njit

from rummyrl import rummy as R


#: what _check_lanes found wrong, by code
PROBLEMS = (
    "ok",
    "a card is in no place or in more than one (hands, table, pile, stock)",
    "a pile or stock entry outside its live part is not -1, or one inside it is",
    "hand_size differs from the cards held",
    "a known card is not in its player's hand",
    "slot owners do not match n_melds",
    "a table card has no owner, is in an unused slot, or a laid-off card is not on the table",
    "the mask is empty while the episode goes on, or not empty after it",
)


@njit(cache=True)
def _check_lanes(hands, hand_size, known, table_slot, table_by, laid_off, n_melds, slot_owner,
                 pile, pile_len, stock, stock_pos, stock_len, phase, mask, done_phase, problem):
    """problem[b] = the code (PROBLEMS) of the first invariant lane b breaks, 0 if none.
    Card places are checked only in lanes still playing: a finished lane keeps its final
    position, checked when it ended."""
    B, P, C = hands.shape
    count = np.zeros(C, np.int64)
    for b in range(B):
        problem[b] = 0
        live = phase[b] != done_phase
        for c in range(C):
            count[c] = 1 if table_slot[b, c] >= 0 else 0
        for p in range(P):
            n = 0
            for c in range(C):
                if hands[b, p, c]:
                    n += 1
                    count[c] += 1
                elif known[b, p, c]:
                    problem[b] = 4
            if n != hand_size[b, p]:
                problem[b] = 3
        for i in range(C):
            c = pile[b, i]
            if (c >= 0) != (i < pile_len[b]):
                problem[b] = 2
            elif c >= 0:
                count[c] += 1
            c = stock[b, i]
            if (c >= 0) != (stock_pos[b] <= i < stock_len[b]):
                problem[b] = 2
            elif c >= 0:
                count[c] += 1
        if live:
            for c in range(C):
                if count[c] != 1:
                    problem[b] = 1
        for k in range(slot_owner.shape[1]):
            if (slot_owner[b, k] >= 0) != (k < n_melds[b]):
                problem[b] = 5
        for c in range(C):
            on = table_slot[b, c] >= 0
            if on != (table_by[b, c] >= 0) or (laid_off[b, c] and not on) or table_slot[b, c] >= n_melds[b]:
                problem[b] = 6
        any_legal = False
        for a in range(mask.shape[1]):
            if mask[b, a]:
                any_legal = True
                break
        if any_legal != live:
            problem[b] = 7


def check_state(s):
    problem = np.empty(s.batch_size, np.int64)
    _check_lanes(s.hands, s.hand_size, s.known, s.table_slot, s.table_by, s.laid_off, s.n_melds,
                 s.slot_owner, s.pile, s.pile_len, s.stock, s.stock_pos, s.stock_len, s.phase, s.mask,
                 R.PHASE_DONE, problem)
    bad = np.flatnonzero(problem)
    assert bad.size == 0, f"game {bad[0]}: {PROBLEMS[problem[bad[0]]]}"
