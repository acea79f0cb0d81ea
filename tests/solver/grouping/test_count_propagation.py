"""The per-step counts as a propagator (solver/grouping/count_propagation.py).

- Every explanation it writes follows from the view by counts: negated, it makes the
  totalizer clauses of solver/grouping/count_clauses.py conflict by unit propagation alone.
- Its counts follow the trail: after a paused run they are the counts of the literals it
  has taken in, and taking them all back gives the counts of the empty trail.
- Its explanations' stack follows the trail: after a paused run it holds one explanation
  for each literal the propagator set that is still assigned, that literal first, and
  nothing else.
- On hard deals of the whole code space it gives the verdicts of the totalizer clauses,
  and every win replays.  (Every small position against exhaustive search, and the
  comparison deals against CP-SAT: tests/solver/grouping/test_model.py and
  tests/solver/check/test_cpsat_agreement.py, in every view.)
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import Grouping

from halfmoon.game.deal import Deal
from solver.depth_first.bounds import partner_table
from solver.grouping.clause_learning import grouping_run
from solver.grouping.count_propagation import (
    COUNTED,
    EXPLANATIONS,
    STEPS,
    count_state,
    count_undo,
)
from solver.grouping.model import VIEW_COUNTERS, VIEW_COUNTS, grouping_model
from solver.grouping.state import Ctl
from solver.grouping.unit_propagation import _propagate
from solver.mirror.position import MAX_PLY
from solver.verdicts import UNRESOLVED, WIN

# Deals of the whole code space past 100,000 positions of the depth-first searches
# (halfmoon batch --random 100000 --seed 31337), wins and losses.
HARD = [142660483, 306722590, 413809414, 590732855, 1253199360, 1349536228, 1626825012, 2816828881,
        3003026921, 3007038037, 3369981172, 3884445764, 4088411334, 4188648979, 4517263076,
        4963175426, 5783111307, 5784385040, 5897195494, 5919270509, 5969606697, 6677252484,
        7116353008, 7513726429]


def _model(number, view):
    g = Grouping(Deal.from_number(number))
    status, model = grouping_model(g.piles, g.reserve, *partner_table(g.piles, g.reserve),
                                   np.uint64(g.root), view)
    assert status == UNRESOLVED, (number, view)
    return g, model


def _explanations(model):
    """The explanations on the propagator's stack, bottom first."""
    state = model.counts
    start = state.exp_start
    return [[int(x) for x in state.exp_lits[start[e]:start[e + 1]]]
            for e in range(state.ctl[EXPLANATIONS])]


def _refuted(counters, clause) -> bool:
    """The clause's literals all made false at level 1 of the totalizer model: does unit
    propagation reach a conflict (or is one of them already true at the root)?"""
    cls, tr = counters.clauses, counters.trail
    lits, wnext, whead = cls.lits.copy(), cls.watch_next.copy(), cls.watch_head.copy()
    assign, level, reason = tr.assign.copy(), tr.level.copy(), tr.reason.copy()
    trail = tr.lits.copy()
    tlen = int(counters.ctl[Ctl.TRAIL])
    first = tlen
    for lit in clause:
        v, want = lit >> 1, lit & 1  # the literal false: its variable takes the value want
        if assign[v] >= 0:
            if assign[v] != want:
                return True  # true at the root: the clause holds there
            continue
        assign[v], level[v], reason[v] = want, 1, -1
        trail[tlen] = lit ^ 1
        tlen += 1
    confl, _, _ = _propagate(trail, tlen, first, assign, level, reason, whead, wnext, lits,
                             cls.start, cls.length, 1, cls.imp_start, cls.imp_lits, cls.imp_clause)
    return confl >= 0


@pytest.mark.parametrize("number", [1413, 3, 5879, HARD[0], HARD[4]])
def test_every_explanation_follows_from_the_counts(number):
    g, model = _model(number, VIEW_COUNTS)
    line = np.zeros(MAX_PLY, np.uint64)
    clauses = set()
    status = UNRESOLVED
    for _ in range(30):  # those on the stack at each pause
        status, model = grouping_run(model, 10, line, np.zeros(2, np.int64))
        clauses.update(tuple(c) for c in _explanations(model))
        if status != UNRESOLVED:
            break
    clauses = sorted(clauses)
    assert clauses  # it fires
    _, counters = _model(number, VIEW_COUNTERS)
    rng = np.random.default_rng(number)
    picked = rng.choice(len(clauses), size=min(150, len(clauses)), replace=False)
    for k in picked:
        assert _refuted(counters, clauses[k]), clauses[k]


def test_the_counts_follow_the_trail():
    g, model = _model(HARD[1], VIEW_COUNTS)
    status, model = grouping_run(model, 40, np.zeros(MAX_PLY, np.uint64), np.zeros(2, np.int64))
    assert status == UNRESOLVED
    ctl, cards, state = model.ctl, model.cards, model.counts
    lo, hi, base, rank = cards.lo, cards.hi, cards.base, cards.rank
    assign, trail = model.trail.assign, model.trail.lits
    seen = state.ctl[COUNTED]
    assert 0 < seen <= ctl[Ctl.TRAIL]
    taken = {int(trail[j]) >> 1 for j in range(seen)}
    n, nmoves = len(rank), int(state.ctl[STEPS])
    low = np.zeros_like(state.low)
    up = np.zeros_like(state.up)
    for c in range(n):
        for v in range(nmoves):
            x = base[c] + v - lo[c]
            gone = v >= hi[c] or (lo[c] <= v < hi[c] and x in taken and assign[x] == 1)
            open_ = v >= lo[c] and not (lo[c] <= v < hi[c] and x in taken and assign[x] == 0)
            low[v, rank[c]] += gone
            up[v, rank[c]] += open_
    assert (state.low == low).all() and (state.up == up).all()
    count_undo(state, 0, trail, assign, rank)
    fresh = count_state(n, int(ctl[Ctl.VARS]), nmoves, rank, lo, hi, base)
    assert (state.low == fresh.low).all() and (state.up == fresh.up).all()
    assert state.ctl[COUNTED] == 0


@pytest.mark.parametrize("number", [1413, HARD[1], HARD[4]])
def test_the_explanations_follow_the_trail(number):
    g, model = _model(number, VIEW_COUNTS)
    held = 0
    for budget in (1, 2, 3, 5, 7, 11, 20, 40, 100):
        status, model = grouping_run(model, budget, np.zeros(MAX_PLY, np.uint64),
                                     np.zeros(2, np.int64))
        if status != UNRESOLVED:
            break
        tr = model.trail
        tlen = int(model.ctl[Ctl.TRAIL])
        explained = [int(tr.lits[j]) for j in range(tlen) if tr.reason[tr.lits[j] >> 1] < -1]
        stack = _explanations(model)
        assert [c[0] for c in stack] == explained  # in the trail's order, nothing dead
        for e, lit in enumerate(explained):
            assert tr.reason[lit >> 1] == -2 - e
            assert all(tr.assign[x >> 1] == (x & 1) for x in stack[e][1:])  # the others false
        held = max(held, len(stack))
    assert held > 0


def test_hard_deals_get_the_verdicts_of_the_totalizer_clauses():
    settled = 0
    for number in HARD:
        g = Grouping(Deal.from_number(number))
        counts = g(budget=4096, view=VIEW_COUNTS)
        counters = g(budget=4096, view=VIEW_COUNTERS)
        if counts[0] != UNRESOLVED and counters[0] != UNRESOLVED:
            assert counts[0] == counters[0], number
            settled += 1
        if counts[0] == WIN:
            assert g.replays(g.root, counts[2]), number
    assert settled >= 20
