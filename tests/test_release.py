"""One current truth: the committed standard benchmark, the dry run's tail model and
README.md's speed sentence are of the current solver version.  A new ``SOLVER_VERSION``
fails these until the release step (``make bench-release``) has made the result and the
model again and README.md quotes the new figures."""

from __future__ import annotations

import json

import pytest
from test_layers import ROOT

from solver import SOLVER_VERSION

STANDARD = ROOT / "benchmarks" / "results" / "standard"
README = ROOT / "README.md"


@pytest.fixture(scope="module")
def committed() -> dict:
    path = STANDARD / "bench.json"
    assert path.is_file(), f"no committed standard result at {path}: run make bench-release"
    return json.loads(path.read_text())


def test_the_committed_standard_result_is_of_this_solver_version(committed):
    assert committed["suite"] == "standard"
    assert committed["solver_version"] == str(SOLVER_VERSION), (
        f"benchmarks/results/standard is of solver version {committed['solver_version']}, "
        f"the solver's is {SOLVER_VERSION}: run make bench-release")
    for name in ("bench.md", "cactus.png", "times.png", "deals.parquet"):
        assert (STANDARD / name).is_file()


def test_the_tail_model_is_of_this_solver_version_and_from_the_committed_run(committed):
    from halfmoon.batch.estimate import tail_model

    model = tail_model()
    assert model.solver_version == str(SOLVER_VERSION), (
        f"the tail model is of solver version {model.solver_version}: run make bench-release")
    assert model.made_from == "benchmarks/results/standard/bench.json"
    assert model.deals == committed["parts"]["random"]["deals"]


def readme_figures(r: dict) -> list[str]:
    """The phrases README.md's speed sentence must hold, from a standard result."""
    random = r["parts"]["random"]
    q = random["per_deal_seconds"]
    return [f"solver version {r['solver_version']}",
            f"{random['deals']:,} random deals",
            f"{random['deals_per_second_per_core']:,.0f} deals a second per core",
            f"median {q['p50'] * 1e3:.2f} ms",
            f"99.9 % within {q['p99.9']:.2f} s",
            f"the slowest {q['max']:.1f} s",
            f"{r['parts']['plain']['solver_speedup']:,.0f} times as fast as the plain",
            f"{r['parts']['cpsat']['solver_speedup']:,.0f} times as fast as CP-SAT"]


def test_readme_quotes_the_committed_result(committed):
    text = " ".join(README.read_text(encoding="utf-8").split())
    missing = [p for p in readme_figures(committed) if p not in text]
    assert not missing, f"README.md does not quote the committed result: {missing}"


def test_the_check_sees_a_figure_of_another_run(committed):
    other = json.loads(json.dumps(committed))
    other["parts"]["random"]["deals_per_second_per_core"] *= 1.5
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert any(p not in text for p in readme_figures(other))
