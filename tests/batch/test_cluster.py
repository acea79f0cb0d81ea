"""Runs on a Dask cluster whose workers write the chunk files themselves: same results as a
local run, into a directory or an fsspec URL; a worker killed mid-task, the client killed,
an output the workers and the client do not share.

One LocalCluster of two worker processes serves the whole module."""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import threading
import time
import uuid

import pytest
from batch_helpers import BUDGET, TIMEOUT, batch_args, chunk_names, quiet_run, solved, temp_files
from pandas.testing import assert_frame_equal
from test_store import read_url

from halfmoon.batch import parse_range, run_batch
from halfmoon.batch.results import load_results
from halfmoon.cli.main import main

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def cluster():
    # ":0": a free port for the scheduler's HTTP server (None still binds 8787, so a second
    # cluster in the same session would warn and move)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
        silence_logs=logging.ERROR,
    ) as c:
        yield c


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    """Deals 0-59 solved in this process, chunks of 6: what every cluster run must match."""
    out = tmp_path_factory.mktemp("local") / "results"
    quiet_run(parse_range("0:60"), out, workers=1, chunk_size=6)
    return solved(out)


def test_workers_write_the_chunks_and_the_results_are_a_local_runs(cluster, local, tmp_path,
                                                                   monkeypatch):
    import halfmoon.batch.directory as directory

    def no_writes_here(self, index, rows):
        raise AssertionError("the client wrote a chunk")

    monkeypatch.setattr(directory.Directory, "write_chunk", no_writes_here)
    out = tmp_path / "dask"
    summary, warnings = quiet_run(parse_range("0:60"), out, scheduler=cluster.scheduler_address,
                                  chunk_size=6)
    assert (summary.solved, summary.resumed, warnings) == (60, 0, [])
    assert_frame_equal(solved(out), local)
    assert len(chunk_names(out)) == 10 and temp_files(out) == []
    (out / "part-000004.parquet").unlink()
    summary, _ = quiet_run(parse_range("0:60"), out, scheduler=cluster.scheduler_address)
    assert (summary.resumed, summary.solved) == (54, 6)
    assert_frame_equal(solved(out), local)


def test_workers_keep_the_verdicts_only_with_lines_none(cluster, local, tmp_path):
    out = tmp_path / "dask-none"
    summary, _ = quiet_run(parse_range("0:60"), out, scheduler=cluster.scheduler_address,
                           chunk_size=30, lines="none")
    assert summary.solved == 60
    df = solved(out)
    assert df["line"].isna().all()
    assert_frame_equal(df.drop(columns="line"), local.drop(columns="line"))


@pytest.mark.filterwarnings("ignore:Port .* is already in use")
def test_workers_write_the_chunks_to_an_fsspec_url(local):
    # memory:// lives in one process: workers that are threads of this one share it
    url = f"memory://test-cluster-{uuid.uuid4().hex}/results"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=":0", silence_logs=logging.ERROR) as inproc:
        summary, warnings = quiet_run(parse_range("0:60"), url, scheduler=inproc.scheduler_address,
                                      chunk_size=6)
    assert summary.solved == 60
    assert warnings and "solves one deal at a time" in warnings[0]  # 2 threads, 1 process
    assert_frame_equal(read_url(url), local)


def test_an_output_the_workers_do_not_share_is_one_line(cluster, tmp_path, capsys):
    # each worker process has a memory:// of its own, which this process cannot see
    url = f"memory://test-cluster-{uuid.uuid4().hex}/results"
    args = batch_args(url, "--range", "0:6", "--scheduler", cluster.scheduler_address)
    assert main(args) == 2
    err = _after_connecting(capsys.readouterr().err, cluster)
    assert err.startswith("halfmoon: error: a worker (")
    assert "where this process cannot see it" in err
    assert err.count("\n") == 1


def test_the_cluster_plan_is_thousands_of_files_for_the_whole_code_space(cluster, tmp_path,
                                                                         capsys):
    args = batch_args(tmp_path / "r", "--range", "0:8031810176",
                      "--scheduler", cluster.scheduler_address,
                      "--dry-run", "--sample", "3", "--cores", "100")
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "8,032 files of 1,000,000 deals" in text and "8,032 on the cluster, one a chunk" in text
    assert "on 100 cores" in text and not (tmp_path / "r").exists()


def _stall_once_at(deal: int, marker: str) -> None:
    """On a worker: the first piece holding ``deal`` writes the worker's pid to ``marker``
    and stalls, so that the test can kill the worker in the middle of that chunk."""
    import halfmoon.batch.backends as backends

    real = getattr(backends, "_real_solve_arrays", backends.solve_arrays)
    backends._real_solve_arrays = real

    def solve_arrays(numbers, budget, lines=True):
        if deal in numbers and not os.path.exists(marker):
            with open(marker + ".tmp", "w") as f:
                f.write(str(os.getpid()))
            os.replace(marker + ".tmp", marker)
            time.sleep(TIMEOUT)
        return real(numbers, budget, lines)

    backends.solve_arrays = solve_arrays


def _restore() -> None:
    import halfmoon.batch.backends as backends

    backends.solve_arrays = getattr(backends, "_real_solve_arrays", backends.solve_arrays)


