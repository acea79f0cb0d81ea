"""The fault script (benchmarks/faults.py), a bounded run of it: Ctrl-C to each of the seven
commands, a plain kill and SIGKILL to the batch and the board, at random moments of their
first seconds, with a busy loop beside them: no failure of any kind (a status other than the
signal's, a traceback, a line beyond the command's one, a process left, a row or a move
lost).  And the script's own judgement, on made-up outcomes: what it counts as a failure."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

import pytest
from test_layers import ROOT

SCRIPT = ROOT / "benchmarks" / "faults.py"
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")


def _faults():
    spec = importlib.util.spec_from_file_location("faults_script", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _run(tmp_path, *args) -> tuple[subprocess.CompletedProcess, list[dict]]:
    out = tmp_path / "faults.jsonl"
    run = subprocess.run([sys.executable, str(SCRIPT), "--short", "--seed", "2026", "--busy", "1",
                          "--window", "0.05:3", "--out", str(out), *args],
                         cwd=ROOT, capture_output=True, text=True, timeout=300)
    records = [json.loads(line) for line in out.read_text().splitlines()] if out.exists() else []
    return run, records


def _failures(records: list[dict]) -> list[str]:
    return [f"trial {r['trial']} {r['command']} {r['signal']} at {r['delay']} s: "
            f"{json.dumps(r['failures'], ensure_ascii=False)[:400]}"
            for r in records if r["failures"]]


def test_ctrl_c_to_every_command_is_one_line_and_130_with_nothing_left(tmp_path):
    run, records = _run(tmp_path, "--signals", "INT", "--trials", "7")
    assert len(records) == 7, run.stdout + run.stderr
    assert {r["command"] for r in records} == {"solve", "analyse", "batch", "bench", "findings",
                                               "players", "play"}
    assert not any(r["sigint_ignored"] for r in records)  # Ctrl-C as on a terminal
    # every command held Ctrl-C while it loaded: the SIGINT met the program, not Python's start
    assert all(r["held_after"] is not None for r in records if r["sent"]), records
    assert _failures(records) == [], run.stdout
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_script_waits_for_a_command_to_hold_ctrl_c():
    faults = _faults()
    holds = ("import signal, time; time.sleep(0.3); "
             "signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}); time.sleep(5)")
    proc = subprocess.Popen([sys.executable, "-c", holds])
    try:
        took = faults.took_ctrl_c(proc, seconds=4.0)
    finally:
        proc.kill()
        proc.wait()
    assert took is not None and 0.3 <= took < 4.0
    never = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(5)"])
    try:
        assert faults.took_ctrl_c(never, seconds=0.5) is None  # the SIGINT then goes as drawn
    finally:
        never.kill()
        never.wait()
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    assert faults.took_ctrl_c(gone) is None


def test_a_kill_of_the_batch_or_the_board_loses_nothing(tmp_path):
    run, records = _run(tmp_path, "--commands", "batch,play", "--signals", "TERM,KILL",
                        "--trials", "4")
    assert [(r["command"], r["signal"]) for r in records] == [
        ("batch", "TERM"), ("play", "TERM"), ("batch", "KILL"), ("play", "KILL")]
    assert _failures(records) == [], run.stdout
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_script_judges_an_outcome_by_its_signal():
    faults = _faults()
    assert faults.judge("solve", "INT", 130, ["halfmoon: interrupted"], False) == {}
    assert set(faults.judge("solve", "INT", -2, [], False)) == {"status", "lines"}
    assert set(faults.judge("batch", "INT", 130, [
        "halfmoon: interrupted: 5 of 9 deals done in run; run the same command again to go on",
        "halfmoon: warning: a worker died"], False)) == {"noise"}
    assert faults.judge("play", "INT", 130, ["stopped"], False) == {}
    assert faults.judge("play", "TERM", 0, ["stopped"], False) == {}
    assert set(faults.judge("solve", "TERM", 0, [], False)) == {"status"}
    assert set(faults.judge("solve", "KILL", 130, [], False)) == {"status"}
    assert faults.judge("solve", "KILL", 0, [], True) == {}  # it had finished: status 0
    for line in ("Traceback (most recent call last):", "BrokenPipeError: [Errno 32] Broken pipe",
                 "KeyboardInterrupt", "Exception ignored in: <function _after_fork>",
                 "UserWarning: resource_tracker: There appear to be 1 leaked semaphore objects"):
        assert faults.TRACE.search(line), line
    for line in ("halfmoon: interrupted", "halfmoon: error: bad deal", "stopped",
                 "halfmoon: warning: the machine is busy"):
        assert not faults.TRACE.search(line), line


def test_the_script_finds_the_moves_of_a_board_state():
    faults = _faults()

    def slot(source, rank):
        return {"source": source, "card": rank and {"rank": rank}}

    state = {"piles": [slot("P1", "A"), slot("P2", "10"), slot("P3", "J"), slot("P4", None)],
             "reserve": [slot("R1", "Q"), slot("R2", "K"), slot("R3", "5"), slot("R4", "6")]}
    assert sorted(map(sorted, faults.legal_moves(state))) == [
        ["P1", "P2"], ["P3", "R1", "R2"], ["R3", "R4"]]
