"""What a fair player can say about a move, as numbers, and the player that weighs them.

A move's *features* (:func:`move_features`) use only what the app shows: the pile tops,
the reserve, the piles' sizes and, by counting the two decks against them, how many
cards of each rank are hidden (never where).  ``h`` below is that count by rank, ``n_h``
their number, and "in view" means the tops and the reserve left after the move:

====  ==========================================================================
 0    u: the move's pile cards that cover another card (each brings one into view)
 1    1 for a pair, 0 for a triplet
 2    the reserve cards the move takes
 3    the sizes of the piles it takes from, summed
 4    hidden cards that would be playable at once with the cards left in view
      (a number card whose partner rank is in view; a face card whose two other
      face ranks are)
 5    1 unless the move leaves a sure dead end (nothing uncovered, no move in view)
 6    the classes with a move left in view (a pair class with both ranks, the faces
      with all three)
 7    u × feature 4 / (n_h + 1): the uncovered cards expected to be playable at once
 8    the size of the fullest pile it takes from
 9    the cards of the move's ranks left in view
10    the reserve cards it takes × the reserve cards there are
11    u × n_h / 96 (uncovering counts for more early in the game)
12    the hidden cards of the ranks the move's cards pair with
13    the squares of the sizes of the piles it takes from, summed
14    the cards left in view that have a partner in view
15    u × the reserve cards there are
16    feature 1 × n_h / 96
17    feature 3 × n_h / 96
====  ==========================================================================

The *tuned* player (:func:`weighted_choice` with :data:`TUNED_WEIGHTS`) plays the move
with the largest weighted sum of its features, ties to the first move in the engine's
order.  Its weights were fitted by the cross-entropy method
(:mod:`halfmoon.research.tuning`) on deals drawn at random from the whole code space;
greedy's key is one point of that space (weights 64, 32 on features 0 and 1, and 1 on
feature 3 give greedy's moves).  Like the other kernels, this module imports nothing from
the project outside :mod:`solver`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..mirror.position import (
    MAX_MOVES,
    NPILES,
    NRESERVE,
    NSOURCES,
    all_moves,
    delta_sources,
    pile_count,
    reserve_full,
)

NMOVE_FEATURES = 18
# fitted by `python -m halfmoon.research.tuning` (its defaults; docs/fair-play.md gives the run)
TUNED_WEIGHTS = np.array([0.646656, 0.826133, 0.0825928, 0.0142439, 0.00528023, 0.0939478,
                          0.121856, 0.480348, 0.104545, 0.116907, -0.030666, -0.229383,
                          -0.0611885, 0.00804002, 0.00170391, -0.0546716, 0.719398, 0.116944])
GREEDY_WEIGHTS = np.zeros(NMOVE_FEATURES, np.float64)
GREEDY_WEIGHTS[0], GREEDY_WEIGHTS[1], GREEDY_WEIGHTS[3] = 64.0, 32.0, 1.0


@njit(cache=True, inline='always')
def playable_with(view, cards):
    """How many of ``cards`` (counts by rank) would be playable at once with the ranks
    ``view`` in view: a number card whose partner rank is in view, a face card whose two
    other face ranks are."""
    n = 0
    for r in range(1, 11):
        if view[11 - r] > 0:
            n += cards[r]
    if view[12] > 0 and view[13] > 0:
        n += cards[11]
    if view[11] > 0 and view[13] > 0:
        n += cards[12]
    if view[11] > 0 and view[12] > 0:
        n += cards[13]
    return n


@njit(cache=True, inline='always')
def count_view(piles, reserve, pos, view, hidden, rank):
    """What a fair player counts at ``pos`` into zeroed arrays: the ranks in view (the tops
    and the reserve, ``view[r]``), the ranks hidden under the tops (``hidden[r]``: counted,
    not placed) and the rank each source shows (``rank[s]``, 0 for an empty one).  Returns
    (hidden cards, reserve cards)."""
    nh = 0
    for i in range(NPILES):
        c = pile_count(pos, i)
        if c > 0:
            rank[i] = piles[i, c - 1]
            view[rank[i]] += 1
        for k in range(c - 1):
            hidden[piles[i, k]] += 1
            nh += 1
    nres = 0
    for r in range(NRESERVE):
        if reserve_full(pos, r):
            rank[NPILES + r] = reserve[r]
            view[rank[NPILES + r]] += 1
            nres += 1
    return nh, nres


@njit(cache=True)
def move_features(piles, reserve, pos, moves, m, out):
    """The features of each move ``moves[:m]`` of ``pos`` into ``out[:m]`` (see the module)."""
    view = np.zeros(14, np.int64)
    hidden = np.zeros(14, np.int64)
    rank = np.zeros(NSOURCES, np.int64)
    nh, nres = count_view(piles, reserve, pos, view, hidden, rank)
    early = nh / 96.0
    srcs = np.empty(3, np.int64)
    for j in range(m):
        n = delta_sources(moves[j], srcs)
        u = 0
        res = 0
        sizes = 0
        squares = 0
        fullest = 0
        scarce = 0
        for q in range(n):
            s = srcs[q]
            rr = rank[s]
            view[rr] -= 1
            scarce += hidden[11 - rr] if rr <= 10 else hidden[rr]
            if s < NPILES:
                c = pile_count(pos, s)
                sizes += c
                squares += c * c
                fullest = max(fullest, c)
                if c >= 2:
                    u += 1
            else:
                res += 1
        playable = playable_with(view, hidden)
        classes = 0
        for r in range(1, 6):
            if view[r] > 0 and view[11 - r] > 0:
                classes += 1
        if view[11] > 0 and view[12] > 0 and view[13] > 0:
            classes += 1
        spare = 0
        for q in range(n):
            spare += view[rank[srcs[q]]]
        matched = playable_with(view, view)  # the cards in view with a partner in view
        for q in range(n):
            view[rank[srcs[q]]] += 1
        pair = 1.0 if n == 2 else 0.0
        out[j, 0] = u
        out[j, 1] = pair
        out[j, 2] = res
        out[j, 3] = sizes
        out[j, 4] = playable
        out[j, 5] = 1.0 if u > 0 or classes > 0 else 0.0
        out[j, 6] = classes
        out[j, 7] = u * playable / (nh + 1.0)
        out[j, 8] = fullest
        out[j, 9] = spare
        out[j, 10] = res * nres
        out[j, 11] = u * early
        out[j, 12] = scarce
        out[j, 13] = squares
        out[j, 14] = matched
        out[j, 15] = u * nres
        out[j, 16] = pair * early
        out[j, 17] = sizes * early


@njit(cache=True)
def weighted_choice(piles, reserve, pos, moves, m, weights, scratch):
    """The index of the move with the largest weighted sum of its features (``scratch``:
    float64[MAX_MOVES, NMOVE_FEATURES]), ties to the first."""
    move_features(piles, reserve, pos, moves, m, scratch)
    k = 0
    best = -np.inf
    for j in range(m):
        s = 0.0
        for f in range(NMOVE_FEATURES):
            s += weights[f] * scratch[j, f]
        if s > best + 1e-12:
            best = s
            k = j
    return k


@njit(cache=True, nogil=True)
def weighted_wins(piles, reserve, roots, weights, out):
    """Whether the weighted player with ``weights`` wins each deal ``d`` (``piles[d]``,
    ``reserve[d]`` from ``roots[d]``) into ``out[d]``; without the GIL (threads may share a
    batch)."""
    moves = np.empty(MAX_MOVES, np.uint64)
    scratch = np.zeros((MAX_MOVES, NMOVE_FEATURES), np.float64)
    for d in range(roots.shape[0]):
        pos = roots[d]
        while pos != np.uint64(0):
            m = all_moves(piles[d], reserve[d], pos, moves)
            if m == 0:
                break
            k = weighted_choice(piles[d], reserve[d], pos, moves, m, weights, scratch)
            pos = pos - moves[k]
        out[d] = pos == np.uint64(0)
