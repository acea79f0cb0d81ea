"""Where a run's findings are written (halfmoon/report/findings_out.py): beside the run
unless told, never over another run's page unasked, an unfinished run only with --partial."""

from __future__ import annotations

import json

import pytest

from halfmoon.batch import deals_from_range, run_batch
from halfmoon.report.findings_out import check_out, default_out
from halfmoon.research.census import FindingsError


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("state") / "done"
    run_batch(deals_from_range(600, 800), out, workers=1, progress=False)
    return out


@pytest.fixture(scope="module")
def unfinished(tmp_path_factory):
    """Deals 0 to 399 in chunks of 200, only the first solved: an interrupted run."""
    out = tmp_path_factory.mktemp("state") / "run"
    run_batch(deals_from_range(0, 400), out, chunk_size=200, chunks=range(0, 1), workers=1,
              progress=False)
    return out


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
