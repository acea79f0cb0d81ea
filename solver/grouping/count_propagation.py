"""The grouping view's per-step counts as a propagator of the clause-learning search.

The view by counts (docs/solver.md, rule ``GROUPING``) asks, for every step v, that the
cards gone by step v be balanced in each class (as many of rank r as of rank 11 - r, as
many J as Q as K) and make exactly v + 1 moves.  :mod:`solver.grouping.count_clauses` writes this as
totalizer clauses (some 80,000 a hard deal, four fifths of the model and of its
propagation); this module enforces the same equalities directly on the order literals
``[t_c <= v]``, as a lazy-clause-generation solver does with a linear constraint:

- for each rank r and step v it keeps ``L[r, v]``, the cards of rank r known gone by v
  (their literal true, or their interval ending before v), and ``U[r, v]``, those that may
  be (literal not false), counted from the trail as it grows and shrinks;
- a class's count at v lies in [max L, min U] over its ranks; the classes' counts sum to
  v + 1, so each also lies in [v + 1 - (the others' upper bounds), v + 1 - (their lower
  bounds)];
- when a rank's upper bound meets the class's lower bound, every open literal of that
  rank at v is made true, and when its lower bound meets the class's upper bound, false;
  when the bounds cross, it is a conflict.

Each literal it sets, and each conflict, comes with its explanation written as a clause
(the literal, and the negations of the assigned literals whose counts gave the bounds):
the clause follows from the equalities, so the learning of
:mod:`solver.grouping.clause_learning` works on it as on any other.  It is never watched,
and learning reads it only while its literal is assigned, so the explanations live on a
stack of their own beside the trail (``exp_lits``; a literal's ``reason`` is ``-2 - e``
for explanation e), popped with the decision levels they were written at: the clause
store keeps the model's and the learnt clauses only.  The bounds are those unit
propagation derives on the totalizer clauses (a count fixed both ways), so the search is
the same search over the same solutions, with far fewer clauses.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

NRANKS = 14  # ranks 1..13 (index 0 unused)
NCLASSES = 6  # the pair classes A+10 .. 5+6, then J Q K
REASON_ROOM = 64  # an explanation: the literal and at most 6 ranks x 8 cards
ROOM_CLAUSES = 256  # explanations one call may write (the caller makes room for them)
# the propagator's counters, in CountState.ctl
COUNTED = 0  # the trail's entries counted so far
STEPS = 1  # the steps (the position's moves)
CHECKED = 2  # 1 once every step was checked (0: check them all at the next call)
EXPLANATIONS = 3  # explanations on the stack
THINNABLE = 4  # explanations of 3 literals or more written and not yet counted as thinned
NCOUNTCTL = 5
CONFLICT = -3  # count_propagate's code for a conflict (its explanation on top of the stack)


class CountState(NamedTuple):
    """The propagator's state (numba compiles it as a plain structure)."""

    ctl: np.ndarray  # COUNTED, STEPS, CHECKED
    var_card: np.ndarray  # per variable: the card of the order literal (-1: none)
    var_step: np.ndarray  # and its step
    low: np.ndarray  # low[v, r]: cards of rank r known gone by step v (a step's ranks together)
    up: np.ndarray  # up[v, r]: those that may be
    rstart: np.ndarray  # the cards of rank r: rcards[rstart[r]:rstart[r + 1]]
    rcards: np.ndarray
    touched: np.ndarray  # per step: 1 while listed in tlist (to be checked)
    tlist: np.ndarray
    buf: np.ndarray  # an explanation being written
    bounds: np.ndarray  # per class: its lower and upper bound at a step, and their ranks
    exp_lits: np.ndarray  # the explanations' literals, one after the other (a stack)
    exp_start: np.ndarray  # explanation e is exp_lits[exp_start[e]:exp_start[e + 1]]
    level_exp: np.ndarray  # per decision level: the explanations on the stack when it began


