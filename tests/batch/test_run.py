"""Batch runs in this process: chunks and manifest, resume, refusals, a failing worker.

Budgets are small (unresolved is a fine verdict here) and ranges short.
"""

from __future__ import annotations

import json

import pytest
from batch_helpers import BUDGET, batch_args, chunk_names, quiet_run, solved, temp_files
from pandas.testing import assert_frame_equal

from halfmoon.batch import (
    BatchError,
    deals_from_codes,
    parse_range,
)
from halfmoon.batch.results import MANIFEST_NAME, load_manifest, load_results
from halfmoon.cli.main import main


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


def test_a_failing_worker_stops_the_run_with_one_line_and_keeps_chunks(tmp_path, monkeypatch):
    import halfmoon.batch.backends as batch

    real = batch.solve_arrays

    def failing(numbers, budget, lines=True):
        if 6 in numbers:
            raise RuntimeError("boom\nsecond line")
        return real(numbers, budget, lines)

    monkeypatch.setattr(batch, "solve_arrays", failing)
    out = tmp_path / "results"
    with pytest.raises(BatchError,
                       match=r"^solving deals 6\.\.8 failed: RuntimeError: boom second line$"):
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


def test_the_first_chunks_of_the_whole_code_space_run_in_the_memory_of_a_short_run(tmp_path):
    from batch_helpers import peak_rss_mib

    from halfmoon.game.codes import DEAL_COUNT

    args = ["--workers", "1", "--chunk-size", "10", "--chunks", "0:3"]
    short = peak_rss_mib(batch_args(tmp_path / "short", "--range", "0:30", *args))
    full = peak_rss_mib(batch_args(tmp_path / "full", "--range", f"0:{DEAL_COUNT}", *args))
    assert full < short + 50, (short, full)
    out = tmp_path / "full"
    assert chunk_names(out) == {"part-000000.parquet", "part-000001.parquet", "part-000002.parquet"}
    assert_frame_equal(solved(out), solved(tmp_path / "short"))
    manifest = load_manifest(out)
    assert manifest["status"] == "running" and manifest["deals"]["count"] == DEAL_COUNT
    summary, _ = quiet_run(parse_range(f"0:{DEAL_COUNT}"), out, workers=1, chunks=range(2, 4))
    assert (summary.resumed, summary.solved, summary.complete) == (30, 10, False)


def test_a_rerun_goes_on_with_the_runs_own_chunk_size(tmp_path):
    out = tmp_path / "results"
    quiet_run(parse_range("0:30"), out, workers=1, chunk_size=7)
    (out / "part-000002.parquet").unlink()
    summary, warnings = quiet_run(parse_range("0:30"), out, workers=1)
    assert (summary.resumed, summary.solved, warnings) == (23, 7, [])
    assert load_manifest(out)["chunk_size"] == 7


def test_a_range_named_by_the_digest_of_its_numbers_still_resumes(tmp_path):
    out = tmp_path / "results"
    deals = parse_range("0:20")
    quiet_run(deals, out, workers=1, chunk_size=10)
    manifest = load_manifest(out)
    manifest["deals"]["sha256"] = deals.numbers_digest()  # as runs were named before
    (out / MANIFEST_NAME).write_text(json.dumps(manifest))
    (out / "part-000001.parquet").unlink()
    summary, warnings = quiet_run(deals, out, workers=1)
    assert (summary.resumed, summary.solved, warnings) == (10, 10, [])
    assert load_manifest(out)["deals"]["sha256"] == deals.digest()


def test_the_rate_counts_solving_and_the_wall_rate_compiling_too():
    from halfmoon.batch.run import BatchSummary

    s = BatchSummary("out", 100, solved=100, seconds=12.0, compile_seconds=10.0)
    assert s.rate == pytest.approx(50.0) and s.wall_rate == pytest.approx(100 / 12)
    assert BatchSummary("out", 1).rate == 0.0 == BatchSummary("out", 1).wall_rate


def test_lines_none_keeps_the_verdicts_only_and_a_rerun_must_agree(tmp_path, capsys):
    out = tmp_path / "results"
    summary, _ = quiet_run(parse_range("0:20"), out, workers=1, chunk_size=10, lines="none")
    df = load_results(out)
    assert df["line"].isna().all() and (df["verdict"] == "win").sum() == summary.counts["win"] > 0
    assert load_manifest(out)["lines"] == "none"
    lined = tmp_path / "lined"
    quiet_run(parse_range("0:20"), lined, workers=1, chunk_size=10)
    assert_frame_equal(solved(out).drop(columns="line"), solved(lined).drop(columns="line"))
    assert main(batch_args(out, "--range", "0:20", "--chunk-size", "10", "--workers", "1")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "differs in --lines" in err


def test_random_deals_are_stored_sorted_within_a_chunk_and_resume(tmp_path):
    from halfmoon.batch import deals_from_random

    out = tmp_path / "results"
    deals = deals_from_random(30, 7)
    quiet_run(deals, out, workers=1, chunk_size=15)
    import pyarrow.parquet as pq

    first = pq.read_table(out / "part-000000.parquet")["deal"].to_pylist()
    assert first == sorted(deals.numbers[:15])
    (out / "part-000001.parquet").unlink()
    summary, warnings = quiet_run(deals, out, workers=1)
    assert (summary.resumed, summary.solved, warnings) == (15, 15, [])


def _as_format_1(out):
    """Rewrite a results directory as an older halfmoon wrote it (format 1)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from halfmoon.batch.results import SCHEMA_V1, read_chunk

    for f in out.glob("part-*.parquet"):
        pq.write_table(read_chunk(f).cast(SCHEMA_V1).replace_schema_metadata(SCHEMA_V1.metadata), f)
    manifest = load_manifest(out)
    manifest["format"] = 1
    manifest.pop("lines")
    (out / MANIFEST_NAME).write_text(json.dumps(manifest))
    return pa


def test_a_dataset_of_format_1_reads_and_is_not_resumed_in_format_2(tmp_path, capsys):
    from halfmoon.batch.results import chunk_format

    out = tmp_path / "results"
    quiet_run(parse_range("0:20"), out, workers=1, chunk_size=10)
    before = load_results(out)
    _as_format_1(out)
    assert {chunk_format(f) for f in out.glob("part-*.parquet")} == {1}
    assert_frame_equal(load_results(out), before)
    (out / "part-000001.parquet").unlink()
    files = sorted(p.name for p in out.iterdir())
    assert main(batch_args(out, "--range", "0:20", "--chunk-size", "10", "--workers", "1")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"{out} holds results of format 1, written by another version of halfmoon" in err
    assert sorted(p.name for p in out.iterdir()) == files  # nothing written, nothing removed


def test_a_chunk_of_the_old_format_in_a_new_run_is_refused_not_mixed(tmp_path, capsys):
    import pyarrow.parquet as pq

    from halfmoon.batch.results import SCHEMA_V1, read_chunk

    out = tmp_path / "results"
    quiet_run(parse_range("0:20"), out, workers=1, chunk_size=10)
    old = out / "part-000000.parquet"
    pq.write_table(read_chunk(old).cast(SCHEMA_V1).replace_schema_metadata(SCHEMA_V1.metadata), old)
    (out / "part-000001.parquet").unlink()
    assert main(batch_args(out, "--range", "0:20", "--chunk-size", "10", "--workers", "1")) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "part-000000.parquet is a file of results format 1" in err
    assert old.exists() and not (out / "part-000001.parquet").exists()
