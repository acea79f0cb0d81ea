"""The clause-learning search's state, with names: what :func:`grouping_run` keeps between runs.

:func:`solver.grouping.model.grouping_model` writes a position's clauses and hands them to
:func:`fresh_state`, which sets up the search on them; :func:`grouping_run
<solver.grouping.clause_learning.grouping_run>` takes a :class:`Model` and returns one.  A
model is a tuple of named parts, each a tuple of arrays (numba compiles named tuples as
plain structures, so reading a field by name costs nothing):

- ``ctl``: the search's counters, an int64 array indexed by :class:`Ctl`;
- ``cards``: the cards left and the pair Booleans (fixed once written);
- ``clauses``: the clauses, the model's then the learnt ones, and the lists that
  propagation finds them by (regrown as clauses are learnt);
- ``trail``: the assignment and the trail of literals, level by level;
- ``branching``: the activities and their heap (VSIDS), the saved phases;
- ``scratch``: work arrays of the learning;
- ``counts``: the state of the per-step counts' propagator
  (:class:`~solver.grouping.count_propagation.CountState`).

A literal is ``2 * v`` (variable v is 1) or ``2 * v + 1`` (v is 0); ``assign`` holds -1
(unassigned), 0 or 1.  Clause cl is ``lits[s:s + length[cl]]`` with s = ``start[cl]``.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

import numpy as np
from numba import njit

from ..verdicts import LOSS, UNRESOLVED
from .count_propagation import CountState, count_state, no_count_state
from .unit_propagation import _probe

# the views a model is written in: by pairs; by counts, as totalizer clauses
# (solver.grouping.count_clauses) or through the propagator of
# solver.grouping.count_propagation
VIEW_PAIRS = 0
VIEW_COUNTERS = 1
VIEW_COUNTS = 2

# The search's schedule, which a fresh state starts on.  Restarts follow the Luby sequence
# in units of RESTART_BASE conflicts.  Learnt clauses are thinned at the first restart
# after REDUCE_FIRST conflicts, then after REDUCE_FIRST + REDUCE_INC * k more (k:
# reductions so far): half of those whose literals span more than GLUE decision levels
# go, the most levels first (Glucose's rule; a learnt clause is implied by the model, so
# forgetting one is always sound).
RESTART_BASE = 64
REDUCE_FIRST = 4000
REDUCE_INC = 1000
GLUE = 2


class Ctl(IntEnum):
    """The indices of the search's counters in ``Model.ctl`` (kept between runs)."""

    CARDS = 0  # cards of the model
    VARS = 1  # variables: the order literals' first, then the pair Booleans
    PAIR_VAR0 = 2  # the first pair Boolean
    PAIRS = 3  # pair Booleans
    CLAUSES = 4  # clauses stored, the model's and the learnt ones
    LITS = 5  # literals stored
    TRAIL = 6  # trail length
    QHEAD = 7  # the trail's entries propagated so far
    LEVEL = 8  # the decision level
    CONFLICTS = 9  # conflicts of every run so far
    RESTARTS = 10
    SINCE_RESTART = 11  # conflicts since the last restart
    NEXT_RESTART = 12  # conflicts between the last restart and the next
    HEAP_SIZE = 13
    MOVES = 14  # moves left in the position
    STATUS = 15  # WIN, LOSS or UNRESOLVED
    MODEL_CLAUSES = 16  # clauses written by the model (the learnt ones follow)
    NEXT_REDUCE = 17  # conflicts (in all) after which learnt clauses are next thinned
    REDUCTIONS = 18  # thinnings so far
    DELETED = 19  # learnt clauses deleted so far
    VIEW = 20  # the view the model was written in


NCTL = len(Ctl)


class Cards(NamedTuple):
    """The cards left (in pile order, then the reserve's) and the pair Booleans."""

    src: np.ndarray  # source: pile 0..11, or 12 + the reserve slot
    rank: np.ndarray
    lo: np.ndarray  # the first step the card may be removed at (cards above it)
    hi: np.ndarray  # the last (moves - 1 - cards below it)
    base: np.ndarray  # the variable of [t_c <= lo[c]]; [t_c <= v] is base[c] + v - lo[c]
    pair_a: np.ndarray  # pair Boolean i: cards pair_a[i] and pair_b[i] share a move,
    pair_b: np.ndarray  # of kind pair_kind[i]: 0 two number cards, 1 J with Q, 2 J with K
    pair_kind: np.ndarray


