"""The clause-learning search (CDCL) that decides the grouping view, in numba.

:func:`solver.grouping.model.grouping_model` writes the clauses of a position and a fresh
search state (:mod:`solver.grouping.state`); :func:`grouping_run` decides them.  Unit
propagation on these clauses (:mod:`solver.grouping.unit_propagation`) narrows the
intervals much as :mod:`solver.depth_first.bounds` does; learning a clause from each
conflict (first unique implication point, recursively minimized), VSIDS branching with
phase saving, Luby restarts, the thinning of learnt clauses at restarts and failed-literal
probing at the root (by pairs, when the model is written) make it a complete search: the
answer is a solution (which sorts into a winning line) or a proof that there is none.
Given a budget of conflicts it stops without an answer; :func:`grouping_run` goes on
where it stopped.

In the view by counts through the propagator (``VIEW_COUNTS``, the default) the per-step
counts are not clauses: :func:`solver.grouping.count_propagation.count_propagate` checks
them at each fixpoint of unit propagation and writes the clause that explains each literal
it sets or each conflict it finds, which learning then uses like any other.  Those
explanations are on a stack of their own, popped with the levels they were written at (a
reason ``r < -1`` is explanation ``-2 - r``); the thinning of learnt clauses counts them as
it would if they were stored with the learnt clauses (they were its first candidates), so
it forgets the same learnt clauses.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..mirror.position import source_delta
from ..verdicts import LOSS, UNRESOLVED, WIN
from .count_clauses import line_by_steps
from .count_propagation import CONFLICT, EXPLANATIONS, THINNABLE, count_propagate, count_undo
from .state import (
    GLUE,
    REDUCE_FIRST,
    REDUCE_INC,
    RESTART_BASE,
    VIEW_COUNTS,
    VIEW_PAIRS,
    Clauses,
    Ctl,
    Model,
    grown,
    heap_down,
    heap_up,
    luby,
)
from .unit_propagation import _propagate

# The activity decay of the branching (VSIDS): 0.85 forgets old conflicts faster than
# MiniSat's 0.95: the deals are decided faster in all, a few slower (figures in
# docs/tuning-log.md).
VAR_DECAY = 0.85


# ---------------------------------------------------------------------------
# learning


@njit(cache=True, _nrt=False)
def _redundant(p, reason, level, seen, cl_lits, cl_start, cl_len, exp_lits, exp_start, stack,
               toclear, nclear):
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
        if cl >= 0:
            lits, s, e = cl_lits, cl_start[cl], cl_start[cl] + cl_len[cl]
        else:
            lits, s, e = exp_lits, exp_start[-2 - cl], exp_start[-1 - cl]
        for j in range(s, e):
            lit = lits[j]
            u = lit >> 1
            if u == (q >> 1) or seen[u] != 0 or level[u] == 0:
                continue
            if reason[u] != -1:
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


# inlined into grouping_run by numba: called, it passes some 160 words of arrays' fields
# each conflict, and the search ran measurably slower
@njit(cache=True, inline="always")
def _learn(confl, clauses, exp_lits, exp_start, tr, br, scratch, tlen, dl, var_inc, nvars):
    """The clause learnt from the conflicting clause ``confl`` at level ``dl`` (an
    explanation if negative, as a reason is): its first
    unique implication point, minimized, in ``scratch.learnt[:k]`` -- the asserting literal
    first, one of the highest level among the rest second.  The activities of the variables
    met are bumped; returns (k, the activity increment)."""
    cl_lits, cl_start, cl_len = clauses.lits, clauses.start, clauses.length
    level, reason, trail = tr.level, tr.reason, tr.lits
    act, heap, hpos = br.activity, br.heap, br.heap_pos
    seen, learnt, stack, toclear = scratch.seen, scratch.learnt, scratch.stack, scratch.toclear
    k = 1
    path = 0
    p = -1
    idx = tlen - 1
    cl = confl
    while True:
        if cl >= 0:
            lits, s, e = cl_lits, cl_start[cl], cl_start[cl] + cl_len[cl]
        else:
            lits, s, e = exp_lits, exp_start[-2 - cl], exp_start[-1 - cl]
        for j in range(s, e):
            q = lits[j]
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
                    heap_up(heap, hpos, act, hpos[v])
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
    # minimize: drop a literal implied by the others (its reason's literals are all in the
    # clause, recursively) -- MiniSat's recursive minimization
    nclear = 0
    for j in range(1, k):
        toclear[nclear] = learnt[j]
        nclear += 1
    m = 1
    for j in range(1, k):
        q = learnt[j]
        if reason[q >> 1] == -1 or not _redundant(q, reason, level, seen, cl_lits, cl_start,
                                                   cl_len, exp_lits, exp_start, stack, toclear,
                                                   nclear):
            learnt[m] = q
            m += 1
        else:
            nclear = toclear[-1]  # _redundant left the new length here
    k = m
    for j in range(nclear):
        seen[toclear[j] >> 1] = 0
    if k > 1:  # the backjump level's literal at position 1
        best = 1
        for j in range(2, k):
            if level[learnt[j] >> 1] > level[learnt[best] >> 1]:
                best = j
        tmp = learnt[1]
        learnt[1] = learnt[best]
        learnt[best] = tmp
    return k, var_inc / VAR_DECAY


@njit(cache=True, _nrt=False)
def _store_learnt(clauses, ncl, nlit, learnt, k, level, stamp):
    """Store ``learnt[:k]`` as clause ``ncl`` from literal ``nlit`` on (the arrays have
    room), with the decision levels it spans, and watch its first two literals.  ``stamp``
    marks the levels counted (per level: the last clause counted, plus 1)."""
    clauses.start[ncl] = nlit
    clauses.length[ncl] = k
    lbd = 0
    for j in range(k):
        lv = level[learnt[j] >> 1]
        if stamp[lv] != ncl + 1:
            stamp[lv] = ncl + 1
            lbd += 1
    clauses.lbd[ncl] = lbd
    for j in range(k):
        clauses.lits[nlit + j] = learnt[j]
    if k > 1:
        for w in range(2):
            lit = learnt[w]
            clauses.watch_next[2 * ncl + w] = clauses.watch_head[lit]
            clauses.watch_head[lit] = 2 * ncl + w


@njit(cache=True, _nrt=False)
def _short(clauses, ncl, nlit, more_cl, more_lits):
    """True if the clause arrays lack room for ``more_cl`` clauses of ``more_lits``
    literals."""
    return nlit + more_lits > len(clauses.lits) or ncl + more_cl > len(clauses.start)


@njit(cache=True)
def _regrown(clauses, ncl, nlit, more_cl, more_lits):
    """The clause arrays with room for ``more_cl`` clauses of ``more_lits`` literals
    more (those that lack it regrown to twice their size and that room)."""
    lits = clauses.lits
    if nlit + more_lits > len(lits):
        lits = grown(lits, nlit, 2 * len(lits) + more_lits, 0)
    start, length, lbd, wnext = clauses.start, clauses.length, clauses.lbd, clauses.watch_next
    if ncl + more_cl > len(start):
        cap = 2 * len(start) + more_cl
        start = grown(start, ncl, cap, 0)
        length = grown(length, ncl, cap, 0)
        lbd = grown(lbd, ncl, cap, 0)
        wnext = grown(wnext, 2 * ncl, 2 * cap, -1)
    return Clauses(lits, start, length, lbd, wnext, clauses.watch_head, clauses.imp_start,
                   clauses.imp_lits, clauses.imp_clause)


# ---------------------------------------------------------------------------
# assigning, undoing, deciding, forgetting


@njit(cache=True, _nrt=False)
def _assign(tr, lit, dl, why, tlen):
    """Make ``lit`` true at level ``dl`` for the reason ``why`` (a clause, or -1); returns
    the trail's new length."""
    v = lit >> 1
    tr.assign[v] = 1 - (lit & 1)
    tr.level[v] = dl
    tr.reason[v] = why
    tr.lits[tlen] = lit
    return tlen + 1


