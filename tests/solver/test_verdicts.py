"""The verdict codes and names, defined once."""

import solver
from solver.verdicts import LOSS, NAMES, UNRESOLVED, VERDICTS, WIN


def test_codes_are_distinct_and_named():
    assert len({WIN, LOSS, UNRESOLVED}) == 3
    assert NAMES == {WIN: "win", LOSS: "loss", UNRESOLVED: "unresolved"}
    assert set(VERDICTS) == set(NAMES.values()) and len(VERDICTS) == 3


def test_the_front_door_names_the_same_codes():
    assert solver.VERDICTS == VERDICTS
    assert solver.VERDICT_NAMES == NAMES


def test_every_search_returns_these_codes():
    piece = solver.solve_numbers([0, 55], 100_000)  # a win and a loss
    assert [solver.VERDICT_NAMES[int(v)] for v in piece.verdicts] == \
        [solver.solve(0).verdict, solver.solve(55).verdict] == ["win", "loss"]
