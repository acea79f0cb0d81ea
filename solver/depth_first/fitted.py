"""The fitted move order: a linear score of a move's features, fitted on the positions of hard
wins (the move a winning line plays against each other move of its position; the fit is
benchmarks/lab/bench_order.py's, its figures in docs/tuning-log.md).

A move's features are summed over its cards: its class, cards from the reserve, the counts of
the piles it takes from, piles it empties, uncovered cards of its own class, cards that cover
one of their class, uncovered cards with a partner among the other cards in view.  The order
only changes which move is tried first, never which moves are searched.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..mirror.position import NPILES, NRESERVE, RESERVE_SHIFT, pile_count, rank_class
from .pruning import FREE_MASKS, TOP_COVERED

# the weights (logistic regression on the lines the grouping search found for the hard wins of
# 20,000 random deals and the hard set, scaled to integers): cards from the reserve are kept,
# uncovering a card whose partner is in view pays most
W_CLASS = np.array([5, -1, 3, 7, 2, -17], np.int64)  # A+10, 2+9, 3+8, 4+7, 5+6, faces
W_RESERVE = -128
W_COUNT = -7
W_EMPTIED = -31
W_UNCOVERS_CLASS = 10
W_COVERS_CLASS = 18
W_PARTNER = 40


@njit(cache=True, inline='always')
def _in_view(cover, rank, delta):
    """Whether a card of ``rank`` is in view, other than the cards of the move ``delta``
    (``cover``: the masks of sources by rank that move generation left in its workspace)."""
    return ((cover[rank] | cover[FREE_MASKS + rank]) & ~np.int64(delta)) != 0


@njit(cache=True, inline='always')
def fitted_key(piles, reserve, tops, cover, pos, delta):
    """The fitted score of the move ``delta`` at ``pos`` (larger: tried earlier)."""
    key = 0
    c = -1
    for i in range(NPILES):
        if (delta >> np.uint64(4 * i)) & np.uint64(15):
            n = pile_count(pos, i)
            if c < 0:
                c = rank_class(piles[i, n - 1])
            key += W_COUNT * n
            if n == 1:
                key += W_EMPTIED
                continue
            if (tops[i, n] >> (TOP_COVERED + c)) & 1:
                key += W_COVERS_CLASS
            u = np.int64(piles[i, n - 2])
            if rank_class(u) == c:
                key += W_UNCOVERS_CLASS
            if u >= 11:
                seen = True
                for p in range(11, 14):
                    if p != u and not _in_view(cover, p, delta):
                        seen = False
                if seen:
                    key += W_PARTNER
            elif _in_view(cover, 11 - u, delta):
                key += W_PARTNER
    for r in range(NRESERVE):
        if (delta >> np.uint64(RESERVE_SHIFT + r)) & np.uint64(1):
            if c < 0:
                c = rank_class(reserve[r])
            key += W_RESERVE
    return key + W_CLASS[c]


@njit(cache=True, inline='always')
def fitted_sort(piles, reserve, tops, cover, pos, moves, keys, m):
    """Order ``moves[:m]`` by fitted score, largest first, stable (``keys``: scratch)."""
    for j in range(m):
        keys[j] = fitted_key(piles, reserve, tops, cover, pos, moves[j])
    for a in range(1, m):
        key = keys[a]
        mv = moves[a]
        b = a - 1
        while b >= 0 and keys[b] < key:
            keys[b + 1] = keys[b]
            moves[b + 1] = moves[b]
            b -= 1
        keys[b + 1] = key
        moves[b + 1] = mv
