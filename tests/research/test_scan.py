"""Streamed summaries: the same numbers as the summary of the whole dataset in pandas, on
both formats, from a local directory and from an fsspec URL, in bounded memory."""

from __future__ import annotations

import numpy as np
import pytest
from results_samples import assert_same_summary, make_rows, write_results

from halfmoon.batch.results import ResultsError
from halfmoon.batch.synthetic import write_synthetic
from halfmoon.cli.main import main
from halfmoon.game.errors import HalfMoonError
from halfmoon.research import scan, stats


def _varied_rows(n: int, seed: int) -> list[dict]:
    """Rows whose times and positions spread over orders of magnitude, with ties."""
    rng = np.random.default_rng(seed)
    verdicts = rng.choice(["win", "loss", "unresolved"], n, p=[0.9, 0.09, 0.01]).tolist()
    rows = make_rows(verdicts, budget=10**7)
    for row, e, t in zip(rows, rng.normal(5, 3, n), rng.integers(0, 5, n)):
        row["nodes"] = int(min(np.exp(e), 10**7 - 1)) + 1 if t else 7  # a fifth tie at 7
        row["seconds"] = round(float(np.exp(e) * 1e-6), 6) if t else 0.000123
    return rows


@pytest.mark.parametrize("fmt", [1, 2])
@pytest.mark.parametrize("n, chunk", [(1, 0), (2, 0), (7, 3), (1000, 128), (20_000, 4096)])
def test_the_streamed_summary_is_the_loaded_one(tmp_path, fmt, n, chunk):
    out = write_results(tmp_path / "r", _varied_rows(n, seed=n), chunk_rows=chunk, fmt=fmt)
    streamed = scan.summarize(out)
    assert streamed["format"] == fmt
    assert_same_summary(streamed, stats.summarize(stats.load(out)))


def test_the_passes_narrow_and_gather_as_they_should(tmp_path, monkeypatch):
    # few values gathered at once: the selection goes down 16 bits at a time to single keys
    monkeypatch.setattr(scan, "GATHER", 4)
    for fmt in (1, 2):
        out = write_results(tmp_path / f"f{fmt}", _varied_rows(5000, seed=3), chunk_rows=700,
                            fmt=fmt)
        assert_same_summary(scan.summarize(out), stats.summarize(stats.load(out)))


def test_a_memory_url_gives_the_same_summary_as_the_local_copy(tmp_path):
    import fsspec

    out = write_results(tmp_path / "r", _varied_rows(3000, seed=5), chunk_rows=1000)
    fs = fsspec.filesystem("memory")
    for f in sorted(out.iterdir()):
        fs.pipe(f"/scan-test/{f.name}", f.read_bytes())
    try:
        assert scan.summarize("memory://scan-test") == scan.summarize(out)
        assert scan.summarize("memory://scan-test")["deals"] == 3000
    finally:
        fs.rm("/scan-test", recursive=True)


def test_stats_streams_in_bounded_memory(tmp_path):
    """Peak memory does not grow with the rows: 3 M rows take about what 0.3 M take."""
    from batch_helpers import peak_rss_mib

    small = write_synthetic(tmp_path / "small", 300_000, chunk_rows=100_000, seed=1)
    big = write_synthetic(tmp_path / "big", 3_000_000, chunk_rows=100_000, seed=1)
    a, b = peak_rss_mib(["stats", str(small)]), peak_rss_mib(["stats", str(big)])
    # the loaded way would hold 3 M rows (about 100 MB more in pandas)
    assert b < a + 40, (a, b)


def test_bad_datasets_are_refused_with_one_line(tmp_path, capsys):
    mixed = write_results(tmp_path / "mixed", make_rows(["win"] * 4), chunk_rows=2, fmt=1)
    write_results(tmp_path / "new", make_rows(["loss"] * 2, start=10))
    (tmp_path / "new" / "part-000000.parquet").rename(mixed / "part-000005.parquet")
    with pytest.raises(ResultsError, match="mixes results formats 1 and 2"):
        scan.summarize(mixed)
    (tmp_path / "empty").mkdir()
    for where, message in [(mixed, "mixes results formats 1 and 2"),
                           (tmp_path / "nowhere", "no such directory"),
                           (tmp_path / "empty", "holds no finished chunk file")]:
        assert main(["stats", str(where)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err
    with pytest.raises(HalfMoonError):
        scan.summarize("memory://nothing-here")
