"""The solver's front door: every entry documented, bad input refused before any kernel
runs, and the same answers as the parts behind it."""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

import solver
from halfmoon.game.errors import HalfMoonError
from solver.portfolio.search import solve as portfolio_solve


def test_every_public_name_exists_and_every_callable_is_documented():
    for name in solver.__all__:
        assert hasattr(solver, name), name
        obj = getattr(solver, name)
        if callable(obj):
            doc = inspect.getdoc(obj) or ""
            assert len(doc) > 40, \
                f"solver.{name} needs a docstring saying what it takes and returns"


@pytest.mark.parametrize("budget", [0, -5, 2.5, "10", True, None])
def test_a_bad_budget_is_refused_with_its_value(budget):
    with pytest.raises(HalfMoonError, match="budget"):
        solver.solve(0, budget)
    with pytest.raises(HalfMoonError, match="budget"):
        solver.solve_numbers([0], budget)


@pytest.mark.parametrize("deal", [None, 3.0, b"HM1", [1, 2], True])
def test_a_bad_deal_is_refused(deal):
    with pytest.raises(HalfMoonError, match="expected a Deal"):
        solver.solve(deal)


def test_a_partial_deal_is_refused_by_every_entry_that_takes_a_deal():
    from halfmoon.game.cards import UNKNOWN
    from halfmoon.game.deal import Deal

    full = Deal.from_number(0)
    partial = Deal(piles=[[UNKNOWN] * 7 + [p[-1]] for p in full.piles], reserve=full.reserve)
    for call in (lambda: solver.solve(partial), lambda: solver.fair_hint(partial, 1, 0),
                 lambda: solver.walk_games(partial, [[]]), lambda: solver.deal_batch([partial])):
        with pytest.raises(HalfMoonError, match=r"a partial deal \(84 cards not known yet"):
            call()


def test_a_bad_code_or_number_names_itself():
    with pytest.raises(HalfMoonError, match="HM1-N-ZZZ"):
        solver.solve("HM1-N-ZZZ")
    with pytest.raises(ValueError):
        solver.solve(-1)


@pytest.mark.parametrize("numbers, what", [([[1, 2]], "flat"), ([1.5], "whole"), ([-1], "-1"),
                                           ([8_031_810_176], "8031810176")])
def test_bad_deal_numbers_are_refused(numbers, what):
    with pytest.raises(HalfMoonError, match=what):
        solver.solve_numbers(numbers, 10)
    with pytest.raises(HalfMoonError, match=what):
        solver.deal_features(numbers)


def test_bad_kernel_groups_and_process_counts_are_refused():
    with pytest.raises(HalfMoonError, match="nosuch"):
        solver.warm_up(["nosuch"])
    with pytest.raises(HalfMoonError, match="nosuch"):
        solver.is_ready("nosuch")
    with pytest.raises(HalfMoonError, match="processes"):
        solver.compile_in_parallel(processes=0)
    with pytest.raises(HalfMoonError, match="time limit"):
        solver.solve_cpsat(0, time_limit=0)
    assert set(solver.SOLVING) <= set(solver.KERNEL_GROUPS)


def test_solve_is_the_portfolio_behind_it():
    for number in (0, 55, 129):
        a, b = solver.solve(number), portfolio_solve(number)
        assert (a.verdict, a.moves, a.nodes, a.settled_by) == \
            (b.verdict, b.moves, b.nodes, b.settled_by)


def test_the_first_solve_of_a_process_reports_its_set_up_apart():
    # a fresh process: its first solve makes the kernels ready and says how long that took,
    # apart from the search's own seconds; the next solve has none
    import subprocess
    import sys

    code = ("import solver; a = solver.solve(3); b = solver.solve(3); "
            "print(a.setup_seconds, a.seconds, b.setup_seconds, a.nodes == b.nodes)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[2]).stdout.split()
    setup, second_setup, same = float(out[0]), float(out[2]), out[3]
    assert setup > 0 and second_setup == 0.0 and same == "True"


def test_solve_numbers_gives_columns_with_named_verdicts_and_lines_that_are_solves():
    numbers = [0, 1, 55, 129]
    piece = solver.solve_numbers(np.array(numbers), 200_000)
    assert list(piece.numbers) == numbers
    for k, n in enumerate(numbers):
        r = solver.solve(n, 200_000)
        assert solver.VERDICT_NAMES[int(piece.verdicts[k])] == r.verdict
        assert int(piece.nodes[k]) == r.nodes
        line = solver.line_moves(piece.lines[k][: piece.nline[k]])
        assert line == (r.moves or ())
        if line:
            assert solver.move_of(int(piece.lines[k][0])) == line[0]


def test_features_by_number():
    f = solver.deal_features([0, 1, 2])
    c = solver.census_features([0, 1, 2])
    assert f.shape == (3, len(solver.DEAL_FEATURES))
    assert c.shape == (3, len(solver.DEAL_FEATURES) + len(solver.LAYOUT_FEATURES))
    assert (c[:, : f.shape[1]] == f).all()
    assert solver.deal_features([]).shape == (0, len(solver.DEAL_FEATURES))


def test_the_independent_check_agrees_on_a_win_and_a_loss():
    pytest.importorskip("ortools")
    assert solver.solve_cpsat(0, time_limit=60).verdict == "win"
    assert solver.solve_cpsat("HM1-N-AAAAACD", time_limit=60).verdict == "loss"  # deal 55


def test_the_build_reports_its_groups():
    done = solver.warm_up(["generator"], out=None)
    assert done["generator"] in ("loaded", "compiled", "waited")
    assert solver.is_ready("generator")
    assert solver.compile_seconds() >= 0.0
