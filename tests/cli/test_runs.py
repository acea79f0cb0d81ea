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


def test_every_seed_option_refuses_a_negative_seed(capsys, tmp_path):
    """numpy's generators take no negative seed: every command taking one says so in one
    line, before any work."""
    out = str(tmp_path / "run")
    for argv, option in [
        (["batch", "--random", "5", "--seed", "-3", "--out", out], "--seed"),
        (["batch", "--random", "5", "--dry-run", "--sample-seed", "-1", "--out", out],
         "--sample-seed"),
        (["players", "--random", "5", "--seed", "-1"], "--seed"),
        (["findings", str(tmp_path), "--seed", "-2"], "--seed"),
        (["analyse", "3", "--seed", "-4"], "--seed"),
    ]:
        assert_one_line_error(capsys, argv, f"argument {option}: a seed is 0 or more, got -")
    assert_one_line_error(capsys, ["batch", "--random", "5", "--seed", "x", "--out", out],
                          "argument --seed: expected a whole number, got 'x'")
    assert not (tmp_path / "run").exists()


def test_the_library_refuses_a_negative_seed_too():
    import pytest

    from halfmoon import batch

    with pytest.raises(batch.BatchError, match="bad seed -3: expected a whole number, 0 or"):
        batch.deals_from_random(5, -3)
    assert len(batch.deals_from_random(5, 0)) == 5


def test_batch_in_a_log_ends_with_a_progress_line_and_quiet_is_silent(capsys, tmp_path):
    from cli_helpers import run

    status, out, err = run(capsys, "batch", "--range", "0:20", "--workers", "1", "--budget",
                           "20000", "--out", str(tmp_path / "a"))
    assert status == 0, err
    assert err.splitlines()[-1].startswith("halfmoon batch: 20 of 20 deals (100 %), ")
    assert "\r" not in err and "20 solved now" in out
    status, out, err = run(capsys, "batch", "--range", "0:20", "--workers", "1", "--budget",
                           "20000", "--out", str(tmp_path / "b"), "--quiet")
    assert status == 0 and err == "" and "20 solved now" in out


def test_formats_and_confidence_not_known_are_one_line(capsys, tmp_path):
    assert_one_line_error(capsys, ["findings", str(tmp_path), "--formats", "csv,docx"],
                          "--formats: unknown format 'docx'")
    assert_one_line_error(capsys, ["report", str(tmp_path), "--formats", "xls"],
                          "--formats: unknown format 'xls'")
    for bad in ("0", "1", "95"):
        assert_one_line_error(capsys, ["stats", str(tmp_path), "--confidence", bad],
                              "--confidence must be a share in (0, 1)")
        assert_one_line_error(capsys, ["findings", str(tmp_path), "--confidence", bad],
                              "--confidence must be a share in (0, 1)")


def _run(tmp_path, name, lo, hi):
    """A run of deals lo..hi-1 of one made-up run of 60 (every tenth lost)."""
    from results_samples import make_rows, write_results

    return str(write_results(tmp_path / name, make_rows((["win"] * 9 + ["loss"]) * 6)[lo:hi]))


def test_stats_of_several_runs_pools_them_and_json_is_rounded(capsys, tmp_path):
    import json

    from cli_helpers import run

    a, b = _run(tmp_path, "a", 0, 40), _run(tmp_path, "b", 30, 60)
    union = _run(tmp_path, "u", 0, 60)
    status, out, _ = run(capsys, "stats", a, b, "--json", "--confidence", "0.99")
    pooled = json.loads(out)
    status_u, out_u, _ = run(capsys, "stats", union, "--json", "--confidence", "0.99")
    one = json.loads(out_u)
    assert status == status_u == 0
    for key in ("deals", "wins", "losses", "win_rate", "ci_low", "ci_high", "confidence"):
        assert pooled[key] == one[key], key
    assert pooled["deals"] == 60 and pooled["pooled"]["deals_counted_once"] == 10
    assert pooled["confidence"] == 0.99 and pooled["win_rate"] == 0.9
    # rates to a millionth, positions to a tenth: what they mean, no float noise
    assert pooled["ci_low"] == round(pooled["ci_low"], 6) and len(str(pooled["ci_low"])) <= 8
    assert all(v == round(v, 1) for v in pooled["nodes"].values())
    assert one["provenance"]["package"] == "halfmoon"
    status, out, _ = run(capsys, "stats", a, b)
    assert status == 0 and "pooled      2 runs, 70 rows: each deal counted once (10 held by" in out
    assert "99 % interval" not in out and "95 % interval" in out
    assert "made by     halfmoon " in out
