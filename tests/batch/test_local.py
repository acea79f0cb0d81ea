"""A local run's tasks: a piece solved into counts and arrays, a chunk written by a worker
(whole, and only for a run still alive in its own directory), and the loop that sends them,
which leaves no temporary file behind when a task fails."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from batch_helpers import BUDGET, chunk_names, quiet_run, temp_files

from halfmoon.batch import BatchError, parse_range
from halfmoon.batch.backends import solve_table
from halfmoon.batch.columns import Solved
from halfmoon.batch.directory import Directory
from halfmoon.batch.local import check_deals, chunk_task, piece_task
from halfmoon.batch.results import load_results, read_chunk
from solver import SOLVER_VERSION

DEALS = [38, 0, 1, 2, 3, 4, 5]


@pytest.fixture(scope="module")
def parts():
    return [piece_task(DEALS[:3], BUDGET, SOLVER_VERSION, True)[1],
            piece_task(DEALS[3:], BUDGET, SOLVER_VERSION, True)[1]]  # bytes, as sent


def test_a_piece_comes_back_as_its_counts_and_its_arrays():
    counts, data = piece_task(DEALS, BUDGET, SOLVER_VERSION, True)
    part = Solved.from_bytes(data)
    assert part.numbers.tolist() == DEALS  # in the piece's order
    table = solve_table(DEALS, BUDGET)
    verdicts = table.column("verdict").to_pylist()
    assert counts == tuple(verdicts.count(v) for v in ("win", "loss", "unresolved"))
    assert sum(counts) == 7 and part.lines.shape == (counts[0], 48)
    assert (part.nline > 0).sum() == counts[0]
    plain = Solved.from_bytes(piece_task(DEALS, BUDGET, SOLVER_VERSION, False)[1])
    assert plain.lines.size == 0 and not plain.nline.any()
    again = Solved.from_bytes(part.to_bytes())
    assert all(np.array_equal(a, b) and a.dtype == b.dtype for a, b in zip(again, part))
    with pytest.raises(BatchError, match="a solved piece of"):
        Solved.from_bytes(data[:-1])


def test_a_worker_of_another_solver_version_is_refused():
    with pytest.raises(BatchError, match="install the same halfmoon on every worker"):
        piece_task([0], BUDGET, "0", True)


def test_rows_of_other_deals_are_refused():
    check_deals(np.array([5, 4, 3, 2, 1, 0, 38]), DEALS)
    with pytest.raises(BatchError, match=r"other deals than 0\.\.7"):
        check_deals(np.array(DEALS), [0, 1, 2, 3, 4, 5, 7])


def test_a_chunk_is_written_whole_from_its_pieces(tmp_path, parts):
    directory = Directory(tmp_path / "r", lambda m: None)
    directory.open()
    try:
        assert chunk_task(directory.where, 4, parts, DEALS, BUDGET, SOLVER_VERSION,
                          directory.guard()) == 7
        assert chunk_names(tmp_path / "r") == {"part-000004.parquet"}
        rows = read_chunk(tmp_path / "r" / "part-000004.parquet")
        assert rows.column("deal").to_pylist() == sorted(DEALS)
        with pytest.raises(BatchError, match="a worker returned a chunk for other deals"):
            chunk_task(directory.where, 5, parts, [0, 1, 2], BUDGET, SOLVER_VERSION,
                       directory.guard())
    finally:
        directory.close()


def test_a_chunk_of_a_run_that_has_ended_or_lost_its_directory_is_not_written(tmp_path, parts):
    directory = Directory(tmp_path / "r", lambda m: None)
    directory.open()
    try:
        pid, lock, inode = directory.guard()
        ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                               capture_output=True, text=True, check=True)
        with pytest.raises(BatchError, match="the run that sent this chunk has ended"):
            chunk_task(directory.where, 0, parts, DEALS, BUDGET, SOLVER_VERSION,
                       (int(ended.stdout), lock, inode))
        os.replace(lock, lock + ".old")  # as if the directory were replaced under the run
        open(lock, "w").close()
        with pytest.raises(BatchError, match="was deleted or replaced during the run"):
            chunk_task(directory.where, 0, parts, DEALS, BUDGET, SOLVER_VERSION,
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


def test_the_progress_counts_the_deals_written_not_those_solved(tmp_path, monkeypatch):
    """Each step of the progress is a chunk written: at every step, the deals counted are
    the deals in the directory (a count of pieces solved ran ahead of what Ctrl-C keeps)."""
    from halfmoon.batch import run as run_module

    out = tmp_path / "r"
    seen = []

    class Recorder:
        def __init__(self, total, initial=None, **kwargs):
            self.done = sum((initial or {}).values())

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def add(self, counts):
            self.done += sum(counts.values())
            seen.append((self.done, len(load_results(out))))

        def compiling(self):
            pass

        def solving(self):
            pass

    monkeypatch.setattr(run_module, "Progress", Recorder)
    quiet_run(parse_range("0:10"), out, workers=1, chunk_size=4, piece_size=2)
    assert [counted for counted, _ in seen] == [4, 8, 10]  # a chunk a step, not a piece
    assert all(counted == written for counted, written in seen)
