"""Why a loss is lost (solver/portfolio/deadlocks.py): projections, kinds, the Deadlock in
words and as JSON, and a Result that carries it (``solve(deal, why=True)``) with its deal
number and solver version.  The deadlocks' agreement with exhaustive search is checked in
tests/research/test_deadlocks.py, through the census's use of them."""

from __future__ import annotations

import dataclasses

import pytest
from conftest import ENGINE_CLASSES, engine_projection, make_game, make_layout

from halfmoon import Deal, Game, parse_layout
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.layouts import format_layout
from solver import SOLVER_VERSION, Deadlock, deadlock, solve, solve_cpsat, why_lost
from solver.portfolio.deadlocks import CLASSES, FACES, kind_of, project


def test_the_classes_are_the_engines():
    assert CLASSES == ENGINE_CLASSES and CLASSES[FACES] == "J+Q+K"


def test_projection_keeps_the_classes_cards_in_their_order():
    deal = parse_layout(make_layout({1: "Jc 3d Qh 8s Ac", 2: "10d"}, "2h 9s Kd"))
    p = project(deal, {FACES, 2})  # faces and 3+8
    assert [[c.rank for c in pile] for pile in p.piles[:3]] == [[11, 3, 12, 8], [], []]
    assert [None if c is None else c.rank for c in p.reserve] == [None, None, 13] + [None] * 5
    assert p.piles[0][1] == deal.piles[0][1]  # the cards themselves, suits kept
    for s in ({0}, {1, 3}, set(range(6))):
        assert project(deal, s) == engine_projection(deal, s).deal


def test_kinds():
    assert kind_of({FACES}) == "faces"
    assert kind_of({FACES, 0, 3}) == "faces+2"
    assert kind_of({1}) == "pairs:1"
    assert kind_of(set()) == "none"


def test_a_deadlock_in_words_and_as_json():
    d = why_lost(make_game({1: "Jc Qd Kh"}, "5s 6h").remaining_deal())
    assert (d.classes, d.kind, d.deal) == (("J+Q+K",), "faces", None)  # a position: no number
    assert d.text == ("the J\u2013Q\u2013K cards can never all be cleared, whatever else is "
                      "played (smallest deadlocked set)")
    assert d.to_dict() == {"deadlock": ["J+Q+K"], "kind": "faces", "minimal_sets": 1,
                           "text": d.text, "solves": d.solves, "nodes": d.nodes,
                           "seconds": d.seconds}
    assert d.solves >= 1 and d.seconds > 0
    # its time is no part of what it says: two searches of one deal are equal
    assert dataclasses.replace(d, seconds=d.seconds + 1) == d


def test_a_loss_solved_with_why_says_why_as_the_command_does():
    r = solve(55, why=True)
    assert r.verdict == "loss" and r.number == 55 and r.solver_version == SOLVER_VERSION
    assert isinstance(r.why, Deadlock) and r.why == why_lost(55) and r.why.deal == 55
    assert r.why.classes == ("J+Q+K", "A+10", "5+6")
    # without why (the default), no search beyond the solve
    plain = solve(55)
    assert plain.why is None and plain.number == 55
    # a win has no why, asked or not
    assert solve(3, why=True).why is None


def test_a_result_says_its_deal_number_only_for_a_whole_deal(tmp_path):
    deal = Deal.from_number(3)
    assert solve(3).number == 3 and solve("HM1-N-AAAAAAD").number == 3
    assert solve(deal).number == 3 and solve_cpsat(7).number == 7
    game = Game(deal)
    game.play(next(iter(game.legal_moves)))
    position = tmp_path / "position.txt"
    position.write_text(format_layout(game.remaining_deal()))
    assert solve(str(position)).number is None  # a position of deal 3, not deal 3


def test_dataclasses_replace_keeps_the_new_fields():
    r = solve(55, why=True)
    other = dataclasses.replace(r, seconds=0.0)
    assert (other.number, other.solver_version, other.why) == (55, SOLVER_VERSION, r.why)
    # a Result made by hand, as the batch's tests do, keeps working and is of this version
    from solver import Result

    made = Result("win", None, 10, 0.5, "HM1-N-AAAAAAA")
    assert made.number is None and made.why is None and made.solver_version == SOLVER_VERSION


def test_deadlock_has_no_total_unless_given_and_bad_bounds_are_refused():
    d = deadlock(55)
    assert d.classes == why_lost(55).classes and d.kind == "faces+2"
    with pytest.raises(HalfMoonError, match="total"):
        why_lost(55, total=0)
    with pytest.raises(HalfMoonError, match="bounded"):
        why_lost(55, total=None)
    with pytest.raises(HalfMoonError, match="budget"):
        deadlock(55, budget=0)
