"""The commands on many deals: bad input to batch, stats, report and findings, each one line
and exit 2 before any work (more of batch's and stats' in tests/batch, tests/research)."""

from __future__ import annotations

from cli_helpers import assert_one_line_error


def test_findings_bad_input_is_one_line(capsys, tmp_path):
    assert_one_line_error(capsys, ["findings", str(tmp_path / "none")], "no census")
    assert_one_line_error(capsys, ["findings", str(tmp_path), "--recheck", "0"], "--recheck")
    assert_one_line_error(capsys, ["findings", str(tmp_path), "--workers", "0"], "--workers")
    assert_one_line_error(capsys, ["findings", str(tmp_path), "--players-deals", "0"],
                          "--players-deals")
    assert_one_line_error(capsys, ["findings", str(tmp_path)], "no _manifest.json")
    assert_one_line_error(capsys, ["findings", "memory://no-census"],
                          "needs a local directory for the findings' pieces")
    assert_one_line_error(capsys, ["findings", str(tmp_path), "--fair-deals", "-1"], "--fair-deals")
    assert_one_line_error(capsys, ["findings", str(tmp_path), "--fair-only",
                                   "--out", str(tmp_path / "docs")],
                          "no findings data to add the fair-play stage to")


def test_findings_refuses_what_it_cannot_write_or_use_before_any_work(capsys, tmp_path):
    (tmp_path / "file").write_text("x")
    assert_one_line_error(capsys, ["findings", str(tmp_path), "--out", str(tmp_path / "file")],
                          "--out", "is a file, not a directory")
    assert_one_line_error(capsys, ["findings", str(tmp_path), "--work",
                                   str(tmp_path / "file" / "w")], "--work", "is a file")
    assert_one_line_error(capsys, ["findings", str(tmp_path), "--limit", "0"],
                          "--limit must be a positive number of seconds")


def test_batch_refuses_bad_values_and_an_out_it_cannot_make(capsys, tmp_path):
    (tmp_path / "file").write_text("x")
    out = str(tmp_path / "run")
    for args, fragment in [
        (["--out", str(tmp_path / "file")], "is a file, not a directory"),
        (["--out", str(tmp_path / "file" / "run")], "is a file, not a directory"),
        (["--out", out, "--workers", "-1"], "bad number of workers -1"),
        (["--out", out, "--chunk-size", "0"], "bad --chunk-size 0"),
        (["--out", out, "--piece-size", "0"], "bad --piece-size 0"),
        (["--out", out, "--budget", "0"], "bad budget 0"),
        (["--out", out, "--chunks", "5:2"], "bad --chunks"),
        (["--out", out, "--dry-run", "--sample", "0"], "bad sample 0"),
        (["--out", out, "--dry-run", "--cores", "-3"], "bad number of cores -3"),
        (["--out", out, "--sample-seed", "4"], "go with --dry-run"),
    ]:
        assert_one_line_error(capsys, ["batch", "--range", "0:10", *args], fragment)
    assert_one_line_error(capsys, ["batch", "--random", "0", "--out", out], "bad --random 0")
    # a value starting with "-" gets the range's own message, not argparse's
    assert_one_line_error(capsys, ["batch", "--range", "-5:10", "--out", out], "bad range '-5:10'")
    assert_one_line_error(capsys, ["batch", "--range", "0:10", "--chunks", "-1:2", "--out", out],
                          "bad --chunks")
    assert_one_line_error(capsys, ["batch", "--codes", str(tmp_path), "--out", out],
                          "is a directory")
    assert_one_line_error(capsys, ["batch", "--codes", str(tmp_path / "none"), "--out", out],
                          "No such file")
    assert not (tmp_path / "run").exists()
    assert (tmp_path / "file").read_text() == "x"


def test_stats_and_report_name_what_is_not_a_results_directory(capsys, tmp_path):
    (tmp_path / "file").write_text("x")
    assert_one_line_error(capsys, ["stats", str(tmp_path / "none")], "no such directory")
    assert_one_line_error(capsys, ["stats", str(tmp_path / "file")],
                          "a file, not a results directory")
    assert_one_line_error(capsys, ["stats", str(tmp_path)], "no finished chunk file")
    assert_one_line_error(capsys, ["report", str(tmp_path), "--out", str(tmp_path / "file")],
                          "--out", "is a file, not a directory")
    assert_one_line_error(capsys, ["report", str(tmp_path / "none"), "--out",
                                   str(tmp_path / "r")], "no such directory")
