"""The results directory: a run's lock, its chunk files checked on resume, temporary files."""

from __future__ import annotations

import fcntl
import os

import pytest
from batch_helpers import batch_args, chunk_names, quiet_run, solved, temp_files
from pandas.testing import assert_frame_equal

from halfmoon.batch import (
    BatchError,
    parse_range,
)
from halfmoon.batch.results import MANIFEST_NAME, load_results
from halfmoon.cli.main import main


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


def test_a_directory_at_a_url_sweeps_temporary_files_and_takes_no_lock(tmp_path):
    import uuid

    from halfmoon.batch.directory import Directory
    from halfmoon.batch.store import location

    url = f"memory://test-directory-{uuid.uuid4().hex}/results"
    quiet_run(parse_range("0:6"), url, workers=1, chunk_size=3)
    where = location(url)
    where.write(".part-000001.parquet.4242.tmp", lambda f: f.write(b"PAR1 half a chunk"))
    directory = Directory(url, log=print)
    directory.open()
    assert sorted(where.names()) == ["_manifest.json", "part-000000.parquet", "part-000001.parquet"]
    assert list(directory.chunks()) == [0, 1] and directory.read_manifest()["chunk_size"] == 3
    directory.close()
