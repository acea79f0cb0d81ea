"""The reference workload: the same positions each time, and a time for them."""

from __future__ import annotations

import numpy as np

from solver import Reference
from solver.timing import POSITIONS, sample_positions


def test_the_positions_are_the_same_for_the_same_arguments():
    a, b = sample_positions(), sample_positions()
    for x, y in zip(a, b):
        assert np.array_equal(x, y)
    tops, which, positions = a
    assert positions.size == POSITIONS and which.max() < len(tops)
    assert not np.array_equal(sample_positions(seed=1)[2], positions)


def test_it_times_nanoseconds_a_generation():
    ns = Reference().time()
    assert 1 < ns < 100_000
