"""Two saved results compared without a rerun: the ratio, its interval with the drift between
the runs in it, "not told apart" where it holds 1."""

from __future__ import annotations

import json

import numpy as np
import pytest
from bench_helpers import fake_result, rows
from cli_helpers import assert_one_line_error, run

from halfmoon.bench.compare import compare_results
from halfmoon.bench.errors import BenchError
from halfmoon.bench.figures import part_figures, rounds_figures
from halfmoon.bench.output import write
from halfmoon.bench.suites import STANDARD_SEED


def measured(scale: float, drift=(1.0, 1.0, 1.0), reference=60.0, shares=(1.0, 1.0, 1.0)):
    """A quick result of three rounds of the same 1,000 deals, each deal ``scale`` times a
    fixed time, round k slowed by ``drift[k]``: the result and its rows."""
    base = np.random.default_rng(7).exponential(0.002, 1000) * scale
    rounds = [rows(list(base * d)) for d in drift]
    together = rounds_figures(rounds, list(shares))
    m = together["median_round"] - 1
    result = fake_result()
    fig = part_figures(rounds[m], 1.0, 1)
    fig.update(about="x", engine="solver", rounds=together)
    result["parts"] = {"random": fig}
    result["reference_ns"] = {"before": reference, "after": reference}
    return result, {"random": rounds[m], "rounds": {"random": rounds}}


def test_the_same_code_at_two_times_is_not_told_apart():
    a, _ = measured(1.0, drift=(1.0, 1.04, 0.97))
    b, _ = measured(1.0, drift=(1.02, 0.99, 1.05), reference=62.0)
    cell = compare_results(a, b)["parts"]["random"]
    assert cell["verdict"] == "not told apart" and cell["low"] < 1 < cell["high"]
    # the interval: B's slowest round over A's fastest to B's fastest over A's slowest,
    # widened by how far apart the reference workload ran between the two runs
    ra, rb = a["parts"]["random"]["rounds"], b["parts"]["random"]["rounds"]
    assert cell["widened_by"] == pytest.approx(62 / 60, rel=1e-3)
    assert cell["low"] == pytest.approx(rb["low"] / ra["high"] / (62 / 60), rel=1e-3)
    assert cell["high"] == pytest.approx(rb["high"] / ra["low"] * (62 / 60), rel=1e-3)
    from halfmoon.bench.compare import compare_lines

    a["machine"]["solver_digest"] = b["machine"]["solver_digest"] = "abc"
    assert "solver source: the same (abc)" in compare_lines(compare_results(a, b))
    b["machine"]["solver_digest"] = "def"
    assert "solver source: different (abc; def)" in compare_lines(compare_results(a, b))


def test_a_faster_solver_is_told_apart_and_a_shared_core_widens_the_interval():
    a, _ = measured(1.0, drift=(1.0, 1.01, 0.99))
    b, _ = measured(1 / 1.5, drift=(1.0, 1.01, 0.99))
    cell = compare_results(a, b)["parts"]["random"]
    assert cell["verdict"] == "faster" and cell["ratio"] == pytest.approx(1.5, rel=1e-3)
    assert compare_results(b, a)["parts"]["random"]["verdict"] == "slower"
    shared, _ = measured(1 / 1.5, drift=(1.0, 1.01, 0.99), shares=(0.5, 0.5, 0.5))
    wide = compare_results(a, shared)["parts"]["random"]
    assert wide["widened_by"] == pytest.approx(2.0) and wide["verdict"] == "not told apart"
    # per second of the CPU they had, the half-shared core taken out: 1.5x / 2, told apart
    assert wide["cpu"]["ratio"] == pytest.approx(1.5 * 2, rel=1e-3)
    assert wide["cpu"]["verdict"] == "faster" and wide["cpu"]["low"] > 2.5


def test_a_shared_core_that_slowed_the_same_code_is_not_told_apart_per_cpu_second():
    quiet, _ = measured(1.0, drift=(1.0, 1.02, 0.99))
    shared, _ = measured(2.0, drift=(1.0, 1.02, 0.99), shares=(0.5, 0.5, 0.5))
    cell = compare_results(quiet, shared)["parts"]["random"]
    assert cell["ratio"] == pytest.approx(0.5, rel=1e-3)
    assert cell["cpu"]["ratio"] == pytest.approx(1.0, rel=1e-3)
    assert cell["cpu"]["verdict"] == "not told apart" and cell["cpu"]["high"] < 1.1


