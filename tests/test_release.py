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


def test_the_committed_result_and_the_tail_model_are_of_this_solver_source(committed):
    """Any change of the solver's source (its search, whatever SOLVER_VERSION says) fails
    this until the release step has made the result and the model again from a commit."""
    from halfmoon.batch.estimate import solver_digest, tail_model

    now = solver_digest()
    made = committed["machine"].get("solver_digest")
    assert made == now, (
        f"benchmarks/results/standard was made from solver source {made}, the solver's is "
        f"{now}: commit the change, then run make bench-release")
    assert tail_model().solver_digest == now, (
        f"the tail model was made from solver source {tail_model().solver_digest}, the "
        f"solver's is {now}: run make bench-release")
    assert committed["dirty"] is False and tail_model().commit == committed["commit"]


def test_the_digest_changes_with_a_line_of_the_solver(tmp_path):
    import shutil

    from halfmoon.batch.estimate import solver_digest

    copy = tmp_path / "solver"
    shutil.copytree(ROOT / "solver", copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert solver_digest(copy) == solver_digest()
    search = copy / "portfolio" / "search.py"
    search.write_text(search.read_text() + "# a comment is a change of the source too\n")
    assert solver_digest(copy) != solver_digest()


def _release():
    import importlib.util

    spec = importlib.util.spec_from_file_location("release", ROOT / "benchmarks" / "release.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_release_step_refuses_a_tree_with_changes_not_committed(tmp_path, capsys):
    import subprocess

    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    release = _release()
    (tmp_path / "solver").mkdir()
    (tmp_path / "solver" / "search.py").write_text("x = 1\n")
    git("init", "-q")
    git("add", "solver")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    (tmp_path / "notes.txt").write_text("not the repository's\n")  # untracked elsewhere: fine
    assert release.changes(tmp_path) == []
    (tmp_path / "solver" / "search.py").write_text("x = 2\n")
    (tmp_path / "solver" / "new.py").write_text("y = 1\n")
    assert release.changes(tmp_path) == ["solver/new.py", "solver/search.py"]


def test_the_history_index_and_chart_say_each_version_and_its_machine(tmp_path, committed):
    release = _release()
    history, current = tmp_path / "history", tmp_path / "standard"
    old = json.loads(json.dumps(committed))
    old["solver_version"], old["commit"] = "14", "b" * 40
    old["parts"]["random"]["deals_per_second_per_core"] = 500.0
    for folder, result in ((history / "standard-v14", old), (current, committed)):
        folder.mkdir(parents=True)
        (folder / "bench.json").write_text(json.dumps(result))
    index, chart = release.write_history(history, current)
    text = index.read_text()
    rows = [line for line in text.splitlines() if line.startswith("| 1")]
    assert [row.split("|")[1].strip() for row in rows] == ["14", str(SOLVER_VERSION)]
    assert "| 500 |" in rows[0] and "history/standard-v14" in rows[0]
    assert "all measured on one machine" in text and chart.stat().st_size > 0
    old["machine"] = dict(old["machine"], cpu="another processor")
    (history / "standard-v14" / "bench.json").write_text(json.dumps(old))
    assert "not comparable" in release.write_history(history, current)[0].read_text()
