"""The clause-learning search (CDCL) that decides the grouping view, in numba.

:func:`solver.grouping.grouping_model` writes the clauses of a position and a fresh
search state; :func:`grouping_run` decides them.  Unit propagation on these clauses
(:mod:`solver.propagation`) narrows the intervals much as :mod:`solver.bounds` does;
learning a clause from each conflict (first unique implication point, recursively
minimized), VSIDS branching with phase saving, Luby restarts, the thinning of learnt
clauses at restarts and failed-literal probing at the root (by pairs, when the model is
written) make it a complete search: the answer is a solution (which sorts into a
winning line) or a proof that there is none.  Given a budget of conflicts it stops
without an answer; :func:`grouping_run` goes on where it stopped.

In the view by counts through the propagator (``VIEW_COUNTS``, the default) the per-step
counts are not clauses: :func:`solver.count_propagator.count_propagate` checks them at each
fixpoint of unit propagation and writes the clause that explains each literal it sets or
each conflict it finds, which learning then uses like any other.

The search state lives in the model tuple: its counters in the ``ctl`` array (the
``C_*`` indices below), the activity increment in ``fctl``, then the clause, watch,
assignment, heap and trail arrays, the cards' ranks (for the line by counts) and the
propagator's state, in the order :func:`grouping_run` unpacks them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .count_propagation import REASON_ROOM, ROOM_CLAUSES, count_propagate, count_undo, no_count_state
from .count_clauses import line_by_steps
from ..mirror.position import source_delta
from ..verdicts import LOSS, UNRESOLVED, WIN
from .unit_propagation import _propagate

# the views a model is written in (solver.grouping): by pairs; by counts, as totalizer
# clauses (solver.counting) or through the propagator of solver.count_propagator
VIEW_PAIRS = 0
VIEW_COUNTERS = 1
VIEW_COUNTS = 2

RESTART_BASE = 64
# the search's counters, kept between runs in the model's ctl array
(C_N, C_NVARS, C_XVAR0, C_NX, C_NCL, C_NLIT, C_TLEN, C_QHEAD, C_DL, C_CONFLICTS, C_RESTARTS,
 C_SINCE, C_NEXT_RESTART, C_HSIZE, C_NMOVES, C_STATUS, C_NORIG, C_NEXT_REDUCE, C_REDUCTIONS,
 C_DELETED, C_COUNTING) = range(21)
NCTL = 21
# Learnt clauses are thinned at the first restart after REDUCE_FIRST conflicts, then
# after REDUCE_FIRST + REDUCE_INC * k more (k: reductions so far): half of those whose
# literals span more than GLUE decision levels go, the most levels first (Glucose's
# rule; a learnt clause is implied by the model, so forgetting one is always sound).
REDUCE_FIRST = 4000
REDUCE_INC = 1000
GLUE = 2
# The activity decay of the branching (VSIDS): 0.85 forgets old conflicts faster than
# MiniSat's 0.95: the deals are decided faster in all, a few slower (figures in
# docs/tuning-log.md).
VAR_DECAY = 0.85


# ---------------------------------------------------------------------------
# the decision heap (VSIDS)


@njit(cache=True, _nrt=False)
def _heap_up(heap, hpos, act, i):
    v = heap[i]
    while i > 0:
        p = (i - 1) >> 1
        if act[heap[p]] >= act[v]:
            break
        heap[i] = heap[p]
        hpos[heap[i]] = i
        i = p
    heap[i] = v
    hpos[v] = i


@njit(cache=True, _nrt=False)
def _heap_down(heap, hpos, act, size, i):
    v = heap[i]
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and act[heap[c + 1]] > act[heap[c]]:
            c += 1
        if act[heap[c]] <= act[v]:
            break
        heap[i] = heap[c]
        hpos[heap[i]] = i
        i = c
    heap[i] = v
    hpos[v] = i


# ---------------------------------------------------------------------------
# learning, backjumping, forgetting, restarts


@njit(cache=True, _nrt=False)
def _redundant(p, reason, level, seen, cl_lits, cl_start, cl_len, stack, toclear, nclear):
    """True if the false literal p of a learnt clause follows from the clause's other
    literals (every path through the reasons ends in a marked literal or level 0).
    Literals met on the way are marked and listed in toclear; the list's new length is
    left in toclear[-1]."""
    top = 0
    stack[top] = p
    top += 1
    start = nclear
    while top > 0:
        top -= 1
        q = stack[top]
        cl = reason[q >> 1]
        s = cl_start[cl]
        for j in range(s, s + cl_len[cl]):
            lit = cl_lits[j]
            u = lit >> 1
            if u == (q >> 1) or seen[u] != 0 or level[u] == 0:
                continue
            if reason[u] >= 0:
                seen[u] = 1
                stack[top] = lit
                top += 1
                toclear[nclear] = lit
                nclear += 1
            else:
                for i in range(start, nclear):
                    seen[toclear[i] >> 1] = 0
                toclear[-1] = start
                return False
    toclear[-1] = nclear
    return True


@njit(cache=True, _nrt=False)
def _undo(target, trail, tlen, assign, saved, reason, heap, hpos, act, hsize):
    """Unassign the trail down to length target (phases saved, variables back in the
    heap); returns (trail length, heap size)."""
    while tlen > target:
        tlen -= 1
        v = trail[tlen] >> 1
        saved[v] = assign[v]
        assign[v] = -1
        reason[v] = -1
        if hpos[v] < 0:
            heap[hsize] = v
            hpos[v] = hsize
            hsize += 1
            _heap_up(heap, hpos, act, hsize - 1)
    return tlen, hsize


@njit(cache=True)
def _reduce(first, ncl, cl_len, cl_lbd):
    """Delete half of the learnt clauses first..ncl-1 that span more than GLUE levels,
    the most levels first, the older first among equals (at the root, where no clause
    is the reason of an assignment above level 0); returns how many went.  A deleted
    clause's length is made negative; its watches are dropped as propagation meets them."""
    cand = np.empty(ncl - first, np.int64)
    key = np.empty(ncl - first, np.int64)
    m = 0
    for cl in range(first, ncl):
        if cl_len[cl] > 2 and cl_lbd[cl] > GLUE:
            cand[m] = cl
            key[m] = -(cl_lbd[cl] * (ncl + 1) + (ncl - cl))
            m += 1
    order = np.argsort(key[:m])
    for j in range(m // 2):
        cl = cand[order[j]]
        cl_len[cl] = -cl_len[cl]
    return m // 2


@njit(cache=True, _nrt=False)
def luby(i):
    """The i-th term (from 1) of the Luby sequence 1 1 2 1 1 2 4 1 1 2 …"""
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    while i != (1 << k) - 1:
        i -= (1 << (k - 1)) - 1
        k = 1
        while (1 << k) - 1 < i:
            k += 1
    return 1 << (k - 1)


# ---------------------------------------------------------------------------
# the search


@njit(cache=True)
def _empty_model(status):
    i = np.zeros(1, np.int64)
    b = np.zeros(1, np.int8)
    ctl = np.zeros(NCTL, np.int64)
    ctl[C_STATUS] = status
    # (built in two parts: a tuple display of more than 30 items is a list to Python,
    # which numba cannot type)
    return (ctl, np.ones(1, np.float64), i, i, i, i, i, i, i, i, i, i, i,
            i, b, i) + (i, b, np.zeros(1, np.float64), i, i, i, i, b, i, i, i, i, i, i, i, i, no_count_state())


@njit(cache=True)
def _grown(a, used, size, fill):
    """``a``'s first ``used`` entries in a new array of ``size`` (the rest ``fill``)."""
    out = np.full(size, fill, a.dtype)
    out[:used] = a[:used]
    return out


@njit(cache=True)
def grouping_run(model, budget, line, info):
    """Go on with the search of :func:`solver.grouping.grouping_model` for at most ``budget`` conflicts.

    Returns (status, model) -- the model to pass next time (its clause arrays may have
    been regrown).  WIN: ``line[:info[1]]`` is a winning line as move deltas, in play
    order; LOSS: no grouping exists, the position is lost; UNRESOLVED: budget spent.
    ``info[0]`` receives the conflicts of this call.  A call whose budget runs out pauses
    the search where it is (trail, learnt clauses, branching state), and the next call goes
    on from there: run in slices, it is the same search as in one call.
    """
    (ctl, fctl, src, lo, hi, base, xa, xb, xk, cl_lits, cl_start, cl_len, wnext, whead, assign,
     level, reason, saved, act, heap, hpos, trail, lim, seen, learnt, stack, toclear, bstart, bimp,
     bcl, cl_lbd, rank, counts) = model
    info[0] = 0
    info[1] = 0
    n = ctl[C_N]
    nvars = ctl[C_NVARS]
    xvar0 = ctl[C_XVAR0]
    nx = ctl[C_NX]
    ncl = ctl[C_NCL]
    nlit = ctl[C_NLIT]
    tlen = ctl[C_TLEN]
    qhead = ctl[C_QHEAD]
    dl = ctl[C_DL]
    restarts = ctl[C_RESTARTS]
    since_restart = ctl[C_SINCE]
    next_restart = ctl[C_NEXT_RESTART]
    hsize = ctl[C_HSIZE]
    nmoves = ctl[C_NMOVES]
    var_inc = fctl[0]
    cap_cl = len(cl_start)
    cap_lits = len(cl_lits)
    if ctl[C_STATUS] != UNRESOLVED:
        return ctl[C_STATUS], model
    norig = ctl[C_NORIG]
    by_propagator = ctl[C_COUNTING] == VIEW_COUNTS
    stamp = np.zeros(nvars + 2, np.int64)  # per decision level: last clause counted
    conflicts = 0
    result = UNRESOLVED
    while True:
        # ---- propagate
        confl, tlen, qhead = _propagate(trail, tlen, qhead, assign, level, reason, whead, wnext,
                                        cl_lits, cl_start, cl_len, dl, bstart, bimp, bcl)
        if confl < 0 and by_propagator:  # the per-step counts, at the clauses' fixpoint
            room = ROOM_CLAUSES * (REASON_ROOM + 2)
            if nlit + room > cap_lits:
                cl_lits = _grown(cl_lits, nlit, 2 * cap_lits + room, 0)
                cap_lits = len(cl_lits)
            if ncl + ROOM_CLAUSES > cap_cl:
                cap_cl = 2 * cap_cl + ROOM_CLAUSES
                cl_start = _grown(cl_start, ncl, cap_cl, 0)
                cl_len = _grown(cl_len, ncl, cap_cl, 0)
                cl_lbd = _grown(cl_lbd, ncl, cap_cl, 0)
                wnext = _grown(wnext, 2 * ncl, 2 * cap_cl, -1)
            code, tlen, ncl, nlit = count_propagate(counts, trail, tlen, assign, level, reason, dl, lo, hi, base,
                                                    rank, cl_lits, cl_start, cl_len, cl_lbd, ncl, nlit)
            if code == -2:
                continue  # literals set: propagate them
            confl = code
        if confl >= 0:
            conflicts += 1
            since_restart += 1
            if dl == 0:
                result = LOSS
                break
            # ---- first-UIP learning
            k = 1
            path = 0
            p = -1
            idx = tlen - 1
            cl = confl
            while True:
                s = cl_start[cl]
                for j in range(s, s + cl_len[cl]):
                    q = cl_lits[j]
                    if q == p:
                        continue
                    v = q >> 1
                    if seen[v] == 0 and level[v] > 0:
                        seen[v] = 1
                        act[v] += var_inc
                        if act[v] > 1e100:
                            for u in range(nvars):
                                act[u] *= 1e-100
                            var_inc *= 1e-100
                        if hpos[v] >= 0:
                            _heap_up(heap, hpos, act, hpos[v])
                        if level[v] == dl:
                            path += 1
                        else:
                            learnt[k] = q
                            k += 1
                while seen[trail[idx] >> 1] == 0:
                    idx -= 1
                p = trail[idx]
                idx -= 1
                seen[p >> 1] = 0
                path -= 1
                if path == 0:
                    break
                cl = reason[p >> 1]
            learnt[0] = p ^ 1
            # minimize: drop a literal implied by the others (its reason's literals are
            # all in the clause, recursively) -- MiniSat's recursive minimization
            nclear = 0
            for j in range(1, k):
                toclear[nclear] = learnt[j]
                nclear += 1
            m = 1
            for j in range(1, k):
                q = learnt[j]
                if reason[q >> 1] < 0 or not _redundant(q, reason, level, seen, cl_lits, cl_start,
                                                          cl_len, stack, toclear, nclear):
                    learnt[m] = q
                    m += 1
                else:
                    nclear = toclear[-1]  # _redundant left the new length here
            k = m
            for j in range(nclear):
                seen[toclear[j] >> 1] = 0
            var_inc /= VAR_DECAY
            # backjump level: the highest level among the rest (moved to position 1)
            back = 0
            if k > 1:
                best = 1
                for j in range(2, k):
                    if level[learnt[j] >> 1] > level[learnt[best] >> 1]:
                        best = j
                tmp = learnt[1]
                learnt[1] = learnt[best]
                learnt[best] = tmp
                back = level[learnt[1] >> 1]
            # undo to level back
            if by_propagator:
                count_undo(counts, lim[back + 1], trail, assign, rank)
            tlen, hsize = _undo(lim[back + 1], trail, tlen, assign, saved, reason, heap, hpos, act, hsize)
            dl = back
            qhead = tlen
            # store the clause (grow the arrays when full)
            if nlit + k > cap_lits:
                cl_lits = _grown(cl_lits, nlit, 2 * cap_lits + k, 0)
                cap_lits = len(cl_lits)
            if ncl + 1 > cap_cl:
                cap_cl *= 2
                cl_start = _grown(cl_start, ncl, cap_cl, 0)
                cl_len = _grown(cl_len, ncl, cap_cl, 0)
                cl_lbd = _grown(cl_lbd, ncl, cap_cl, 0)
                wnext = _grown(wnext, 2 * ncl, 2 * cap_cl, -1)
            cl = ncl
            cl_start[cl] = nlit
            cl_len[cl] = k
            lbd = 0
            for j in range(k):
                lv = level[learnt[j] >> 1]
                if stamp[lv] != cl + 1:
                    stamp[lv] = cl + 1
                    lbd += 1
            cl_lbd[cl] = lbd
            for j in range(k):
                cl_lits[nlit + j] = learnt[j]
            nlit += k
            ncl += 1
            if k > 1:
                for w in range(2):
                    lit = learnt[w]
                    wnext[2 * cl + w] = whead[lit]
                    whead[lit] = 2 * cl + w
            lit = learnt[0]
            v = lit >> 1
            assign[v] = 1 - (lit & 1)
            level[v] = dl
            reason[v] = cl if k > 1 else -1
            trail[tlen] = lit
            tlen += 1
            if conflicts >= budget:  # pause where it is (the next run goes on from there)
                break
            continue
        # ---- restart
        if since_restart >= next_restart and dl > 0:
            since_restart = 0
            restarts += 1
            next_restart = RESTART_BASE * luby(restarts)
            if by_propagator:
                count_undo(counts, lim[1], trail, assign, rank)
            tlen, hsize = _undo(lim[1], trail, tlen, assign, saved, reason, heap, hpos, act, hsize)
            dl = 0
            qhead = tlen
            if ctl[C_CONFLICTS] + conflicts >= ctl[C_NEXT_REDUCE]:
                ctl[C_REDUCTIONS] += 1
                ctl[C_NEXT_REDUCE] = (ctl[C_CONFLICTS] + conflicts + REDUCE_FIRST
                                      + REDUCE_INC * ctl[C_REDUCTIONS])
                ctl[C_DELETED] += _reduce(norig, ncl, cl_len, cl_lbd)
        # ---- decide
        v = -1
        while hsize > 0:
            top = heap[0]
            hsize -= 1
            hpos[top] = -1
            if hsize > 0:
                heap[0] = heap[hsize]
                hpos[heap[0]] = 0
                _heap_down(heap, hpos, act, hsize, 0)
            if assign[top] < 0:
                v = top
                break
        if v < 0:
            result = WIN  # every variable assigned, no conflict: a solution
            break
        dl += 1
        lim[dl] = tlen
        assign[v] = saved[v]
        level[v] = dl
        reason[v] = -1
        trail[tlen] = 2 * v + (1 - saved[v])
        tlen += 1

    info[0] = conflicts
    ctl[C_STATUS] = result
    ctl[C_NCL] = ncl
    ctl[C_NLIT] = nlit
    ctl[C_TLEN] = tlen
    ctl[C_QHEAD] = qhead
    ctl[C_DL] = dl
    ctl[C_CONFLICTS] += conflicts
    ctl[C_RESTARTS] = restarts
    ctl[C_SINCE] = since_restart
    ctl[C_NEXT_RESTART] = next_restart
    ctl[C_HSIZE] = hsize
    fctl[0] = var_inc
    model = (ctl, fctl, src, lo, hi, base, xa, xb, xk, cl_lits, cl_start, cl_len, wnext, whead,
             assign, level) + (reason, saved, act, heap, hpos, trail, lim, seen, learnt, stack,
                               toclear, bstart, bimp, bcl, cl_lbd, rank, counts)
    if result != WIN:
        return result, model
    # ---- a solution: steps of the cards, groups sorted by step
    step = np.empty(n, np.int64)
    for c in range(n):
        step[c] = hi[c]
        for v in range(lo[c], hi[c]):
            if assign[base[c] + v - lo[c]] == 1:
                step[c] = v
                break
    if ctl[C_COUNTING]:  # no pair Booleans: group the cards of each step
        info[1] = line_by_steps(step, rank, src, n, nmoves, line)
        return WIN, model
    gkey = np.empty(nmoves, np.int64)
    gdelta = np.empty(nmoves, np.uint64)
    ng = 0
    for i in range(nx):
        if assign[xvar0 + i] != 1:
            continue
        a = xa[i]
        b = xb[i]
        if xk[i] == 0:
            gkey[ng] = step[a] * 1024 + a
            gdelta[ng] = source_delta(src[a]) + source_delta(src[b])
            ng += 1
        elif xk[i] == 1:  # J a with Q b: find the K of a
            for i2 in range(nx):
                if xk[i2] == 2 and xa[i2] == a and assign[xvar0 + i2] == 1:
                    gkey[ng] = step[a] * 1024 + a
                    gdelta[ng] = source_delta(src[a]) + source_delta(src[b]) + source_delta(src[xb[i2]])
                    ng += 1
    order = np.argsort(gkey[:ng])
    for j in range(ng):
        line[j] = gdelta[order[j]]
    info[1] = ng
    return WIN, model
