"""Batch runs in worker processes and on Dask: same results, Ctrl-C, kill -9, dead workers.

Runs in worker processes pay for starting Python and loading the compiled solver, hence
generous timeouts.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from batch_helpers import TIMEOUT, batch_args, chunk_names, quiet_run, solved, temp_files
from pandas.testing import assert_frame_equal
from process_groups import ctrl_c_as_on_a_terminal, wait_for_no_live_members
from process_groups import members as group_members

from halfmoon.batch import (
    parse_range,
)
from halfmoon.batch.results import MANIFEST_NAME, load_results
from halfmoon.cli.main import main


def test_same_results_with_1_worker_2_workers_and_dask(tmp_path, capsys):
    distributed = pytest.importorskip("distributed")
    deals = parse_range("0:40")
    quiet_run(deals, tmp_path / "one", workers=1, chunk_size=7)
    quiet_run(deals, tmp_path / "two", workers=2, chunk_size=7)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
        silence_logs=logging.ERROR,
    ) as cluster:
        args = batch_args(tmp_path / "dask", "--range", "0:40", "--chunk-size", "7",
                          "--scheduler", cluster.scheduler_address)
        assert main(args) == 0
    assert "40 solved now" in capsys.readouterr().out
    one = solved(tmp_path / "one")
    assert one["deal"].tolist() == list(range(40))
    assert_frame_equal(solved(tmp_path / "two"), one)
    assert_frame_equal(solved(tmp_path / "dask"), one)
    assert chunk_names(tmp_path / "dask") == chunk_names(tmp_path / "one")


@contextlib.contextmanager
def _refusing_port():
    """A loopback port bound and not listening: a connection to it is refused."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


