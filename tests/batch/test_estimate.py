"""The dry run's time a deal: the tail model, the capped speed ratio, the intervals, the
sample's deals."""

from __future__ import annotations

import json

import numpy as np
import pytest

import halfmoon.batch.estimate as est
from halfmoon.batch.estimate import (
    TailModel,
    estimate,
    model_fits,
    read_tail_model,
    sample_numbers,
    tail_model,
    write_tail_model,
)
from solver import DEFAULT_BUDGET, SOLVER_VERSION


def population(n: int = 100_000, seed: int = 1) -> np.ndarray:
    """Times like the solver's: a lognormal body of about a millisecond and a Pareto tail
    (one deal in a hundred, shape 1.3: the slowest of 100,000 take seconds)."""
    rng = np.random.default_rng(seed)
    body = rng.lognormal(np.log(3e-4), 1.0, n)
    tail = rng.random(n) < 0.01
    body[tail] = 0.02 * (1 + rng.pareto(1.3, tail.sum()))
    return body


def positions_of(times: np.ndarray, seed: int = 2) -> np.ndarray:
    """Positions like the solver's: about 500 a millisecond, give or take half."""
    rng = np.random.default_rng(seed)
    return np.maximum(1, np.round(times * 5e5 * rng.lognormal(0, 0.5, len(times)))).astype(int)


def model_of(times: np.ndarray, top: int = 200) -> TailModel:
    slowest = tuple(sorted(times.tolist(), reverse=True)[:top])
    return TailModel(solver_version="14", budget=5_000_000, deals=len(times),
                     solve_seconds=float(times.sum()), slowest=slowest, made_from="a test")


def test_positions_take_out_which_deals_a_sample_holds(monkeypatch, tmp_path):
    """The same samples priced with their positions (the time a capped position the speed):
    the estimates spread far less than with the capped times alone, and every stated interval
    still holds the true mean."""
    times = population()
    positions = positions_of(times)
    model = write_tail_model(times, "a test", "-", tmp_path / "model.json", positions=positions)
    monkeypatch.setattr(est, "tail_model", lambda: model)
    truth = 3 * times.mean()
    rng = np.random.default_rng(7)
    by_time, by_positions = [], []
    for _ in range(12):
        pick = rng.integers(0, len(times), 2000)
        sample = 3 * times[pick]
        e = estimate(sample, float(sample.sum()), use_model=True, positions=positions[pick])
        assert e.low <= truth <= e.high and e.speed == pytest.approx(3, rel=0.2)
        by_positions.append(e.per_deal)
        by_time.append(estimate(sample, float(sample.sum()), use_model=True).per_deal)
    spread = lambda xs: (max(xs) - min(xs)) / truth  # noqa: E731
    assert spread(by_positions) < spread(by_time) / 2


def test_the_shipped_model_is_consistent():
    m = tail_model()
    assert m.deals == 100_000 and len(m.slowest) == 200 and len(m.most) == 200
    assert 0 < m.capped_positions < m.positions / m.deals and 0 < m.error < 0.1
    assert m.slowest == tuple(sorted(m.slowest, reverse=True)) and m.cap == m.slowest[-1]
    assert 0 < m.capped_mean < m.mean and 0 < m.tail_error < m.mean
    assert m.solve_seconds > sum(m.slowest)


def test_the_model_prices_the_tail_a_sample_misses(monkeypatch):
    """Samples of 2,000 deals of a heavy-tailed population, on a machine 3 times slower than
    the model's: the sample's own means swing widely, the model's estimates stay close, and
    every stated interval holds the true mean."""
    times = population()
    monkeypatch.setattr(est, "tail_model", lambda: model_of(times))
    truth = 3 * times.mean()
    rng = np.random.default_rng(7)
    estimates, means = [], []
    for _ in range(12):
        sample = 3 * times[rng.integers(0, len(times), 2000)]
        e = estimate(sample, float(sample.sum()), use_model=True)
        assert e.method == "tail model" and e.speed == pytest.approx(3, rel=0.35)
        assert e.low <= truth <= e.high
        assert e.low < e.per_deal < e.high
        estimates.append(e.per_deal)
        means.append(e.sample_mean)
    spread = lambda xs: (max(xs) - min(xs)) / truth  # noqa: E731
    # here about 0.4 against over 3 (one sample caught a deal of seconds)
    assert spread(estimates) < 0.5 and spread(estimates) < spread(means) / 4


def test_the_rows_time_is_added_and_without_the_model_the_mean_is_the_sample_s():
    times = [0.001] * 99 + [0.101]
    plain = estimate(times, wall=sum(times) + 0.1, use_model=False, reason="a list of deals")
    assert plain.method == "sample mean"
    assert plain.per_deal == pytest.approx(0.002 + 0.001)  # the mean and the rows' share
    assert plain.low < plain.per_deal < plain.high
    assert "a list of deals" in plain.describe() and "bootstrap" in plain.describe()
    one = estimate([0.5], wall=0.5, use_model=False)
    assert one.per_deal == one.low == one.high == 0.5
    with pytest.raises(ValueError):
        estimate([], wall=1.0, use_model=True)


