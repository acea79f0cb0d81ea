"""The clause-learning search (solver/grouping/clause_learning.py) on the grouping view's clauses.

It stops when its budget of conflicts is spent, goes on where it stopped with its work
kept, thins its learnt clauses on long runs and still decides (counting the propagator's
explanations among the candidates, first to go, as if they were stored with them), and
restarts on the Luby sequence.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import Grouping

from halfmoon.game.deal import Deal
from solver.depth_first.bounds import partner_table
from solver.grouping.clause_learning import _reduce, grouping_run
from solver.grouping.model import VIEW_COUNTERS, VIEW_COUNTS, VIEW_PAIRS, grouping_model
from solver.grouping.state import REDUCE_FIRST, Ctl
from solver.mirror.position import MAX_PLY
from solver.verdicts import LOSS, UNRESOLVED, WIN


def test_the_budget_stops_it():
    status, conflicts, line = Grouping(Deal.from_number(1413))(budget=10)
    assert status == UNRESOLVED and conflicts == 10 and line == []


@pytest.mark.parametrize("view", [VIEW_COUNTS, VIEW_COUNTERS, VIEW_PAIRS])
@pytest.mark.parametrize("number, verdict", [(3, WIN), (5879, LOSS)])
def test_a_search_run_in_slices_keeps_its_work(number, verdict, view):
    g = Grouping(Deal.from_number(number))
    status, model = grouping_model(g.piles, g.reserve, *partner_table(g.piles, g.reserve),
                                   np.uint64(g.root), view)
    assert status == UNRESOLVED
    line = np.zeros(MAX_PLY, np.uint64)
    info = np.zeros(2, np.int64)
    total = turns = 0
    while status == UNRESOLVED:
        status, model = grouping_run(model, 50, line, info)
        assert info[0] <= 50
        total += int(info[0])
        turns += 1
    assert status == verdict and turns > 1
    assert model.ctl[Ctl.CONFLICTS] == total  # the conflicts of every turn, counted once
    # a turn pauses the search where it is: in slices it is the same search as in one run
    assert Grouping(Deal.from_number(number))(budget=10**6, view=view)[1] == total
    if verdict == WIN:
        assert g.replays(g.root, [int(line[k]) for k in range(int(info[1]))])
    # a settled search answers again at once
    again, model = grouping_run(model, 50, line, info)
    assert again == verdict and info[0] == 0


@pytest.mark.parametrize("number, verdict", [(1114, WIN), (2502, LOSS)])
def test_long_runs_forget_learnt_clauses_and_still_decide(number, verdict):
    """Past REDUCE_FIRST conflicts, learnt clauses are deleted at restarts (their
    length made negative); the search still ends with the right verdict, and a win
    still replays.  (In the view by pairs: these deals need fewer conflicts than that
    in the view by counts.)"""
    g = Grouping(Deal.from_number(number))
    status, model = grouping_model(g.piles, g.reserve, *partner_table(g.piles, g.reserve),
                                   np.uint64(g.root), VIEW_PAIRS)
    line = np.zeros(MAX_PLY, np.uint64)
    info = np.zeros(2, np.int64)
    while status == UNRESOLVED:
        status, model = grouping_run(model, 1000, line, info)
    ctl, cl_len = model.ctl, model.clauses.length
    assert status == verdict and ctl[Ctl.CONFLICTS] > REDUCE_FIRST
    assert ctl[Ctl.REDUCTIONS] >= 1 and ctl[Ctl.DELETED] > 0
    learnt = cl_len[ctl[Ctl.MODEL_CLAUSES]:ctl[Ctl.CLAUSES]]
    assert int(np.count_nonzero(learnt < 0)) == ctl[Ctl.DELETED]
    # the model's own clauses stay
    assert int(np.count_nonzero(cl_len[:ctl[Ctl.MODEL_CLAUSES]] < 0)) == 0
    if verdict == WIN:
        assert g.replays(g.root, [int(line[k]) for k in range(int(info[1]))])


def test_the_thinning_counts_the_explanations_first():
    """Half of the candidates go, the explanations (counted, not stored) first, then the
    learnt clauses of most levels, the older first among equals."""
    first = 2
    length = np.array([3, 3, 4, 4, 2, 5, 3, 6], np.int64)  # clause 6: two literals, kept
    lbd = np.array([0, 0, 5, 3, 9, 5, 2, 7], np.int64)  # lbd 2 (clause 6): glue, kept
    cand = [2, 3, 5, 7]  # learnt, past GLUE, three literals or more
    for explained, gone in ((0, [7, 2]), (2, [7]), (3, []), (4, []), (9, [])):
        cl_len = length.copy()
        deleted, counted = _reduce(first, len(cl_len), cl_len, lbd, explained)
        half = (len(cand) + explained) // 2
        assert counted == min(half, explained) and deleted == len(gone)
        assert sorted(int(c) for c in np.flatnonzero(cl_len < 0)) == sorted(gone)
