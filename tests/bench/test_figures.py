"""A part's figures and the ratio of two versions' times."""

from __future__ import annotations

import numpy as np
import pytest
from bench_helpers import rows

from halfmoon.bench.figures import differing, part_figures, ratio, settled_within


def test_rates_are_deals_over_the_summed_times_and_over_the_wall():
    f = part_figures(rows([0.1, 0.2, 0.3, 0.4]), wall=0.5, workers=2)
    assert f["deals_per_second_per_core"] == pytest.approx(4 / 1.0)
    assert f["solver_deals_per_second_per_core"] == pytest.approx(4 / 0.9, rel=1e-4)
    assert f["wall_deals_per_second"] == pytest.approx(8.0)
    assert f["per_deal_seconds"]["max"] == pytest.approx(0.4)
    assert f["per_deal_seconds"]["p50"] == pytest.approx(0.25)
    assert f["positions"] == 100 + 200 + 300 + 400
    assert f["slowest"][0]["deal"] == 3 and f["slowest"][0]["code"].startswith("HM1-")


def test_counts_unresolved_and_the_searches_shares():
    f = part_figures(rows([1.0, 1.0, 2.0], ["win", "loss", "unresolved"]), 4.0, 1)
    assert f["counts"] == {"win": 1, "loss": 1, "unresolved": 1}
    assert f["unresolved"] == [2]
    assert f["settled_by"]["unresolved"]["share_of_time"] == pytest.approx(0.5)
    assert f["settled_by"]["quick"]["deals"] == 2
    assert list(f["settled_by"]) == ["quick", "unresolved"] or \
        f["settled_by"]["quick"]["seconds"] == f["settled_by"]["unresolved"]["seconds"]


def test_the_ratio_is_the_base_time_over_this_and_its_interval_holds_it():
    rng = np.random.default_rng(1)
    base = rng.exponential(1.0, 5000)
    new = base / 1.5 * rng.uniform(0.9, 1.1, 5000)
    r = ratio(base, new)
    assert r["low"] < r["ratio"] < r["high"]
    assert 1.4 < r["ratio"] < 1.6 and r["verdict"] == "faster"
    same = ratio(base, base * rng.uniform(0.8, 1.2, 5000))
    assert same["verdict"] == "not told apart" and same["low"] < 1 < same["high"]
    assert ratio(new, base)["verdict"] == "slower"


def test_the_ratio_refuses_different_deals():
    with pytest.raises(ValueError):
        ratio([1.0, 2.0], [1.0])


def test_differing_verdicts_leave_out_the_unresolved():
    a = rows([1, 1, 1], ["win", "loss", "win"])
    b = rows([1, 1, 1], ["win", "win", "unresolved"])
    assert differing(a, b) == [1]


def test_a_cactus_line_holds_the_settled_deals_sorted():
    t = settled_within(rows([0.3, 0.1, 0.2], ["win", "unresolved", "loss"]))
    assert list(t) == [0.2, 0.3]
    assert list(settled_within(rows([0.3, 0.2]), limit=0.25)) == [0.2]
