"""Batch runs: inputs, chunks, resume after Ctrl-C or kill -9, refusals, workers and Dask.

Budgets are small (unresolved is a fine verdict here) and ranges short; runs in worker
processes pay for starting Python and loading the compiled solver, hence generous timeouts.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from pandas.testing import assert_frame_equal

from halfmoon.batch import (
    BatchError,
    DealList,
    deals_from_codes,
    deals_from_numbers,
    deals_from_random,
    parse_range,
    run_batch,
)
from halfmoon.cli import main
from halfmoon.results import MANIFEST_NAME, load_manifest, load_results

BUDGET = 20_000
TIMEOUT = 180  # seconds for one subprocess run, on a busy machine


def batch_args(out: Path, *args: str) -> list[str]:
    return ["batch", "--out", str(out), "--budget", str(BUDGET), *args]


def solved(out: Path):
    """The results without the timings, which differ from run to run."""
    return load_results(out).drop(columns="seconds")


def chunk_names(out: Path) -> set[str]:
    return {p.name for p in out.glob("part-*.parquet")}


def temp_files(out: Path) -> list[str]:
    return [p.name for p in out.iterdir() if p.name.endswith(".tmp")]


def quiet_run(deals, out: Path, **kwargs):
    warnings = []
    summary = run_batch(deals, out, budget=BUDGET, progress=False, log=warnings.append, **kwargs)
    return summary, warnings


# --- inputs -------------------------------------------------------------------------------


def test_range_is_a_to_b_minus_one():
    deals = parse_range("5:9")
    assert list(deals.numbers) == [5, 6, 7, 8]
    assert deals.source == {"kind": "range", "start": 5, "stop": 9}


@pytest.mark.parametrize("text", ["5:5", "9:5", "abc", "1:2:3", "-1:4", "0:999999999999"])
def test_bad_ranges_are_refused(text):
    with pytest.raises(BatchError, match="bad range"):
        parse_range(text)


def test_random_deals_are_distinct_and_reproducible():
    a, b = deals_from_random(50, seed=7), deals_from_random(50, seed=7)
    assert list(a.numbers) == list(b.numbers)
    assert len(set(a.numbers)) == 50
    assert list(deals_from_random(50, seed=8).numbers) != list(a.numbers)
    assert a.source == {"kind": "random", "count": 50, "seed": 7}


def test_deal_numbers_from_a_program_are_checked_and_kept_once():
    deals = deals_from_numbers([5, 3, 5, 0])
    assert list(deals.numbers) == [5, 3, 0] and deals.duplicates == 1
    assert deals.source == {"kind": "numbers", "count": 3}
    for bad in (-1, 26**7, "7", 1.5, True):
        with pytest.raises(BatchError, match="bad deal number"):
            deals_from_numbers([5, bad])


def test_a_deal_list_with_repeats_is_refused(tmp_path):
    with pytest.raises(BatchError, match="names a deal twice"):
        quiet_run(DealList([1, 2, 1], {"kind": "numbers", "count": 3}), tmp_path / "r", workers=1)
    assert not (tmp_path / "r").exists()


def test_codes_file_with_comments_numbers_and_repeats(tmp_path):
    f = tmp_path / "codes.txt"
    f.write_text("# my deals\n\nHM1-N-AAAAAAB\n  hm1-n-aaaaaba  # deal 26, lower case\n7\n1\n")
    deals = deals_from_codes(f)
    assert list(deals.numbers) == [1, 26, 7]
    assert deals.duplicates == 1
    assert deals.source == {"kind": "codes", "file": str(f.resolve())}


def test_codes_file_with_bad_lines_names_them_and_writes_nothing(tmp_path, capsys):
    f = tmp_path / "codes.txt"
    lines = ["HM1-N-AAAAAAA", "HM1-N-AAAA", "12", "hello", "HM1-X-AAAAAAA", "99999999999",
             "HM1-N-AAAAAA1", "HM2-N-AAAAAAA", "also bad", "# fine"]
    f.write_text("\n".join(lines) + "\n")
    out = tmp_path / "results"
    assert main(batch_args(out, "--codes", str(f))) == 2
    err = capsys.readouterr().err
    assert err.startswith("halfmoon: error: ")
    assert "7 malformed lines, nothing was run" in err
    for n in (2, 4, 5, 6, 7):  # the first five bad lines, by number
        assert f"line {n}:" in err
    assert "line 8:" not in err and "and 2 more" in err
    assert "wrong length" in err and "unknown deal family" in err
    assert "Traceback" not in err
    assert not out.exists()


def test_empty_or_missing_codes_file(tmp_path, capsys):
    f = tmp_path / "codes.txt"
    f.write_text("# nothing here\n\n")
    assert main(batch_args(tmp_path / "r", "--codes", str(f))) == 2
    assert "no deal codes or numbers" in capsys.readouterr().err
    assert main(batch_args(tmp_path / "r", "--codes", str(tmp_path / "none.txt"))) == 2
    assert "cannot read codes file" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--range", "0:4", "--workers", "0"], "bad number of workers"),
        (["--range", "0:4", "--chunk-size", "0"], "bad chunk size"),
        (["--range", "0:4", "--budget", "0"], "bad budget"),
        (["--range", "0:4", "--seed", "3"], "--seed goes with --random"),
        (["--random", "0"], "bad --random"),
        (["--range", "0:4", "--random", "3"], "not allowed with"),
        ([], "one of the arguments"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(tmp_path, capsys, args, message):
    assert main(["batch", "--out", str(tmp_path / "r"), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("halfmoon: error: ") and message in err
    assert err.count("\n") == 1


# --- runs in this process ------------------------------------------------------------------


def test_run_writes_chunks_and_a_manifest(tmp_path):
    out = tmp_path / "results"
    summary, warnings = quiet_run(parse_range("0:25"), out, workers=1, chunk_size=10)
    assert warnings == []
    assert (summary.total, summary.resumed, summary.solved) == (25, 0, 25)
    assert sum(summary.counts.values()) == 25
    assert chunk_names(out) == {"part-000000.parquet", "part-000001.parquet", "part-000002.parquet"}
    df = load_results(out)
    assert df["deal"].tolist() == list(range(25))
    assert set(df["verdict"]) <= {"win", "loss", "unresolved"}
    assert (df["budget"] == BUDGET).all()
    wins = df[df["verdict"] == "win"]
    assert wins["line"].notna().all() and df[df["verdict"] != "win"]["line"].isna().all()
    assert all(len(line.split()) == 48 for line in wins["line"])  # 40 pairs and 8 triplets
    manifest = load_manifest(out)
    assert manifest["budget"] == BUDGET and manifest["chunk_size"] == 10
    assert manifest["source"] == {"kind": "range", "start": 0, "stop": 25}
    assert manifest["deals"]["count"] == 25 and manifest["status"] == "complete"
    assert manifest["counts"] == {v: summary.counts[v] for v in ("win", "loss", "unresolved")}


def test_rerun_skips_done_chunks_and_keeps_their_files(tmp_path):
    out = tmp_path / "results"
    quiet_run(parse_range("0:30"), out, workers=1, chunk_size=10)
    before = solved(out)
    (out / "part-000001.parquet").unlink()
    kept = {n: (out / n).stat() for n in ("part-000000.parquet", "part-000002.parquet")}
    summary, _ = quiet_run(parse_range("0:30"), out, workers=1, chunk_size=10)
    assert (summary.resumed, summary.solved) == (20, 10)
    for name, st in kept.items():
        now = (out / name).stat()
        assert (now.st_ino, now.st_mtime_ns) == (st.st_ino, st.st_mtime_ns)
    assert_frame_equal(solved(out), before)
    summary, _ = quiet_run(parse_range("0:30"), out, workers=1, chunk_size=10)
    assert (summary.resumed, summary.solved) == (30, 0)


def test_a_different_run_is_refused_with_one_line(tmp_path, capsys):
    out = tmp_path / "results"
    assert main(batch_args(out, "--range", "0:12", "--workers", "1", "--chunk-size", "5")) == 0
    capsys.readouterr()
    files = sorted(p.name for p in out.iterdir())
    manifest = (out / MANIFEST_NAME).read_text()
    for args, differs in [
        (["--range", "0:13", "--chunk-size", "5"], "differs in deals"),
        (["--range", "0:12", "--chunk-size", "6"], "differs in chunk size"),
        (["--range", "0:12", "--chunk-size", "5", "--budget", "999"], "differs in budget"),
    ]:
        argv = ["batch", "--out", str(out), "--workers", "1", *args]
        if "--budget" not in args:
            argv += ["--budget", str(BUDGET)]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert err.startswith(f"halfmoon: error: {out} holds another run's results (--range 0:12")
        assert differs in err and "choose another --out" in err
    assert sorted(p.name for p in out.iterdir()) == files
    assert (out / MANIFEST_NAME).read_text() == manifest


def test_a_directory_of_chunks_without_manifest_is_refused(tmp_path):
    out = tmp_path / "results"
    quiet_run(parse_range("0:5"), out, workers=1)
    (out / MANIFEST_NAME).unlink()
    with pytest.raises(BatchError, match="holds chunk files but no _manifest.json"):
        quiet_run(parse_range("0:5"), out, workers=1)


def test_truncated_chunk_is_reported_and_solved_again(tmp_path, capsys):
    out = tmp_path / "results"
    args = batch_args(out, "--range", "0:20", "--workers", "1", "--chunk-size", "10")
    assert main(args) == 0
    before = solved(out)
    bad = out / "part-000001.parquet"
    bad.write_bytes(bad.read_bytes()[:300])
    capsys.readouterr()
    assert main(args) == 0
    captured = capsys.readouterr()
    assert f"halfmoon: warning: {bad}: unreadable chunk file" in captured.err
    assert "its deals will be solved again" in captured.err
    assert "10 solved now, 10 before" in captured.out
    assert_frame_equal(solved(out), before)


def test_a_chunk_holding_other_deals_is_solved_again(tmp_path):
    out = tmp_path / "results"
    quiet_run(parse_range("0:10"), out, workers=1, chunk_size=5)
    os.replace(out / "part-000001.parquet", out / "part-000000.parquet")
    summary, warnings = quiet_run(parse_range("0:10"), out, workers=1, chunk_size=5)
    assert summary.solved == 10
    assert any("does not hold the deals of chunk 0" in w for w in warnings)
    assert load_results(out)["deal"].tolist() == list(range(10))


def test_temporary_files_of_a_killed_run_are_removed(tmp_path):
    out = tmp_path / "results"
    quiet_run(parse_range("0:6"), out, workers=1, chunk_size=3)
    (out / ".part-000001.parquet.4242.tmp").write_bytes(b"PAR1 half a chunk")
    (out / "._manifest.json.4242.tmp").write_text("{")
    (out / ".notes.tmp").write_text("not ours")
    assert load_results(out)["deal"].tolist() == list(range(6))  # readers skip them
    summary, _ = quiet_run(parse_range("0:6"), out, workers=1, chunk_size=3)
    assert summary.solved == 0
    assert temp_files(out) == [".notes.tmp"]


def test_a_directory_in_use_is_refused(tmp_path):
    out = tmp_path / "results"
    out.mkdir()
    with open(out / ".lock", "a") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX)
        with pytest.raises(BatchError, match="another batch run is writing into"):
            quiet_run(parse_range("0:3"), out, workers=1)
    assert chunk_names(out) == set()


def test_a_failing_worker_stops_the_run_with_one_line_and_keeps_chunks(tmp_path, monkeypatch):
    import halfmoon.batch as batch

    real = batch.solve_piece

    def failing(numbers, budget):
        if 6 in numbers:
            raise RuntimeError("boom\nsecond line")
        return real(numbers, budget)

    monkeypatch.setattr(batch, "solve_piece", failing)
    out = tmp_path / "results"
    with pytest.raises(BatchError, match=r"^solving deals 6\.\.8 failed: RuntimeError: boom second line$"):
        quiet_run(parse_range("0:9"), out, workers=1, chunk_size=3)
    assert chunk_names(out) == {"part-000000.parquet", "part-000001.parquet"}
    assert temp_files(out) == []


def test_codes_file_run_solves_each_deal_once(tmp_path):
    f = tmp_path / "codes.txt"
    f.write_text("3\nHM1-N-AAAAAAB\n# again:\n3\n")
    summary, warnings = quiet_run(deals_from_codes(f), tmp_path / "r", workers=1)
    assert summary.total == 2
    assert warnings == ["1 repeated deals in the input: each deal is solved once"]
    df = load_results(tmp_path / "r")
    assert df["deal"].tolist() == [1, 3]
    assert df["code"].tolist() == ["HM1-N-AAAAAAB", "HM1-N-AAAAAAD"]


# --- worker processes and Dask --------------------------------------------------------------


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


def test_unreachable_scheduler_is_one_line(tmp_path, capsys):
    pytest.importorskip("distributed")
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        assert main(batch_args(tmp_path / "r", "--range", "0:3", "--scheduler", "tcp://127.0.0.1:9")) == 2
    err = capsys.readouterr().err
    assert err.startswith("halfmoon: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")
    assert err.count("\n") == 1


def _start(out: Path, deals: str, chunk_size: int) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "halfmoon", *batch_args(out, "--range", deals, "--workers", "2",
                                                         "--chunk-size", str(chunk_size))]
    return subprocess.Popen(cmd, cwd=out.parent, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=_ctrl_c_as_on_a_terminal)


def _ctrl_c_as_on_a_terminal() -> None:
    """A shell runs background jobs with SIGINT ignored, and Python then keeps it
    ignored; the run under test gets Ctrl-C as it would on a terminal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for_first_chunk(proc: subprocess.Popen, out: Path) -> set[str]:
    """Wait until the run has written a chunk file; the chunk files then."""
    deadline = time.monotonic() + TIMEOUT
    while not (out.is_dir() and chunk_names(out)):
        if proc.poll() is not None or time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            pytest.fail(f"no chunk before the run ended: {proc.communicate()}")
        time.sleep(0.01)
    return chunk_names(out)


