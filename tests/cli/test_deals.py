"""show, solve and analyse on one deal: output formats, bad deals and files."""

from __future__ import annotations

import json

import pytest
from cli_helpers import DEAL1_LAYOUT, assert_one_line_error, run
from conftest import make_layout

from halfmoon import Deal
from halfmoon.game.layouts import format_layout


@pytest.mark.parametrize("arg", ["HM1-N-AAAAAAB", "hm1-n-aaaaaab", " HM1-N-AAAAAAB ", "1"])
def test_show_layout_prints_the_spec_layout(capsys, arg):
    status, out, err = run(capsys, "show", arg, "--format", "layout")
    assert status == 0 and err == ""
    assert out == DEAL1_LAYOUT
    assert out.splitlines()[0] == "# HM1-N-AAAAAAB"


def test_show_json(capsys):
    status, out, err = run(capsys, "show", "HM1-N-AAAAAAB", "--format", "json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert set(data) == {"code", "piles", "reserve"}
    assert data["code"] == "HM1-N-AAAAAAB"
    assert len(data["piles"]) == 12
    assert data["piles"][0] == ["6h", "7h", "Jc", "8c", "Ks", "7d", "6s", "8c"]
    assert data["piles"][1][3] == "10h"  # written form: 10, not T or ♥
    assert data["reserve"] == ["10d", "Kd", "Jd", "10c", "Jd", "Ac", "4h", "7s"]


def test_show_text_is_the_diagram(capsys):
    status, out, err = run(capsys, "show", "HM1-N-AAAAAAA")
    assert status == 0 and err == ""
    assert out.splitlines()[0] == "HM1-N-AAAAAAA"
    assert "12:8" in out and "R8:1" in out
    assert out == str(Deal("HM1-N-AAAAAAA"))


def test_show_reveal(capsys):
    _, plain, _ = run(capsys, "show", "0")
    status, revealed, _ = run(capsys, "show", "0", "--reveal")
    assert status == 0
    assert len(revealed.splitlines()) > len(plain.splitlines())
    assert (revealed.count("♣") + revealed.count("♦") + revealed.count("♥")
            + revealed.count("♠")) == 104


def test_show_layout_file(capsys, tmp_path):
    text = make_layout({1: "10c Ah", 2: "5s", 3: "6d"}, "Kh -- Qs Jd")
    path = tmp_path / "position.txt"
    path.write_text(text, encoding="utf-8")
    status, out, err = run(capsys, "show", str(path), "--format", "layout")
    assert status == 0 and err == ""
    assert out == text
    status, out, _ = run(capsys, "show", str(path), "--format", "json")
    data = json.loads(out)
    assert data["code"] is None
    assert data["piles"][0] == ["10c", "Ah"] and data["piles"][4] == []
    assert data["reserve"][:4] == ["Kh", None, "Qs", "Jd"]
    status, out, _ = run(capsys, "show", str(path))
    assert status == 0 and out.splitlines()[0] == "position" and "1:2" in out


def test_show_layout_file_of_a_deal_keeps_the_code(capsys, tmp_path):
    path = tmp_path / "deal.txt"
    path.write_text(format_layout(Deal("HM1-N-AKKEEKB")), encoding="utf-8")
    status, out, _ = run(capsys, "show", str(path), "--format", "json")
    assert status == 0 and json.loads(out)["code"] == "HM1-N-AKKEEKB"


@pytest.mark.parametrize(
    "code, fragment",
    [
        ("HM2-N-AAAAAAB", "prefix"),
        ("HM1-X-AAAAAAB", "family"),
        ("HM1-N-AAAAB", "length"),
        ("HM1-N-AAAA1AB", "not a letter"),
    ],
)
def test_bad_code(capsys, code, fragment):
    assert_one_line_error(capsys, ["show", code], fragment, code)


def test_deal_number_out_of_range(capsys):
    assert_one_line_error(capsys, ["show", str(26**7)], "8031810176")


def test_missing_file(capsys, tmp_path):
    missing = str(tmp_path / "nowhere.txt")
    assert_one_line_error(capsys, ["show", missing], "no such file", "nowhere.txt")
    assert_one_line_error(capsys, ["solve", str(tmp_path)], "is a directory")


@pytest.mark.parametrize("command", ["show", "solve"])
def test_a_png_that_cannot_be_written_is_refused_before_any_work(capsys, tmp_path, command):
    # nothing printed first: the check comes before the deal is solved or shown
    assert_one_line_error(capsys, [command, "3", "--png", str(tmp_path / "no" / "x.png")],
                          "--png", "no such directory")
    assert_one_line_error(capsys, [command, "3", "--png", str(tmp_path)], "is a directory")


@pytest.mark.parametrize("arg", ["²", "١٢", "12a"])
def test_not_a_number_code_or_file(capsys, arg):
    # "²" passes str.isdigit() but not int(): it must still be a clean error.
    assert_one_line_error(capsys, ["show", arg], repr(arg))


def test_bad_layout(capsys, tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text(make_layout({1: "5s", 2: "6d Xx"}), encoding="utf-8")
    assert_one_line_error(capsys, ["show", str(path)], "bad.txt, line 2", "'Xx'")


def test_impossible_layout(capsys, tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text(make_layout({1: "5s", 2: "6d 6d", 3: "6d 5h 5c"}), encoding="utf-8")
    assert_one_line_error(capsys, ["show", str(path)], "bad.txt", "6d", "3 times")


def test_unreadable_layout_file(capsys, tmp_path):
    path = tmp_path / "binary.txt"
    path.write_bytes(b"\xff\xfe\x81")
    assert_one_line_error(capsys, ["show", str(path)], "binary.txt", "cannot read")


def test_solve_refuses_a_budget_for_the_constraint_model(capsys):
    assert_one_line_error(capsys, ["solve", "1", "--engine", "cpsat", "--budget", "5"],
                          "--budget goes with --engine dfs")
    assert_one_line_error(capsys, ["solve", "1", "--budget", "-5"], "--budget", "-5")
    assert_one_line_error(capsys, ["analyse", "1", "--budget", "0"], "bad budget 0")
