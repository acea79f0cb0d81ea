"""A suite run end to end, on a few deals: every part's figures, the baselines beside the
solver, the workers' steps, the machine."""

from __future__ import annotations

import pytest

import halfmoon.bench.run as run
import solver
from halfmoon.bench.errors import BenchError
from halfmoon.bench.suites import STANDARD_SEED, Part, Suite


@pytest.fixture
def small(monkeypatch):
    """The standard suite's parts on a few deals each."""
    numbers = list(range(200, 260))
    cut = {"random": numbers, "hard": numbers[:20], "plain": numbers[:12],
           "cpsat": numbers[:2], "workers": numbers[:30]}
    seeds = []

    def part_numbers(part, suite, seed=None):
        seeds.append((part, seed))
        return cut[part]

    monkeypatch.setattr(run, "part_numbers", part_numbers)
    return seeds


def test_the_standard_suite_gives_every_parts_figures(small):
    result, rows = run.run_suite("standard", workers=2, budget=solver.DEFAULT_BUDGET,
                                 progress=None, command="halfmoon bench --suite standard")
    assert result["schema"] == run.SCHEMA and result["solver_version"] == str(
        solver.SOLVER_VERSION)
    parts = result["parts"]
    assert list(parts) == ["random", "hard", "plain", "cpsat", "workers"]
    assert parts["random"]["deals"] == 60 and len(rows["random"]) == 60
    assert parts["random"]["deals_per_second_per_core"] > 0
    for base in ("plain", "cpsat"):
        assert parts[base]["verdicts_differ"] == []
        assert parts[base]["solver_on_the_same_deals"]["deals"] == parts[base]["deals"]
    assert parts["plain"]["settled"] == 12
    assert [s["workers"] for s in parts["workers"]["steps"]] == [1, 2]
    assert parts["workers"]["steps"][0]["efficiency"] == 1.0
    assert set(result["reference_ns"]) == {"before", "random", "hard", "plain", "cpsat",
                                           "workers", "after"}
    assert isinstance(result["busy"], bool) and result["machine"]["cores"] >= 1
    # the default seed, said and recorded: the deals a result is of
    assert result["seed"] == STANDARD_SEED and {s for _, s in small} == {STANDARD_SEED}
    assert parts["random"]["about"] == f"100,000 random deals (seed {STANDARD_SEED})"


def test_a_seed_of_ones_own_draws_the_standard_suites_deals(small):
    result, _ = run.run_suite("standard", workers=1, budget=solver.DEFAULT_BUDGET,
                              progress=None, seed=20261207)
    assert {part for part, _ in small} == {"random", "hard", "plain", "cpsat", "workers"}
    assert {s for _, s in small} == {20261207}  # every part of it drawn from the seed
    assert result["seed"] == 20261207
    assert result["parts"]["random"]["about"] == "100,000 random deals (seed 20261207)"
    with pytest.raises(BenchError, match="the tail suite solves a published set"):
        run.run_suite("tail", budget=1, progress=None, seed=3)


def test_an_unknown_suite_or_no_worker_is_refused():
    with pytest.raises(BenchError, match="no suite 'huge'"):
        run.run_suite("huge", budget=1, progress=None)
    with pytest.raises(BenchError, match="at least 1"):
        run.run_suite("tail", workers=0, budget=1, progress=None)


def test_the_quick_suite_runs_one_pinned_worker(small, monkeypatch):
    monkeypatch.setitem(run.SUITES, "quick", Suite("quick", "a few deals", (
        Part("random", "a few", pinned_one=True),), "seconds"))
    result, _ = run.run_suite("quick", workers=2, budget=solver.DEFAULT_BUDGET, progress=None)
    assert result["workers"] == 1 and result["parts"]["random"]["workers"] == 1