def test_a_worker_killed_mid_task_has_its_chunk_redone(cluster, local, tmp_path):
    client = distributed.Client(cluster.scheduler_address, set_as_default=False)
    marker = tmp_path / "stalled"
    client.run(_stall_once_at, 33, str(marker))
    out = tmp_path / "results"
    box = {}
    run = threading.Thread(target=lambda: box.update(result=quiet_run(
        parse_range("0:60"), out, scheduler=cluster.scheduler_address, chunk_size=6)))
    try:
        run.start()
        deadline = time.monotonic() + TIMEOUT
        while not marker.exists():
            assert time.monotonic() < deadline and run.is_alive(), "no worker reached deal 33"
            time.sleep(0.02)
        os.kill(int(marker.read_text()), signal.SIGKILL)  # in the middle of chunk 5 (deals 30-35)
        run.join(TIMEOUT)
        assert not run.is_alive()
    finally:
        client.run(_restore)
        client.close()
    summary, _ = box["result"]
    assert summary.solved == 60
    df = load_results(out)
    assert df["deal"].tolist() == list(range(60))  # each deal once, none lost
    assert_frame_equal(solved(out), local)
    assert temp_files(out) == []
    summary, _ = quiet_run(parse_range("0:60"), out, scheduler=cluster.scheduler_address)
    assert (summary.resumed, summary.solved) == (60, 0)


def test_the_client_killed_then_a_rerun_finishes(cluster, tmp_path):
    out = tmp_path / "results"
    cmd = [sys.executable, "-m", "halfmoon",
           *batch_args(out, "--range", "0:600", "--chunk-size", "6",
                       "--scheduler", cluster.scheduler_address)]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + TIMEOUT
    while not (out.is_dir() and chunk_names(out)):
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
        time.sleep(0.01)
    proc.kill()
    proc.communicate(timeout=TIMEOUT)
    assert len(chunk_names(out)) < 100, "the client should be killed half way"
    summary = run_batch(parse_range("0:600"), out, budget=BUDGET,
                        scheduler=cluster.scheduler_address, progress=False,
                        log=lambda message: None)
    assert summary.complete and summary.resumed >= 6
    df = load_results(out)
    assert df["deal"].tolist() == list(range(600))
    assert temp_files(out) == []


def _fail_at(deal: int) -> None:
    """On a worker: a piece holding ``deal`` raises."""
    import halfmoon.batch.backends as backends

    real = getattr(backends, "_real_solve_arrays", backends.solve_arrays)
    backends._real_solve_arrays = real

    def solve_arrays(numbers, budget, lines=True):
        if deal in numbers:
            raise RuntimeError("boom\nsecond line")
        return real(numbers, budget, lines)

    backends.solve_arrays = solve_arrays


def test_a_task_that_raises_stops_the_run_with_one_line_and_no_half_file(cluster, tmp_path, capsys):
    client = distributed.Client(cluster.scheduler_address, set_as_default=False)
    client.run(_fail_at, 40)
    out = tmp_path / "results"
    try:
        args = batch_args(out, "--range", "0:60", "--chunk-size", "6", "--piece-size", "3",
                          "--scheduler", cluster.scheduler_address)
        assert main(args) == 2
        _wait_until_idle(client)  # a chunk already running when the run stopped is finished
    finally:
        client.run(_restore)
        client.close()
    err = _after_connecting(capsys.readouterr().err, cluster)
    assert err == "halfmoon: error: solving deals 39..41 failed: RuntimeError: boom second line\n"
    assert "part-000006.parquet" not in chunk_names(out) and temp_files(out) == []
    df = load_results(out)  # every file with a final name is a whole chunk
    assert df["deal"].is_unique and len(df) == 6 * len(chunk_names(out))


def _executing(dask_worker) -> int:
    return dask_worker.state.executing_count


def _wait_until_idle(client) -> None:
    """Until no worker runs a task (a task cancelled while running goes on to its end)."""
    deadline = time.monotonic() + TIMEOUT
    while any(client.run(_executing).values()):
        assert time.monotonic() < deadline
        time.sleep(0.05)


def test_a_second_worker_loads_what_the_first_compiled(tmp_path):
    """Two workers sharing an empty NUMBA_CACHE_DIR, warmed up at once: one compiles the
    kernel group, the other compiles nothing and loads it (the small "generator" group
    stands for the solver's, which is shared by the same locks)."""
    from halfmoon.batch.cluster import warm_up_workers

    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
        silence_logs=logging.ERROR, env={"NUMBA_CACHE_DIR": str(tmp_path)},
    ) as c, distributed.Client(c, set_as_default=False) as client:
        client.wait_for_workers(2, timeout=TIMEOUT)
        reports = list(warm_up_workers(client, ["generator"]).values())
    assert len(reports) == 2 and len({r["worker"] for r in reports}) == 2
    assert sorted(r["groups"]["generator"] for r in reports) == ["compiled", "loaded"]
    assert sorted(r["compile_seconds"] > 0 for r in reports) == [False, True]


def _after_connecting(err: str, cluster) -> str:
    """stderr after the word said while the run connects, which comes first."""
    word = (f"halfmoon: connecting to the Dask scheduler at {cluster.scheduler_address}"
            " (at most 10 s)...\n")
    assert err.startswith(word), err
    return err[len(word):]