@njit(cache=True)
def count_state(n, nvars, nmoves, rank, lo, hi, base):
    """The propagator's state for a model of ``n`` cards (its ranks, intervals and order
    literals' first variables)."""
    var_card = np.full(nvars + 1, -1, np.int64)
    var_step = np.full(nvars + 1, -1, np.int64)
    low = np.zeros((max(nmoves, 1), NRANKS), np.int64)
    up = np.zeros((max(nmoves, 1), NRANKS), np.int64)
    rstart = np.zeros(NRANKS + 1, np.int64)
    for c in range(n):
        rstart[rank[c] + 1] += 1
    for r in range(NRANKS):
        rstart[r + 1] += rstart[r]
    fill = rstart[:NRANKS].copy()
    rcards = np.empty(max(n, 1), np.int64)
    for c in range(n):
        rcards[fill[rank[c]]] = c
        fill[rank[c]] += 1
        for v in range(nmoves):
            if v >= hi[c]:
                low[v, rank[c]] += 1
                up[v, rank[c]] += 1
            elif v >= lo[c]:
                up[v, rank[c]] += 1
                x = base[c] + v - lo[c]
                var_card[x] = c
                var_step[x] = v
    ctl = np.zeros(NCOUNTCTL, np.int64)
    ctl[STEPS] = nmoves
    # an explanation per assigned variable at most, and one for a conflict
    exp_start = np.zeros(nvars + 3, np.int64)
    return CountState(ctl, var_card, var_step, low, up, rstart, rcards,
                      np.zeros(nmoves + 1, np.int8), np.empty(nmoves + 1, np.int64),
                      np.empty(REASON_ROOM + 2, np.int64), np.empty((4, NCLASSES), np.int64),
                      np.empty((nvars + 2) * (REASON_ROOM + 2), np.int64), exp_start,
                      np.zeros(nvars + 2, np.int64))


@njit(cache=True)
def no_count_state():
    """A state of the same types for a model without the propagator."""
    return count_state(0, 0, 0, np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(1, np.int64),
                       np.zeros(1, np.int64))


@njit(cache=True, _nrt=False)
def count_undo(state, target, trail, assign, rank):
    """Take back the counts of the trail entries from ``target`` on (call before they are
    unassigned)."""
    ctl, var_card, var_step = state.ctl, state.var_card, state.var_step
    low, up = state.low, state.up
    j = ctl[COUNTED] - 1
    while j >= target:
        x = trail[j] >> 1
        c = var_card[x]
        if c >= 0:
            if assign[x] == 1:
                low[var_step[x], rank[c]] -= 1
            else:
                up[var_step[x], rank[c]] += 1
        j -= 1
    if ctl[COUNTED] > target:
        ctl[COUNTED] = target


@njit(cache=True, _nrt=False)
def _reasons(r, v, want, rstart, rcards, lo, hi, base, assign, buf, k):
    """Append to ``buf[k:]`` rank r's order literals at step v assigned ``want`` (1: true,
    written negated; 0: false, written as they are): literals false in the clause."""
    for j in range(rstart[r], rstart[r + 1]):
        c = rcards[j]
        if lo[c] <= v < hi[c]:
            x = base[c] + v - lo[c]
            if assign[x] == want:
                buf[k] = 2 * x + want
                k += 1
    return k


@njit(cache=True, _nrt=False)
def _store(buf, k, exp_lits, exp_start, ctl):
    """Push ``buf[:k]`` on the explanations' stack."""
    e = ctl[EXPLANATIONS]
    s = exp_start[e]
    for j in range(k):
        exp_lits[s + j] = buf[j]
    exp_start[e + 1] = s + k
    ctl[EXPLANATIONS] = e + 1
    if k > 2:
        ctl[THINNABLE] += 1


@njit(cache=True, _nrt=False)
def _class_ranks(q):
    """The first rank of class q, how many ranks it has, and the step between them (a
    count, not a last rank: a loop of a variable step would divide each time)."""
    if q < 5:
        return q + 1, 2, 9 - 2 * q
    return 11, 3, 1