def test_the_shipped_model_is_of_this_solver_version_and_budget():
    """A new ``SOLVER_VERSION`` needs its own tail model (else every dry run falls back to the
    sample's mean): the release step refits it with :func:`write_tail_model`."""
    m = tail_model()
    assert (m.solver_version, m.budget) == (str(SOLVER_VERSION), DEFAULT_BUDGET), (
        f"the tail model is of solver version {m.solver_version}, budget {m.budget:,}: refit it"
        f" for version {SOLVER_VERSION} (halfmoon.batch.estimate.write_tail_model)")
    assert model_fits({"kind": "range", "start": 0, "stop": 9}, DEFAULT_BUDGET,
                      SOLVER_VERSION) == ""


def test_the_model_fits_random_deals_of_its_budget_and_version_only(monkeypatch):
    monkeypatch.setattr(est, "tail_model", lambda: model_of(population(1000), top=20))
    assert model_fits({"kind": "range", "start": 0, "stop": 9}, 5_000_000, "14") == ""
    assert model_fits({"kind": "random", "count": 9, "seed": 1}, 5_000_000, "14") == ""
    assert "list" in model_fits({"kind": "codes", "file": "x"}, 5_000_000, "14")
    assert "budget 1,000" in model_fits({"kind": "range"}, 1000, "14")
    assert "solver version 15" in model_fits({"kind": "range"}, 5_000_000, "15")


def test_a_run_s_times_make_the_model(tmp_path):
    times = population(1000)
    positions = positions_of(times)
    m = write_tail_model(times, "a run.json", "--random 1000 --seed 1", tmp_path / "model.json",
                         positions=positions, budget=1000, solver_version="9", top=20)
    assert (m.deals, m.budget, m.solver_version, m.made_from) == (1000, 1000, "9", "a run.json")
    assert m.solve_seconds == pytest.approx(times.sum())
    assert list(m.slowest) == pytest.approx(sorted(times, reverse=True)[:20], abs=1e-7)
    assert m.positions == positions.sum() and list(m.most) == sorted(positions)[::-1][:20]
    assert 0 < m.capped_positions < positions.mean() and 0 < m.error < 1
    assert read_tail_model(tmp_path / "model.json") == m
    data = json.loads((tmp_path / "model.json").read_text())
    assert list(data) == ["made_from", "command", "solver_version", "budget", "deals",
                          "solve_seconds", "slowest_solve_seconds", "positions", "most_positions",
                          "relative_error", "commit", "solver_digest", "machine"]
    assert data["command"] == "--random 1000 --seed 1"
    for t, k in ((times[:19], positions[:19]), (times, positions[:999]), (-times, positions)):
        with pytest.raises(ValueError):
            write_tail_model(t, "x", "y", tmp_path / "bad.json", positions=k, top=20)
    assert not (tmp_path / "bad.json").exists()


def test_the_sample_is_spread_evenly_or_drawn_with_its_seed():
    space = range(0, 8_031_810_176)
    assert sample_numbers(range(10), 20, None) == list(range(10))
    assert sample_numbers(range(100), 4, None) == [12, 37, 62, 87]
    a, b = sample_numbers(space, 500, 1), sample_numbers(space, 500, 2)
    assert a == sample_numbers(space, 500, 1) and a != b
    assert len(set(a)) == 500 and a == sorted(a) and all(0 <= x < len(space) for x in a)
    assert sorted(sample_numbers(range(5, 15), 10, 3)) == list(range(5, 15))


def test_the_price_says_its_model_and_this_machine_apart():
    """Two machines' prices told apart from two models': the price at the model's speed is
    the model's alone; this machine's speed against it, and how it was judged, beside."""
    from halfmoon.batch.estimate import tail_model

    m = tail_model()
    times = [0.002] * 400
    slow = estimate(times, wall=sum(times) + 0.4, use_model=True,
                    positions=[2000] * 400)  # 1 ms a deal beside the solver: its rows
    fast = estimate([t / 2 for t in times], wall=sum(times) / 2 + 0.4, use_model=True,
                    positions=[2000] * 400)
    assert slow.speed == pytest.approx(2 * fast.speed, rel=1e-6)
    for e in (slow, fast):  # the same model: the same price at its speed
        assert e.at_model_speed == pytest.approx(m.mean + 0.001, rel=1e-6)
    text = slow.describe()
    assert f"{slow.per_deal * 1000:.3g} ms a deal" in text and "at this machine's speed" in text
    assert f"{slow.at_model_speed * 1000:.3g} ms at the speed of the machine the model" in text
    assert f"solver version {m.solver_version}" in text and "judged from the sample" in text
    assert f"{slow.speed:.2f} times the model's time a position" in text
