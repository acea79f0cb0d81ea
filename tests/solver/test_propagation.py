"""Unit propagation (solver/propagation.py) on small hand-written clause sets.

Binary clauses imply through their lists, longer ones through their watches, a clause
made false is reported as the conflict, a deleted learnt clause's watch is dropped, and
probing fixes at the root a variable whose value fails by propagation alone.
"""

from __future__ import annotations

import numpy as np

from solver.propagation import _probe, _propagate


def pos(v):
    """The literal 'variable v is 1'."""
    return 2 * v


def neg(v):
    """The literal 'variable v is 0'."""
    return 2 * v + 1


class Clauses:
    """Clauses over ``nvars`` variables in the layout the grouping model builds: binary
    clauses as implication lists, longer ones watched by their first two literals."""

    def __init__(self, nvars, clauses, deleted=()):
        nlits = 2 * nvars
        self.cl_lits = np.array([lit for cl in clauses for lit in cl], np.int64)
        self.cl_start = np.array(np.cumsum([0] + [len(cl) for cl in clauses])[:-1], np.int64)
        self.cl_len = np.array([-len(cl) if i in deleted else len(cl)
                                for i, cl in enumerate(clauses)], np.int64)
        self.whead = np.full(nlits, -1, np.int64)
        self.wnext = np.full(2 * len(clauses), -1, np.int64)
        implied = [[] for _ in range(nlits)]  # per literal made false: (literal made true, clause)
        for i, cl in enumerate(clauses):
            if len(cl) == 2:
                implied[cl[0]].append((cl[1], i))
                implied[cl[1]].append((cl[0], i))
            else:
                for w in range(2):
                    self.wnext[2 * i + w] = self.whead[cl[w]]
                    self.whead[cl[w]] = 2 * i + w
        self.bstart = np.array(np.cumsum([0] + [len(x) for x in implied]), np.int64)
        self.bimp = np.array([q for x in implied for q, _ in x], np.int64)
        self.bcl = np.array([i for x in implied for _, i in x], np.int64)
        self.assign = np.full(nvars, -1, np.int8)
        self.level = np.zeros(nvars, np.int64)
        self.reason = np.full(nvars, -1, np.int64)
        self.trail = np.empty(nvars, np.int64)
        self.tlen = 0

    def decide(self, lit):
        """Put ``lit`` on the trail, true, without a reason."""
        self.assign[lit >> 1] = 1 - (lit & 1)
        self.trail[self.tlen] = lit
        self.tlen += 1

    def propagate(self, qhead=0):
        return _propagate(self.trail, self.tlen, qhead, self.assign, self.level, self.reason,
                          self.whead, self.wnext, self.cl_lits, self.cl_start, self.cl_len, 0,
                          self.bstart, self.bimp, self.bcl)

    def probe(self, first, last):
        return _probe(first, last, self.trail, self.tlen, 0, self.assign, self.level,
                      self.reason, self.whead, self.wnext, self.cl_lits, self.cl_start,
                      self.cl_len, self.bstart, self.bimp, self.bcl)


def test_binary_clauses_imply_along_a_chain():
    c = Clauses(3, [[pos(0), pos(1)], [neg(1), pos(2)]])
    c.decide(neg(0))
    confl, tlen, qhead = c.propagate()
    assert (confl, tlen, qhead) == (-1, 3, 3)
    assert list(c.assign) == [0, 1, 1]
    assert list(c.reason) == [-1, 0, 1]  # each implied by its clause
    assert list(c.trail[:3]) == [neg(0), pos(1), pos(2)]


def test_a_watched_clause_moves_its_watch_then_goes_unit():
    c = Clauses(3, [[pos(0), pos(1), pos(2)]])
    c.decide(neg(0))
    c.decide(neg(1))
    confl, tlen, _ = c.propagate()
    assert confl == -1 and tlen == 3
    assert c.assign[2] == 1 and c.reason[2] == 0
    assert c.trail[2] == pos(2)


def test_a_clause_made_false_is_the_conflict():
    c = Clauses(2, [[pos(0), pos(1)], [pos(0), neg(1)]])
    c.decide(neg(0))
    confl, _, _ = c.propagate()
    assert confl == 1  # clause 0 sets variable 1, clause 1 then has no true literal
    c = Clauses(3, [[pos(0), pos(1), pos(2)]])
    c.decide(neg(0))
    c.decide(neg(1))
    c.decide(neg(2))
    assert c.propagate()[0] == 0


def test_the_watch_of_a_deleted_clause_is_dropped():
    c = Clauses(3, [[pos(0), pos(1), pos(2)]], deleted={0})
    c.decide(neg(0))
    c.decide(neg(1))
    confl, tlen, _ = c.propagate()
    assert confl == -1 and tlen == 2 and c.assign[2] == -1  # the clause no longer implies
    assert c.whead[pos(0)] == -1 and c.whead[pos(1)] == -1  # its watches are unlinked


def test_probing_fixes_a_failed_literal_at_the_root():
    # variable 0 = 1 forces variable 1 both ways: it must be 0
    c = Clauses(2, [[neg(0), pos(1)], [neg(0), neg(1)]])
    ok, tlen = c.probe(0, 2)
    assert ok and tlen == 1
    assert c.assign[0] == 0 and c.level[0] == 0 and c.trail[0] == neg(0)
    assert c.assign[1] == -1  # both values of variable 1 are consistent: left open


def test_probing_finds_a_contradictory_root():
    c = Clauses(2, [[pos(0), pos(1)], [pos(0), neg(1)], [neg(0), pos(1)], [neg(0), neg(1)]])
    ok, _ = c.probe(0, 2)
    assert not ok