class Clauses(NamedTuple):
    """The clauses and the lists that unit propagation finds them by."""

    lits: np.ndarray  # every clause's literals, one clause after the other
    start: np.ndarray  # per clause: where its literals start
    length: np.ndarray  # its length (negative: a deleted learnt clause)
    lbd: np.ndarray  # decision levels its literals spanned when learnt
    watch_next: np.ndarray  # watch lists, linked: entry 2 * clause + w watches literal w
    watch_head: np.ndarray  # per literal: its first watch entry (-1: none)
    imp_start: np.ndarray  # the model's binary clauses as implications: when literal f
    imp_lits: np.ndarray  # becomes false, imp_lits[imp_start[f]:imp_start[f + 1]] become
    imp_clause: np.ndarray  # true (imp_clause: their clauses)


class Trail(NamedTuple):
    """The assignment: per variable, and in the order it was made."""

    assign: np.ndarray  # int8: -1 unassigned, 0 or 1
    level: np.ndarray  # the decision level of each assigned variable
    reason: np.ndarray  # the clause that implied it (-1: a decision or a root unit)
    lits: np.ndarray  # the literals made true, in order
    level_start: np.ndarray  # the trail's length when each decision level began


class Branching(NamedTuple):
    """What the next decision is chosen by (VSIDS with phase saving)."""

    activity: np.ndarray
    heap: np.ndarray  # the variables, a max-heap by activity
    heap_pos: np.ndarray  # each variable's place in the heap (-1: taken out)
    phase: np.ndarray  # int8: each variable's last value, the value it is next tried with
    increment: np.ndarray  # float64[1]: what a conflict adds to a variable's activity


class Scratch(NamedTuple):
    """Work arrays of the learning (their contents do not outlive a conflict)."""

    seen: np.ndarray
    learnt: np.ndarray
    stack: np.ndarray
    toclear: np.ndarray


class Model(NamedTuple):
    """The grouping search's whole state (see the module's docstring)."""

    ctl: np.ndarray
    cards: Cards
    clauses: Clauses
    trail: Trail
    branching: Branching
    scratch: Scratch
    counts: CountState


# ---------------------------------------------------------------------------
# the decision heap (VSIDS)


@njit(cache=True, _nrt=False)
def heap_up(heap, hpos, act, i):
    """Move the heap's entry i up to its place (its activity grew, or it was appended)."""
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
def heap_down(heap, hpos, act, size, i):
    """Move the heap's entry i down to its place among the first ``size``."""
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
# a settled model, a fresh one


@njit(cache=True)
def empty_model(status):
    """A model of the same types as a real one, settled: :func:`grouping_run` answers
    ``status`` at once."""
    i = np.zeros(1, np.int64)
    b = np.zeros(1, np.int8)
    ctl = np.zeros(NCTL, np.int64)
    ctl[Ctl.STATUS] = status
    return Model(ctl, Cards(i, i, i, i, i, i, i, i), Clauses(i, i, i, i, i, i, i, i, i),
                 Trail(b, i, i, i, i),
                 Branching(np.zeros(1, np.float64), i, i, b, np.ones(1, np.float64)),
                 Scratch(b, i, i, i), no_count_state())


@njit(cache=True)
def grown(a, used, size, fill):
    """``a``'s first ``used`` entries in a new array of ``size`` (the rest ``fill``)."""
    out = np.full(size, fill, a.dtype)
    out[:used] = a[:used]
    return out


@njit(cache=True)
def _branching(nvars, pair_var0, npairs, counting):
    """Activities, heap and phases: the pair Booleans first, tried true; by counts each
    card as early as it may go first (its order literals tried true)."""
    phase = np.zeros(nvars, np.int8)
    act = np.zeros(nvars, np.float64)
    for i in range(npairs):
        phase[pair_var0 + i] = 1
        act[pair_var0 + i] = 1.0  # branch on the pairs first
    if counting:
        phase[:pair_var0] = 1
    heap = np.empty(nvars, np.int64)
    hpos = np.full(nvars, -1, np.int64)
    for v in range(nvars):
        heap[v] = v
        hpos[v] = v
        heap_up(heap, hpos, act, v)
    return Branching(act, heap, hpos, phase, np.ones(1, np.float64))


