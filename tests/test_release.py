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


def test_readme_quotes_the_committed_result(committed):
    from halfmoon.bench.output import speed_sentence

    text = " ".join(README.read_text(encoding="utf-8").split())
    assert " ".join(speed_sentence(committed).split()) in text, (
        "README.md's speed sentence is not the committed result's: run make bench-release "
        "(or benchmarks/release.py's write_readme)")


def test_the_sentence_changes_with_the_figures(committed):
    from halfmoon.bench.output import speed_sentence

    other = json.loads(json.dumps(committed))
    other["parts"]["random"]["deals_per_second_per_core"] *= 1.5
    other["busy"] = True
    changed = speed_sentence(other)
    assert changed != speed_sentence(committed) and "marked busy" in changed
    assert f"{1.5 * committed['parts']['random']['deals_per_second_per_core']:,.0f} deals" \
        in changed