@njit(cache=True, _nrt=False)
def _undo(target, tlen, hsize, tr, br, counts, rank, by_propagator):
    """Unassign the trail down to length target (the propagator's counts first, phases
    saved, variables back in the heap); returns (trail length, heap size)."""
    trail, assign, reason = tr.lits, tr.assign, tr.reason
    heap, hpos, act, saved = br.heap, br.heap_pos, br.activity, br.phase
    if by_propagator:
        count_undo(counts, target, trail, assign, rank)
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
            heap_up(heap, hpos, act, hsize - 1)
    return tlen, hsize


@njit(cache=True, _nrt=False)
def _pick(br, hsize, assign):
    """The unassigned variable of highest activity (-1 if there is none), taken out of the
    heap with the assigned ones above it; returns (it, heap size)."""
    heap, hpos, act = br.heap, br.heap_pos, br.activity
    while hsize > 0:
        top = heap[0]
        hsize -= 1
        hpos[top] = -1
        if hsize > 0:
            heap[0] = heap[hsize]
            hpos[heap[0]] = 0
            heap_down(heap, hpos, act, hsize, 0)
        if assign[top] < 0:
            return top, hsize
    return -1, hsize


@njit(cache=True)
def _reduce(first, ncl, cl_len, cl_lbd, explained):
    """Delete half of the candidates -- the learnt clauses first..ncl-1 that span more
    than GLUE levels, and ``explained`` explanations of the propagator, which go first --
    the most levels first, the older first among equals (at the root, where no clause
    is the reason of an assignment above level 0); returns (learnt clauses deleted,
    explanations counted as gone).  A deleted clause's length is made negative; its
    watches are dropped as propagation meets them."""
    cand = np.empty(ncl - first, np.int64)
    key = np.empty(ncl - first, np.int64)
    m = 0
    for cl in range(first, ncl):
        if cl_len[cl] > 2 and cl_lbd[cl] > GLUE:
            cand[m] = cl
            key[m] = -(cl_lbd[cl] * (ncl + 1) + (ncl - cl))
            m += 1
    half = (m + explained) // 2
    gone = min(half, explained)
    order = np.argsort(key[:m])
    for j in range(half - gone):
        cl = cand[order[j]]
        cl_len[cl] = -cl_len[cl]
    return half - gone, gone


