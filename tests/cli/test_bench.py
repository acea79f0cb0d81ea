"""``halfmoon bench``: a suite's table and files, bad input in one line, Ctrl-C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from cli_helpers import ROOT, assert_one_line_error, run
from process_groups import ctrl_c_as_on_a_terminal, wait_for_no_live_members

import halfmoon.bench.run as bench_run
import solver


@pytest.fixture
def few_deals(monkeypatch):
    monkeypatch.setattr(bench_run, "part_numbers",
                        lambda part, suite, seed=None: list(range(300, 340)))


def test_quick_prints_its_table_and_writes_its_files(capsys, tmp_path, few_deals):
    status, out, err = run(capsys, "bench", "--suite", "quick", "--out", str(tmp_path / "q"),
                           "--quiet")
    assert status == 0, err
    assert out.startswith(f"# halfmoon bench: suite quick (solver version "
                          f"{solver.SOLVER_VERSION})")
    assert "| random | 40 |" in out and "Machine:" in out and "reference workload" in out
    assert "written:" in out
    result = json.loads((tmp_path / "q" / "bench.json").read_text())
    assert result["command"] == f"halfmoon bench --suite quick --out {tmp_path / 'q'} --quiet"
    assert result["workers"] == 1 and result["parts"]["random"]["deals"] == 40
    for key in ("commit", "solver_version", "machine", "load_before", "load_after",
                "reference_ns", "busy"):
        assert key in result
    assert {"cpu", "cores", "python", "numba"} <= set(result["machine"])
    busy_line = [line for line in err.splitlines() if "busy machine" in line]
    assert len(busy_line) == (1 if result["busy"] else 0)


def test_by_default_it_writes_a_new_folder_that_git_ignores(capsys, tmp_path, few_deals,
                                                            monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, "bench", "--quiet")
    assert status == 0, err
    (made,) = (tmp_path / "bench-results").iterdir()
    assert made.name.startswith(f"quick-v{solver.SOLVER_VERSION}-")
    assert (made / "bench.json").is_file()
    ignored = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "-q",
                              "bench-results/quick-v15-x/bench.json"])
    assert ignored.returncode == 0


def test_against_a_saved_result_gives_the_ratio(capsys, tmp_path, few_deals):
    assert run(capsys, "bench", "--out", str(tmp_path / "a"), "--quiet")[0] == 0
    status, out, err = run(capsys, "bench", "--out", str(tmp_path / "b"), "--quiet",
                           "--against", str(tmp_path / "a"))
    assert status == 0, err
    saved = json.loads((tmp_path / "b" / "bench.json").read_text())["versus_saved"]
    cell = saved["parts"]["random"]
    assert cell["verdicts_differ"] == [] and cell["low"] <= cell["ratio"] <= cell["high"]
    assert f"random: B {cell['ratio']:.3f}x A's speed" in out  # on the terminal, too
    assert "the interval:" in out and "## Against the saved result" in (
        tmp_path / "b" / "bench.md").read_text()


@pytest.mark.parametrize("argv, fragment", [
    (["--workers", "0"], "--workers must be at least 1"),
    (["--budget", "0"], "--budget must be at least 1"),
    (["--rounds", "0"], "--rounds must be at least 1"),
    (["--revision", "HEAD", "--against", "HEAD"], "--revision measures another revision alone"),
    (["--revision", "no-such-revision"], "no such revision"),
    (["--against", "no-such-revision"], "no such revision"),
    (["--against", "missing.json"], "not a saved benchmark result"),
    (["--refit-tail-model"], "--refit-tail-model needs the standard suite"),
    (["--export", "hard"], "--export needs --out"),
    (["--suite", "huge"], "invalid choice"),
    (["--suite", "advice", "--deals", "0"], "--deals must be at least 1"),
    (["--suite", "advice", "--think", "-1"], "--think must be 0 to 60 seconds"),
    (["--suite", "advice", "--rounds", "2"], "--rounds is not the advice suite's"),
    (["--think", "2"], "add --suite advice"),
    (["--suite", "standard", "--max-moves", "9"], "add --suite advice"),
    (["--suite", "quick", "--seed", "3"], "--seed draws the standard suite's random deals"),
    (["--suite", "tail", "--seed", "3"], "the tail suite solves a published set"),
    (["--suite", "standard", "--seed", "-1"], "--seed must be 0 or more"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, fragment):
    assert_one_line_error(capsys, ["bench", *argv], fragment)


def test_an_out_that_is_a_file_is_refused_before_any_work(capsys, tmp_path):
    (tmp_path / "f").write_text("x")
    assert_one_line_error(capsys, ["bench", "--out", str(tmp_path / "f")], "is a file")
    assert (tmp_path / "f").read_text() == "x"


def test_export_writes_the_sets_layout_files(capsys, tmp_path):
    status, out, _ = run(capsys, "bench", "--export", "hard", "--out", str(tmp_path))
    assert status == 0 and "500 layout files" in out
    assert len(list(tmp_path.glob("HM1-*.txt"))) == 500


def test_ctrl_c_stops_the_bench_and_its_workers(tmp_path):
    cmd = [sys.executable, "-m", "halfmoon", "bench", "--suite", "tail", "--out",
           str(tmp_path / "t")]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True,
                            preexec_fn=ctrl_c_as_on_a_terminal)
    deadline = time.monotonic() + 120
    seen = ""
    while "hard:" not in seen and time.monotonic() < deadline:  # the workers are solving
        seen += proc.stderr.readline()
    time.sleep(1.0)
    os.killpg(proc.pid, signal.SIGINT)
    try:
        out, err = proc.communicate(timeout=60)
    finally:
        left = wait_for_no_live_members(proc.pid, 10)
    assert proc.returncode == 130, seen + err
    assert err.splitlines()[-1:] == ["halfmoon: interrupted"]
    assert "Traceback" not in err and left == []
    assert not (tmp_path / "t" / "bench.json").exists()
