"""Several runs pooled: each deal counted once, the figures those of one run over the union
of their deals; runs of different solver versions, a run named twice and a deal won in one
run and lost in another refused."""

from __future__ import annotations

import pytest
from results_samples import make_rows, write_results

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
