"""The commands on many deals: bad input to findings (batch, stats: in tests/batch, research)."""

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