@njit(cache=True, _nrt=False)
def count_propagate(state, trail, tlen, assign, level, reason, dl, lo, hi, base, rank):
    """At a fixpoint of unit propagation: count the new trail entries and check the steps
    they touch.  Returns (code, trail length): code -1 nothing new, -2 literals set
    (propagate them), CONFLICT a conflict (its explanation is the top of the stack)."""
    ctl, var_card, var_step = state.ctl, state.var_card, state.var_step
    low, up, rstart, rcards = state.low, state.up, state.rstart, state.rcards
    touched, tlist, buf = state.touched, state.tlist, state.buf
    exp_lits, exp_start = state.exp_lits, state.exp_start
    nmoves = ctl[STEPS]
    nt = 0
    for j in range(ctl[COUNTED], tlen):
        x = trail[j] >> 1
        c = var_card[x]
        if c >= 0:
            v = var_step[x]
            if assign[x] == 1:
                low[v, rank[c]] += 1
            else:
                up[v, rank[c]] -= 1
            if touched[v] == 0:
                touched[v] = 1
                tlist[nt] = v
                nt += 1
    ctl[COUNTED] = tlen
    if ctl[CHECKED] == 0:  # the first call (or one after an interrupted call): every step
        ctl[CHECKED] = 1
        nt = 0
        for v in range(nmoves):
            touched[v] = 1
            tlist[nt] = v
            nt += 1
    code = -1
    made = 0
    bounds = state.bounds
    c_low, c_up = bounds[0], bounds[1]
    r_low, r_up = bounds[2], bounds[3]  # the ranks giving the class's bounds
    for t in range(nt):
        v = tlist[t]
        touched[v] = 0
        if code == CONFLICT or made >= ROOM_CLAUSES - 8:
            continue
        total = v + 1
        sum_low = 0
        sum_up = 0
        bad = -1
        for q in range(NCLASSES):
            first, nranks, stride = _class_ranks(q)
            r_low[q] = first
            r_up[q] = first
            for i in range(1, nranks):
                r = first + i * stride
                if low[v, r] > low[v, r_low[q]]:
                    r_low[q] = r
                if up[v, r] < up[v, r_up[q]]:
                    r_up[q] = r
            c_low[q] = low[v, r_low[q]]
            c_up[q] = up[v, r_up[q]]
            if c_low[q] > c_up[q]:
                bad = q
            sum_low += c_low[q]
            sum_up += c_up[q]
        if bad >= 0 or sum_low > total or sum_up < total:
            k = 0
            if bad >= 0:  # a rank of the class is past another's bound
                k = _reasons(r_low[bad], v, 1, rstart, rcards, lo, hi, base, assign, buf, k)
                k = _reasons(r_up[bad], v, 0, rstart, rcards, lo, hi, base, assign, buf, k)
            else:  # more moves than v + 1 made, or fewer than v + 1 possible
                for q in range(NCLASSES):
                    if sum_low > total:
                        k = _reasons(r_low[q], v, 1, rstart, rcards, lo, hi, base, assign, buf, k)
                    else:
                        k = _reasons(r_up[q], v, 0, rstart, rcards, lo, hi, base, assign, buf, k)
            _store(buf, k, exp_lits, exp_start, ctl)
            code = CONFLICT
            continue
        done = False
        for q in range(NCLASSES):
            need_low = c_low[q]
            low_from_total = total - (sum_up - c_up[q]) > need_low
            if low_from_total:
                need_low = total - (sum_up - c_up[q])
            need_up = c_up[q]
            up_from_total = total - (sum_low - c_low[q]) < need_up
            if up_from_total:
                need_up = total - (sum_low - c_low[q])
            first, nranks, stride = _class_ranks(q)
            for i in range(nranks):
                r = first + i * stride
                if up[v, r] == low[v, r]:
                    continue
                if up[v, r] <= need_low:
                    want = 1
                elif low[v, r] >= need_up:
                    want = 0
                else:
                    continue
                # the explanation: rank r's literals of the other value, and those of the bound
                k = _reasons(r, v, 1 - want, rstart, rcards, lo, hi, base, assign, buf, 1)
                if want == 1 and not low_from_total:
                    k = _reasons(r_low[q], v, 1, rstart, rcards, lo, hi, base, assign, buf, k)
                elif want == 0 and not up_from_total:
                    k = _reasons(r_up[q], v, 0, rstart, rcards, lo, hi, base, assign, buf, k)
                else:
                    for q2 in range(NCLASSES):
                        if q2 != q:
                            k = _reasons(r_up[q2] if want == 1 else r_low[q2], v, 1 - want, rstart,
                                         rcards, lo, hi, base, assign, buf, k)
                for j in range(rstart[r], rstart[r + 1]):
                    c = rcards[j]
                    if lo[c] <= v < hi[c]:
                        x = base[c] + v - lo[c]
                        if assign[x] < 0:
                            lit = 2 * x + 1 - want
                            buf[0] = lit
                            _store(buf, k, exp_lits, exp_start, ctl)
                            assign[x] = want
                            level[x] = dl
                            reason[x] = -1 - ctl[EXPLANATIONS]  # -2 - its index
                            trail[tlen] = lit
                            tlen += 1
                            made += 1
                done = True  # the counts of step v change: it is checked again next call
                break
            if done:
                break
        if done and code != CONFLICT:
            code = -2
    if made >= ROOM_CLAUSES - 8:
        ctl[CHECKED] = 0  # steps were passed over: check them all next time
    return code, tlen