@njit(cache=True)
def _thin_when_due(ctl, conflicts, clauses, ncl, counts):
    """At a restart: thin the learnt clauses if their time has come (``conflicts``: this
    run's so far), and set the next time."""
    total = ctl[Ctl.CONFLICTS] + conflicts
    if total >= ctl[Ctl.NEXT_REDUCE]:
        ctl[Ctl.REDUCTIONS] += 1
        ctl[Ctl.NEXT_REDUCE] = total + REDUCE_FIRST + REDUCE_INC * ctl[Ctl.REDUCTIONS]
        deleted, gone = _reduce(ctl[Ctl.MODEL_CLAUSES], ncl, clauses.length, clauses.lbd,
                                counts.ctl[THINNABLE])
        ctl[Ctl.DELETED] += deleted
        counts.ctl[THINNABLE] -= gone


# ---------------------------------------------------------------------------
# the search


@njit(cache=True)
def grouping_run(model, budget, line, info):
    """Go on with the search of :func:`solver.grouping.model.grouping_model` for at most
    ``budget`` conflicts.

    Returns (status, model) -- the model to pass next time (its clause arrays may have
    been regrown).  WIN: ``line[:info[1]]`` is a winning line as move deltas, in play
    order; LOSS: no grouping exists, the position is lost; UNRESOLVED: budget spent.
    ``info[0]`` receives the conflicts of this call.  A call whose budget runs out pauses
    the search where it is (trail, learnt clauses, branching state), and the next call goes
    on from there: run in slices, it is the same search as in one call.
    """
    info[0] = 0
    info[1] = 0
    ctl = model.ctl
    if ctl[Ctl.STATUS] != UNRESOLVED:
        return ctl[Ctl.STATUS], model
    # the arrays the loop uses bound once (a field read in the loop would cost a reference
    # count's increment and decrement each time); the clauses' again when regrown
    cards, clauses, counts = model.cards, model.clauses, model.counts
    tr, br, scratch = model.trail, model.branching, model.scratch
    lo, hi, base, rank = cards.lo, cards.hi, cards.base, cards.rank
    assign, level, reason, trail, lim = tr
    lits, start, length, lbd, wnext, whead, bstart, bimp, bcl = clauses
    saved, learnt = br.phase, scratch.learnt
    exp_lits, exp_start, level_exp, cctl = (counts.exp_lits, counts.exp_start, counts.level_exp,
                                            counts.ctl)
    nvars = ctl[Ctl.VARS]
    ncl = ctl[Ctl.CLAUSES]
    nlit = ctl[Ctl.LITS]
    tlen = ctl[Ctl.TRAIL]
    qhead = ctl[Ctl.QHEAD]
    dl = ctl[Ctl.LEVEL]
    restarts = ctl[Ctl.RESTARTS]
    since_restart = ctl[Ctl.SINCE_RESTART]
    next_restart = ctl[Ctl.NEXT_RESTART]
    hsize = ctl[Ctl.HEAP_SIZE]
    var_inc = br.increment[0]
    by_propagator = ctl[Ctl.VIEW] == VIEW_COUNTS
    stamp = np.zeros(nvars + 2, np.int64)  # per decision level: last clause counted
    conflicts = 0
    result = UNRESOLVED
    while True:
        confl, tlen, qhead = _propagate(trail, tlen, qhead, assign, level, reason, whead, wnext,
                                        lits, start, length, dl, bstart, bimp, bcl)
        if confl < 0 and by_propagator:  # the per-step counts, at the clauses' fixpoint
            code, tlen = count_propagate(counts, trail, tlen, assign, level, reason, dl, lo, hi,
                                         base, rank)
            if code == -2:
                continue  # literals set: propagate them
            if code == CONFLICT:  # the explanation on top of the stack
                confl = -1 - cctl[EXPLANATIONS]
        if confl != -1:
            conflicts += 1
            since_restart += 1
            if dl == 0:
                result = LOSS
                break
            k, var_inc = _learn(confl, clauses, exp_lits, exp_start, tr, br, scratch, tlen, dl,
                                var_inc, nvars)
            back = level[learnt[1] >> 1] if k > 1 else 0
            tlen, hsize = _undo(lim[back + 1], tlen, hsize, tr, br, counts, rank, by_propagator)
            if by_propagator:  # the explanations of the levels undone
                cctl[EXPLANATIONS] = level_exp[back + 1]
            dl = back
            qhead = tlen
            if _short(clauses, ncl, nlit, 1, k):
                clauses = _regrown(clauses, ncl, nlit, 1, k)
                lits, start, length, lbd, wnext, whead, bstart, bimp, bcl = clauses
            _store_learnt(clauses, ncl, nlit, learnt, k, level, stamp)
            tlen = _assign(tr, learnt[0], dl, ncl if k > 1 else -1, tlen)
            ncl += 1
            nlit += k
            if conflicts >= budget:  # pause where it is (the next run goes on from there)
                break
            continue
        if since_restart >= next_restart and dl > 0:
            since_restart = 0
            restarts += 1
            next_restart = RESTART_BASE * luby(restarts)
            tlen, hsize = _undo(lim[1], tlen, hsize, tr, br, counts, rank, by_propagator)
            if by_propagator:
                cctl[EXPLANATIONS] = level_exp[1]
            dl = 0
            qhead = tlen
            _thin_when_due(ctl, conflicts, clauses, ncl, counts)
        v, hsize = _pick(br, hsize, assign)
        if v < 0:
            result = WIN  # every variable assigned, no conflict: a solution
            break
        dl += 1
        lim[dl] = tlen
        if by_propagator:
            level_exp[dl] = cctl[EXPLANATIONS]
        tlen = _assign(tr, 2 * v + (1 - saved[v]), dl, -1, tlen)

    info[0] = conflicts
    ctl[Ctl.STATUS] = result
    ctl[Ctl.CLAUSES] = ncl
    ctl[Ctl.LITS] = nlit
    ctl[Ctl.TRAIL] = tlen
    ctl[Ctl.QHEAD] = qhead
    ctl[Ctl.LEVEL] = dl
    ctl[Ctl.CONFLICTS] += conflicts
    ctl[Ctl.RESTARTS] = restarts
    ctl[Ctl.SINCE_RESTART] = since_restart
    ctl[Ctl.NEXT_RESTART] = next_restart
    ctl[Ctl.HEAP_SIZE] = hsize
    br.increment[0] = var_inc
    model = Model(ctl, cards, clauses, tr, br, scratch, counts)
    if result == WIN:
        info[1] = _winning_line(model, line)
    return result, model


