"""Several runs pooled: each deal counted once, the figures those of one run over the union
of their deals; runs of different solver versions, a run named twice and a deal won in one
run and lost in another refused."""

from __future__ import annotations

import pandas as pd
import pytest
from results_samples import make_rows, write_results

from halfmoon.batch.results import encode_line, line_text, stored_columns, to_rows
from halfmoon.game.errors import HalfMoonError
from halfmoon.research import scan
from halfmoon.research.pool import pooled_rows, pooled_summary

VERDICTS = (["win"] * 9 + ["loss"]) * 6  # deals 0..59


def _rows(lo: int, hi: int, **changes) -> list[dict]:
    rows = make_rows(VERDICTS)[lo:hi]
    return [{**r, **changes} for r in rows]


def test_two_runs_pooled_are_one_run_over_the_union_of_their_deals(tmp_path):
    a = write_results(tmp_path / "a", _rows(0, 40), 16)
    b = write_results(tmp_path / "b", _rows(25, 60), 16)
    union = write_results(tmp_path / "union", _rows(0, 60), 16)
    pooled, one = pooled_summary([a, b]), scan.summarize(union)
    for key in ("deals", "wins", "losses", "unresolved", "win_rate", "ci_low", "ci_high",
                "nodes", "budgets", "solver_versions"):
        assert pooled[key] == pytest.approx(one[key]), key
    assert pooled["deals"] == 60 and pooled["pooled"]["rows"] == 75
    assert pooled["pooled"]["deals_counted_once"] == 15
    assert [r["shared"] for r in pooled["pooled"]["runs"]] == [0, 15]


def test_a_deal_left_unresolved_by_one_run_takes_the_verdict_another_settled(tmp_path):
    unsettled = [{**r, "verdict": "unresolved"} if r["deal"] == 5 else r for r in _rows(0, 10)]
    a = write_results(tmp_path / "a", unsettled)
    b = write_results(tmp_path / "b", _rows(0, 10))
    rows, _ = pooled_rows([a, b])
    assert rows.loc[rows["deal"] == 5, "verdict"].tolist() == ["win"]
    assert len(rows) == 10 and pooled_summary([a, b])["unresolved"] == 0


def test_what_cannot_be_pooled_is_refused(tmp_path):
    a = write_results(tmp_path / "a", _rows(0, 10))
    other = write_results(tmp_path / "v2", _rows(10, 20, solver_version="2"))
    with pytest.raises(HalfMoonError, match="runs of different solver versions"):
        pooled_rows([a, other])
    with pytest.raises(HalfMoonError, match="is named twice"):
        pooled_rows([a, a])
    flipped = [{**r, "verdict": "loss", "line": None} if r["deal"] == 0 else r
               for r in _rows(0, 10)]
    c = write_results(tmp_path / "c", flipped)
    with pytest.raises(HalfMoonError, match="deal 0 is won in one run and lost in another"):
        pooled_rows([a, c])


def _finished(directory, rows, fmt: int = 2):
    """A run written by hand with the manifest of a finished batch run."""
    import json

    path = write_results(directory, rows, fmt=fmt)
    (path / "_manifest.json").write_text(json.dumps({
        "format": fmt, "lines": "all", "solver_version": "1", "budget": rows[0]["budget"],
        "deals": {"count": len(rows), "sha256": str(rows[0]["deal"])},
        "source": {"kind": "range", "start": rows[0]["deal"], "stop": rows[-1]["deal"] + 1},
        "created": f"2026-01-0{1 + fmt}", "status": "complete"}))
    return path


def test_runs_pooled_are_written_as_one_run_whose_rows_are_the_union(tmp_path):
    from halfmoon.research.pool import pooled_run, write_pooled
    from halfmoon.research.scan import open_dataset

    a = _finished(tmp_path / "a", _rows(0, 40))
    b = _finished(tmp_path / "b", _rows(25, 60), fmt=1)  # an older file format, pooled alike
    rows, manifest = pooled_run([a, b])
    assert manifest["deals"]["count"] == 60 and manifest["status"] == "complete"
    assert manifest["counts"] == {"win": 54, "loss": 6, "unresolved": 0}
    assert manifest["source"]["kind"] == "pooled"
    assert [r["shared"] for r in manifest["source"]["runs"]] == [0, 15]
    assert manifest["read_from"] == [str(a), str(b)]
    out = tmp_path / "out" / "_pooled"
    assert write_pooled(rows, manifest, out) is True
    # read back as any run is read: the rows of one run over the union, lines and all
    ds = open_dataset(out)
    back = pd.concat([to_rows(g, ds.format).to_pandas()
                      for g in ds.row_groups(stored_columns(ds.format))])
    union = pd.DataFrame(_rows(0, 60))
    union["line"] = [line_text(encode_line(r["line"])) for r in _rows(0, 60)]  # as files keep it
    for col in ("deal", "verdict", "nodes", "line", "budget", "solver_version"):
        assert back[col].tolist() == union[col].tolist(), col
    assert back["seconds"].tolist() == pytest.approx(union["seconds"].tolist())
    # the same rows again: nothing written; rows that changed: written again, whole
    assert write_pooled(rows, manifest, out) is False
    c = _finished(tmp_path / "c", _rows(50, 60))
    rows2, manifest2 = pooled_run([a, c])
    assert write_pooled(rows2, manifest2, out) is True
    assert sorted(p.name for p in out.iterdir()) == ["_manifest.json", "part-000000.parquet"]
    assert scan.summarize(out)["deals"] == 50


def test_what_cannot_be_pooled_into_one_run_is_refused(tmp_path):
    from halfmoon.research.pool import pooled_run

    a = _finished(tmp_path / "a", _rows(0, 10))
    other = _finished(tmp_path / "b", [{**r, "budget": 2000} for r in _rows(10, 20)])
    with pytest.raises(HalfMoonError, match="runs of different budgets .*findings state one"):
        pooled_run([a, other])
    unfinished = _finished(tmp_path / "u", _rows(10, 20))
    manifest = (unfinished / "_manifest.json")
    manifest.write_text(manifest.read_text().replace('"complete"', '"running"'))
    with pytest.raises(HalfMoonError, match=r"u: the run is not finished; findings pool finished"):
        pooled_run([a, unfinished])
    with pytest.raises(HalfMoonError, match="not a results directory"):
        pooled_run([a, write_results(tmp_path / "bare", _rows(10, 20))])
