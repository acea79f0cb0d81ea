"""Sound pruning and move ordering for the search (proofs in docs/solver.md).

- **Free cards**: a card that covers nothing — a reserve card or
  the last card of a pile — is only used when no covering card of its rank is
  playable, and then only one of them (the first) per rank.
- **Class in view**: if every card of a class still in the game is
  playable, its removal is the only move searched.
- **Ordering**: moves that take cards from the fullest piles first.

The other flags name rules applied elsewhere: ``BOUNDS`` (solver/depth_first/bounds.py),
``PROJECTIONS`` (solver/depth_first/projections.py), ``GROUPING`` (solver/grouping/) with
``COUNTING``, its view by counts (solver/grouping/count_propagation.py), and
``COMMUTING``, the search's sleep sets (solver/depth_first/dfs.py).  Each rule can be
switched off through ``flags`` so that tests can compare verdicts with and without it.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..mirror.position import (
    DEPTH,
    NCLASSES,
    NPILES,
    NRESERVE,
    NSOURCES,
    RESERVE_SHIFT,
    pile_count,
    rank_class,
)

FREE_CARDS = 1
CLASS_IN_VIEW = 2
ORDERING = 4
BOUNDS = 8
PROJECTIONS = 16
GROUPING = 32  # the clause-learning search (solver/grouping/), between turns
COMMUTING = 64  # sleep sets: a move that commutes with the path is not searched twice
COUNTING = 128  # the grouping search in the view by counts, not by pairs
ALL_RULES = (FREE_CARDS | CLASS_IN_VIEW | ORDERING | BOUNDS | PROJECTIONS | GROUPING | COMMUTING
             | COUNTING)
NO_RULES = 0


# What a source shows, as one word of ``top_table``: where its playable card goes
# among the workspace's rank masks, when free cards are kept apart (bits 0-5) and
# when they are not (bits 6-11); the classes of the cards it covers (bits 12-17); and
# a count of one in its class's 5-bit field (bits 20-49; summed over the sources,
# the cards in view per class).  A covering card of rank r goes to mask r, a free
# card (one that covers nothing) to mask 14 + r when kept apart; a source without a
# card goes to a mask of its own, 28 + source, which nothing reads: a run of empty
# sources then makes no chain of writes to one place.
TOP_APART = 0
TOP_MIXED = 6
TOP_COVERED = 12
TOP_VIEW = 20
VIEW_BITS = 5
FREE_MASKS = 14
EMPTY_MASKS = 28
NMASKS = EMPTY_MASKS + NSOURCES


@njit(cache=True)
def top_table(piles, reserve):
    """``tops[i, n]``: the word of pile i holding n cards (n = 0..15), and
    ``tops[12 + s, b]`` that of reserve slot s, full when b = 1, so that move
    generation reads one word per source and never branches on ranks."""
    tops = np.zeros((NSOURCES, 16), np.int64)
    for src in range(NSOURCES):
        for n in range(16):
            tops[src, n] = (EMPTY_MASKS + src) * ((1 << TOP_APART) | (1 << TOP_MIXED))
    for i in range(NPILES):
        below = 0
        for n in range(1, DEPTH + 1):
            r = np.int64(piles[i, n - 1])  # int8 would overflow in plain Python's shifts
            if r == 0:
                break
            c = rank_class(r)
            apart = r + FREE_MASKS if n == 1 else r
            tops[i, n] = ((apart << TOP_APART) | (r << TOP_MIXED) | (below << TOP_COVERED)
                          | (1 << (TOP_VIEW + VIEW_BITS * c)))
            below |= 1 << c
    for s in range(NRESERVE):
        r = np.int64(reserve[s])
        if r != 0:
            tops[NPILES + s, 1] = (((r + FREE_MASKS) << TOP_APART) | (r << TOP_MIXED)
                                   | (1 << (TOP_VIEW + VIEW_BITS * rank_class(r))))
    return tops


@njit(cache=True)
def new_workspace():
    """Scratch space for :func:`search_moves` (allocated once per search): the
    sources of each rank's playable cards as bit masks (see ``top_table``), in the
    bits of move deltas."""
    return np.zeros(NMASKS, np.int64)


# The workspace's masks of sources are written in the bits of move deltas: pile i is
# the bit 4 i, reserve slot s the bit 48 + s.  The lowest bit of a mask (x & -x) is then
# the delta of taking that card, with no index to compute, and a move's delta is the sum
# of its cards' bits.  Only the ordering weight needs the index of a card's bit: a de
# Bruijn sequence gives it ((x * B) >> 58 for a single bit x), and a table the shift of
# that source's count in a position (reserve slots: 60, where a position's bits are 0).
_DEBRUIJN_MUL = np.uint64(0x03F79D71B4CB0A89)
_DEBRUIJN = np.zeros(64, np.int64)
for _k in range(64):
    _DEBRUIJN[((int(_DEBRUIJN_MUL) << _k) & (2**64 - 1)) >> 58] = _k
_COUNT_SHIFT = np.array([k if k < 48 else 60 for k in range(64)], np.uint64)


@njit(cache=True, inline='always')
def _weight(pos, bit):
    """Ordering weight of the card of a source, given as its delta bit: twice its pile's
    count, 0 in the reserve."""
    k = _DEBRUIJN[(np.uint64(bit) * _DEBRUIJN_MUL) >> np.uint64(58)]
    return 2 * np.int64((pos >> _COUNT_SHIFT[k]) & np.uint64(15))


@njit(cache=True, inline='always')
def search_moves(tops, pos, flags, out, keys, ws):
    """The moves the search tries at ``pos``, best first; returns their count.

    ``tops`` is the deal's :func:`top_table`, ``out`` receives move deltas, ``keys``
    is scratch space for the ordering and ``ws`` the workspace of :func:`new_workspace`.
    Each source costs one table read and one masked OR, with no branch on its rank, and
    a move's delta is the sum of its cards' lowest bits.
    """
    cover = ws
    for r in range(EMPTY_MASKS):
        cover[r] = 0
    free = flags & FREE_CARDS
    shift = TOP_APART if free else TOP_MIXED
    covered = 0
    view = 0
    for i in range(NPILES):
        w = tops[i, (pos >> np.uint64(4 * i)) & np.uint64(15)]
        cover[(w >> shift) & 63] |= np.int64(1) << (4 * i)
        covered |= w >> TOP_COVERED
        view += w >> TOP_VIEW
    for s in range(NRESERVE):
        w = tops[NPILES + s, (pos >> np.uint64(RESERVE_SHIFT + s)) & np.uint64(1)]
        cover[(w >> shift) & 63] |= np.int64(1) << (RESERVE_SHIFT + s)
        view += w >> TOP_VIEW
    covered &= 63
    if free:
        for r in range(1, 14):  # no covering card of the rank: its first free card
            f = cover[FREE_MASKS + r]
            c = cover[r]
            cover[r] = c | ((f & -f) & -np.int64(c == 0))
    lo = 0
    hi = NCLASSES
    if flags & CLASS_IN_VIEW:
        for c in range(NCLASSES):
            if (view >> (VIEW_BITS * c)) & 31 and not (covered >> c) & 1:
                lo = c
                hi = c + 1
                break
    # the classes with a move: both ranks of a pair (all three faces) in view
    avail = 0
    for c in range(5):
        avail |= np.int64((cover[c + 1] != 0) & (cover[10 - c] != 0)) << c
    avail |= np.int64((cover[11] != 0) & (cover[12] != 0) & (cover[13] != 0)) << 5
    avail &= ((1 << hi) - 1) & ~((1 << lo) - 1)
    order = flags & ORDERING
    m = 0
    for c in range(5):  # pairs, in class order
        if (avail >> c) & 1:
            ma = cover[c + 1]
            while ma:
                x = ma & -ma
                ma ^= x
                wx = _weight(pos, x) if order else 0
                mb = cover[10 - c]
                while mb:
                    y = mb & -mb
                    mb ^= y
                    out[m] = np.uint64(x + y)
                    if order:
                        keys[m] = wx + _weight(pos, y)
                    m += 1
    if avail >> 5:
        ma = cover[11]
        while ma:
            x = ma & -ma
            ma ^= x
            wx = _weight(pos, x) if order else 0
            mb = cover[12]
            while mb:
                y = mb & -mb
                mb ^= y
                wy = wx + (_weight(pos, y) if order else 0)
                mc = cover[13]
                while mc:
                    z = mc & -mc
                    mc ^= z
                    out[m] = np.uint64(x + y + z)
                    if order:
                        keys[m] = wy + _weight(pos, z)
                    m += 1
    if hi - lo == 1 and m > 0:
        m = 1  # one canonical move clears a class in view
    if order and m > 1:
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


@njit(cache=True)
def generate_over(tops, which, positions, passes, out, keys, ws):
    """Move generation with the free-card rule on every position ``passes`` times (the
    reference workload of :mod:`solver.timing`); returns the moves found, so that nothing
    is left out as unused."""
    total = 0
    for _ in range(passes):
        for k in range(positions.size):
            total += search_moves(tops[which[k]], positions[k], FREE_CARDS, out, keys, ws)
    return total
