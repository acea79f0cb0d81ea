"""Where a run's findings are written (halfmoon/report/findings_out.py): beside the run
unless told, never over another run's page unasked, an unfinished run only with --partial."""

from __future__ import annotations

import json

import pytest

from halfmoon.report.findings_out import check_out, default_out
from halfmoon.research.census import FindingsError


def test_a_run_s_findings_go_beside_it(finished, tmp_path):
    assert default_out(finished) == finished / "_findings"
    assert check_out(tmp_path / "empty", finished) is None  # nothing there to replace


def test_an_unfinished_run_is_refused_unless_partial(unfinished, tmp_path):
    with pytest.raises(FindingsError, match="findings are of a finished run .*--partial"):
        check_out(tmp_path / "out", unfinished)
    assert check_out(tmp_path / "out", unfinished, partial=True) is None


def test_a_page_made_before_runs_were_recorded_is_known_by_its_batch_command(finished, tmp_path):
    """The shipped page's data name their census only by its batch command: ``make findings``
    redraws it without --force, wherever the census lies now; any other run needs --force."""
    docs = tmp_path / "docs"
    (docs / "findings").mkdir(parents=True)
    (docs / "findings.md").write_text("# Half Moon, measured\n")
    old = {"command": "halfmoon batch --range 600:800 --out elsewhere --chunk-size 250",
           "deals": 200, "created": "2026-12-01T00:00:00+00:00"}
    (docs / "findings" / "summary.json").write_text(json.dumps(old))
    assert check_out(docs, finished) is None
    old["command"] = "halfmoon batch --random 1000000 --seed 2026 --out census --chunk-size 5000"
    (docs / "findings" / "summary.json").write_text(json.dumps(old))
    with pytest.raises(FindingsError, match="holds the page of another run"):
        check_out(docs, finished)
    assert check_out(docs, finished, force=True).startswith("the page of another run")


def test_findings_at_another_confidence_give_every_interval_at_it(page, tmp_path):
    """The same run's findings at 0.99 (into another folder, its stages' pieces read back: they
    hold games and walks, no interval): each interval the data give is the one at 0.99 of the
    same counts, wider than at 0.95; the page says 99 % where it said 95 %."""
    import pandas as pd

    from halfmoon.report.findings_out import write_findings
    from halfmoon.research.stats import wilson_bounds, wilson_interval, z_of

    census = page.parent.parent / "census"
    pieces = sorted((census / "_findings").glob("*/piece-*.done"))
    stamps = [p.stat().st_mtime_ns for p in pieces]
    page99 = write_findings(census, tmp_path / "docs", seed=3, workers=1, players_deals=120,
                            forgiveness_deals=5, recheck_share=0.02, progress=False,
                            fair_deals=10, fair_samples=2, confidence=0.99)
    assert pieces and [p.stat().st_mtime_ns for p in pieces] == stamps  # read back, not redone
    d95, d99 = page.parent / "findings", page99.parent / "findings"
    s95, s99 = (json.loads((d / "summary.json").read_text()) for d in (d95, d99))
    assert (s95["confidence"], s99["confidence"]) == (0.95, 0.99)
    assert s99["options"]["confidence"] == 0.99
    z = z_of(0.99)
    assert (s99["win_low"], s99["win_high"]) == pytest.approx(
        wilson_interval(s99["wins"], s99["deals"], z))
    assert s99["win_low"] < s95["win_low"] and s99["deals"] == s95["deals"]
    for name, k, n in (("features.parquet", "losses", "deals"),
                       ("players.parquet", "wins", "deals"),
                       ("fair-ladder.parquet", "won", "deals")):
        t95, t99 = pd.read_parquet(d95 / name), pd.read_parquet(d99 / name)
        assert t99[k].tolist() == t95[k].tolist()  # the same counts
        low, high = wilson_bounds(t99[k], t99[n], z)
        assert t99["ci_low"].to_numpy() == pytest.approx(low), name
        assert t99["ci_high"].to_numpy() == pytest.approx(high), name
        assert (t99["ci_high"] - t99["ci_low"] >= t95["ci_high"] - t95["ci_low"]).all(), name
        assert (t99["ci_high"] - t99["ci_low"] > t95["ci_high"] - t95["ci_low"]).any(), name
    text95, text99 = page.read_text(), page99.read_text()
    assert "95 % interval" in text95 and "99 % interval" not in text95
    assert "99 % interval" in text99 and "95 % interval" not in text99
    assert "Every interval is a 99 % interval" in text99
    assert "--confidence 0.99" in text99 and "--confidence" not in text95


def test_fair_only_keeps_the_findings_confidence(page):
    from halfmoon.report.findings_out import write_fair

    census = page.parent.parent / "census"
    with pytest.raises(FindingsError, match="give 0.95 intervals; --fair-only keeps them"):
        write_fair(census, page.parent, confidence=0.99, workers=1, progress=False)
