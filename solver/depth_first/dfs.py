"""The memoized depth-first search kernel.

An explicit stack of at most 48 plies; positions fully searched without a win are
stored in the transposition table as lost.  The search stops at the first win
(the line is written to ``line``), when the root is exhausted (a proof of loss), or
when the budget of expanded positions is spent.

With the ``COMMUTING`` rule each ply keeps a sleep set: the moves already searched
from an ancestor, with every move since taking cards from other sources.  Such a move
leads to a position reachable from one already proved lost, so it is not searched again
(proof in docs/solver.md).

With the ``BOUNDS`` rule each expanded position gets removal-time intervals
(:mod:`solver.depth_first.bounds`), computed from its parent's; a position whose intervals are
contradictory is a dead end, and only moves whose cards may all go at step 0, and
that take every card that must go at step 0, are searched.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..mirror.position import DEPTH, MAX_MOVES, MAX_PLY, NPILES, pile_count, rank_class
from ..mirror.table import tt_contains, tt_prefetch, tt_store
from ..verdicts import LOSS, UNRESOLVED, WIN
from .bounds import NCARDS, bounds_dead
from .projections import NPROJ, PROJ_BUDGET, holds_class, project, projection_lost
from .pruning import BOUNDS, COMMUTING, FREE_CARDS, PROJECTIONS, new_workspace, search_moves

URG_W = 100
STAT_NODES = 0
STAT_LINE = 1
STAT_STORES = 2
STAT_DEAD = 3


@njit(cache=True, inline='always')
def _first_step_ok(pos, delta, lo, hi, must, nmust):
    """Whether a move may be the first of a win under the intervals ``lo``/``hi``:
    each of its cards may go at step 0 and it takes every card pinned to step 0."""
    taken = 0
    for i in range(NPILES):
        if (delta >> np.uint64(4 * i)) & np.uint64(15):
            c = i * DEPTH + pile_count(pos, i) - 1
            if lo[c] > 0:
                return False
            for k in range(nmust):
                if must[k] == c:
                    taken += 1
    for r in range(8):
        if (delta >> np.uint64(48 + r)) & np.uint64(1):
            c = NPILES * DEPTH + r
            if lo[c] > 0:
                return False
            for k in range(nmust):
                if must[k] == c:
                    taken += 1
    return taken == nmust


@njit(cache=True, inline='always')
def move_class(piles, reserve, pos, delta):
    """The class (0..5) of the cards a move takes from ``pos``."""
    for i in range(NPILES):
        if (delta >> np.uint64(4 * i)) & np.uint64(15):
            return rank_class(piles[i, pile_count(pos, i) - 1])
    for r in range(8):
        if (delta >> np.uint64(48 + r)) & np.uint64(1):
            return rank_class(reserve[r])
    return -1


@njit(cache=True, inline='always')
def _next_random(rng):
    """xorshift64: the jitter of the move order (a zero state means no jitter)."""
    x = rng[0]
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    rng[0] = x
    return np.int64(x >> np.uint64(33))


@njit(cache=True, inline='always')
def _expand(piles, reserve, tops, part, npart, pos, d, flags, moves, los, his, ws, scratch,
            alive, pinned, must, rng, noise, proj, ptab, bounds_depth, delta, pp):
    """Moves to search at ply ``d``; -1 when the position is a proven dead end.

    ``delta`` is the move that led here (0 at the root of a search).  The projected
    positions of the five projections are kept per ply in ``pp``: a move of class a
    takes from each projection holding a the same cards as from the game (its cards
    are the tops of their piles there too), so that projection's position is the
    parent's minus ``delta``; the others are the parent's, which were checked when the
    parent was expanded.  Only the root's are computed from the deal."""
    if flags & PROJECTIONS:
        ppiles, preserve, ptops, pcount, pws = proj
        pslots, pgen, pbits = ptab
        mclass = -1
        if delta == np.uint64(0):
            for p in range(NPROJ):
                pp[d, p] = project(pos, p, preserve, pcount)
        else:
            mclass = move_class(piles, reserve, pos + delta, delta)
            for p in range(NPROJ):
                pp[d, p] = pp[d - 1, p]
                if holds_class(p, mclass):
                    pp[d, p] -= delta
        for p in range(NPROJ):
            if holds_class(p, mclass) and projection_lost(ptops, pws, p, pp[d, p], pslots, pgen,
                                                          pbits, PROJ_BUDGET):
                return -1
    use_bounds = flags & BOUNDS and d < bounds_depth
    if use_bounds:
        if bounds_dead(piles, reserve, part, npart, pos, los[d], his[d],
                       los[d - 1 if d > 0 else 0], his[d - 1 if d > 0 else 0], d > 0,
                       alive, pinned):
            return -1
    m = search_moves(tops, pos, flags, moves[d], scratch, ws)
    if use_bounds and m > 0:
        lo = los[d]
        hi = his[d]
        nmust = 0
        for c in range(NCARDS):
            if alive[c] and hi[c] == 0:
                must[nmust] = c
                nmust += 1
                if nmust > 3:
                    return -1
        k = 0
        for j in range(m):
            if _first_step_ok(pos, moves[d, j], lo, hi, must, nmust):
                moves[d, k] = moves[d, j]
                key = _urgency(pos, moves[d, j], hi) * 64 + k
                if rng[0] != 0:
                    key += _next_random(rng) % noise
                scratch[k] = key
                k += 1
        m = k
        # stable insertion sort on urgency (smallest latest step first), keeping the
        # rule-based order among equals
        for a in range(1, m):
            key = scratch[a]
            mv = moves[d, a]
            b = a - 1
            while b >= 0 and scratch[b] > key:
                scratch[b + 1] = scratch[b]
                moves[d, b + 1] = moves[d, b]
                b -= 1
            scratch[b + 1] = key
            moves[d, b + 1] = mv
    return m


