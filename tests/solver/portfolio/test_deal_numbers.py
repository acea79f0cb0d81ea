"""Pieces of deals in compiled code against the portfolio deal by deal (solver.solve)."""

from __future__ import annotations

import numpy as np
import pytest

from halfmoon import Deal
from halfmoon.batch.results import deal_features as engine_features
from halfmoon.game.codes import random_numbers
from solver.mirror.convert import deal_arrays, delta_to_move
from solver.mirror.position import MAX_MOVES, initial_position
from solver.portfolio.deal_numbers import cycles, deal_features, solve_numbers
from solver.portfolio.search import solve
from solver.verdicts import NAMES as OUTCOMES

FEATURES = ("start_moves", "reserve_faces", "top_faces", "free_classes")


def same_as_solve(numbers, budget):
    piece = solve_numbers(numbers, budget)
    assert piece.numbers.tolist() == list(numbers)
    for k, n in enumerate(numbers):
        r = solve(n, budget)
        got = (OUTCOMES[int(piece.verdicts[k])], int(piece.nodes[k]), piece.settled_by[k])
        assert got == (r.verdict, r.nodes, r.settled_by), n
        line = [delta_to_move(int(d)) for d in piece.lines[k, : piece.nline[k]]]
        assert line == list(r.moves or ()), n
        assert piece.seconds[k] > 0
    return piece


def test_random_deals_get_the_portfolios_verdicts_positions_and_lines():
    piece = same_as_solve(random_numbers(300, seed=11), 5_000_000)
    by = set(piece.settled_by)
    assert "quick" in by and len(by) > 1  # both paths: the compiled first turn and the rest


def test_hard_deals_and_a_grouping_proof():
    # 129 and 38: hard wins; 1413: a loss only the grouping search proves
    piece = same_as_solve([129, 38, 1413], 5_000_000)
    assert piece.settled_by[2] == "grouping"


@pytest.mark.parametrize("budget", [1, 500, 2_000, 2_001, 30_000])
def test_small_budgets_stop_where_the_portfolio_stops(budget):
    piece = same_as_solve([0, 38, 129, 1413], budget)
    assert (piece.nodes <= budget + 256).all()  # a grouping turn may end a slice late


def test_features_match_the_engines_on_thousands_of_deals():
    moves = np.empty(MAX_MOVES, np.uint64)
    out = np.zeros(4, np.int64)
    for n in random_numbers(2000, seed=12) + [0, 1]:
        deal = Deal.from_number(n)
        piles, reserve = deal_arrays(deal)
        deal_features(piles, reserve, initial_position(piles, reserve), moves, out)
        expected = engine_features(deal)
        assert dict(zip(FEATURES, out.tolist())) == expected, n


def test_piece_features_are_those_of_each_deal():
    numbers = random_numbers(50, seed=13)
    piece = solve_numbers(numbers, 20_000)
    for k, n in enumerate(numbers):
        assert dict(zip(FEATURES, piece.features[k].tolist())) == \
            engine_features(Deal.from_number(n))


def test_census_features_are_the_start_and_layout_kernels_together():
    from solver.mirror.generator import LAYOUT_FEATURES, layout_features
    from solver.portfolio.deal_numbers import NDEAL as NFEATURES
    from solver.portfolio.deal_numbers import census_features, start_features

    numbers = np.array(random_numbers(3000, seed=14) + [0, 8_031_810_175], np.int64)
    both = np.zeros((numbers.size, NFEATURES + len(LAYOUT_FEATURES)), np.int64)
    census_features(numbers, both)
    start = np.zeros((numbers.size, NFEATURES), np.int64)
    layout = np.zeros((numbers.size, len(LAYOUT_FEATURES)), np.int64)
    start_features(numbers, start)
    layout_features(numbers, layout)
    assert np.array_equal(both, np.concatenate([start, layout], 1))
    assert len(np.unique(both, axis=0)) > 100  # varied: not a column left at zero
    assert (both[:, NFEATURES:] > 0).any(axis=0).all()


def test_the_cycle_counter_advances():
    a = int(cycles())
    assert int(cycles()) > a


def test_bad_budget():
    with pytest.raises(ValueError, match="budget"):
        solve_numbers([0], 0)
