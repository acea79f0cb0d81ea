"""The clause-learning search's state (solver/grouping/state.py).

- The counters' names are distinct indices of the ctl array, and a settled model answers
  its status at once.
- A fresh state on a deal's clauses is consistent in every view: its counters match its
  arrays, the root's trail is assigned at level 0, every long clause is watched by its
  first two literals, every binary one listed both ways, the heap holds every variable in
  activity order, the pair Booleans come first and true.
- The heap's moves keep it a heap; ``grown`` keeps an array's first entries; the Luby
  sequence.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import Grouping

from halfmoon.game.deal import Deal
from solver.depth_first.bounds import partner_table
from solver.grouping.clause_learning import grouping_run
from solver.grouping.model import VIEW_COUNTERS, VIEW_COUNTS, VIEW_PAIRS, grouping_model
from solver.grouping.state import NCTL, Ctl, Model, empty_model, grown, heap_down, heap_up, luby
from solver.mirror.position import MAX_PLY
from solver.verdicts import LOSS, UNRESOLVED, WIN


def test_the_counters_have_distinct_indices():
    assert len(Ctl.__members__) == len(Ctl) == NCTL  # no name is an alias of another
    assert sorted(int(c) for c in Ctl) == list(range(NCTL))


@pytest.mark.parametrize("status", [WIN, LOSS])
def test_a_settled_model_answers_at_once(status):
    line = np.zeros(MAX_PLY, np.uint64)
    info = np.full(2, 7, np.int64)
    again, model = grouping_run(empty_model(status), 100, line, info)
    assert again == status and list(info) == [0, 0]
    assert isinstance(model, Model) and model.ctl[Ctl.STATUS] == status


def _fresh(number, view):
    g = Grouping(Deal.from_number(number))
    status, model = grouping_model(g.piles, g.reserve, *partner_table(g.piles, g.reserve),
                                   np.uint64(g.root), view)
    assert status == UNRESOLVED
    return model


def _is_heap(heap, hpos, act, size):
    return (all(act[heap[(i - 1) >> 1]] >= act[heap[i]] for i in range(1, size))
            and all(hpos[heap[i]] == i for i in range(size)))


@pytest.mark.parametrize("view", [VIEW_COUNTS, VIEW_COUNTERS, VIEW_PAIRS],
                         ids=["counts", "counters", "pairs"])
def test_a_fresh_state_is_consistent(view):
    model = _fresh(1413, view)
    ctl, cards, cls, tr, br = model.ctl, model.cards, model.clauses, model.trail, model.branching
    nvars, ncl = int(ctl[Ctl.VARS]), int(ctl[Ctl.CLAUSES])
    assert ctl[Ctl.VIEW] == view and ctl[Ctl.STATUS] == UNRESOLVED
    assert ctl[Ctl.CARDS] == len(cards.src) == len(cards.rank) == len(cards.lo) > 0
    assert ctl[Ctl.MODEL_CLAUSES] == ncl and ctl[Ctl.CONFLICTS] == ctl[Ctl.LEVEL] == 0
    assert len(tr.assign) == len(br.activity) == nvars and ctl[Ctl.HEAP_SIZE] == nvars
    assert ctl[Ctl.LITS] == cls.start[ncl - 1] + cls.length[ncl - 1]
    # the root: the trail's literals true at level 0, propagated, and nothing else assigned
    tlen = int(ctl[Ctl.TRAIL])
    assert ctl[Ctl.QHEAD] == tlen > 0
    for lit in tr.lits[:tlen]:
        assert tr.assign[lit >> 1] == 1 - (lit & 1) and tr.level[lit >> 1] == 0
    assert np.count_nonzero(tr.assign >= 0) == tlen
    # the long clauses on the watch lists of their first two literals, the binary ones as
    # implications both ways
    watched = set()
    for lit in range(2 * nvars):
        e = cls.watch_head[lit]
        while e >= 0:
            assert cls.lits[cls.start[e >> 1] + (e & 1)] == lit
            watched.add(int(e))
            e = cls.watch_next[e]
    for cl in range(ncl):
        s, k = cls.start[cl], cls.length[cl]
        if k > 2:
            assert {2 * cl, 2 * cl + 1} <= watched
        elif k == 2:
            for w in range(2):
                f = cls.lits[s + w]
                imp = range(cls.imp_start[f], cls.imp_start[f + 1])
                assert any(cls.imp_lits[j] == cls.lits[s + 1 - w] and cls.imp_clause[j] == cl
                           for j in imp)
    # the heap: every variable, in activity order; by pairs the pair Booleans first and
    # tried true, by counts each card as early as it may go
    assert sorted(br.heap) == list(range(nvars)) and _is_heap(br.heap, br.heap_pos,
                                                              br.activity, nvars)
    x0, nx = int(ctl[Ctl.PAIR_VAR0]), int(ctl[Ctl.PAIRS])
    assert nx == len(cards.pair_a) == len(cards.pair_b) == len(cards.pair_kind)
    if view == VIEW_PAIRS:
        assert nx > 0 and x0 + nx == nvars
        assert (br.activity[x0:] == 1).all() and (br.activity[:x0] == 0).all()
        assert br.activity[br.heap[0]] == 1 and (br.phase[x0:] == 1).all()
    else:
        assert nx == 0 and (br.phase[:x0] == 1).all() and (br.phase[x0:] == 0).all()
        assert (x0 == nvars) == (view == VIEW_COUNTS)  # the counters' variables follow


def test_the_heap_stays_a_heap():
    rng = np.random.default_rng(5)
    n = 200
    act = rng.random(n)
    heap = np.arange(n, dtype=np.int64)
    hpos = np.arange(n, dtype=np.int64)
    for i in range(n):
        heap_up(heap, hpos, act, i)
    assert _is_heap(heap, hpos, act, n)
    size = n
    for _ in range(100):
        v = int(rng.integers(n))
        if hpos[v] >= 0:  # an activity grows
            act[v] += rng.random()
            heap_up(heap, hpos, act, hpos[v])
        top = heap[0]  # the top taken out
        assert act[top] == max(act[heap[:size]])
        size -= 1
        hpos[top] = -1
        heap[0] = heap[size]
        hpos[heap[0]] = 0
        heap_down(heap, hpos, act, size, 0)
        assert _is_heap(heap, hpos, act, size)


def test_grown_keeps_the_first_entries():
    a = np.array([4, 5, 6, 7], np.int64)
    assert grown(a, 3, 6, -1).tolist() == [4, 5, 6, -1, -1, -1]


def test_luby_sequence():
    assert [luby(i) for i in range(1, 16)] == [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]
