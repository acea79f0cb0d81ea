"""What a results directory holds, checked before a run writes: the manifest's identity
(the same run resumes, another is refused) and the chunk files (sound ones counted and kept,
bad ones reported and removed)."""

from __future__ import annotations

from collections import Counter

import pytest
from batch_helpers import BUDGET, chunk_names, quiet_run

from halfmoon.batch import BatchError, parse_range
from halfmoon.batch.directory import Directory
from halfmoon.batch.plan import Plan
from halfmoon.batch.resume import check_manifest, compare, identity, read_manifest, scan_chunks
from solver import SOLVER_VERSION


def _opened(path):
    logged = []
    directory = Directory(path, logged.append)
    directory.open()
    return directory, logged


def test_the_same_run_resumes_and_another_is_refused(tmp_path):
    deals = parse_range("0:12")
    plan = Plan(deals, 4, 2)
    mine = identity(plan, BUDGET, SOLVER_VERSION)
    assert mine["chunk_size"] == 4 and mine["deals"]["count"] == 12
    directory, _ = _opened(tmp_path / "r")
    try:
        assert read_manifest(directory) is None
        written = check_manifest(directory, None, mine, deals)
        assert written["status"] == "running" and read_manifest(directory) == written
        assert compare(directory, written, mine, deals) is False  # this run's: resumes
        other = identity(plan, BUDGET + 1, SOLVER_VERSION)
        with pytest.raises(BatchError, match="this run differs in budget"):
            compare(directory, written, other, deals)
    finally:
        directory.close()


def test_an_unreadable_manifest_is_one_line(tmp_path):
    directory, _ = _opened(tmp_path / "r")
    try:
        (tmp_path / "r" / "_manifest.json").write_text("{not json")
        with pytest.raises(BatchError, match="is .* a results directory"):
            read_manifest(directory)
    finally:
        directory.close()


def test_sound_chunks_are_counted_and_a_bad_one_removed(tmp_path):
    out = tmp_path / "r"
    summary, _ = quiet_run(parse_range("0:12"), out, workers=1, chunk_size=4)
    (out / "part-000001.parquet").write_bytes(b"not parquet")
    directory, logged = _opened(out)
    try:
        done = scan_chunks(directory, Plan(parse_range("0:12"), 4, 2), BUDGET, SOLVER_VERSION)
    finally:
        directory.close()
    assert sorted(done) == [0, 2] and all(isinstance(c, Counter) for c in done.values())
    assert sum(sum(c.values()) for c in done.values()) == 8
    assert chunk_names(out) == {"part-000000.parquet", "part-000002.parquet"}
    assert len(logged) == 1 and "its deals will be solved again" in logged[0]