@contextlib.contextmanager
def _silent_scheduler(full: bool):
    """A loopback scheduler's address that never answers: ``full=False``, the connection is
    made and nothing is ever said on it; ``full=True``, the port's queue is full, so a new
    connection's packets go unanswered, as at an address where nothing answers at all (only
    loopback traffic, whichever)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(0)
        address = s.getsockname()
        fillers = []
        try:
            if full:
                for _ in range(3):
                    c = socket.socket()
                    fillers.append(c)
                    c.setblocking(False)
                    c.connect_ex(address)
                with socket.socket() as probe:
                    probe.settimeout(0.3)
                    try:
                        probe.connect(address)
                    except (TimeoutError, socket.timeout):
                        pass
                    else:
                        pytest.skip("this system answers a connection to a full queue")
            yield f"tcp://127.0.0.1:{address[1]}"
        finally:
            for c in fillers:
                c.close()


@pytest.mark.parametrize("form", ["tcp://127.0.0.1:{}", "127.0.0.1:{}"])
@pytest.mark.parametrize("dry_run", [[], ["--dry-run"]])
def test_a_refused_scheduler_is_one_line_at_once(tmp_path, capsys, form, dry_run):
    """Dask retries a refused connection until its timeout, then said it had timed out."""
    pytest.importorskip("distributed")
    with _refusing_port() as port:
        address = form.format(port)
        t0 = time.monotonic()
        assert main(batch_args(tmp_path / "r", "--range", "0:3", "--scheduler", address,
                               *dry_run)) == 2
        waited = time.monotonic() - t0
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == [
        f"halfmoon: error: cannot reach the Dask scheduler at {address}: connection refused"]
    assert waited < 5  # not the 10 s of the connect timeout
    assert not (tmp_path / "r").exists()


def test_unreachable_scheduler_is_named_after_its_timeout_with_a_word_while_it_waits(
        tmp_path, capsys):
    pytest.importorskip("distributed")
    import distributed  # noqa: F401 - loaded before the clock starts

    with _silent_scheduler(full=True) as address:
        t0 = time.monotonic()
        assert main(batch_args(tmp_path / "r", "--range", "0:3", "--scheduler", address,
                               "--connect-timeout", "1.5")) == 2
        waited = time.monotonic() - t0
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"halfmoon: connecting to the Dask scheduler at {address} (at most 1.5 s)...",
        f"halfmoon: error: cannot reach the Dask scheduler at {address}: no answer within 1.5 s"]
    assert 1.5 <= waited < 1.5 + 5  # the time said is the time waited
    assert not (tmp_path / "r").exists()
    assert main(batch_args(tmp_path / "r", "--range", "0:3", "--connect-timeout", "3")) == 2
    assert "--connect-timeout goes with --scheduler" in capsys.readouterr().err


@pytest.mark.parametrize("address, what", [
    ("nonsense", "no port"), ("localhost", "no port"), ("tcp://127.0.0.1:8799/", "a '/' after"),
    ("http://127.0.0.1:8786", "unknown protocol 'http'"), ("tcp://127.0.0.1:8786x", "'8786x'"),
    ("127.0.0.1:0", "not a number from 1 to 65535"),
])
def test_a_malformed_scheduler_address_is_one_line_before_any_connection(tmp_path, capsys,
                                                                         address, what):
    t0 = time.monotonic()
    assert main(batch_args(tmp_path / "r", "--range", "0:3", "--scheduler", address)) == 2
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and len(lines) == 1
    assert lines[0].startswith(f"halfmoon: error: bad scheduler address {address!r}: ")
    assert what in err and "e.g. tcp://127.0.0.1:8786" in err and "connecting" not in err
    assert time.monotonic() - t0 < 5 and not (tmp_path / "r").exists()
    # the dry run too
    assert main(batch_args(tmp_path / "r", "--range", "0:3", "--scheduler", address,
                           "--dry-run")) == 2
    assert what in capsys.readouterr().err


def test_an_unreachable_scheduler_leaves_no_traceback_and_no_stall_after_its_timeout(tmp_path):
    """Dask's client that could not connect used to try closing itself again when collected:
    twice the timeout more, then an "Exception ignored" traceback at exit.  And a server that
    takes the connection and never answers held Dask's handshake for ever, whatever its
    timeout: the timeout is the whole time to connect."""
    pytest.importorskip("distributed")
    with _silent_scheduler(full=False) as address:
        t0 = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "halfmoon", *batch_args(tmp_path / "r", "--range", "0:3",
                                                           "--scheduler", address,
                                                           "--connect-timeout", "1")],
            capture_output=True, text=True, timeout=60)
        waited = time.monotonic() - t0
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.splitlines() == [
        f"halfmoon: connecting to the Dask scheduler at {address} (at most 1 s)...",
        f"halfmoon: error: cannot reach the Dask scheduler at {address}: no answer within 1 s"]
    assert waited < 1 + 15  # starting Python and loading the solver, not 2 s more of closing


def _start(out: Path, deals: str, chunk_size: int) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "halfmoon", *batch_args(out, "--range", deals, "--workers", "2",
                                                         "--chunk-size", str(chunk_size))]
    return subprocess.Popen(cmd, cwd=out.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=ctrl_c_as_on_a_terminal)


def _wait_for_first_chunk(proc: subprocess.Popen, out: Path) -> set[str]:
    """Wait until the run has written a chunk file; the chunk files then."""
    deadline = time.monotonic() + TIMEOUT
    while not (out.is_dir() and chunk_names(out)):
        if proc.poll() is not None or time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail(f"no chunk before the run ended: {proc.communicate()}")
        time.sleep(0.01)
    return chunk_names(out)


def test_kill_9_mid_run_then_rerun_gives_every_deal_once(tmp_path):
    out = tmp_path / "results"
    proc = _start(out, "0:160", 8)
    _wait_for_first_chunk(proc, out)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=TIMEOUT)
    assert proc.returncode == -signal.SIGKILL
    at_kill = chunk_names(out)
    assert 1 <= len(at_kill) < 20, "the run should be killed half way"
    # Whatever the kill interrupted, every file with a final name is a whole chunk.
    partial = load_results(out)
    assert partial["deal"].is_unique and len(partial) == 8 * len(chunk_names(out))

    rerun = _start(out, "0:160", 8)
    stdout, stderr = rerun.communicate(timeout=TIMEOUT)
    assert rerun.returncode == 0, stderr
    assert "Traceback" not in stderr
    df = load_results(out)
    assert df["deal"].tolist() == list(range(160))
    assert temp_files(out) == []
    assert f"{160 - len(partial)} solved now, {len(partial)} before" in stdout


def test_workers_leave_when_the_parent_alone_is_killed(tmp_path):
    out = tmp_path / "results"
    proc = _start(out, "0:160", 8)
    _wait_for_first_chunk(proc, out)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=TIMEOUT)
    assert wait_for_no_live_members(proc.pid, 60) == [], "orphaned workers stayed"


def test_a_worker_killed_mid_run_stops_it_with_exit_2(tmp_path):
    out = tmp_path / "results"
    proc = _start(out, "0:160", 8)
    _wait_for_first_chunk(proc, out)
    members = group_members(proc.pid)
    # The workers are the children of the forkserver, itself a child of the run.
    workers = [pid for pid, parent in members.items() if parent in members and parent != proc.pid]
    assert workers
    os.kill(workers[0], signal.SIGKILL)  # as the out-of-memory killer would
    stdout, stderr = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 2
    assert stderr.startswith("halfmoon: error: a worker process died (out of memory?) solving deal")
    assert stderr.count("\n") == 1
    assert load_results(out)["deal"].is_unique and temp_files(out) == []
    assert wait_for_no_live_members(proc.pid, 30) == []


def test_ctrl_c_exits_130_and_keeps_finished_chunks(tmp_path):
    out = tmp_path / "results"
    # far more deals than can finish between the first chunk and the signal
    proc = _start(out, "0:40000", 8)
    at_signal = _wait_for_first_chunk(proc, out)
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 130
    assert stderr.startswith("halfmoon: interrupted: ")
    assert "run the same command again" in stderr and "Traceback" not in stderr
    assert at_signal <= chunk_names(out) and len(chunk_names(out)) < 20
    df = load_results(out)
    assert df["deal"].is_unique and len(df) == 8 * len(chunk_names(out))
    assert temp_files(out) == []
    assert wait_for_no_live_members(proc.pid, 30) == [], "worker processes outlived the run"
    assert json.loads((out / MANIFEST_NAME).read_text())["status"] == "running"


def test_kill_9_of_the_run_alone_then_a_rerun_at_once_gives_every_deal_once(tmp_path):
    """The workers write the chunks: killed alone, the run leaves them orphaned, perhaps in
    the middle of a write, while the rerun starts; each chunk is still whole and once."""
    out = tmp_path / "results"
    proc = _start(out, "0:160", 8)
    _wait_for_first_chunk(proc, out)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=TIMEOUT)
    rerun = _start(out, "0:160", 8)
    stdout, stderr = rerun.communicate(timeout=TIMEOUT)
    assert rerun.returncode == 0, stderr
    assert "Traceback" not in stderr
    df = load_results(out)
    assert df["deal"].tolist() == list(range(160))
    assert temp_files(out) == [] and len(chunk_names(out)) == 20
    assert wait_for_no_live_members(proc.pid, 60) == [], "orphaned workers stayed"


@pytest.mark.parametrize("after", [0.5, 0.8, 1.0, 1.5, 5.0])
def test_ctrl_c_at_any_moment_is_one_line_and_exit_130(tmp_path, after):
    """Ctrl-C while the command starts (its imports: numpy, pyarrow, the solver, most of its
    first second), while the workers' fork server loads the solver (the first seconds), and
    while the workers solve: one line, exit 130, nothing left.  The status is the process's
    own: 130, not killed by SIGINT (as ``python -m`` does at exit after a KeyboardInterrupt
    raised inside an import's ``exec``)."""
    out = tmp_path / "results"
    cmd = [sys.executable, "-m", "halfmoon", *batch_args(out, "--random", "40000", "--seed", "1",
                                                         "--workers", "2", "--chunk-size", "500")]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True,
                            preexec_fn=ctrl_c_as_on_a_terminal)
    time.sleep(after)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole process group
    stdout, stderr = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 130, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("halfmoon: interrupted"), stderr
    assert stdout == ""
    assert wait_for_no_live_members(proc.pid, 30) == [], "processes outlived the run"


def test_stopping_workers_amid_sending_a_result_leaves_no_thread_waiting():
    """Workers stopped while a large result is half through the pipe: the stop returns at
    once and leaves no thread of the pool behind (the interpreter's exit would wait for
    one for ever, after the run had said "interrupted")."""
    from halfmoon.batch.backends import Pool

    for after in (0.1, 0.25, 0.4, 0.55, 0.7):
        pool = Pool(2)
        handles = [pool.submit(bytes, 60_000_000) for _ in range(12)]  # results of 60 MB
        time.sleep(after)
        manager = pool.executor._executor_manager_thread
        started = time.monotonic()
        pool.close(cancel=True)
        assert time.monotonic() - started < 20, f"stopped {after} s in: the stop waited"
        assert not manager.is_alive(), f"stopped {after} s in: a thread still waits"
        del handles
