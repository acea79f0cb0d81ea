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
    playable,
    rank_class,
    reserve_full,
    source_delta,
)

FREE_CARDS = 1
CLASS_IN_VIEW = 2
ORDERING = 4
BOUNDS = 8
PROJECTIONS = 16
ALL_RULES = FREE_CARDS | CLASS_IN_VIEW | ORDERING | BOUNDS | PROJECTIONS
NO_RULES = 0


@njit(cache=True)
def class_prefix(piles, reserve):
    """``pref[i, n, c]``: class-c cards among the bottom n cards of pile i;
    ``pref[12 + r, 1, c]`` for reserve slot r."""
    pref = np.zeros((NSOURCES, DEPTH + 1, NCLASSES), np.int8)
    for i in range(NPILES):
        for n in range(1, DEPTH + 1):
            for c in range(NCLASSES):
                pref[i, n, c] = pref[i, n - 1, c]
            r = piles[i, n - 1]
            if r != 0:
                pref[i, n, rank_class(r)] += 1
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
    """Scratch arrays for :func:`search_moves` (allocated once per search)."""
    return (
        np.empty(NSOURCES, np.int64),
        np.empty(NSOURCES, np.int64),
        np.empty((14, NSOURCES), np.int64),
        np.zeros(14, np.int64),
        np.zeros(14, np.int64),
        np.empty(14, np.int64),
        np.zeros(NCLASSES, np.int64),
    )


@njit(cache=True)
def search_moves(piles, reserve, pref, pos, flags, out, keys, ws):
    """The moves the search tries at ``pos``, best first; returns their count.

    ``out`` receives move deltas, ``keys`` is scratch space for the ordering and
    ``ws`` the workspace of :func:`new_workspace`.
    """
    srcs, ranks, cand, ncand, nfree, freesrc, in_view = ws
    n = playable(piles, reserve, pos, srcs, ranks)
    ncand[:] = 0
    nfree[:] = 0
    in_view[:] = 0
    for a in range(n):
        r = ranks[a]
        s = srcs[a]
        in_view[rank_class(r)] += 1
        covering = s < NPILES and pile_count(pos, s) >= 2
        if covering or not (flags & FREE_CARDS):
            cand[r, ncand[r]] = s
            ncand[r] += 1
        else:
            if nfree[r] == 0:
                freesrc[r] = s
            nfree[r] += 1
    if flags & FREE_CARDS:
        for r in range(1, 14):
            if ncand[r] == 0 and nfree[r] > 0:
                cand[r, 0] = freesrc[r]
                ncand[r] = 1
    lo = 0
    hi = NCLASSES
    if flags & CLASS_IN_VIEW:
        for c in range(NCLASSES):
            if in_view[c] > 0 and in_view[c] == class_left(pref, pos, c):
                lo = c
                hi = c + 1
                break
    m = 0
    for c in range(lo, hi):
        if c < 5:
            r1 = c + 1
            r2 = 10 - c
            for a in range(ncand[r1]):
                for b in range(ncand[r2]):
                    out[m] = source_delta(cand[r1, a]) + source_delta(cand[r2, b])
                    m += 1
        else:
            for a in range(ncand[11]):
                for b in range(ncand[12]):
                    for d in range(ncand[13]):
                        out[m] = (
                            source_delta(cand[11, a])
                            + source_delta(cand[12, b])
                            + source_delta(cand[13, d])
                        )
                        m += 1
        if hi - lo == 1 and m > 0:
            m = 1  # one canonical move clears a class in view
    if flags & ORDERING and m > 1:
        for k in range(m):
            keys[k] = move_key(pos, out[k])
        # insertion sort, best (largest key) first
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
    """Ordering key: cards uncovered in the fullest piles count most."""
    key = 0
    for i in range(NPILES):
        if (delta >> np.uint64(4 * i)) & np.uint64(15):
            key += pile_count(pos, i) * 2
    return key
