"""Against another revision (checked out beside this one) or a saved result."""

from __future__ import annotations

import subprocess

import pytest
from bench_helpers import fake_result

import solver
from halfmoon.bench.against import _alternate, checkout, compare_saved, load_saved, trees
from halfmoon.bench.errors import BenchError
from halfmoon.bench.lanes import Lane
from halfmoon.bench.output import write
from halfmoon.bench.run import Progress


def git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    (root / "solver").mkdir(parents=True)
    git(root, "init", "-q")
    (root / "README").write_text("no solver yet\n")
    git(root, "add", "README")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "first")
    (root / "solver" / "__init__.py").write_text("")
    (root / "solver" / "api.py").write_text("")
    git(root, "add", "solver")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "second")
    return root


def test_a_revision_is_exported_outside_the_repository_and_removed_after(repo, tmp_path):
    worktrees_before = subprocess.run(["git", "-C", str(repo), "worktree", "list"],
                                      capture_output=True, text=True).stdout
    with checkout("HEAD", repo, home=tmp_path / "cache") as (commit, home, cache):
        assert (home / "solver" / "api.py").is_file()
        assert not home.is_relative_to(repo) and cache.is_dir()
        assert not (home / "README").exists()  # the packages only
        stamp = (home / "solver" / "api.py").stat().st_mtime
    assert not home.exists() and cache.is_dir()  # the export gone, numba's cache kept
    with checkout(commit[:8], repo, home=tmp_path / "cache") as again:
        assert again == (commit, home, cache)
        assert (home / "solver" / "api.py").stat().st_mtime == stamp  # what numba checks
        with pytest.raises(BenchError, match="another halfmoon bench is running"):
            with checkout("HEAD", repo, home=tmp_path / "cache"):
                pass
        assert (home / "solver" / "api.py").is_file()  # the running one's export kept
    after = subprocess.run(["git", "-C", str(repo), "worktree", "list"], capture_output=True,
                           text=True).stdout
    assert after == worktrees_before and not (repo / "build").exists()
    assert subprocess.run(["git", "-C", str(repo), "status", "--porcelain"],
                          capture_output=True, text=True).stdout == ""


def test_the_trees_of_a_lab_script_are_the_revisions_export_then_this_one(repo, tmp_path):
    with trees(None, repo) as (sides, commit):
        assert sides == [("this tree", repo, {})] and commit is None
    with trees("HEAD", repo, home=tmp_path / "cache") as (sides, commit):
        (name, source, env), here = sides
        assert name == f"HEAD ({commit[:12]})" and (source / "solver" / "api.py").is_file()
        assert env == {"NUMBA_CACHE_DIR": str(source.parent / "numba-cache")}
        assert here == ("this tree", repo, {})
    assert not source.exists()  # the export removed after


def test_a_missing_revision_or_one_without_a_solver_is_refused(repo, tmp_path):
    with pytest.raises(BenchError, match="no such revision"):
        with checkout("nonsense", repo, home=tmp_path / "cache"):
            pass
    with pytest.raises(BenchError, match="no solver front door"):
        with checkout("HEAD~1", repo, home=tmp_path / "cache"):
            pass
    assert not (tmp_path / "cache").exists()


def test_the_two_sides_take_each_block_in_turn_with_the_same_verdicts():
    pairs = [(Lane(), Lane())]
    try:
        base, new, walls = _alternate(pairs, list(range(10, 40)), solver.DEFAULT_BUDGET,
                                      Progress(None), "x")
    finally:
        for lane in pairs[0]:
            lane.close()
    assert [r.number for r in base] == [r.number for r in new] == list(range(10, 40))
    assert [r.verdict for r in base] == [r.verdict for r in new]
    assert [r.nodes for r in base] == [r.nodes for r in new]
    assert walls[0] > 0 and walls[1] > 0


def test_a_seed_draws_both_sides_deals_and_is_recorded(monkeypatch):
    import halfmoon.bench.against as against
    from halfmoon.bench.suites import SUITES

    asked = []

    def part_numbers(part, suite, seed=None):
        asked.append((part, seed))
        return list(range(50, 62))

    monkeypatch.setattr(against, "part_numbers", part_numbers)
    monkeypatch.setattr(against, "Lane", lambda core, *revision: Lane(core))  # both this one
    result, rows = against._against(SUITES["standard"], 1, "HEAD", "0" * 40, against.ROOT,
                                    None, solver.DEFAULT_BUDGET, Progress(None), "cmd", 7)
    assert asked == [("random", 7), ("hard", 7)] and result["seed"] == 7
    assert result["parts"]["random"]["about"] == "100,000 random deals (seed 7)"
    assert [r.number for r in rows["random"]["base"]] == list(range(50, 62))
    assert result["parts"]["random"]["verdicts_differ"] == []


def test_a_saved_result_compares_rate_by_rate_and_deal_by_deal(tmp_path):
    from bench_helpers import rows as make_rows

    rows = {"random": make_rows([0.001, 0.002, 0.05])}
    write(tmp_path / "saved", fake_result(), rows)
    saved, saved_rows = load_saved(tmp_path / "saved")
    faster = {"random": make_rows([0.0005, 0.001, 0.025], ["win", "loss", "win"])}
    now = fake_result()
    now["parts"]["random"]["deals_per_second_per_core"] *= 2
    v = compare_saved(now, faster, saved, saved_rows, "saved")
    cell = v["parts"]["random"]
    assert cell["ratio"] == pytest.approx(2.0, rel=1e-3)
    assert cell["same_deals"] and cell["verdicts_differ"] == [1]


def test_a_file_that_is_not_a_result_is_refused(tmp_path):
    (tmp_path / "x.json").write_text('{"a": 1}')
    with pytest.raises(BenchError, match="not a saved benchmark result"):
        load_saved(tmp_path / "x.json")
    with pytest.raises(BenchError, match="not a saved benchmark result"):
        load_saved(tmp_path / "missing.json")
