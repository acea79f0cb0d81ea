"""A part's figures and the ratio of two versions' times."""

from __future__ import annotations

import numpy as np
import pytest
from bench_helpers import rows

from halfmoon.bench.figures import (
    block_size,
    differing,
    part_figures,
    rate_interval,
    ratio,
    settled_within,
)


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


def test_rounds_give_the_median_round_and_their_spread():
    from halfmoon.bench.figures import rounds_figures, stability_line

    rng = np.random.default_rng(3)
    times = rng.exponential(0.002, 2000)
    same = [rows(list(times * rng.uniform(0.98, 1.02, times.size))) for _ in range(3)]
    r = rounds_figures(same, [0.99, 0.98, 1.0])
    assert r["rounds"] == 3 and r["stable"] and r["told_apart"] == []
    assert r["median"] == sorted(r["rates"])[1] and r["low"] <= r["median"] <= r["high"]
    assert r["spread"] == pytest.approx(r["high"] / r["low"], rel=1e-3)
    assert all(low < rate < high for rate, (low, high) in zip(r["rates"], r["intervals"]))
    assert ": stable" in stability_line("random", r)
    # one round solved at half the machine's speed: told apart, said unstable
    slow = same[:2] + [rows(list(times * 2))]
    u = rounds_figures(slow, [0.99, 0.98, 0.5])
    assert not u["stable"] and [s["round"] for s in u["told_apart"]] == [3]
    line = stability_line("random", u)
    assert "UNSTABLE, round 3 ran 0.5" in line and "their core 50 % of the time" in line
    # per second of the CPU the workers had, the round slowed by sharing its core is not
    assert u["cpu_rates"][2] == pytest.approx(u["rates"][2] / 0.5, rel=1e-4)
    assert u["cpu_high"] / u["cpu_low"] < 1.1 and "per second of the CPU they had" in line


def test_one_round_says_its_drift_was_not_measured():
    from halfmoon.bench.figures import rounds_figures, stability_line

    r = rounds_figures([rows([0.001] * 600)], [None])
    assert r["stable"] and r["spread"] == 1.0
    assert "one round: the drift between rounds not measured" in stability_line("hard", r)


def test_rounds_far_apart_are_unstable_though_each_interval_holds_the_other():
    from halfmoon.bench.figures import ROUNDS_SPREAD, rounds_figures, stability_line

    # two deals a block: intervals so wide that no round is told apart, yet 1.4x apart
    rng = np.random.default_rng(5)
    times = rng.exponential(0.002, 40)
    r = rounds_figures([rows(list(times)), rows(list(times * 1.4)), rows(list(times * 1.2))],
                       [1.0, 1.0, 1.0])
    assert r["spread"] > ROUNDS_SPREAD and not r["stable"]
    assert f"UNSTABLE, the rounds more than {ROUNDS_SPREAD}x apart" in stability_line("x", r) \
        or "UNSTABLE, round" in stability_line("x", r)


def test_a_small_part_makes_twenty_blocks_and_a_large_one_blocks_of_250():
    assert block_size(100_000) == block_size(5_000) == 250
    assert block_size(500) == 25 and block_size(19) == 1 and block_size(0) == 1
    rng = np.random.default_rng(2)
    base = rng.exponential(0.07, 500)  # the hard set: 500 deals
    r = ratio(base, base * rng.uniform(0.9, 1.1, 500))
    assert r["blocks"] == 20 and r["low"] < r["ratio"] < r["high"]
    # two blocks gave an interval that was only the two blocks' own ratios
    assert ratio(base, base * 0.9, block=250)["blocks"] == 2


def test_the_machine_slowing_between_blocks_widens_the_rates_interval():
    steady = np.full(500, 0.0115)
    times = np.concatenate([np.full(250, 0.01), np.full(250, 0.013)])  # slower half-way
    low, high = rate_interval(times)
    assert low < 500 / times.sum() < high and high - low > 5
    assert rate_interval(steady) == (pytest.approx(500 / steady.sum(), rel=1e-3),) * 2