def test_other_suites_or_a_side_by_side_run_are_refused():
    a, _ = measured(1.0)
    b, _ = measured(1.0)
    b["suite"] = "standard"
    with pytest.raises(BenchError, match="needs the same suite"):
        compare_results(a, b)
    b["suite"], b["against"] = "quick", {"revision": "HEAD~1"}
    with pytest.raises(BenchError, match="side-by-side run"):
        compare_results(a, b)


def test_standard_results_of_other_seeds_are_compared_with_a_note():
    a, _ = measured(1.0)
    b, _ = measured(1.0)
    a["suite"] = b["suite"] = "standard"
    assert not any("seeds" in n for n in compare_results(a, b)["notes"])  # both the default
    b["seed"] = 7
    notes = compare_results(a, b)["notes"]
    assert f"the random deals differ (seeds {STANDARD_SEED} and 7)" in " ".join(notes)
    a["seed"] = 7
    assert not any("seeds" in n for n in compare_results(a, b)["notes"])


def test_the_verdicts_of_other_deals_are_compared_on_the_deals_in_both():
    from dataclasses import replace

    from halfmoon.bench.compare import compare_lines

    a, a_rows = measured(1.0)
    b, b_rows = measured(1.0)
    shifted = [replace(r, number=r.number + 990) for r in b_rows["random"]]  # 10 in both
    shifted[5] = replace(shifted[5], verdict="loss")  # deal 995: won in A, lost in B
    c = compare_results(a, b, a_rows, {"random": shifted})
    cell = c["parts"]["random"]
    assert not cell["same_deals"] and cell["deals_in_both"] == 10
    assert cell["verdicts_differ"] == [995]
    assert "other deals: verdicts differ on 1 of the 10 deals in both" in "\n".join(
        compare_lines(c))
    same = compare_results(a, b, a_rows, b_rows)
    assert "deals_in_both" not in same["parts"]["random"]
    assert "; verdicts differ on 0 deals" in "\n".join(compare_lines(same))


def test_a_saved_result_of_one_round_gives_its_interval_over_blocks(tmp_path):
    old = fake_result()  # schema 1: no rounds, its rows in deals.parquet
    many = rows(list(np.random.default_rng(2).exponential(0.002, 1000)))
    old["parts"]["random"] = part_figures(many, 1.0, 1) | {"about": "x", "engine": "solver"}
    write(tmp_path / "old", old, {"random": many})
    b, b_rows = measured(1.0)
    write(tmp_path / "new", b, b_rows)
    from halfmoon.bench.against import load_saved

    (a, a_rows), (b2, b2_rows) = load_saved(tmp_path / "old"), load_saved(tmp_path / "new")
    c = compare_results(a, b2, a_rows, b2_rows)["parts"]["random"]
    assert c["a"]["rounds"] == 1 and c["a"]["low"] < c["a"]["rate"] < c["a"]["high"]
    assert c["same_deals"] and c["verdicts_differ"] == []
    assert len(b2_rows["random"]) == 1000  # the median round's rows, not every round's


def test_bench_compare_prints_the_ratio_of_two_saved_results(capsys, tmp_path):
    for name, scale in (("a", 1.0), ("b", 1.0)):
        result, rs = measured(scale)
        write(tmp_path / name, result, rs)
    status, out, err = run(capsys, "bench", "compare", str(tmp_path / "a"), str(tmp_path / "b"))
    assert status == 0, err
    assert "random: B 1.000x A's speed [" in out and "not told apart" in out
    assert "3 rounds" in out and "the reference workload 60.0 and 60.0 ns" in out
    status, out, _ = run(capsys, "bench", "compare", str(tmp_path / "a"), str(tmp_path / "b"),
                         "--json")
    assert json.loads(out)["parts"]["random"]["verdict"] == "not told apart"


def test_bench_compare_of_a_file_that_is_not_a_result_is_one_line(capsys, tmp_path):
    (tmp_path / "x.json").write_text("{}")
    assert_one_line_error(capsys, ["bench", "compare", str(tmp_path / "x.json"),
                                   str(tmp_path / "x.json")], "not a saved benchmark result")
    assert_one_line_error(capsys, ["bench", "compare", str(tmp_path / "a")], "required")
