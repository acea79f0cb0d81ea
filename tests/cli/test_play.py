"""halfmoon play: bad input, a port in use, serving and stopping."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from cli_helpers import ROOT, assert_one_line_error
from conftest import make_layout
from process_groups import ctrl_c_as_on_a_terminal, members, wait_for_no_live_members

from halfmoon.cli.main import main


def test_play_bad_input_is_one_line(capsys, tmp_path):
    assert_one_line_error(capsys, ["play", "nonsense", "--no-browser"], "'nonsense' is neither")
    assert_one_line_error(capsys, ["play", "HM1-N-AAAAAA", "--no-browser"], "wrong length")
    assert_one_line_error(capsys, ["play", "--port", "70000", "--no-browser"], "bad port 70000")
    assert_one_line_error(capsys, ["play", "--budget", "0", "--no-browser"], "--budget")
    bad = tmp_path / "bad.txt"
    bad.write_text("P1: 5s\n")
    assert_one_line_error(capsys, ["play", str(bad), "--no-browser"], "bad.txt", "missing")
    assert_one_line_error(capsys, ["play", "--moves", "P1+P8", "--no-browser"],
                          "--moves needs a deal")
    assert_one_line_error(capsys, ["play", "3", "--moves", "P1+P2", "--no-browser"],
                          "move 1 (P1+P2): illegal move")
    assert_one_line_error(capsys, ["play", "3", "--moves", "P1+P8 P9", "--no-browser"],
                          "move 2: move P9 must remove two or three cards")


def test_play_refuses_a_file_of_games_not_its_own_with_one_line(capsys, tmp_path):
    bad = tmp_path / "notes.txt"
    bad.write_text("my notes, not a database\n" * 100)
    assert_one_line_error(capsys, ["play", "--store", str(bad), "--no-browser"],
                          "notes.txt is not a file of the board's games", "left as it is")
    assert bad.read_text() == "my notes, not a database\n" * 100
    assert_one_line_error(capsys, ["play", "--store", str(tmp_path), "--no-browser"],
                          "is a folder")


def test_play_on_a_port_in_use_is_one_line(capsys, tmp_path):
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert_one_line_error(capsys, ["play", "--port", str(port), "--no-browser", "--store",
                                       str(tmp_path / "games.sqlite3")],
                              f"cannot listen on 127.0.0.1:{port}")


def test_play_help_names_its_options(capsys):
    with pytest.raises(SystemExit) as info:
        main(["play", "--help"])
    out = capsys.readouterr().out
    assert info.value.code == 0
    assert all(word in out
               for word in ("--port", "--host", "--no-browser", "CODE|NUMBER|LAYOUT_FILE"))


def _start_play(*args, env=None):
    """``python -m halfmoon play …`` in a subprocess, its games kept in a folder of its own
    (unless ``--store`` is given); returns it and its first line (the line that follows,
    which says where its games are kept, is read too: ``proc.store_line``)."""
    import tempfile
    import threading

    env = dict(os.environ if env is None else env, PYTHONUNBUFFERED="1", PYTHONIOENCODING="utf-8")
    if "--store" not in args:
        env["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="halfmoon-play-")
    proc = subprocess.Popen([sys.executable, "-m", "halfmoon", "play", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            encoding="utf-8")
    watchdog = threading.Timer(180, proc.kill)  # never hang the suite
    watchdog.daemon = True
    watchdog.start()
    first = proc.stdout.readline()
    proc.store_line = proc.stdout.readline() if first.startswith("Half Moon board at") else ""
    return proc, first


def test_play_serves_the_deal_and_stops_cleanly_on_ctrl_c(tmp_path):
    import signal
    import urllib.request

    layout = tmp_path / "example.txt"
    layout.write_text(make_layout({1: "5s", 3: "Kh", 5: "Qh", 8: "Jc 6d"}, "Ah 10c"))
    # the board opens on the deal with the moves given played
    proc, first = _start_play(str(layout), "--no-browser", "--moves", "6d P8 + 5s P1")
    try:
        assert first.startswith("Half Moon board at http://127.0.0.1:"), first
        url = first.split()[4]
        request = urllib.request.Request(url + "api/games", data=b"{}", method="POST",
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            state = json.loads(response.read())
        assert state["piles"][0]["count"] == 0 and state["piles"][7]["count"] == 1
        assert state["piles"][7]["card"]["text"] == "J♣"
        with urllib.request.urlopen(url, timeout=60) as response:
            assert b"board.js" in response.read()
    finally:
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err  # Ctrl-C: as every command
    assert out.strip() == "stopped" and "Traceback" not in err


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
def test_play_stops_quietly_with_a_request_waiting_for_news(tmp_path, signal_name):
    """Ctrl-C or a plain kill while the page waits for the solver's news (a long poll): the
    waiting request is answered, the command says "stopped" and exits (130 after Ctrl-C, as
    every command, 0 after SIGTERM), and nothing else
    is printed (no cancelled request's traceback, no "graceful shutdown exceeded")."""
    import signal
    import threading
    import urllib.request

    proc, first = _start_play("1", "--no-browser")
    answered = []
    try:
        url = first.split()[4]
        request = urllib.request.Request(url + "api/games", data=b"{}", method="POST",
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request, timeout=60) as response:
            game = json.loads(response.read())["id"]
        opinion = f"{url}api/games/{game}/opinion"
        with urllib.request.urlopen(opinion, timeout=60) as response:
            tag = json.loads(response.read())["tag"]

        def wait_for_news():
            with urllib.request.urlopen(f"{opinion}?since={tag}&wait=25", timeout=60) as answer:
                answered.append(answer.status)

        waiting = threading.Thread(target=wait_for_news, daemon=True)
        waiting.start()
        waiting.join(timeout=1.0)  # the request is in, and waits
    finally:
        proc.send_signal(getattr(signal, signal_name))
        out, err = proc.communicate(timeout=60)
    waiting.join(timeout=60)
    assert proc.returncode == (130 if signal_name == "SIGINT" else 0), err
    assert out.strip() == "stopped"
    assert "Traceback" not in err and "Cancel" not in err and "ERROR" not in err, err
    assert answered == [200]


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
        proc.send_signal(signal.SIGINT)  # at once: the server may still be starting
        out, err = proc.communicate(timeout=60)
        if reader.is_alive():  # release the reader before failing
            fifo.write_text("")
    assert got and got[0].strip() == first.split()[4]
    assert proc.returncode == 130 and out.strip() == "stopped", err
    assert "Traceback" not in err and "never awaited" not in err, err


@pytest.mark.parametrize("delay", [0.0, 0.3])
def test_ctrl_c_as_the_board_starts_stops_it_with_one_line(delay):
    """Ctrl-C right after the address is printed, while the server and its solver process
    may still be starting: "stopped", status 130, nothing else (no half-started coroutine's
    warning), within moments."""
    import signal
    import time

    proc, first = _start_play("0", "--no-browser")
    time.sleep(delay)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert first.startswith("Half Moon board at http://127.0.0.1:"), first
    assert (proc.returncode, out.strip(), err) == (130, "stopped", "")
    assert time.monotonic() - t0 < 30


def test_ctrl_c_on_a_cold_board_leaves_none_of_its_processes(tmp_path):
    """Ctrl-C on a first board, while the solver's kernels compile (an empty numba cache) in
    the helpers its solver process starts: "stopped", status 130, and no process it started
    left, the helpers included (they would compile on for a minute)."""
    import signal
    import threading
    import time
    from pathlib import Path

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"), PYTHONUNBUFFERED="1",
               PYTHONIOENCODING="utf-8", XDG_DATA_HOME=str(tmp_path / "data"))
    proc = subprocess.Popen([sys.executable, "-m", "halfmoon", "play", "0", "--no-browser"],
                            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, encoding="utf-8", start_new_session=True,
                            preexec_fn=ctrl_c_as_on_a_terminal)
    watchdog = threading.Timer(180, proc.kill)  # never hang the suite
    watchdog.daemon = True
    watchdog.start()

    def compiling() -> list[int]:
        found = []
        for pid in members(proc.pid, session=True):
            try:
                if b"solver.build.warmup" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    found.append(pid)
            except OSError:
                pass
        return found

    try:
        said = proc.stderr.readline()
        deadline = time.monotonic() + 60
        # both helpers, not the first alone: the second may start a moment after the first
        while len(compiling()) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        helpers = compiling()
        os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole process group
        out, err = proc.communicate(timeout=60)
    finally:
        left = wait_for_no_live_members(proc.pid, 5, session=True)
        watchdog.cancel()
    assert "halfmoon: compiling the solver's kernels in 2 processes" in said, said
    # each of the board's two solver processes may start its pair of helpers (where both
    # find the cache cold; the second pair waits on the first's locks): all are stopped
    assert len(helpers) in (2, 4), helpers
    assert (proc.returncode, out.splitlines()[2:]) == (130, ["stopped"]), err
    assert left == []


