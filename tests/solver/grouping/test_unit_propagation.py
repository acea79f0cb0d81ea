"""Unit propagation (solver/grouping/unit_propagation.py) on small hand-written clause sets.

Binary clauses imply through their lists, longer ones through their watches, a clause
made false is reported as the conflict, a deleted learnt clause's watch is dropped, and
probing fixes at the root a variable whose value fails by propagation alone.
"""

from __future__ import annotations

from conftest import Clauses, neg, pos


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
