"""halfmoon pick: deals chosen by verdict and level, reproducible; the level in solve."""

from __future__ import annotations

import json

import pytest
from cli_helpers import assert_one_line_error, run

from halfmoon.batch.difficulty import LEVEL_NAMES, LOST, estimate_numbers
from solver import solve


def _json_rows(out):
    return [json.loads(line) for line in out.splitlines()]


def test_pick_keeps_winnable_deals_of_the_level_asked(capsys):
    status, out, err = run(capsys, "pick", "--winnable", "--level", "hard", "--count", "3",
                           "--random", "100000", "--seed", "5", "--json")
    assert status == 0
    rows = _json_rows(out)
    assert len(rows) == 3
    for r in rows:
        assert r["verdict"] == "win" == solve(r["number"]).verdict
        assert r["level"] == "hard" == estimate_numbers([r["number"]], ["win"])[0].level
        assert r["low"] <= r["chance"] <= r["high"]
    assert "3 winnable 'hard' deals of 3 asked" in err and "stopped there" in err
    # reproducible: the same command, the same list
    again = run(capsys, "pick", "--winnable", "--level", "hard", "--count", "3",
                "--random", "100000", "--seed", "5", "--json")[1]
    assert again == out


def test_pick_walks_in_order_and_stops_at_the_count(capsys):
    status, out, err = run(capsys, "pick", "--count", "4", "--range", "100-200", "--json")
    assert status == 0
    assert [r["number"] for r in _json_rows(out)] == [100, 101, 102, 103]
    assert "among the first 4 of 100" in err


def test_a_lost_deal_cannot_be_won(capsys):
    status, out, err = run(capsys, "pick", "--level", "cannot-be-won", "--count", "2",
                           "--range", "0:200")
    assert status == 0
    lines = out.splitlines()
    assert len(lines) == 2
    for line in lines:
        number = int(line.split()[1])
        assert solve(number).verdict == "loss"
        assert line.endswith(LOST)


def test_pick_says_when_the_deals_ran_out(capsys, tmp_path):
    codes = tmp_path / "codes.txt"
    codes.write_text("100\n101\n")
    status, out, err = run(capsys, "pick", "--codes", str(codes), "--winnable", "--count", "5")
    assert status == 0
    assert len(out.splitlines()) == 2
    assert "2 winnable deals of 5 asked, among the first 2 of 2 (all of them walked)" in err
    for line in out.splitlines():
        assert any(f" {name} (" in line for name in LEVEL_NAMES)


@pytest.mark.parametrize("argv, fragment", [
    (["pick", "--random", "5", "--level", "hardest"], "unknown --level 'hardest'"),
    (["pick", "--random", "5", "--count", "0"], "--count must be at least 1"),
    (["pick", "--range", "0:5", "--seed", "3"], "--seed goes with --random"),
    (["pick", "--random", "5", "--winnable", "--level", "cannot-be-won"], "pick no deal"),
    (["pick", "--range", "5:2"], "bad range"),
])
def test_bad_pick_input_is_one_line(capsys, argv, fragment):
    assert_one_line_error(capsys, argv, fragment)


def test_solve_shows_the_level_beside_the_verdict(capsys):
    status, out, err = run(capsys, "solve", "100", "55")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("HM1-N-AAAAADW: win")
    assert lines[0].endswith("; level: " + estimate_numbers([100], ["win"])[0].words())
    lost = next(x for x in lines if x.startswith("HM1-N-AAAAACD: loss"))
    assert lost.endswith(f"; level: {LOST}")
    status, out, err = run(capsys, "solve", "55", "--json")
    assert json.loads(out)["difficulty"]["level"] == LOST


def test_batch_difficulty_then_stats_gives_each_levels_share(capsys, tmp_path):
    out = str(tmp_path / "run")
    status, text, err = run(capsys, "batch", "--range", "40:60", "--out", out, "--workers", "1",
                            "--quiet", "--difficulty")
    assert status == 0
    assert "difficulty.parquet: 20 deals' difficulty (20 computed now)" in text
    status, text, err = run(capsys, "stats", out, "--json")
    d = json.loads(text)["difficulty"]
    assert d["deals"] == 20 and sum(v["deals"] for v in d["levels"].values()) == 20
    verdicts = [solve(n).verdict for n in range(40, 60)]
    levels = [e.level for e in estimate_numbers(list(range(40, 60)), verdicts)]
    for name, v in d["levels"].items():
        assert v["deals"] == levels.count(name)
        assert v["low"] <= v["share"] == v["deals"] / 20 <= v["high"]
    status, text, err = run(capsys, "stats", out)
    assert "difficulty (the fair player's chance, predicted): " in text.splitlines()[-1]


def test_batch_difficulty_needs_a_run(capsys, tmp_path):
    assert_one_line_error(capsys, ["batch", "--range", "0:5", "--out", str(tmp_path / "r"),
                                   "--dry-run", "--difficulty"], "--difficulty needs")
