"""Sound pruning and move ordering for the search (proofs in docs/solver.md).

- **Free cards** (facts 2, 3, 5): a card that covers nothing — a reserve card or
  the last card of a pile — is only used when no covering card of its rank is
  playable, and then only one of them (the first) per rank.
- **Class in view** (fact 4): if every card of a class still in the game is
  playable, its removal is the only move searched.
- **Ordering**: moves that take cards from the fullest piles first.

Each rule can be switched off through ``flags`` so that tests can compare verdicts
with and without it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import (
    DEPTH,
    NCLASSES,
    NPILES,
    NRESERVE,
    NSOURCES,
    pile_count,
    rank_class,
    reserve_full,
)

FREE_CARDS = 1
CLASS_IN_VIEW = 2
ORDERING = 4
BOUNDS = 8
PROJECTIONS = 16
GROUPING = 32  # the clause-learning search of solver/grouping.py, between turns
ALL_RULES = FREE_CARDS | CLASS_IN_VIEW | ORDERING | BOUNDS | PROJECTIONS | GROUPING
NO_RULES = 0


COVERED = NCLASSES  # pref[i, n, COVERED]: bit mask of the classes among the bottom n cards


@njit(cache=True)
def class_prefix(piles, reserve):
    """``pref[i, n, c]``: class-c cards among the bottom n cards of pile i;
    ``pref[12 + r, 1, c]`` for reserve slot r; ``pref[i, n, COVERED]`` the bit mask
    of the classes present among the bottom n cards of pile i."""
    pref = np.zeros((NSOURCES, DEPTH + 1, NCLASSES + 1), np.int8)
    for i in range(NPILES):
        for n in range(1, DEPTH + 1):
            for c in range(NCLASSES + 1):
                pref[i, n, c] = pref[i, n - 1, c]
            r = piles[i, n - 1]
            if r != 0:
                pref[i, n, rank_class(r)] += 1
                pref[i, n, COVERED] |= 1 << rank_class(r)
    for s in range(NRESERVE):
        if reserve[s] != 0:
            pref[NPILES + s, 1, rank_class(reserve[s])] = 1
    return pref


@njit(cache=True)
def class_left(pref, pos, c):
    n = 0
    for i in range(NPILES):
        n += pref[i, pile_count(pos, i), c]
    for s in range(NRESERVE):
        if reserve_full(pos, s):
            n += pref[NPILES + s, 1, c]
    return n


@njit(cache=True)
def new_workspace():
    """Scratch arrays for :func:`search_moves` (allocated once per search): per rank,
    the sources of covering and of free playable cards as bit masks; per source, its
    move delta and ordering weight; per class, the cards in view."""
    return (
        np.zeros(14, np.int64),
        np.zeros(14, np.int64),
        np.zeros(NSOURCES, np.uint64),
        np.zeros(NSOURCES, np.int64),
        np.zeros(NCLASSES, np.int64),
        np.zeros(NSOURCES, np.int64),
    )


# The index of the lowest set bit of a mask of sources (< 2**32), by a de Bruijn
# sequence: (x & -x) * B has that index in its top five bits.
_DEBRUIJN = np.array([0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8, 31, 27, 13,
                      23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9], np.int64)


@njit(cache=True, inline='always')
def _low(mask):
    return _DEBRUIJN[(((mask & -mask) * 0x077CB531) & 0xFFFFFFFF) >> 27]


@njit(cache=True, _nrt=False)
def _bits(mask, out):
    """The set bits of ``mask`` (sources), lowest first; returns how many."""
    n = 0
    while mask:
        out[n] = _low(mask)
        n += 1
        mask &= mask - 1
    return n


@njit(cache=True, inline='always')
def search_moves(piles, reserve, pref, pos, flags, out, keys, ws):
    """The moves the search tries at ``pos``, best first; returns their count.

    ``out`` receives move deltas, ``keys`` is scratch space for the ordering and
    ``ws`` the workspace of :func:`new_workspace`.
    """
    cover, free, delta, weight, in_view, lst = ws
    for r in range(14):
        cover[r] = 0
        free[r] = 0
    for c in range(NCLASSES):
        in_view[c] = 0
    use_free = flags & FREE_CARDS
    covered = 0
    for i in range(NPILES):
        n = np.int64((pos >> np.uint64(4 * i)) & np.uint64(15))
        if n > 0:
            r = piles[i, n - 1]
            in_view[rank_class(r)] += 1
            covered |= pref[i, n - 1, COVERED]
            weight[i] = 2 * n
            delta[i] = np.uint64(1) << np.uint64(4 * i)
            if n >= 2 or not use_free:
                cover[r] |= 1 << i
            else:
                free[r] |= 1 << i
    for s_ in range(NRESERVE):
        if (pos >> np.uint64(48 + s_)) & np.uint64(1):
            r = reserve[s_]
            in_view[rank_class(r)] += 1
            src = NPILES + s_
            weight[src] = 0
            delta[src] = np.uint64(1) << np.uint64(48 + s_)
            if use_free:
                free[r] |= 1 << src
            else:
                cover[r] |= 1 << src
    if use_free:
        for r in range(1, 14):
            if cover[r] == 0 and free[r] != 0:
                cover[r] = free[r] & -free[r]  # the first free card of the rank
    lo = 0
    hi = NCLASSES
    if flags & CLASS_IN_VIEW:
        for c in range(NCLASSES):
            if in_view[c] > 0 and not (covered >> c) & 1:
                lo = c
                hi = c + 1
                break
    m = 0
    for c in range(lo, hi):
        if c < 5:
            na = _bits(cover[c + 1], lst)
            if na == 0:
                continue
            for a in range(na):
                x = lst[a]
                mb = cover[10 - c]
                while mb:
                    y = _low(mb)
                    mb &= mb - 1
                    out[m] = delta[x] + delta[y]
                    keys[m] = weight[x] + weight[y]
                    m += 1
        else:
            if cover[11] == 0 or cover[12] == 0 or cover[13] == 0:
                continue
            na = _bits(cover[11], lst)
            for a in range(na):
                x = lst[a]
                mb = cover[12]
                while mb:
                    y = _low(mb)
                    mb &= mb - 1
                    mc = cover[13]
                    while mc:
                        z = _low(mc)
                        mc &= mc - 1
                        out[m] = delta[x] + delta[y] + delta[z]
                        keys[m] = weight[x] + weight[y] + weight[z]
                        m += 1
        if hi - lo == 1 and m > 0:
            m = 1  # one canonical move clears a class in view
    if flags & ORDERING and m > 1:
        # insertion sort, best (largest key) first, stable
        for k in range(1, m):
            kk = keys[k]
            mv = out[k]
            j = k - 1
            while j >= 0 and keys[j] < kk:
                keys[j + 1] = keys[j]
                out[j + 1] = out[j]
                j -= 1
            keys[j + 1] = kk
            out[j + 1] = mv
    return m


@njit(cache=True)
def move_key(pos, delta):
    """Ordering key: cards uncovered in the fullest piles count most (the key
    :func:`search_moves` computes as it generates the moves; the tests check one
    against the other)."""
    key = 0
    for i in range(NPILES):
        if (delta >> np.uint64(4 * i)) & np.uint64(15):
            key += pile_count(pos, i) * 2
    return key