@njit(cache=True)
def _winning_line(model, line):
    """The moves of a solution (every variable assigned) into ``line``, as move deltas in
    play order (the groups sorted by step); returns how many."""
    cards, assign, ctl = model.cards, model.trail.assign, model.ctl
    src, lo, hi, base = cards.src, cards.lo, cards.hi, cards.base
    n = ctl[Ctl.CARDS]
    nmoves = ctl[Ctl.MOVES]
    step = np.empty(n, np.int64)
    for c in range(n):
        step[c] = hi[c]
        for v in range(lo[c], hi[c]):
            if assign[base[c] + v - lo[c]] == 1:
                step[c] = v
                break
    if ctl[Ctl.VIEW] != VIEW_PAIRS:  # no pair Booleans: group the cards of each step
        return line_by_steps(step, cards.rank, src, n, nmoves, line)
    xa, xb, xk, xvar0, nx = (cards.pair_a, cards.pair_b, cards.pair_kind, ctl[Ctl.PAIR_VAR0],
                             ctl[Ctl.PAIRS])
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
                    gdelta[ng] = (source_delta(src[a]) + source_delta(src[b])
                                  + source_delta(src[xb[i2]]))
                    ng += 1
    order = np.argsort(gkey[:ng])
    for j in range(ng):
        line[j] = gdelta[order[j]]
    return ng