@njit(cache=True, inline='always')
def _urgency(pos, delta, hi):
    """The latest step allowed to the most urgent card of a move."""
    best = 1 << 30
    for i in range(NPILES):
        if (delta >> np.uint64(4 * i)) & np.uint64(15):
            c = i * DEPTH + pile_count(pos, i) - 1
            if hi[c] < best:
                best = hi[c]
    for r in range(8):
        if (delta >> np.uint64(48 + r)) & np.uint64(1):
            c = NPILES * DEPTH + r
            if hi[c] < best:
                best = hi[c]
    return best


@njit(cache=True, inline='always')
def _sleep_set(moves, index, sleep, nsleep, d, delta):
    """Write the sleep set of the child reached from ply ``d`` by ``delta`` at ply
    ``d + 1``; returns its size.  It holds the moves of ply ``d``'s sleep set and the
    moves searched before ``delta`` at ply ``d`` that take no card from ``delta``'s
    sources (a delta's nibbles and bits are 0 or 1, so disjoint sources means
    ``a & b == 0``)."""
    ns = 0
    for k in range(nsleep[d]):
        s = sleep[d, k]
        if s & delta == np.uint64(0):
            sleep[d + 1, ns] = s
            ns += 1
    for j in range(index[d] - 1):
        s = moves[d, j]
        if s & delta == np.uint64(0):
            sleep[d + 1, ns] = s
            ns += 1
    return ns


@njit(cache=True, inline='always')
def _drop_sleeping(moves, m, sleep, ns):
    """Remove the moves of the sleep set from ``moves[:m]``, keeping the order; returns
    how many are left."""
    k = 0
    for j in range(m):
        mv = moves[j]
        asleep = False
        for t in range(ns):
            if sleep[t] == mv:
                asleep = True
                break
        if not asleep:
            moves[k] = mv
            k += 1
    return k


STACK_DEPTH = 0
STACK_STARTED = 1


@njit(cache=True)
def new_stack(seed):
    """The state of one search, kept between calls of :func:`dfs` so that a search
    can be paused and resumed: moves, counts and indices of each ply, positions,
    removal-time intervals, control words (depth, started), the jitter state, the
    sleep set of each ply with its size and the projected positions of each ply; then
    the search's scratch arrays (move keys, live cards, pinned cards, cards due now,
    the workspace of move generation), made here because :func:`dfs` is compiled
    without numba's runtime and so allocates nothing."""
    rng = np.zeros(1, np.uint64)
    rng[0] = np.uint64(seed)
    return (
        np.empty((MAX_PLY + 1, MAX_MOVES), np.uint64),
        np.zeros(MAX_PLY + 1, np.int64),
        np.zeros(MAX_PLY + 1, np.int64),
        np.empty(MAX_PLY + 1, np.uint64),
        np.zeros((MAX_PLY + 1, NCARDS), np.int64),
        np.zeros((MAX_PLY + 1, NCARDS), np.int64),
        np.zeros(2, np.int64),
        rng,
        np.empty((MAX_PLY + 1, MAX_MOVES), np.uint64),
        np.zeros(MAX_PLY + 1, np.int64),
        np.zeros((MAX_PLY + 1, NPROJ), np.uint64),
        np.empty(MAX_MOVES, np.int64),
        np.zeros(NCARDS, np.bool_),
        np.zeros((MAX_PLY, 14), np.int64),
        np.zeros(4, np.int64),
        new_workspace(),
    )


