"""Intervals of shares: Wilson's against known values and exact at the ends, Newcombe's
paired difference, the confidence they are taken at; light to import (no pandas), and
the same functions as :mod:`halfmoon.research.stats` gives."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

from halfmoon.research import intervals, stats


def test_the_intervals_import_without_pandas_and_are_stats_own():
    code = ("import sys, halfmoon.research.intervals as i; i.wilson_interval(3, 10); "
            "print('pandas' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == "False"
    for name in ("wilson_interval", "wilson_bounds", "paired_difference", "win_interval",
                 "at_confidence", "current_z", "z_of", "confidence_words", "Z95"):
        assert getattr(stats, name) is getattr(intervals, name), name
    with stats.at_confidence(0.99):  # one confidence for both
        assert intervals.current_confidence() == 0.99


# --- Wilson intervals ----------------------------------------------------------------
@pytest.mark.parametrize(
    "k, n, low, high",
    [
        (0, 10, 0.0, 0.2775),  # textbook values, z = 1.96
        (10, 10, 0.7225, 1.0),
        (5, 10, 0.2366, 0.7634),
        (976, 1000, 0.9645, 0.9838),
        (1, 2000, 0.0000883, 0.002827),
    ],
)
def test_wilson_known_values(k, n, low, high):
    lo, hi = intervals.wilson_interval(k, n)
    assert lo == pytest.approx(low, abs=5e-5)
    assert hi == pytest.approx(high, abs=5e-5)


def test_wilson_ends_are_exact_and_symmetric():
    assert intervals.wilson_interval(0, 7)[0] == 0.0
    assert intervals.wilson_interval(7, 7)[1] == 1.0
    for k in range(0, 21):
        lo, hi = intervals.wilson_interval(k, 20)
        lo2, hi2 = intervals.wilson_interval(20 - k, 20)
        assert lo == pytest.approx(1 - hi2, abs=1e-12)
        assert lo <= k / 20 <= hi


def test_wilson_z_widens_and_empty_sample():
    assert intervals.wilson_interval(0, 0) == (0.0, 1.0)
    narrow = intervals.wilson_interval(30, 100, z=1.0)
    wide = intervals.wilson_interval(30, 100, z=2.576)
    assert wide[0] < narrow[0] < 0.3 < narrow[1] < wide[1]


@pytest.mark.parametrize("k, n", [(-1, 10), (11, 10), (0, -1)])
def test_wilson_rejects_impossible_counts(k, n):
    with pytest.raises(ValueError):
        intervals.wilson_interval(k, n)


def _pairs(both, only_a, only_b, neither):
    import numpy as np

    a = np.array([1] * both + [1] * only_a + [0] * only_b + [0] * neither)
    b = np.array([1] * both + [0] * only_a + [1] * only_b + [0] * neither)
    return a, b


@pytest.mark.parametrize("table, expected", [
    # two paired tables of the textbooks (20 and 161 pairs), Newcombe's method 10
    ((1, 1, 7, 12), (-0.2857, -0.5069, -0.0256)),
    ((59, 6, 16, 80), (-0.0621, -0.1186, -0.0046)),
])
def test_paired_difference_is_newcombe_s_interval(table, expected):
    assert intervals.paired_difference(*_pairs(*table)) == pytest.approx(expected, abs=5e-5)


def test_paired_differences_stay_within_the_range_on_few_deals():
    """The normal interval of the mean difference ran past ±100 points on a few deals (and
    was a single point when all pairs agreed); Newcombe's stays inside and is never empty."""
    import itertools

    for table in itertools.product(range(4), repeat=4):
        if sum(table) == 0:
            continue
        d, low, high = intervals.paired_difference(*_pairs(*table))
        assert -1 <= low <= d <= high <= 1, table
        assert high - low > 0, table
    d, low, high = intervals.paired_difference(*_pairs(0, 3, 0, 0))
    assert d == 1 and high == 1 and 0 < low < 1
    assert all(math.isnan(x) for x in intervals.paired_difference([], []))
    with pytest.raises(ValueError, match="wins"):
        intervals.paired_difference([0.5, 1], [0, 1])
    with pytest.raises(ValueError, match="as many"):
        intervals.paired_difference([1, 0], [1])


def test_at_confidence_sets_the_intervals_whose_z_is_left_out():
    from halfmoon.research.intervals import (
        at_confidence,
        confidence_words,
        current_confidence,
        wilson_interval,
        z_of,
    )

    at95 = wilson_interval(40, 50)
    with at_confidence(0.99) as z:
        assert z == z_of(0.99) and current_confidence() == 0.99
        assert confidence_words() == "99 %"
        assert wilson_interval(40, 50) == wilson_interval(40, 50, z_of(0.99))
        assert wilson_interval(40, 50)[0] < at95[0]
        assert wilson_interval(40, 50, 1.96) == at95  # a z given is kept
    assert current_confidence() == 0.95 and wilson_interval(40, 50) == at95
    assert confidence_words(0.999) == "99.9 %"
    with pytest.raises(ValueError):
        with at_confidence(1.0):
            pass
    assert current_confidence() == 0.95


def test_wilson_interval_of_one_pair_is_the_vectorised_bounds_exactly():
    import numpy as np

    for z in (None, 1.0, 2.5758293035489004):
        for n in (1, 2, 3, 7, 64, 384, 1000, 100_003):
            ks = sorted({0, 1, 2, n // 3, n // 2, n - 1, n} & set(range(n + 1)))
            lows, highs = intervals.wilson_bounds(np.array(ks), np.full(len(ks), n), z)
            for k, low, high in zip(ks, lows, highs):
                assert intervals.wilson_interval(k, n, z) == (float(low), float(high)), (k, n, z)
