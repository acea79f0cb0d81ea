"""Locations of a run's files: local directories and fsspec URLs, files written whole."""

from __future__ import annotations

import pickle
import uuid

import pytest
from batch_helpers import BUDGET, batch_args, quiet_run, solved
from pandas.testing import assert_frame_equal

from halfmoon.batch import parse_range
from halfmoon.batch.results import read_chunk
from halfmoon.batch.store import TMP_RE, LocalDir, UrlDir, location, temp_name
from halfmoon.cli.main import main


def test_a_location_is_a_path_or_a_url(tmp_path):
    assert isinstance(location(tmp_path), LocalDir)
    assert isinstance(location("results"), LocalDir)
    local = location(f"file://{tmp_path}/r")
    assert isinstance(local, LocalDir) and local.path == tmp_path / "r"
    url = location("memory://bucket/run/")
    assert isinstance(url, UrlDir) and str(url) == "memory://bucket/run"


def test_a_location_pickles_to_what_a_worker_elsewhere_needs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    local = pickle.loads(pickle.dumps(location("results")))
    assert local.path == tmp_path / "results" and local.path.is_absolute()
    url = pickle.loads(pickle.dumps(location("memory://bucket/run")))
    assert str(url) == "memory://bucket/run"


def test_temporary_names_are_unique_and_recognised():
    a, b = temp_name("part-000001.parquet"), temp_name("part-000001.parquet")
    assert a != b and TMP_RE.match(a) and TMP_RE.match(b) and a.endswith(".tmp")
    assert not TMP_RE.match(".notes.tmp")


@pytest.fixture(params=["local", "memory"])
def where(request, tmp_path):
    if request.param == "local":
        return location(tmp_path / "out")
    return location(f"memory://test-store-{uuid.uuid4().hex}/out")


def test_a_file_is_written_whole_or_not_at_all(where):
    where.check()
    where.make()
    where.write("a.txt", lambda f: f.write(b"hello"))
    assert where.names() == ["a.txt"] and where.exists("a.txt")
    assert where.read_text("a.txt") == "hello"

    def half(f):
        f.write(b"half a file")
        raise RuntimeError("the disk is full")

    with pytest.raises(RuntimeError):
        where.write("b.txt", half)
    assert where.names() == ["a.txt"]  # neither b.txt nor its temporary file
    where.write("a.txt", lambda f: f.write(b"again"))
    assert where.read_text("a.txt") == "again" and where.read_text("none") is None
    where.delete("a.txt")
    where.delete("a.txt")
    assert where.names() == []


def test_a_missing_location_lists_nothing(tmp_path):
    assert location(tmp_path / "nowhere").names() == []
    assert location(f"memory://test-store-{uuid.uuid4().hex}").names() == []


def test_a_run_into_memory_resumes_like_a_local_one(tmp_path):
    url = f"memory://test-store-{uuid.uuid4().hex}/results"
    deals = parse_range("0:12")
    quiet_run(deals, tmp_path / "local", workers=1, chunk_size=5)
    summary, warnings = quiet_run(deals, url, workers=1, chunk_size=5)
    assert (summary.solved, warnings, str(summary.out)) == (12, [], url)
    where = location(url)
    assert sorted(where.names()) == ["_manifest.json", "part-000000.parquet", "part-000001.parquet",
                                     "part-000002.parquet"]
    where.delete("part-000001.parquet")
    summary, _ = quiet_run(deals, url, workers=1)  # the run's own chunk size
    assert (summary.resumed, summary.solved) == (7, 5)
    assert_frame_equal(read_url(url), solved(tmp_path / "local"))


def read_url(url: str):
    """The results at a URL without the timings, as :func:`solved` reads a directory."""
    import pyarrow as pa

    where = location(url)
    names = sorted(n for n in where.names() if n.startswith("part-"))
    tables = [read_chunk(path, filesystem=fs) for path, fs in map(where.file, names)]
    return pa.concat_tables(tables).to_pandas().drop(columns="seconds")


@pytest.mark.parametrize("url, message", [
    ("nosuch://bucket/run", "cannot use nosuch://bucket/run: Protocol not known: nosuch"),
    ("s3://bucket/run", "cannot use s3://bucket/run: Install s3fs"),
])
@pytest.mark.parametrize("command", [
    ["batch", "--budget", str(BUDGET), "--range", "0:3", "--workers", "1", "--out"],
    ["stats"], ["stats", "--json"], ["findings", "--work", "w", "--out", "d"]])
def test_a_url_that_cannot_be_used_is_one_line_naming_no_option(tmp_path, capsys, url, message,
                                                                 command, monkeypatch):
    """The package a URL needs named, and no option the command does not have (stats has
    no --out)."""
    pytest.importorskip("fsspec")
    if url.startswith("s3") and _installed("s3fs"):
        pytest.skip("s3fs is installed")
    monkeypatch.chdir(tmp_path)
    assert main([command[0], *command[1:], url] if command[0] == "batch"
                else [command[0], url, *command[1:]]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"halfmoon: error: {message}") and err.count("\n") == 1, err
    assert "--out" not in err


def test_an_output_under_a_file_is_one_line(tmp_path, capsys):
    (tmp_path / "file").write_text("not a directory")
    assert main(batch_args(tmp_path / "file" / "r", "--range", "0:3", "--workers", "1")) == 2
    err = capsys.readouterr().err
    assert err == (f"halfmoon: error: --out {tmp_path / 'file' / 'r'}: "
                   f"'{tmp_path / 'file'}' is a file, not a directory\n")
    assert err.count("\n") == 1


def _installed(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None
