"""Synthetic results datasets: the real format, quickly, reproducibly."""

from __future__ import annotations

import pyarrow.parquet as pq
from results_samples import assert_same_summary

from halfmoon.batch.results import chunk_format, file_format, load_manifest, read_chunk
from halfmoon.batch.synthetic import write_synthetic
from halfmoon.research import scan, stats


def test_a_synthetic_dataset_is_in_the_real_format_and_streams(tmp_path):
    out = write_synthetic(tmp_path / "syn", 250_000, chunk_rows=100_000, seed=4, lines=True)
    assert sorted(p.name for p in out.glob("part-*")) == [f"part-00000{k}.parquet"
                                                          for k in range(3)]
    s = scan.summarize(out)
    assert s["deals"] == 250_000 and s["wins"] + s["losses"] + s["unresolved"] == 250_000
    assert 0.96 < s["win_rate"] < 0.98 and s["nodes"]["max"] <= 5_000_000
    df = stats.load(out)
    assert df["line"].notna().sum() == s["wins"]
    assert df["line"].dropna().str.split().str.len().eq(48).all()
    assert_same_summary(s, stats.summarize(df))
    assert write_synthetic(tmp_path / "again", 1000, seed=4)
    again = scan.summarize(tmp_path / "again")
    assert again == scan.summarize(write_synthetic(tmp_path / "b", 1000, seed=4))


def test_a_synthetic_dataset_is_a_results_directory_of_format_2(tmp_path):
    out = write_synthetic(tmp_path / "syn", 5000, chunk_rows=2000, seed=9)
    assert all(chunk_format(f) == 2 for f in out.glob("part-*.parquet"))
    assert file_format(pq.read_schema(out / "part-000000.parquet")) == 2
    assert read_chunk(out / "part-000000.parquet", columns=["verdict"]).num_rows == 2000
    m = load_manifest(out)
    assert m["synthetic"] is True and m["deals"]["count"] == 5000 and m["lines"] == "none"
    assert stats.load(out)["line"].isna().all()
