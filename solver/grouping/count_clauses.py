"""The grouping view by counts: per-step balance written with unary counters.

In a win whose moves are numbered 0..M-1, the cards removed by any step v are balanced
in each class -- as many of rank r as of rank 11 - r, as many J as Q as K -- and make up
exactly v + 1 moves; any assignment of steps with these counts (a card lying on another
strictly earlier) is a win (docs/solver.md, rule ``GROUPING``).  For each class and step
v this module writes ``E[v, k]`` = "at least k cards of each rank of the class are gone
by step v" as the shared output of one totalizer per rank over the order literals
``[t_c <= v]`` of that rank's cards, so that the counts of a class's ranks are equal by
construction, and E[v, k] is also "at least k moves of the class by step v"; a totalizer
over the classes' counts then makes the moves by step v exactly v + 1 (summed as moves made
or, past half-way, as moves not made, each node cut just above the total it must reach).
Unit propagation on a totalizer keeps its count exact both ways, as a linear equality's
would.  The solver's grouping search keeps these counts with the propagator of
:mod:`solver.grouping.count_propagation` instead (the same equalities, some 80,000 fewer
clauses a hard deal); the clauses stay as the view ``VIEW_COUNTERS``, the check of that
propagator.

It also holds the small helpers that write clauses into the model's arrays
(constants folded as the clauses are added), which :mod:`solver.grouping.model` uses too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..mirror.position import source_delta

TRUE = -1  # literal codes of constants while the clauses are written
FALSE = -2
JACK = 11
MAX_RANK_CARDS = 8  # two decks: at most 8 cards of a rank


# ---------------------------------------------------------------------------
# writing clauses


@njit(cache=True, _nrt=False)
def _le(base, lo, hi, c, v):
    """The literal [t_c <= v] (or the constant TRUE / FALSE)."""
    if v < lo[c]:
        return FALSE
    if v >= hi[c]:
        return TRUE
    return 2 * (base[c] + v - lo[c])


@njit(cache=True, _nrt=False)
def _neg(lit):
    if lit == TRUE:
        return FALSE
    if lit == FALSE:
        return TRUE
    return lit ^ 1


@njit(cache=True, _nrt=False)
def _add(cl_lits, cl_start, cl_len, ncl, nlit, buf, k):
    """Append the clause buf[:k] simplified (constants dropped); returns (ncl, nlit,
    code): code 0 added, 1 satisfied (skipped), 2 empty (the model has no solution)."""
    m = 0
    for i in range(k):
        lit = buf[i]
        if lit == TRUE:
            return ncl, nlit, 1
        if lit == FALSE:
            continue
        buf[m] = lit
        m += 1
    if m == 0:
        return ncl, nlit, 2
    cl_start[ncl] = nlit
    cl_len[ncl] = m
    for i in range(m):
        cl_lits[nlit + i] = buf[i]
    return ncl + 1, nlit + m, 0


# ---------------------------------------------------------------------------
# the counters


@njit(cache=True)
def _class_rank(cls, t):
    """The t-th rank of class cls (0-4: r and 11 - r for r = cls + 1; 5: J, Q, K)."""
    if cls == 5:
        return JACK + t
    return cls + 1 if t == 0 else 10 - cls


@njit(cache=True)
def _tree_room(size, nvec, cap):
    """How many clauses _sum_tree writes at most for vectors of these sizes cut at
    ``cap`` (each merge of p and q: at most 2 (p + 1) (q + 1)); ``size`` is overwritten."""
    room = 2 * size[0] if nvec == 1 else 0
    while nvec > 1:
        k = 0
        for i in range(0, nvec - 1, 2):
            room += 2 * (size[i] + 1) * (size[i + 1] + 1)
            size[k] = min(size[i] + size[i + 1], cap)
            k += 1
        if nvec % 2 == 1:
            size[k] = size[nvec - 1]
            k += 1
        nvec = k
    return room


@njit(cache=True)
def counting_room(count, nmoves):
    """Upper bounds on the (clauses, literals) :func:`counting_clauses` writes for a
    position with ``count[r]`` cards of rank r and ``nmoves`` moves left: per step a
    totalizer per rank and one over the classes, and 2 clauses chaining each count (at
    most 3 literals a clause)."""
    size = np.ones(8 * MAX_RANK_CARDS, np.int64)
    per_step = 0
    for r in range(1, 14):
        size[:] = 1
        per_step += _tree_room(size, count[r], MAX_RANK_CARDS) + 2 * count[r]
    cl = nmoves * per_step + 64
    for v in range(nmoves - 1):
        nvec = 0
        for cls in range(6):
            if count[_class_rank(cls, 0)] > 0:
                size[nvec] = count[_class_rank(cls, 0)]
                nvec += 1
        cl += _tree_room(size, nvec, min(v + 1, nmoves - v - 1) + 1)
    return cl, 3 * cl


@njit(cache=True, _nrt=False)
def _merge(a, p, b, q, out, cap, cl_lits, cl_start, cl_len, ncl, nlit, buf):
    """The totalizer clauses making out[:s] the unary sum of a[:p] and b[:q] (x[i]: at
    least i + 1 are true), both ways, up to s = min(p + q, cap); a vector shorter than
    ``cap`` must be the whole count (one of length cap may be cut); returns (ncl, nlit,
    empty)."""
    empty = False
    s = min(p + q, cap)
    for i in range(p + 1):
        for j in range(q + 1):
            if 0 < i + j <= s:  # at least i of a and j of b: at least i + j
                k = 0
                if i > 0:
                    buf[k] = _neg(a[i - 1])
                    k += 1
                if j > 0:
                    buf[k] = _neg(b[j - 1])
                    k += 1
                buf[k] = out[i + j - 1]
                ncl, nlit, code = _add(cl_lits, cl_start, cl_len, ncl, nlit, buf, k + 1)
                empty |= code == 2
            if i + j < s:  # at most i of a and j of b: at most i + j
                k = 0
                if i < p:
                    buf[k] = a[i]
                    k += 1
                if j < q:
                    buf[k] = b[j]
                    k += 1
                buf[k] = _neg(out[i + j])
                ncl, nlit, code = _add(cl_lits, cl_start, cl_len, ncl, nlit, buf, k + 1)
                empty |= code == 2
    return ncl, nlit, empty


@njit(cache=True)
def _sum_tree(vec, start, size, nvec, top, out, cap, cl_lits, cl_start, cl_len, ncl, nlit, nvars,
              buf):
    """Clauses making out[:min(sum, cap)] the unary sum of the nvec >= 1 unary vectors
    vec[start[i]:][:size[i]] (x[i]: at least i + 1), merged in a tree whose inner nodes,
    cut at ``cap``, are fresh variables from ``nvars``, written into vec from ``top``;
    returns (ncl, nlit, nvars, empty)."""
    empty = False
    if nvec == 1:
        for j in range(min(size[0], cap)):
            for side in range(2):
                lit = vec[start[0] + j]
                buf[0] = lit if side == 0 else _neg(lit)
                buf[1] = _neg(out[j]) if side == 0 else out[j]
                ncl, nlit, code = _add(cl_lits, cl_start, cl_len, ncl, nlit, buf, 2)
                empty |= code == 2
        return ncl, nlit, nvars, empty
    while nvec > 2:  # merge neighbours into fresh vectors
        k = 0
        for i in range(0, nvec - 1, 2):
            s = min(size[i] + size[i + 1], cap)
            for j in range(s):
                vec[top + j] = 2 * (nvars + j)
            nvars += s
            ncl, nlit, e = _merge(vec[start[i]:], size[i], vec[start[i + 1]:], size[i + 1],
                                  vec[top:], cap, cl_lits, cl_start, cl_len, ncl, nlit, buf)
            empty |= e
            start[k] = top
            size[k] = s
            top += s
            k += 1
        if nvec % 2 == 1:
            start[k] = start[nvec - 1]
            size[k] = size[nvec - 1]
            k += 1
        nvec = k
    ncl, nlit, e = _merge(vec[start[0]:], size[0], vec[start[1]:], size[1], out, cap, cl_lits,
                          cl_start, cl_len, ncl, nlit, buf)
    return ncl, nlit, nvars, empty | e


@njit(cache=True)
def _totalizer(inp, m, out, vec, cl_lits, cl_start, cl_len, ncl, nlit, nvars, buf):
    """Clauses making out[:m] the unary count of the literals inp[:m] (fresh variables
    from ``nvars`` for the inner nodes; ``vec``: scratch of 2 x 8 x 4 literals);
    returns (ncl, nlit, nvars, empty)."""
    if m == 0:
        return ncl, nlit, nvars, False
    start = np.empty(MAX_RANK_CARDS, np.int64)
    size = np.ones(MAX_RANK_CARDS, np.int64)
    for i in range(m):
        vec[i] = inp[i]
        start[i] = i
    return _sum_tree(vec, start, size, m, m, out, m, cl_lits, cl_start, cl_len, ncl, nlit, nvars,
                     buf)


@njit(cache=True)
def counting_clauses(cl_lits, cl_start, cl_len, ncl, nlit, nvars, n, rank, lo, hi, base,
                     nmoves):
    """Write the counters of every class and step, and the count of moves by each step,
    into the clause arrays, with fresh variables from ``nvars`` (first the counts, then
    the totalizers' inner nodes); returns (ncl, nlit, nvars, empty) -- empty: the cards
    whose intervals fix them already unbalance some step, the position is lost."""
    buf = np.empty(8, np.int64)
    inp = np.empty(MAX_RANK_CARDS, np.int64)
    vec = np.empty(4 * 2 * MAX_RANK_CARDS, np.int64)
    e = np.empty((6, nmoves, MAX_RANK_CARDS), np.int64)  # E[cls, v, k - 1]
    cards = np.empty((14, MAX_RANK_CARDS), np.int64)
    ncards = np.zeros(14, np.int64)
    for c in range(n):
        cards[rank[c], ncards[rank[c]]] = c
        ncards[rank[c]] += 1
    # the counts: constant where the cards' intervals fix them
    for cls in range(6):
        nr = 2 if cls < 5 else 3
        total = ncards[_class_rank(cls, 0)]
        for v in range(nmoves - 1):
            lower = 0
            upper = total
            for t in range(nr):
                r = _class_rank(cls, t)
                gone = 0
                open_ = 0
                for i in range(ncards[r]):
                    lit = _le(base, lo, hi, cards[r, i], v)
                    if lit == TRUE:
                        gone += 1
                    elif lit != FALSE:
                        open_ += 1
                lower = max(lower, gone)
                upper = min(upper, gone + open_)
            if lower > upper:
                return ncl, nlit, nvars, True
            for k in range(total):
                if k < lower:
                    e[cls, v, k] = TRUE
                elif k >= upper:
                    e[cls, v, k] = FALSE
                else:
                    e[cls, v, k] = 2 * nvars
                    nvars += 1
    empty = False
    for cls in range(6):
        nr = 2 if cls < 5 else 3
        total = ncards[_class_rank(cls, 0)]
        for v in range(nmoves - 1):
            for t in range(nr):
                r = _class_rank(cls, t)
                gone = 0
                m = 0
                for i in range(ncards[r]):
                    lit = _le(base, lo, hi, cards[r, i], v)
                    if lit == TRUE:
                        gone += 1
                    elif lit != FALSE:
                        inp[m] = lit
                        m += 1
                ncl, nlit, nvars, x = _totalizer(inp, m, e[cls, v, gone:], vec, cl_lits,
                                                 cl_start, cl_len, ncl, nlit, nvars, buf)
                empty |= x
            # the counts only grow, with k and with v (implied; binary clauses)
            for k in range(total):
                if k > 0:
                    buf[0] = _neg(e[cls, v, k])
                    buf[1] = e[cls, v, k - 1]
                    ncl, nlit, code = _add(cl_lits, cl_start, cl_len, ncl, nlit, buf, 2)
                if v > 0:
                    buf[0] = _neg(e[cls, v - 1, k])
                    buf[1] = e[cls, v, k]
                    ncl, nlit, code = _add(cl_lits, cl_start, cl_len, ncl, nlit, buf, 2)
    # one move a step: the classes' counts by step v add up to v + 1 -- counted as moves
    # made or, past half-way, as moves not made (M - v - 1), each sum cut just above
    mvec = np.empty(8 * 48, np.int64)
    mstart = np.empty(6, np.int64)
    msize = np.empty(6, np.int64)
    out = np.empty(48, np.int64)
    for v in range(nmoves - 1):
        made = v + 1 <= nmoves - v - 1
        want = v + 1 if made else nmoves - v - 1
        nvec = 0
        top = 0
        for cls in range(6):
            total = ncards[_class_rank(cls, 0)]
            if total == 0:
                continue
            mstart[nvec] = top
            msize[nvec] = total
            for k in range(total):  # at least k + 1 made / not made
                mvec[top + k] = e[cls, v, k] if made else _neg(e[cls, v, total - 1 - k])
            top += total
            nvec += 1
        for k in range(want + 1):
            out[k] = TRUE if k < want else FALSE
        ncl, nlit, nvars, x = _sum_tree(mvec, mstart, msize, nvec, top, out, want + 1, cl_lits,
                                        cl_start, cl_len, ncl, nlit, nvars, buf)
        empty |= x
    return ncl, nlit, nvars, empty


# ---------------------------------------------------------------------------
# a winning line from the steps alone


@njit(cache=True)
def line_by_steps(step, rank, src, n, nmoves, line):
    """The moves of a balanced assignment of steps, in play order: at each step, the
    i-th card of rank r (r <= 5) with the i-th of rank 11 - r, the i-th J with the i-th Q
    and the i-th K (cards in model order); returns how many moves went into ``line``."""
    at = np.empty((14, MAX_RANK_CARDS), np.int64)
    nat = np.zeros(14, np.int64)
    m = 0
    for s in range(nmoves):
        nat[:] = 0
        for c in range(n):
            if step[c] == s:
                at[rank[c], min(nat[rank[c]], MAX_RANK_CARDS - 1)] = src[c]
                nat[rank[c]] += 1
        for r in range(1, 6):
            for i in range(min(nat[r], nat[11 - r])):
                line[m] = source_delta(at[r, i]) + source_delta(at[11 - r, i])
                m += 1
        for i in range(min(nat[JACK], nat[JACK + 1], nat[JACK + 2])):
            line[m] = (source_delta(at[JACK, i]) + source_delta(at[JACK + 1, i])
                       + source_delta(at[JACK + 2, i]))
            m += 1
    return m
