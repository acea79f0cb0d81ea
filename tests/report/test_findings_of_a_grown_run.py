"""A run's findings made while it was unfinished, then again once it finished: the second page
is of the whole run, as if made from nothing, and stages whose input did not change are not
done again.

The run: deals 0 to 399 in chunks of 100, its first two chunks written first (``--chunks
0:2``), the findings taken of them (``--partial``), then the rest of the run.
"""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

import halfmoon.research.pieces as pieces
from halfmoon.batch import deals_from_range, run_batch
from halfmoon.batch.results import load_results
from halfmoon.report.findings import load_data
from halfmoon.report.findings_out import write_findings
from halfmoon.research.census import sample_keys

OPTIONS = dict(seed=3, players_deals=60, forgiveness_deals=3, recheck_share=0.01,
               recheck_limit=5.0, fair_deals=2, fair_samples=2,
               fair_players=("greedy", "lookahead", "fair@16"), workers=1, progress=False)


def _made(monkeypatch) -> dict:
    """Rows done in each stage from now on (a stage read back does none)."""
    done: dict = {}
    make = pieces._make

    def counting(d, stage, new, *args):
        if new:
            done[stage] = done.get(stage, 0) + sum(len(rows) for rows in new.values())
        return make(d, stage, new, *args)

    monkeypatch.setattr(pieces, "_make", counting)
    return done


@pytest.fixture(scope="module")
def grown(tmp_path_factory):
    root = tmp_path_factory.mktemp("grown")
    run, fresh = root / "run", root / "fresh"
    deals = deals_from_range(0, 400)
    run_batch(deals, run, chunk_size=100, chunks=range(0, 2), workers=2, progress=False)
    before = write_findings(run, partial=True, **OPTIONS).read_text(encoding="utf-8")
    shutil.copytree(run, root / "early")  # the unfinished run and its findings, kept
    run_batch(deals, run, chunk_size=100, workers=2, progress=False)
    page = write_findings(run, **OPTIONS)
    shutil.copytree(run, fresh, ignore=shutil.ignore_patterns("_findings"))
    return {"run": run, "before": before, "page": page, "early": root / "early",
            "fresh": write_findings(fresh, **OPTIONS)}


def test_the_page_of_the_grown_run_is_of_the_whole_run(grown):
    assert "200 of" in grown["before"]  # of its first chunks
    rows = load_results(grown["run"])
    assert len(rows) == 400
    order = rows.assign(key=sample_keys(rows["deal"].to_numpy(), 3)).sort_values("key")
    data = load_data(grown["page"].parent / "findings")
    s = data["summary"]
    assert s["deals"] == 400 and not s["partial"]
    # the players: the run's first 60 deals in the sample order, every one of them
    assert s["players_deals"] == 60 and (data["players"]["deals"] == 60).all()
    assert ("The same deals, a seeded random sample of 60 of the run's 400 deals"
            in grown["page"].read_text(encoding="utf-8"))
    solver = data["players"].set_index("player").loc["solver"]
    assert solver["wins"] == int((order["verdict"].iloc[:60] == "win").sum())
    # the forgiveness sample: the run's first 3 winnable deals in that order
    winnable = order.loc[order["verdict"] == "win", "deal"].iloc[:3].tolist()
    assert sorted(set(data["forgiveness-games"]["deal"])) == sorted(winnable)
    # the hardest deals: the run's, most positions first
    top = rows.sort_values(["nodes", "deal"], ascending=[False, True]).iloc[:20]
    assert data["hardest"]["deal"].tolist() == top["deal"].tolist()
    assert data["fair-ladder"]["deals"].tolist() == [2, 2, 2, 2]


def test_the_grown_runs_page_is_the_page_made_from_nothing(grown):
    a = load_data(grown["page"].parent / "findings")
    b = load_data(grown["fresh"].parent / "findings")
    for name in ("players", "players-left", "forgiveness", "forgiveness-games", "random-move",
                 "fatal-moves", "losses", "hardest", "fair-ladder", "win-rate", "features"):
        left, right = a[name], b[name]
        # measured, not derived
        timed = [c for c in ("seconds", "seconds_per_game", "seconds_median") if c in left]
        pd.testing.assert_frame_equal(left.drop(columns=timed), right.drop(columns=timed),
                                      check_exact=False, obj=name)
    assert a["recheck"]["deal"].tolist() == b["recheck"]["deal"].tolist()
    assert np.array_equal(a["recheck"]["check"], b["recheck"]["check"])
    page = grown["page"].read_text(encoding="utf-8")
    other = grown["fresh"].read_text(encoding="utf-8")

    def body(text: str) -> str:  # sections 2 to 4: deadlocks, features, forgiveness, players
        return text[text.index("## 2. Why deals are lost"):text.index("## 4b.")]

    assert body(page) == body(other)


def test_an_unchanged_run_is_read_back_and_an_option_redoes_only_its_stage(grown, monkeypatch):
    done = _made(monkeypatch)
    write_findings(grown["run"], **OPTIONS)
    assert done == {}  # no stage done again
    # the recheck's time limit shapes the recheck alone: it alone is done again, whole
    write_findings(grown["run"], **dict(OPTIONS, recheck_limit=6.0))
    assert done == {"recheck": 4}
    # a larger forgiveness sample: the deals already walked are kept, one more walked
    done.clear()
    write_findings(grown["run"], **dict(OPTIONS, recheck_limit=6.0, forgiveness_deals=4))
    assert done == {"forgiveness": 1}


def test_the_fair_stage_alone_on_a_grown_run_brings_every_stage_up_to_date(grown, capsys):
    from halfmoon.report.findings_out import write_fair

    early = grown["early"]
    run_batch(deals_from_range(0, 400), early, chunk_size=100, workers=2, progress=False)
    fair = {k: v for k, v in OPTIONS.items() if k.startswith("fair") or k == "workers"}
    page = write_fair(early, **fair)
    assert "brought up to date" in capsys.readouterr().err
    a = load_data(page.parent / "findings")
    b = load_data(grown["fresh"].parent / "findings")  # the run's page made from nothing
    assert a["summary"]["deals"] == 400 and not a["summary"]["partial"]
    assert "not finished" not in page.read_text(encoding="utf-8")
    for name in ("players", "forgiveness-games", "hardest", "fair-ladder"):
        timed = [c for c in ("seconds", "seconds_per_game", "seconds_median") if c in a[name]]
        pd.testing.assert_frame_equal(a[name].drop(columns=timed), b[name].drop(columns=timed),
                                      check_exact=False, obj=name)