@njit(cache=True)
def _propagation_lists(lits, start, length, ncl, nlits):
    """Watch lists of the clauses of three literals and more (their first two literals
    watched), implication lists of the binary ones; returns them with the unit clauses'
    literals."""
    watch_next = np.full(2 * len(start), -1, np.int64)
    watch_head = np.full(nlits, -1, np.int64)
    units = np.empty(ncl, np.int64)
    nunits = 0
    imp_start = np.zeros(nlits + 1, np.int64)
    for cl in range(ncl):
        if length[cl] == 2:
            s = start[cl]
            imp_start[lits[s] + 1] += 1
            imp_start[lits[s + 1] + 1] += 1
    for lit in range(nlits):
        imp_start[lit + 1] += imp_start[lit]
    fill = imp_start[:nlits].copy()
    imp_lits = np.empty(imp_start[nlits], np.int64)
    imp_clause = np.empty(imp_start[nlits], np.int64)
    for cl in range(ncl):
        s = start[cl]
        if length[cl] == 1:
            units[nunits] = lits[s]
            nunits += 1
        elif length[cl] == 2:
            for w in range(2):
                f = lits[s + w]
                imp_lits[fill[f]] = lits[s + 1 - w]
                imp_clause[fill[f]] = cl
                fill[f] += 1
        else:
            for w in range(2):
                lit = lits[s + w]
                watch_next[2 * cl + w] = watch_head[lit]
                watch_head[lit] = 2 * cl + w
    clauses = Clauses(lits, start, length, np.zeros(len(start), np.int64), watch_next, watch_head,
                      imp_start, imp_lits, imp_clause)
    return clauses, units[:nunits]


@njit(cache=True)
def fresh_state(cards, lits, start, length, ncl, nlit, nvars, pair_var0, nmoves, view):
    """The search set up on a model's clauses (``ncl`` clauses, ``nlit`` literals, in
    arrays with room for more; ``nvars`` variables, the pair Booleans from ``pair_var0``):
    units assigned and failed literals probed at the root.  Returns (LOSS, a settled
    model) if that already shows there is no solution, else (UNRESOLVED, the model)."""
    n = len(cards.src)
    npairs = len(cards.pair_a)
    clauses, units = _propagation_lists(lits, start, length, ncl, 2 * nvars)
    trail = Trail(np.full(nvars, -1, np.int8), np.zeros(nvars, np.int64),
                  np.full(nvars, -1, np.int64), np.empty(nvars, np.int64),
                  np.empty(nvars + 1, np.int64))
    assign = trail.assign
    tlen = 0
    for lit in units:
        v = lit >> 1
        val = 1 - (lit & 1)
        if assign[v] >= 0:
            if assign[v] != val:
                return LOSS, empty_model(LOSS)
            continue
        assign[v] = val
        trail.level[v] = 0
        trail.lits[tlen] = lit
        tlen += 1
    ok, tlen = _probe(pair_var0, pair_var0 + npairs, trail.lits, tlen, 0, assign, trail.level,
                      trail.reason, clauses.watch_head, clauses.watch_next, lits, start, length,
                      clauses.imp_start, clauses.imp_lits, clauses.imp_clause)
    if not ok:
        return LOSS, empty_model(LOSS)
    ctl = np.zeros(NCTL, np.int64)
    ctl[Ctl.CARDS] = n
    ctl[Ctl.VARS] = nvars
    ctl[Ctl.PAIR_VAR0] = pair_var0
    ctl[Ctl.PAIRS] = npairs
    ctl[Ctl.CLAUSES] = ncl
    ctl[Ctl.LITS] = nlit
    ctl[Ctl.TRAIL] = tlen
    ctl[Ctl.QHEAD] = tlen
    ctl[Ctl.RESTARTS] = 1
    ctl[Ctl.NEXT_RESTART] = RESTART_BASE * luby(1)
    ctl[Ctl.HEAP_SIZE] = nvars
    ctl[Ctl.MOVES] = nmoves
    ctl[Ctl.STATUS] = UNRESOLVED
    ctl[Ctl.MODEL_CLAUSES] = ncl
    ctl[Ctl.NEXT_REDUCE] = REDUCE_FIRST
    ctl[Ctl.VIEW] = view
    if view == VIEW_COUNTS:
        counts = count_state(n, nvars, nmoves, cards.rank, cards.lo, cards.hi, cards.base)
    else:
        counts = no_count_state()
    scratch = Scratch(np.zeros(nvars, np.int8), np.empty(nvars + 1, np.int64),
                      np.empty(nvars + 1, np.int64), np.empty(nvars + 2, np.int64))
    return UNRESOLVED, Model(ctl, cards, clauses, trail,
                             _branching(nvars, pair_var0, npairs, view != VIEW_PAIRS), scratch,
                             counts)
