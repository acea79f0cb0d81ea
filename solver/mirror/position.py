"""The bit-packed mirror of the game: positions as one uint64, numba kernels.

A position packs the number of cards left in each pile (4 bits each, piles 1–12 in
bits 0–47) and the full reserve slots (bits 48–55).  A move is stored as the uint64
*delta* it subtracts from the position: one ``1 << 4i`` per pile it takes a card
from and one ``1 << (48 + r)`` per reserve slot, so ``child = pos - delta`` and
``pos = child + delta``.

The deal is two small arrays: ``piles`` (int8, 12 × 8, ranks bottom to top, 0 where
there is no card) and ``reserve`` (int8, 8 ranks, 0 for an empty slot).

This module imports nothing from the project; every function is a small
``@njit(cache=True)`` function over plain arrays and integers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

NPILES = 12
DEPTH = 8
NRESERVE = 8
NSOURCES = NPILES + NRESERVE
RESERVE_SHIFT = 48
MAX_MOVES = 320  # 294 is the most a position can have: 7 J x 7 Q x 6 K in view
MAX_PLY = 48
NCLASSES = 6  # A+10, 2+9, 3+8, 4+7, 5+6, J+Q+K
FACE_CLASS = 5

POS_DTYPE = np.uint64
RANK_DTYPE = np.int8


@njit(cache=True, inline='always')
def rank_class(rank):
    """Class 0..4 of a number rank (A+10 … 5+6), 5 for faces."""
    if rank >= 11:
        return 5
    if rank <= 5:
        return rank - 1
    return 10 - rank


@njit(cache=True, inline='always')
def pile_count(pos, i):
    return np.int64((pos >> np.uint64(4 * i)) & np.uint64(15))


@njit(cache=True, inline='always')
def reserve_full(pos, r):
    return ((pos >> np.uint64(RESERVE_SHIFT + r)) & np.uint64(1)) != np.uint64(0)


# the delta of each source's playable card, looked up
SOURCE_DELTAS = np.array([1 << (4 * i) for i in range(NPILES)]
                          + [1 << (RESERVE_SHIFT + r) for r in range(NRESERVE)], np.uint64)


@njit(cache=True, inline='always')
def source_delta(src):
    """The delta of removing the playable card of source 0..19 (P1..P12, R1..R8)."""
    return SOURCE_DELTAS[src]


@njit(cache=True)
def initial_position(piles, reserve):
    """The packed position of a deal or layout given as arrays."""
    pos = np.uint64(0)
    for i in range(NPILES):
        n = 0
        for k in range(DEPTH):
            if piles[i, k] != 0:
                n = k + 1
        pos |= np.uint64(n) << np.uint64(4 * i)
    for r in range(NRESERVE):
        if reserve[r] != 0:
            pos |= np.uint64(1) << np.uint64(RESERVE_SHIFT + r)
    return pos


@njit(cache=True)
def playable(piles, reserve, pos, src_out, rank_out):
    """Fill the playable sources and their ranks; return how many there are."""
    n = 0
    for i in range(NPILES):
        c = pile_count(pos, i)
        if c > 0:
            src_out[n] = i
            rank_out[n] = piles[i, c - 1]
            n += 1
    for r in range(NRESERVE):
        if reserve_full(pos, r):
            src_out[n] = NPILES + r
            rank_out[n] = reserve[r]
            n += 1
    return n


@njit(cache=True)
def all_moves(piles, reserve, pos, out):
    """Every legal move of a position, unpruned, as deltas; returns the count.

    This is the mirror of the reference engine's ``legal_moves``: every pair of
    playable number cards adding up to 11 and every playable J+Q+K triplet.
    """
    srcs = np.empty(NSOURCES, np.int64)
    ranks = np.empty(NSOURCES, np.int64)
    n = playable(piles, reserve, pos, srcs, ranks)
    m = 0
    for a in range(n):
        ra = ranks[a]
        if ra <= 10:
            for b in range(a + 1, n):
                if ranks[b] + ra == 11 and ranks[b] <= 10:
                    out[m] = source_delta(srcs[a]) + source_delta(srcs[b])
                    m += 1
        else:
            for b in range(a + 1, n):
                rb = ranks[b]
                if rb <= 10 or rb == ra:
                    continue
                for c in range(b + 1, n):
                    rc = ranks[c]
                    if rc > 10 and rc != ra and rc != rb:
                        out[m] = (source_delta(srcs[a]) + source_delta(srcs[b])
                                  + source_delta(srcs[c]))
                        m += 1
    return m


@njit(cache=True)
def delta_sources(delta, out):
    """Decode a move delta into its sources (0..19); returns how many."""
    n = 0
    for i in range(NPILES):
        k = np.int64((delta >> np.uint64(4 * i)) & np.uint64(15))
        if k:
            out[n] = i
            n += 1
    for r in range(NRESERVE):
        if (delta >> np.uint64(RESERVE_SHIFT + r)) & np.uint64(1):
            out[n] = NPILES + r
            n += 1
    return n


@njit(cache=True)
def cards_left(pos):
    n = 0
    for i in range(NPILES):
        n += pile_count(pos, i)
    for r in range(NRESERVE):
        if reserve_full(pos, r):
            n += 1
    return n




def position_arrays(piles: np.ndarray, reserve: np.ndarray,
                    pos: int) -> tuple[np.ndarray, np.ndarray]:
    """A position of a deal as its own arrays: the cards above each pile's count and the
    empty reserve slots zeroed (new arrays of the same dtypes), so that its start position
    is ``pos``: how the searches take a position that is not a deal's start."""
    pos = int(pos)  # (on Python's integers: a walk makes some of these for each child)
    out, slots = piles.copy(), reserve.copy()
    for i in range(NPILES):
        n = (pos >> (4 * i)) & 15
        if n < DEPTH:
            out[i, n:] = 0
    for r in range(NRESERVE):
        if not (pos >> (RESERVE_SHIFT + r)) & 1:
            slots[r] = 0
    return out, slots
