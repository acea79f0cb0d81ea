"""The memoized depth-first search kernel.

An explicit stack of at most 48 plies; positions fully searched without a win are
stored in the transposition table as lost.  The search stops at the first win
(the line is written to ``line``), when the root is exhausted (a proof of loss), or
when the budget of expanded positions is spent.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bounds import NCARDS, bounds_dead
from .kernels import MAX_MOVES, MAX_PLY
from .pruning import BOUNDS, search_moves
from .table import tt_contains, tt_store

WIN = 1
LOSS = 0
UNRESOLVED = -1


@njit(cache=True)
def dfs(piles, reserve, pref, part, npart, root, budget, flags, keys, gens, gen, bits, line, stats):
    """Search from ``root``; returns WIN, LOSS or UNRESOLVED.

    ``line`` (uint64[48]) receives the winning moves as deltas; ``stats`` (int64[4])
    receives positions expanded, the line length, table stores and dead ends found
    by the bounds test.
    """
    moves = np.empty((MAX_PLY + 1, MAX_MOVES), np.uint64)
    nmoves = np.zeros(MAX_PLY + 1, np.int64)
    index = np.zeros(MAX_PLY + 1, np.int64)
    states = np.empty(MAX_PLY + 1, np.uint64)
    scratch = np.empty(MAX_MOVES, np.int64)
    lo = np.empty(NCARDS, np.int64)
    hi = np.empty(NCARDS, np.int64)
    nodes = 0
    stores = 0
    dead = 0
    if root == np.uint64(0):
        stats[0] = 0
        stats[1] = 0
        return WIN
    if tt_contains(keys, gens, gen, bits, root):
        stats[0] = 0
        return LOSS
    nodes = 1
    d = 0
    states[0] = root
    if flags & BOUNDS and bounds_dead(piles, reserve, part, npart, root, lo, hi):
        dead += 1
        nmoves[0] = 0
    else:
        nmoves[0] = search_moves(piles, reserve, pref, root, flags, moves[0], scratch)
    index[0] = 0
    result = LOSS
    while True:
        if index[d] < nmoves[d]:
            delta = moves[d, index[d]]
            index[d] += 1
            child = states[d] - delta
            if child == np.uint64(0):
                for k in range(d):
                    line[k] = moves[k, index[k] - 1]
                line[d] = delta
                stats[1] = d + 1
                result = WIN
                break
            if tt_contains(keys, gens, gen, bits, child):
                continue
            if nodes >= budget:
                result = UNRESOLVED
                break
            nodes += 1
            d += 1
            states[d] = child
            index[d] = 0
            if flags & BOUNDS and bounds_dead(piles, reserve, part, npart, child, lo, hi):
                dead += 1
                nmoves[d] = 0
            else:
                nmoves[d] = search_moves(piles, reserve, pref, child, flags, moves[d], scratch)
        else:
            stores += tt_store(keys, gens, gen, bits, states[d])
            if d == 0:
                result = LOSS
                break
            d -= 1
    stats[0] = nodes
    stats[2] = stores
    stats[3] = dead
    return result
