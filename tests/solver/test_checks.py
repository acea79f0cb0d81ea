"""The front door's checks of its inputs (solver/checks.py): what each gives back, and a bad
input refused with a HalfMoonError that names it (the entries' own use of them is in
tests/solver/test_api.py)."""

from __future__ import annotations

import numpy as np
import pytest

from halfmoon import Deal
from halfmoon.game.errors import HalfMoonError
from solver.checks import (
    check_budget,
    check_deal,
    check_numbers,
    check_seeds,
    check_total,
    check_whole,
)


def test_a_budget_and_a_total_are_whole_numbers_of_at_least_one_position():
    assert check_budget(np.int64(7)) == 7 and type(check_budget(np.int64(7))) is int
    assert check_total(None) is None and check_total(5) == 5
    for bad in (0, -1, True, 2.5, "3"):
        with pytest.raises(HalfMoonError, match="budget"):
            check_budget(bad)
    for bad in (0, True, 1.0):
        with pytest.raises(HalfMoonError, match="total"):
            check_total(bad)


def test_a_deal_of_any_form_becomes_a_deal_and_a_partial_one_is_refused():
    assert check_deal(3) == check_deal("HM1-N-AAAAAAD") == Deal.from_number(3)
    assert check_deal(np.int32(3)).code == "HM1-N-AAAAAAD"
    with pytest.raises(HalfMoonError, match="expected a Deal"):
        check_deal(True)
    with pytest.raises(HalfMoonError, match="expected a Deal"):
        check_deal(3.0)


def test_numbers_seeds_and_counts():
    nums = check_numbers([3, 1, 2])
    assert nums.dtype == np.int64 and nums.tolist() == [3, 1, 2]
    with pytest.raises(HalfMoonError, match="outside"):
        check_numbers([-1])
    with pytest.raises(HalfMoonError, match="flat"):
        check_numbers([[1, 2]])
    assert check_seeds(None, 2).tolist() == [0, 0]
    with pytest.raises(HalfMoonError, match="a seed for each"):
        check_seeds([1], 2)
    assert check_whole(0, "threads", 0) == 0
    with pytest.raises(HalfMoonError, match="threads must be a whole number of at least 1"):
        check_whole(0, "threads", 1)
