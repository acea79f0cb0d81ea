"""The fitted move order: a linear score of a move's features, fitted on the positions of hard
wins (the move a winning line plays against each other move of its position; the fit is
benchmarks/lab/bench_order.py's, its figures in docs/tuning-log.md).

A move's score is its class's weight plus a weight for each of its cards: a reserve card's, or
for a pile's top card one from the pile's count, whether it empties the pile, whether it covers
a card of its own class, whether the card it uncovers is of its class, and whether that card
has its partner in view (the faces: both other faces; the card itself left out).  Move
generation (:func:`solver.depth_first.pruning.search_moves`) computes each source's weight once
a position, as it does the order by fullest piles; the order only changes which move is tried
first, never which moves are searched.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# the weights (logistic regression on the lines the grouping search found for hard wins,
# scaled to integers): cards from the reserve are kept, uncovering a card whose partner is
# in view pays most
W_CLASS = np.array([6, 1, 1, 9, 2, -19], np.int64)  # A+10, 2+9, 3+8, 4+7, 5+6, faces
W_RESERVE = -128
W_COUNT = -7
W_EMPTIED = -31
W_UNCOVERS_CLASS = -2
W_COVERS_CLASS = 19
W_PARTNER = 41


@njit(cache=True, inline='always')
def pile_weight(n, covers_class, uncovers_class, partner_in_view):
    """The weight of the top card of a pile of ``n`` cards (the flags are of the cards below
    it; they are not read when ``n`` is 1)."""
    if n == 1:
        return W_COUNT + W_EMPTIED
    return (W_COUNT * n + W_COVERS_CLASS * covers_class + W_UNCOVERS_CLASS * uncovers_class
            + W_PARTNER * partner_in_view)