def _post(url: str, body: dict) -> dict:
    import urllib.request

    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())


def _get(url: str):
    """(status, JSON) of a GET, an error's too."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@pytest.mark.parametrize("stop", ["SIGINT", "SIGKILL"])
def test_a_game_from_the_app_outlives_the_board(tmp_path, stop):
    """A game from the app made, a move played and its card told, the board stopped (Ctrl-C,
    or kill -9 at once after the change) and started again on the same file: the same id
    answers with the same moves and cards; an id never made says so."""
    import signal

    from halfmoon.game.deal import Deal

    deal = Deal.from_number(27)  # every move uncovers pile cards
    cards = " ".join(str(c) for c in [p[-1] for p in deal.piles] + list(deal.reserve))
    store = str(tmp_path / "games.sqlite3")
    proc, first = _start_play("--no-browser", "--store", store)
    try:
        url = first.split()[4]
        game = _post(url + "api/along", {"cards": cards})
        for source in ("P3", "R7", "R8"):
            state = _post(f"{url}api/games/{game['id']}/tap", {"source": source})
        told = str(deal.piles[2][-2])
        state = _post(f"{url}api/games/{game['id']}/reveal", {"pile": "P3", "card": told})
    finally:
        proc.send_signal(getattr(signal, stop))
        proc.communicate(timeout=60)
    assert proc.returncode == (130 if stop == "SIGINT" else -signal.SIGKILL)
    proc, first = _start_play("--no-browser", "--store", store)
    try:
        url = first.split()[4]
        status, again = _get(f"{url}api/games/{game['id']}")
        missing = _get(f"{url}api/games/nevermade000")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    assert status == 200
    assert again["position"] == state["position"] and again["piles"] == state["piles"]
    assert again["status"]["moves"] == state["status"]["moves"] == 1
    assert again["reserve"] == state["reserve"] and again["version"] == state["version"]
    assert again["piles"][2]["card"]["text"] == deal.piles[2][-2].symbol()
    assert missing == (404, {"error": "no game 'nevermade000': there never was one by this id "
                                      "in the board's file"})


def _stop(proc) -> tuple[str, str]:
    import signal

    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and "Traceback" not in err, err
    return out, err


def test_a_second_board_on_the_same_file_is_refused_naming_the_first(tmp_path):
    """One file of games, one board: the second says which board holds it and exits 2;
    the first goes on, and every move it answered is in the file after a restart."""
    store = tmp_path / "games.sqlite3"
    first, line = _start_play("27", "--no-browser", "--store", str(store))
    try:
        url = line.split()[4]
        assert first.store_line.strip() == f"games kept in {store}: a new file"
        game = _post(url + "api/games", {})
        for source in ("P3", "R7", "R8"):
            game = _post(url + f"api/games/{game['id']}/tap",
                         {"source": source, "version": game["version"]})
        second = subprocess.run([sys.executable, "-m", "halfmoon", "play", "27", "--no-browser",
                                 "--store", str(store)], cwd=ROOT, capture_output=True,
                                text=True, timeout=120)
        assert second.returncode == 2 and second.stdout == ""
        assert second.stderr.splitlines() == [
            f"halfmoon: error: {store} is in use by the board at {url} (pid {first.pid}): one "
            "board at a time on a file of games (stop that one, or give this one another file "
            "with --store)"]
    finally:
        _stop(first)
    again, line = _start_play("27", "--no-browser", "--store", str(store))
    try:
        assert again.store_line.strip() == f"games kept in {store}: 1 game"
        status, kept = _get(line.split()[4] + f"api/games/{game['id']}")
        assert status == 200 and kept["version"] == game["version"] and kept["status"]["moves"] == 1
    finally:
        _stop(again)


@pytest.fixture
def unwritable(tmp_path):
    """A file of games that cannot be written: immutable where the user is root (who may
    write any file whatever its mode), read-only otherwise."""
    store = tmp_path / "games.sqlite3"
    from halfmoon.board.store import SavedGames

    SavedGames(store).close()  # a file of the board's, with no game yet
    if os.geteuid() == 0:
        made = subprocess.run(["chattr", "+i", str(store)], capture_output=True, text=True)
        assert made.returncode == 0, f"chattr +i (needed to make a file root cannot write): " \
                                     f"{made.stderr.strip()}"
        yield store
        subprocess.run(["chattr", "-i", str(store)], check=True)
    else:
        store.chmod(0o444)
        yield store


def test_a_board_on_a_file_it_cannot_write_is_refused_at_start(unwritable):
    before = unwritable.read_bytes()
    run = subprocess.run([sys.executable, "-m", "halfmoon", "play", "27", "--no-browser",
                          "--store", str(unwritable)], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 2 and run.stdout == "", run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"halfmoon: error: {unwritable} cannot be "
                                                   "written ("), lines
    assert "readonly database" in lines[0] and "give another file with --store" in lines[0]
    assert unwritable.read_bytes() == before
