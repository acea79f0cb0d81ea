"""The halfmoon command: show in every format, and one-line errors with status 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import make_layout
from spec_vectors import SPEC_VECTORS

from halfmoon import Deal
from halfmoon.cli.main import main
from halfmoon.game.layouts import format_layout

ROOT = Path(__file__).resolve().parents[2]

# The layout vector of deal 1 in the deal-code spec, with its code as the first line.
DEAL1_LAYOUT = "# HM1-N-AAAAAAB\n" + SPEC_VECTORS["HM1-N-AAAAAAB"]


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


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


def test_python_dash_m_halfmoon():
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "halfmoon", "show", "0"],
        capture_output=True, text=True, encoding="utf-8", cwd=ROOT, env=env, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.splitlines()[0] == "HM1-N-AAAAAAA"
    assert result.stdout == str(Deal("HM1-N-AAAAAAA"))


def test_python_dash_m_halfmoon_error():
    result = subprocess.run(
        [sys.executable, "-m", "halfmoon", "show", "HM1-N-AAAAAA"],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("halfmoon: error:")


# --- errors: one line on stderr, status 2 ------------------------------------------


def assert_one_line_error(capsys, argv, *fragments):
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("halfmoon: error:")
    for fragment in fragments:
        assert fragment in lines[0]
    return lines[0]


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


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["show", "0", "--bogus"], "--bogus"),
        (["show", "0", "--format", "xml"], "xml"),
        (["frobnicate"], "frobnicate"),
        ([], "required"),
        (["show"], "required"),
    ],
)
def test_usage_errors(capsys, argv, fragment):
    assert_one_line_error(capsys, argv, fragment, "--help")


def test_help_exits_zero(capsys):
    with pytest.raises(SystemExit) as info:
        main(["show", "--help"])
    assert info.value.code == 0
    assert "--format" in capsys.readouterr().out


# --- play: the board on a local port -------------------------------------------------


def test_play_bad_input_is_one_line(capsys, tmp_path):
    assert_one_line_error(capsys, ["play", "nonsense", "--no-browser"], "'nonsense' is neither")
    assert_one_line_error(capsys, ["play", "HM1-N-AAAAAA", "--no-browser"], "wrong length")
    assert_one_line_error(capsys, ["play", "--port", "70000", "--no-browser"], "bad port 70000")
    assert_one_line_error(capsys, ["play", "--budget", "0", "--no-browser"], "--budget")
    bad = tmp_path / "bad.txt"
    bad.write_text("P1: 5s\n")
    assert_one_line_error(capsys, ["play", str(bad), "--no-browser"], "bad.txt", "missing")


def test_play_on_a_port_in_use_is_one_line(capsys):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert_one_line_error(capsys, ["play", "--port", str(port), "--no-browser"],
                              f"cannot listen on 127.0.0.1:{port}")


def test_play_help_names_its_options(capsys):
    with pytest.raises(SystemExit) as info:
        main(["play", "--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0
    assert all(word in out
               for word in ("--port", "--host", "--no-browser", "CODE|NUMBER|LAYOUT_FILE"))


def _start_play(*args, env=None):
    """``python -m halfmoon play …`` in a subprocess; returns it and its first line."""
    import threading

    env = dict(os.environ if env is None else env, PYTHONUNBUFFERED="1", PYTHONIOENCODING="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "halfmoon", "play", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            encoding="utf-8")
    watchdog = threading.Timer(180, proc.kill)  # never hang the suite
    watchdog.daemon = True
    watchdog.start()
    return proc, proc.stdout.readline()


def test_play_serves_the_deal_and_stops_cleanly_on_ctrl_c(tmp_path):
    import signal
    import urllib.request

    layout = tmp_path / "example.txt"
    layout.write_text(make_layout({1: "5s", 3: "Kh", 5: "Qh", 8: "Jc 6d"}, "Ah 10c"))
    proc, first = _start_play(str(layout), "--no-browser")
    try:
        assert first.startswith("Half Moon board at http://127.0.0.1:"), first
        url = first.split()[4]
        request = urllib.request.Request(url + "api/games", data=b"{}", method="POST",
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            state = json.loads(response.read())
        assert state["piles"][0]["card"]["text"] == "5♠" and state["piles"][7]["count"] == 2
        with urllib.request.urlopen(url, timeout=60) as response:
            assert b"board.js" in response.read()
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert out.strip() == "stopped" and "Traceback" not in err


def test_play_opens_the_default_web_page(tmp_path):
    """``webbrowser`` honours $BROWSER: here a script that hands on the address it got."""
    import signal
    import threading

    fifo = tmp_path / "opened"
    os.mkfifo(fifo)
    script = tmp_path / "fake-browser"
    script.write_text(f'#!/bin/sh\necho "$1" > {fifo}\n')
    script.chmod(0o755)
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_text()), daemon=True)
    reader.start()
    proc, first = _start_play("0", env=dict(os.environ, BROWSER=f"{script} %s"))
    try:
        reader.join(timeout=60)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
        if reader.is_alive():  # release the reader before failing
            fifo.write_text("")
    assert got and got[0].strip() == first.split()[4]


# --- findings: the page from a census -------------------------------------------------


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


# --- players: fair players side by side ------------------------------------------------
def test_players_prints_a_line_a_player_and_json(capsys):
    status, out, err = run(capsys, "players", "--random", "12", "--seed", "3",
                           "--players", "greedy,fair", "--samples", "2", "--workers", "1")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("12 deals (--random 12 --seed 3), seed 3")
    assert [line.split()[0] for line in lines[1:]] == ["greedy", "fair"]
    assert "vs greedy +0.00" in lines[1] and "vs lookahead" in lines[2]
    assert "s a game (2 layouts a decision)" in lines[2]
    status, out, err = run(capsys, "players", "--range", "0:6", "--players", "lookahead,rollout",
                           "--samples", "2", "--workers", "1", "--json")
    assert status == 0, err
    data = json.loads(out)
    assert data["deals"] == 6 and [p["player"] for p in data["players"]] == ["lookahead", "rollout"]
    for p in data["players"]:
        assert {"player", "deals", "won", "win_rate", "vs_greedy", "vs_lookahead",
                "seconds_per_game"} <= set(p)
        assert p["deals"] == 6 and 0 <= p["won"] <= 6
    assert data["players"][0]["vs_lookahead"] == {"mean": 0.0, "low": 0.0, "high": 0.0}


def test_players_bad_input_is_one_line(capsys):
    assert_one_line_error(capsys, ["players", "--random", "5", "--players", "wise"],
                          "unknown player 'wise'")
    assert_one_line_error(capsys, ["players", "--random", "0"], "--random must be at least 1")
    assert_one_line_error(capsys, ["players", "--random", "5", "--samples", "0"],
                          "--samples must be at least 1")
    assert_one_line_error(capsys, ["players", "--range", "9:3"], "bad range")
    assert_one_line_error(capsys, ["players", "--random", "5", "--players", ","],
                          "--players names no player")
    assert_one_line_error(capsys, ["players", "--random", "5", "--workers", "0"],
                          "--workers must be at least 1")
    assert_one_line_error(capsys, ["players"], "one of the arguments")
