"""The counting view (solver/grouping/count_clauses.py): unary counters of each class and step.

- A totalizer's outputs are the unary count of its inputs, and propagation on its
  clauses keeps the count exact both ways (the inputs fix the outputs; fixed outputs
  force the remaining inputs as soon as the count allows only one completion).
- The counts of a class's ranks are one set of outputs, so propagation balances them at
  each step: on a hand-made set of cards, deciding one card forces the other; cards
  whose intervals fix an unbalanced step lose at once.
- The line of a balanced assignment of steps groups the cards of each step.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import Clauses, Grouping, neg, pack, pos

from halfmoon import Game
from halfmoon.game.deal import Deal
from solver.grouping.count_clauses import (
    FALSE,
    TRUE,
    _le,
    _totalizer,
    counting_clauses,
    counting_room,
    line_by_steps,
)
from solver.grouping.model import _model_cards
from solver.mirror.position import source_delta
from solver.portfolio.search import solve


def clause_list(cl_lits, cl_start, cl_len, ncl):
    return [[int(x) for x in cl_lits[cl_start[i]:cl_start[i] + cl_len[i]]] for i in range(ncl)]


def arrays(room=4000):
    return np.empty(3 * room, np.int64), np.empty(room, np.int64), np.empty(room, np.int64)


def totalizer(m):
    """The clauses of a totalizer over inputs 0..m-1 with outputs m..2m-1, and the
    number of variables."""
    cl_lits, cl_start, cl_len = arrays()
    inp = np.array([pos(i) for i in range(m)], np.int64)
    out = np.array([pos(m + k) for k in range(m)], np.int64)
    ncl, nlit, nvars, empty = _totalizer(inp, m, out, np.empty(64, np.int64), cl_lits, cl_start,
                                         cl_len, 0, 0, 2 * m, np.empty(8, np.int64))
    assert not empty
    return clause_list(cl_lits, cl_start, cl_len, ncl), nvars


@pytest.mark.parametrize("m", [1, 2, 3, 4, 5, 7])
def test_the_inputs_fix_the_outputs(m):
    clauses, nvars = totalizer(m)
    for values in itertools.product([0, 1], repeat=m):
        c = Clauses(nvars, clauses)
        for i, x in enumerate(values):
            c.decide(pos(i) if x else neg(i))
        confl, _, _ = c.propagate()
        assert confl == -1
        assert [int(c.assign[m + k]) for k in range(m)] == [int(sum(values) > k) for k in range(m)]


@pytest.mark.parametrize("m", [3, 4, 5])
def test_fixed_outputs_force_the_inputs(m):
    """With the count fixed to j: once j inputs are true the others are false, once
    m - j are false the others are true, and one more either way is a conflict."""
    clauses, nvars = totalizer(m)
    for j in range(m + 1):
        for values in itertools.product([-1, 0, 1], repeat=m):
            c = Clauses(nvars, clauses)
            if j > 0:
                c.decide(pos(m + j - 1))  # at least j
            if j < m:
                c.decide(neg(m + j))  # not at least j + 1
            for i, x in enumerate(values):
                if x >= 0:
                    c.decide(pos(i) if x else neg(i))
            confl, _, _ = c.propagate()
            ones, zeros = values.count(1), values.count(0)
            if ones > j or m - zeros < j:
                assert confl >= 0, (j, values)
                continue
            assert confl == -1, (j, values)
            got = [int(c.assign[i]) for i in range(m)]
            if ones == j:
                assert got == [x if x >= 0 else 0 for x in values]
            elif m - zeros == j:
                assert got == [x if x >= 0 else 1 for x in values]


@pytest.mark.parametrize("m", [3, 5])
def test_a_sum_cut_at_a_cap_fixes_an_exact_count(m):
    """A sum tree cut at cap j + 1 with its outputs fixed to "at least j, not j + 1" (as
    the count of moves by a step is): every assignment of the inputs propagates without
    a conflict exactly when j of them are true."""
    from solver.grouping.count_clauses import _sum_tree

    for j in range(m):
        cl_lits, cl_start, cl_len = arrays()
        vec = np.zeros(64, np.int64)
        vec[:m] = [pos(i) for i in range(m)]
        out = np.array([TRUE] * j + [FALSE], np.int64)
        ncl, nlit, nvars, empty = _sum_tree(vec, np.arange(m, dtype=np.int64),
                                            np.ones(m, np.int64), m, m, out, j + 1, cl_lits,
                                            cl_start, cl_len, 0, 0, m, np.empty(8, np.int64))
        assert not empty
        clauses = clause_list(cl_lits, cl_start, cl_len, ncl)
        for values in itertools.product([0, 1], repeat=m):
            c = root(clauses, nvars)
            clash = False
            for i, x in enumerate(values):
                if c.assign[i] < 0:
                    c.decide(pos(i) if x else neg(i))
                else:  # fixed by a unit clause already
                    clash |= c.assign[i] != x
            consistent = not clash and c.propagate()[0] == -1
            assert consistent == (sum(values) == j), (j, values)


def cards(intervals):
    """n, rank, lo, hi, base of hand-made cards [(rank, lo, hi)]: the order literals of
    card c are variables base[c] .. base[c] + hi - lo - 1."""
    rank = np.array([r for r, _, _ in intervals], np.int64)
    lo = np.array([a for _, a, _ in intervals], np.int64)
    hi = np.array([b for _, _, b in intervals], np.int64)
    base = np.concatenate([[0], np.cumsum(hi - lo)[:-1]]).astype(np.int64)
    return len(intervals), rank, lo, hi, base, int((hi - lo).sum())


def counted(intervals, nmoves):
    n, rank, lo, hi, base, norder = cards(intervals)
    room, _ = counting_room(np.bincount(rank, minlength=14).astype(np.int64), nmoves)
    cl_lits, cl_start, cl_len = arrays(room)
    ncl, nlit, nvars, empty = counting_clauses(cl_lits, cl_start, cl_len, 0, 0, norder, n, rank,
                                               lo, hi, base, nmoves)
    clauses = clause_list(cl_lits, cl_start, cl_len, ncl)
    return (base, lo, hi), clauses, nvars, empty


def root(clauses, nvars):
    """The clause set with its unit clauses decided."""
    c = Clauses(nvars, [cl for cl in clauses if len(cl) > 1])
    for cl in clauses:
        if len(cl) == 1:
            c.decide(cl[0])
    return c


def test_the_counts_of_a_class_balance_at_each_step():
    # a 5 at step 0, a 5 at step 1, two 6s free to go at step 0 or 1 (two moves): by
    # step 0 one 5 is gone, so exactly one 6 is
    iv, clauses, nvars, empty = counted([(5, 0, 0), (5, 1, 1), (6, 0, 1), (6, 0, 1)], 2)
    assert not empty
    six_a, six_b = _le(*iv, 2, 0), _le(*iv, 3, 0)
    assert six_a not in (TRUE, FALSE) and six_b not in (TRUE, FALSE)
    for first, second in ((six_a, six_b ^ 1), (six_a ^ 1, six_b), (six_b, six_a ^ 1)):
        c = root(clauses, nvars)
        c.decide(first)
        confl, _, _ = c.propagate()
        assert confl == -1
        assert c.assign[second >> 1] == 1 - (second & 1)
    c = root(clauses, nvars)  # both 6s gone by step 0: one too many
    c.decide(six_a)
    c.decide(six_b)
    assert c.propagate()[0] >= 0


def test_faces_count_as_one_class_of_three_ranks():
    # a J fixed at step 0; a Q and a K each free in steps 0..1 and another of each at
    # step 1: the first Q and the first K go at step 0
    iv, clauses, nvars, empty = counted([(11, 0, 0), (11, 1, 1), (12, 0, 1), (12, 1, 1),
                                         (13, 0, 1), (13, 1, 1)], 2)
    assert not empty
    c = root(clauses, nvars)
    assert c.propagate()[0] == -1
    for card in (2, 4):
        lit = _le(*iv, card, 0)
        assert c.assign[lit >> 1] == 1 - (lit & 1)


def test_fixed_cards_that_unbalance_a_step_lose_at_once():
    # both 5s at step 0, but one 6 cannot go before step 1
    assert counted([(5, 0, 0), (5, 0, 0), (6, 1, 1), (6, 0, 1)], 2)[3]
    assert not counted([(5, 0, 0), (5, 1, 1), (6, 1, 1), (6, 0, 1)], 2)[3]


def test_the_line_groups_the_cards_of_each_step():
    # 5s on piles 1 and 2, 6s on pile 3 and in the first reserve slot (source 12), J, Q
    # and K on piles 4-6; step 0 holds a 5 and a 6, step 1 the other two and the faces
    rank = np.array([5, 5, 6, 6, 11, 12, 13], np.int64)
    src = np.array([0, 1, 2, 12, 3, 4, 5], np.int64)
    step = np.array([0, 1, 1, 0, 1, 1, 1], np.int64)
    line = np.zeros(48, np.uint64)
    assert line_by_steps(step, rank, src, 7, 3, line) == 3
    d = [int(source_delta(k)) for k in range(20)]
    assert [int(x) for x in line[:3]] == [d[0] + d[12], d[1] + d[2], d[3] + d[4] + d[5]]


def test_the_room_bounds_what_is_written():
    """counting_room bounds the clauses and literals written for every position on the
    winning lines of a few deals and at the start of a loss (the model's arrays are sized
    by it, and writing does not check)."""
    positions = []
    for number in (0, 1, 2, 1413):
        g = Grouping(Deal.from_number(number))
        game = Game(number)
        positions.append((g, pack(game)))
        for move in solve(number, budget=200_000).moves or ():
            game.play(move)
            positions.append((g, pack(game)))
    for g, p in positions:
        n, src, rank, pile, above, below, gid, local = _model_cards(g.piles, g.reserve,
                                                                    np.uint64(p))
        count = np.bincount(rank[:n], minlength=14).astype(np.int64)
        nmoves = int(count[1:6].sum() + count[11])
        lo, hi = above[:n].copy(), nmoves - 1 - below[:n]
        if n == 0 or (lo > hi).any():
            continue
        base = np.concatenate([[0], np.cumsum(hi - lo)[:-1]]).astype(np.int64)
        room_cl, room_lits = counting_room(count, nmoves)
        cl_lits, cl_start, cl_len = arrays(4 * room_cl)
        ncl, nlit, _, _ = counting_clauses(cl_lits, cl_start, cl_len, 0, 0, int((hi - lo).sum()),
                                           n, rank[:n].copy(), lo, hi, base, nmoves)
        assert ncl <= room_cl and nlit <= room_lits, hex(p)