def _members(pgid: int) -> dict[int, int]:
    """Running (not zombie) processes of a process group: pid -> parent pid."""
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            out[int(stat.parent.name)] = int(fields[1])
    return out


def _live_members(pgid: int) -> list[int]:
    return sorted(_members(pgid))


def _wait_for_no_live_members(pgid: int, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while _live_members(pgid) and time.monotonic() < deadline:
        time.sleep(0.1)
    live = _live_members(pgid)
    for pid in live:  # do not leave them running after a failed test
        os.kill(pid, signal.SIGKILL)
    return live


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
    assert _wait_for_no_live_members(proc.pid, 60) == [], "orphaned workers stayed"


def test_a_worker_killed_mid_run_stops_it_with_exit_2(tmp_path):
    out = tmp_path / "results"
    proc = _start(out, "0:160", 8)
    _wait_for_first_chunk(proc, out)
    members = _members(proc.pid)
    # The workers are the children of the forkserver, itself a child of the run.
    workers = [pid for pid, parent in members.items() if parent in members and parent != proc.pid]
    assert workers
    os.kill(workers[0], signal.SIGKILL)  # as the out-of-memory killer would
    stdout, stderr = proc.communicate(timeout=TIMEOUT)
    assert proc.returncode == 2
    assert stderr.startswith("halfmoon: error: a worker process died (out of memory?) solving deal")
    assert stderr.count("\n") == 1
    assert load_results(out)["deal"].is_unique and temp_files(out) == []
    assert _wait_for_no_live_members(proc.pid, 30) == []


def test_ctrl_c_exits_130_and_keeps_finished_chunks(tmp_path):
    out = tmp_path / "results"
    # far more deals than can finish between the first chunk and the signal
    proc = _start(out, "0:4000", 8)
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
    assert _wait_for_no_live_members(proc.pid, 30) == [], "worker processes outlived the run"
    assert json.loads((out / MANIFEST_NAME).read_text())["status"] == "running"
