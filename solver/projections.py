"""Dead-end detection by projections (proof in docs/solver.md).

The projection of a position onto a set S of classes keeps only the cards of those
classes, each pile in its order.  Any win of the position, with the moves of other
classes deleted, is a win of the projection: each remaining move is still legal,
because the deleted cards only ever covered cards.  So a projection that cannot be
won proves the position lost.

Projections used: the J+Q+K class together with each pair class (five of them) at
every position searched, and with each two pair classes (ten more) at the root of a
search that the first passes did not settle.
Each projected game is solved on demand by a small memoized search of its own, and
its verdicts (win and loss) are kept in a table shared by the whole search of the
deal, keyed by projection and projected position.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .kernels import DEPTH, MAX_MOVES, MAX_PLY, NPILES, NRESERVE, RESERVE_SHIFT, pile_count, rank_class
from .pruning import CLASS_IN_VIEW, FREE_CARDS, ORDERING, class_prefix, new_workspace, search_moves
from .table import tt_contains, tt_store

# Classes of each projection, as bit masks over the classes 0..5 (5 = J+Q+K): first
# the five "faces + one pair class" used at every position, then the ten "faces + two
# pair classes" used at the root of hard searches.
_FACES = 1 << 5
PROJECTION_MASKS = np.array(
    [_FACES | (1 << a) for a in range(5)]
    + [_FACES | (1 << a) | (1 << b) for a in range(5) for b in range(a + 1, 5)],
    dtype=np.int64,
)
NPROJ = 5
NPROJ_ALL = len(PROJECTION_MASKS)
PROJ_BUDGET = 200_000  # positions one projected search may expand before giving up
_WIN_BIT = np.uint64(1) << np.uint64(62)
_UNKNOWN_BIT = np.uint64(1) << np.uint64(61)  # a projected search gave up here
_TAG_SHIFT = np.uint64(56)
PROJ_RULES = FREE_CARDS | CLASS_IN_VIEW | ORDERING
P_WIN = 1
P_LOSS = 0
P_UNKNOWN = -1


@njit(cache=True)
def projection_arrays(piles, reserve, masks):
    """For projection p (the classes of ``masks[p]``): its piles and reserve (ranks,
    the cards of other classes left out), its class prefix table, and
    ``count[p, i, n]``, the projected height of pile i when the full pile has n cards."""
    nproj = masks.size
    ppiles = np.zeros((nproj, NPILES, DEPTH), np.int8)
    preserve = np.zeros((nproj, NRESERVE), np.int8)
    count = np.zeros((nproj, NPILES, DEPTH + 1), np.int64)
    for p in range(nproj):
        mask = masks[p]
        for i in range(NPILES):
            h = 0
            for k in range(DEPTH):
                r = piles[i, k]
                if r != 0:
                    if (mask >> rank_class(r)) & 1:
                        ppiles[p, i, h] = r
                        h += 1
                count[p, i, k + 1] = h
        for s in range(NRESERVE):
            r = reserve[s]
            if r != 0:
                if (mask >> rank_class(r)) & 1:
                    preserve[p, s] = r
    pprefs = np.zeros((nproj, NPILES + NRESERVE, DEPTH + 1, 7), np.int8)
    for p in range(nproj):
        pprefs[p] = class_prefix(ppiles[p], preserve[p])
    return ppiles, preserve, pprefs, count


@njit(cache=True)
def project(pos, p, preserve, count):
    """The projected position of ``pos`` for projection ``p``."""
    out = np.uint64(0)
    for i in range(NPILES):
        out = out | (np.uint64(count[p, i, pile_count(pos, i)]) << np.uint64(4 * i))
    for s in range(NRESERVE):
        if preserve[p, s] != 0:
            bit = np.uint64(1) << np.uint64(RESERVE_SHIFT + s)
            if reserve_bit_set(pos, bit):
                out = out | bit
    return out


@njit(cache=True)
def reserve_bit_set(pos, bit):
    return (np.uint64(pos) & bit) != np.uint64(0)


@njit(cache=True)
def projection_verdict(ppiles, preserve, pprefs, p, ppos, keys, gens, gen, bits, budget):
    """Win, loss or unknown for projected position ``ppos`` of projection ``p``,
    searching the projected game if its verdict is not in the table yet."""
    tag = np.uint64(p + 1) << _TAG_SHIFT
    if ppos == np.uint64(0):
        return P_WIN
    if tt_contains(keys, gens, gen, bits, ppos | tag):
        return P_LOSS
    if tt_contains(keys, gens, gen, bits, ppos | tag | _WIN_BIT):
        return P_WIN
    if tt_contains(keys, gens, gen, bits, ppos | tag | _UNKNOWN_BIT):
        return P_UNKNOWN  # not searched twice
    piles = ppiles[p]
    reserve = preserve[p]
    pref = pprefs[p]
    moves = np.empty((MAX_PLY + 1, MAX_MOVES), np.uint64)
    nmoves = np.zeros(MAX_PLY + 1, np.int64)
    index = np.zeros(MAX_PLY + 1, np.int64)
    states = np.empty(MAX_PLY + 1, np.uint64)
    scratch = np.empty(MAX_MOVES, np.int64)
    ws = new_workspace()
    d = 0
    states[0] = ppos
    nmoves[0] = search_moves(piles, reserve, pref, ppos, PROJ_RULES, moves[0], scratch, ws)
    index[0] = 0
    nodes = 1
    while True:
        if index[d] < nmoves[d]:
            child = states[d] - moves[d, index[d]]
            index[d] += 1
            won = child == np.uint64(0)
            if not won:
                if tt_contains(keys, gens, gen, bits, child | tag):
                    continue
                won = tt_contains(keys, gens, gen, bits, child | tag | _WIN_BIT)
            if won:
                for k in range(d + 1):
                    tt_store(keys, gens, gen, bits, states[k] | tag | _WIN_BIT)
                return P_WIN
            if nodes >= budget:
                tt_store(keys, gens, gen, bits, ppos | tag | _UNKNOWN_BIT)
                return P_UNKNOWN
            nodes += 1
            d += 1
            states[d] = child
            index[d] = 0
            nmoves[d] = search_moves(piles, reserve, pref, child, PROJ_RULES, moves[d], scratch, ws)
        else:
            tt_store(keys, gens, gen, bits, states[d] | tag)
            if d == 0:
                return P_LOSS
            d -= 1


@njit(cache=True)
def projections_dead(pos, ppiles, preserve, pprefs, count, keys, gens, gen, bits,
                     first=0, last=NPROJ, budget=PROJ_BUDGET, mclass=-1):
    """True if one of projections ``first``..``last - 1`` of ``pos`` is proved lost.

    With ``mclass`` (the class of the move that led to ``pos``) only the projections
    holding that class are looked at: the others are the parent position's."""
    for p in range(first, last):
        if mclass >= 0 and not (PROJECTION_MASKS[p] >> mclass) & 1:
            continue
        ppos = project(pos, p, preserve, count)
        if projection_verdict(ppiles, preserve, pprefs, p, ppos, keys, gens, gen, bits,
                              budget) == P_LOSS:
            return True
    return False
