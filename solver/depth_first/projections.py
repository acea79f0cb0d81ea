"""Dead-end detection by projections (proof in docs/solver.md).

The projection of a position onto a set S of classes keeps only the cards of those
classes, each pile in its order.  Any win of the position, with the moves of other
classes deleted, is a win of the projection: each remaining move is still legal,
because the deleted cards only ever covered cards.  So a projection that cannot be
won proves the position lost.

Projections used: the J+Q+K class together with each pair class (five of them) at
every position searched.  The ten with two pair classes can be checked too (the tests
do), but the solver does not try them: the grouping search proves those losses, and more.
Each projected game is solved on demand by a small memoized search of its own, and
its verdicts (win and loss) are kept in a table shared by the whole search of the
deal, keyed by projection and projected position.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..mirror.position import (
    DEPTH,
    MAX_MOVES,
    MAX_PLY,
    NPILES,
    NRESERVE,
    RESERVE_SHIFT,
    pile_count,
    rank_class,
)
from ..mirror.table import tt_get, tt_put
from ..verdicts import LOSS, UNRESOLVED, WIN
from .pruning import CLASS_IN_VIEW, FREE_CARDS, ORDERING, new_workspace, search_moves, top_table

# Classes of each projection, as bit masks over the classes 0..5 (5 = J+Q+K): first
# the five "faces + one pair class" the search checks at every position, then the ten
# "faces + two pair classes", which ``projections_dead`` can check too (the tests do);
# the solver no longer tries them at the root of hard deals: the grouping search proves
# those losses, and more.
_FACES = 1 << 5
PROJECTION_MASKS = np.array(
    [_FACES | (1 << a) for a in range(5)]
    + [_FACES | (1 << a) | (1 << b) for a in range(5) for b in range(a + 1, 5)],
    dtype=np.int64,
)
NPROJ = 5
NPROJ_ALL = len(PROJECTION_MASKS)
PROJ_BUDGET = 200_000  # positions one projected search may expand before giving up
# the verdict stored with a projected position (tag in bits 56-59)
_LOSS_BIT = np.uint64(1) << np.uint64(60)
_UNKNOWN_BIT = np.uint64(1) << np.uint64(61)  # a projected search gave up here
_WIN_BIT = np.uint64(1) << np.uint64(62)
_VERDICT_BITS = _LOSS_BIT | _UNKNOWN_BIT | _WIN_BIT
_TAG_SHIFT = np.uint64(56)
PROJ_RULES = FREE_CARDS | CLASS_IN_VIEW | ORDERING
# a projected position's verdict: WIN, LOSS, UNRESOLVED (its search gave up), or
P_NONE = -2  # nothing stored yet


@njit(cache=True)
def projection_arrays(piles, reserve, masks):
    """For projection p (the classes of ``masks[p]``): its piles and reserve (ranks,
    the cards of other classes left out), its table of what each source shows
    (:func:`~solver.depth_first.pruning.top_table`), ``count[p, i, n]``, the projected
    height of pile i when the full pile has n cards, and the workspace of the projected
    searches."""
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
    ptops = np.zeros((nproj, NPILES + NRESERVE, 16), np.int64)
    for p in range(nproj):
        ptops[p] = top_table(ppiles[p], preserve[p])
    return ppiles, preserve, ptops, count, new_projection_workspace()


@njit(cache=True)
def new_projection_workspace():
    """The stack of a projected search (moves, counts, indices and positions of each
    ply, scratch), allocated once per deal rather than once per projected search."""
    return (
        np.empty((MAX_PLY + 1, MAX_MOVES), np.uint64),
        np.zeros(MAX_PLY + 1, np.int64),
        np.zeros(MAX_PLY + 1, np.int64),
        np.empty(MAX_PLY + 1, np.uint64),
        np.empty(MAX_MOVES, np.int64),
        new_workspace(),
    )


@njit(cache=True, inline='always')
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


@njit(cache=True, inline='always')
def reserve_bit_set(pos, bit):
    return (np.uint64(pos) & bit) != np.uint64(0)


@njit(cache=True, inline='always')
def _stored(slots, gen, bits, key):
    """The verdict stored for a tagged projected position, or P_NONE."""
    e = tt_get(slots, gen, bits, key, _VERDICT_BITS)
    if e == np.uint64(0):
        return P_NONE
    if e & _LOSS_BIT:
        return LOSS
    if e & _WIN_BIT:
        return WIN
    return UNRESOLVED


@njit(cache=True, _nrt=False)
def projection_verdict(ptops, pws, p, ppos, slots, gen, bits, budget):
    """Win, loss or unknown for projected position ``ppos`` of projection ``p``,
    searching the projected game if its verdict is not in the table yet (an
    'unknown' is stored too: a search that gave up is not run again)."""
    tag = np.uint64(p + 1) << _TAG_SHIFT
    if ppos == np.uint64(0):
        return WIN
    known = _stored(slots, gen, bits, ppos | tag)
    if known != P_NONE:
        return known
    tops = ptops[p]
    moves, nmoves, index, states, scratch, ws = pws
    d = 0
    states[0] = ppos
    nmoves[0] = search_moves(tops, ppos, PROJ_RULES, moves[0], scratch, ws)
    index[0] = 0
    nodes = 1
    while True:
        if index[d] < nmoves[d]:
            child = states[d] - moves[d, index[d]]
            index[d] += 1
            won = child == np.uint64(0)
            if not won:
                v = _stored(slots, gen, bits, child | tag)
                if v == LOSS:
                    continue
                won = v == WIN
            if won:
                for k in range(d + 1):
                    tt_put(slots, gen, bits, states[k] | tag, _WIN_BIT, _VERDICT_BITS)
                return WIN
            if nodes >= budget:
                tt_put(slots, gen, bits, ppos | tag, _UNKNOWN_BIT, _VERDICT_BITS)
                return UNRESOLVED
            nodes += 1
            d += 1
            states[d] = child
            index[d] = 0
            nmoves[d] = search_moves(tops, child, PROJ_RULES, moves[d], scratch, ws)
        else:
            tt_put(slots, gen, bits, states[d] | tag, _LOSS_BIT, _VERDICT_BITS)
            if d == 0:
                return LOSS
            d -= 1


@njit(cache=True, inline='always')
def projections_dead(pos, ppiles, preserve, ptops, count, pws, slots, gen, bits,
                     first=0, last=NPROJ, budget=PROJ_BUDGET, mclass=-1):
    """True if one of projections ``first``..``last - 1`` of ``pos`` is proved lost.

    With ``mclass`` (the class of the move that led to ``pos``) only the projections
    holding that class are looked at: the others are the parent position's."""
    for p in range(first, last):
        if not holds_class(p, mclass):
            continue
        if projection_lost(ptops, pws, p, project(pos, p, preserve, count), slots, gen, bits,
                           budget):
            return True
    return False


@njit(cache=True, inline='always')
def holds_class(p, c):
    """Whether projection ``p`` holds class ``c`` (every projection holds -1, no class
    given): a move of class c changes exactly the projections that hold it."""
    return c < 0 or (PROJECTION_MASKS[p] >> c) & 1 != 0


@njit(cache=True, inline='always')
def projection_lost(ptops, pws, p, ppos, slots, gen, bits, budget):
    """Whether projected position ``ppos`` of projection ``p`` is proved lost: the
    table's verdict, read in line, or else the projected search's, out of line."""
    if ppos == np.uint64(0):
        return False
    known = _stored(slots, gen, bits, ppos | (np.uint64(p + 1) << _TAG_SHIFT))
    if known == P_NONE:
        known = projection_verdict(ptops, pws, p, ppos, slots, gen, bits, budget)
    return known == LOSS