@njit(cache=True, _nrt=False)
def dfs(piles, reserve, tops, part, npart, root, budget, flags, slots, gen, bits, line, stats,
        stack, noise, proj, ptab, bounds_depth):
    """Search from ``root`` for at most ``budget`` more expanded positions; returns WIN,
    LOSS or UNRESOLVED (paused: call again with the same ``stack`` to go on).

    Several searches of one deal may take turns on one table: each stores only
    positions it has searched completely, and a resumed search first drops the part
    of its stack that another search has proved lost meanwhile.  ``line`` (uint64[48])
    receives the winning moves as deltas; ``stats`` (int64[4]) receives positions
    expanded by this call, the line length, table stores and dead ends found.
    """
    return _dfs(piles, reserve, tops, part, npart, root, budget, flags, slots, gen, bits, line,
                stats, stack, noise, proj, ptab, bounds_depth)


@njit(cache=True, _nrt=False)
def plain_dfs(piles, reserve, tops, part, npart, root, budget, flags, slots, gen, bits, line, stats,
              stack, noise, proj, ptab, bounds_depth):
    """:func:`dfs` compiled for the plain search alone (``flags`` must be FREE_CARDS):
    with the rule set a constant, the code of the other rules is left out (about a tenth
    faster a position, measured side by side)."""
    return _dfs(piles, reserve, tops, part, npart, root, budget, FREE_CARDS, slots, gen, bits,
                line, stats, stack, noise, proj, ptab, bounds_depth)


def search_kernel(flags: int):
    """The compiled search for a rule set: :func:`plain_dfs` for the plain search,
    :func:`dfs` for any other (each is compiled on its first call)."""
    return plain_dfs if flags == FREE_CARDS else dfs


@njit(cache=True, inline='always')
def _dfs(piles, reserve, tops, part, npart, root, budget, flags, slots, gen, bits, line, stats,
         stack, noise, proj, ptab, bounds_depth):
    """The search of :func:`dfs`, inlined in each compiled version."""
    (moves, nmoves, index, states, los, his, ctl, rng, sleep, nsleep, pp,
     scratch, alive, pinned, must, ws) = stack
    stores = 0
    dead = 0
    nodes = 0
    stats[:] = 0
    if root == np.uint64(0):
        return WIN
    if tt_contains(slots, gen, bits, root):
        return LOSS
    # one call site of the inlined _expand (the root's expansion goes through the loop
    # too): each copy of it is compiled, and it is most of the search's code
    grow = False
    delta = np.uint64(0)
    if ctl[STACK_STARTED] == 0:
        ctl[STACK_STARTED] = 1
        nodes = 1
        d = 0
        states[0] = root
        nsleep[0] = 0
        grow = True
    else:
        d = ctl[STACK_DEPTH]
        for k in range(1, d + 1):
            if tt_contains(slots, gen, bits, states[k]):
                d = k - 1  # proved lost by another search: its parent goes on
                break
    result = LOSS
    while True:
        if grow:
            grow = False
            m = _expand(piles, reserve, tops, part, npart, states[d], d, flags, moves, los, his,
                        ws, scratch, alive, pinned, must, rng, noise, proj, ptab, bounds_depth,
                        delta, pp)
            if m < 0:
                dead += 1
                m = 0
            ns = nsleep[d]
            if ns > 0:
                m = _drop_sleeping(moves[d], m, sleep[d], ns)
            nmoves[d] = m
            index[d] = 0
            if d > 0:
                child = states[d]
                for j in range(m):  # the children's slots, all loading at once
                    tt_prefetch(slots, bits, child - moves[d, j])
        elif index[d] < nmoves[d]:
            delta = moves[d, index[d]]
            index[d] += 1
            child = states[d] - delta
            if child == np.uint64(0):
                for k in range(d):
                    line[k] = moves[k, index[k] - 1]
                line[d] = delta
                stats[STAT_LINE] = d + 1
                result = WIN
                break
            if tt_contains(slots, gen, bits, child):
                continue
            if nodes >= budget:
                index[d] -= 1  # try this move again when resumed
                result = UNRESOLVED
                break
            nodes += 1
            ns = _sleep_set(moves, index, sleep, nsleep, d, delta) if flags & COMMUTING else 0
            d += 1
            states[d] = child
            nsleep[d] = ns
            grow = True
        else:
            stores += tt_store(slots, gen, bits, states[d])
            if d == 0:
                result = LOSS
                break
            d -= 1
            tt_prefetch(slots, bits, states[d])  # its slot again, for its own store
    ctl[STACK_DEPTH] = d
    stats[STAT_NODES] = nodes
    stats[STAT_STORES] = stores
    stats[STAT_DEAD] = dead
    return result
