"""A local run's tasks: a piece solved into counts and an Arrow buffer, a chunk written by a
worker (whole, and only for a run still alive in its own directory), and the loop that sends
them, which leaves no temporary file behind when a task fails."""

from __future__ import annotations

import os
import subprocess
import sys

import pyarrow as pa
import pytest
from batch_helpers import BUDGET, chunk_names, quiet_run, temp_files

from halfmoon.batch import BatchError, parse_range
from halfmoon.batch.backends import solve_table
from halfmoon.batch.directory import Directory
from halfmoon.batch.local import (
    check_deals,
    chunk_task,
    from_buffer,
    piece_task,
    to_buffer,
    verdict_counts,
)
from halfmoon.batch.results import load_results, read_chunk
from solver import SOLVER_VERSION


@pytest.fixture(scope="module")
def table():
    return solve_table([38, 0, 1, 2, 3, 4, 5], BUDGET)


def test_a_piece_comes_back_as_its_counts_and_its_table(table):
    counts, data = piece_task([38, 0, 1, 2, 3, 4, 5], BUDGET, SOLVER_VERSION, True)
    back = from_buffer(data)
    assert back.schema.equals(table.schema, check_metadata=True)
    assert back.drop(["microseconds"]).equals(table.drop(["microseconds"]))  # times differ
    assert from_buffer(to_buffer(table)).equals(table)
    verdicts = table.column("verdict").to_pylist()
    assert counts == tuple(verdicts.count(v) for v in ("win", "loss", "unresolved"))
    assert sum(counts) == 7 and verdict_counts(table) == counts
    assert verdict_counts(pa.concat_tables([table, table])) == tuple(2 * c for c in counts)


def test_a_worker_of_another_solver_version_is_refused():
    with pytest.raises(BatchError, match="install the same halfmoon on every worker"):
        piece_task([0], BUDGET, "0", True)


def test_rows_of_other_deals_are_refused(table):
    check_deals(table, [5, 4, 3, 2, 1, 0, 38])
    with pytest.raises(BatchError, match=r"other deals than 0\.\.7"):
        check_deals(table, [0, 1, 2, 3, 4, 5, 7])


def test_a_chunk_is_written_whole_from_its_pieces_buffers(tmp_path, table):
    directory = Directory(tmp_path / "r", lambda m: None)
    directory.open()
    try:
        halves = [to_buffer(table.slice(0, 3)), to_buffer(table.slice(3))]
        assert chunk_task(directory.where, 4, halves, [0, 1, 2, 3, 4, 5, 38],
                          directory.guard()) == 7
        assert chunk_names(tmp_path / "r") == {"part-000004.parquet"}
        rows = read_chunk(tmp_path / "r" / "part-000004.parquet")
        assert rows.column("deal").to_pylist() == [0, 1, 2, 3, 4, 5, 38]
        with pytest.raises(BatchError, match="a worker returned a chunk for other deals"):
            chunk_task(directory.where, 5, halves, [0, 1, 2], directory.guard())
    finally:
        directory.close()


def test_a_chunk_of_a_run_that_has_ended_or_lost_its_directory_is_not_written(tmp_path, table):
    directory = Directory(tmp_path / "r", lambda m: None)
    directory.open()
    try:
        pid, lock, inode = directory.guard()
        ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                               capture_output=True, text=True, check=True)
        with pytest.raises(BatchError, match="the run that sent this chunk has ended"):
            chunk_task(directory.where, 0, [to_buffer(table)], [0, 1, 2, 3, 4, 5, 38],
                       (int(ended.stdout), lock, inode))
        os.replace(lock, lock + ".old")  # as if the directory were replaced under the run
        open(lock, "w").close()
        with pytest.raises(BatchError, match="was deleted or replaced during the run"):
            chunk_task(directory.where, 0, [to_buffer(table)], [0, 1, 2, 3, 4, 5, 38],
                       (pid, lock, inode))
        assert chunk_names(tmp_path / "r") == set() and temp_files(tmp_path / "r") == []
    finally:
        directory.close()


def test_a_chunk_write_that_fails_leaves_no_temporary_file(tmp_path, monkeypatch):
    import halfmoon.batch.local as local

    def failing(f, tables):
        f.write(b"half a file")
        raise OSError("disk full")

    monkeypatch.setattr(local, "write_tables", failing)
    out = tmp_path / "r"
    with pytest.raises(BatchError, match=r"cannot write .*part-000000\.parquet: OSError: disk"):
        quiet_run(parse_range("0:4"), out, workers=1, chunk_size=2)
    assert chunk_names(out) == set() and temp_files(out) == []


def test_a_run_in_this_process_sends_pieces_then_writes(tmp_path):
    out = tmp_path / "r"
    summary, _ = quiet_run(parse_range("0:10"), out, workers=1, chunk_size=4, piece_size=3)
    assert summary.solved == 10 and sum(summary.counts.values()) == 10
    assert chunk_names(out) == {f"part-00000{i}.parquet" for i in range(3)}
    assert load_results(out)["deal"].tolist() == list(range(10))
