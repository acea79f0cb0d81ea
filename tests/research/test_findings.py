"""The findings' derived data, on a small census made here."""

from __future__ import annotations

import json

import pandas as pd
import pytest

import halfmoon.research.findings as findings
from halfmoon.batch.results import load_results
from halfmoon.research.findings import (
    FindingsError,
    census_command,
    derive,
    players_table,
    save_data,
)
from halfmoon.research.stats import make_sample, paired_difference


@pytest.fixture(scope="module")
def census(tmp_path_factory):
    path = tmp_path_factory.mktemp("census") / "c"
    make_sample(path, range(0, 400), budget=5_000_000)
    return path


@pytest.fixture(scope="module")
def derived(census):
    return derive(census, seed=5, workers=1, players_deals=150, forgiveness_deals=6,
                  recheck_share=0.02, recheck_limit=60, progress=False, fair_deals=12,
                  fair_samples=2)


def test_command_of_a_census():
    m = {"source": {"kind": "random", "count": 1000000, "seed": 2026}, "chunk_size": 5000}
    assert census_command(m, "census") == ("halfmoon batch --random 1000000 --seed 2026 "
                                           "--out census --chunk-size 5000")


def test_players_table_against_hand_counts():
    p = pd.DataFrame({"deal": [1, 2, 3, 4], "greedy_won": [True, False, True, False],
                      "greedy_left": [0, 10, 0, 3], "verdict": ["win", "win", "win", "loss"]})
    t = players_table(p, (p["verdict"] == "win").to_numpy(), ["greedy"]).set_index("player")
    assert t.loc["solver", "wins"] == 3 and t.loc["greedy", "wins"] == 2
    assert t.loc["greedy", "of_winnable"] == pytest.approx(2 / 3)
    assert t.loc["greedy", "mean_cards_left"] == pytest.approx(13 / 4)
    # the solver against greedy, paired by deal: differences 0, 1, 0, 0
    assert t.loc["solver", "vs_greedy"] == pytest.approx(0.25)
    # Newcombe's interval of paired proportions: 1 pair of 4 differs (both 2, solver only 1)
    assert (t.loc["solver", "vs_greedy_low"], t.loc["solver", "vs_greedy_high"]) == pytest.approx(
        paired_difference([1, 1, 1, 0], [1, 0, 1, 0])[1:])
    assert t.loc["greedy", "vs_greedy"] == 0


def test_derive_and_save(derived, census, tmp_path):
    s = derived["summary"]
    assert s["deals"] == 400 and s["players_deals"] == 150 and s["forgiveness_deals"] == 6
    df = load_results(census)
    assert s["wins"] == int((df["verdict"] == "win").sum())
    pl = derived["players"]
    assert pl["deal"].is_unique and set(pl["deal"]) <= set(df["deal"])
    assert (pl.set_index("deal")["verdict"]
            == df.set_index("deal").loc[pl["deal"], "verdict"]).all()
    losses = derived["losses"]
    assert len(losses) == s["losses"] and losses["kind"].str.startswith(("faces", "pairs")).all()
    assert set(derived["recheck"]["check"]) <= {"replayed", "confirmed"}
    assert len(derived["recheck"]) == 8
    d = save_data(derived, tmp_path / "data")
    for name in findings.DATA_FILES:
        assert (d / name).exists(), name
    saved = json.loads((d / "summary.json").read_text())
    assert saved["recheck"]["wins replayed"] + saved["recheck"]["losses confirmed"] == 8
    assert pd.read_parquet(d / "players.parquet")["player"].tolist()[0] == "solver"
    # the fair-play ladder: every player on the same 12 deals, the solver's verdicts first
    ladder = pd.read_parquet(d / "fair-ladder.parquet")
    assert ladder["player"].tolist() == ["solver", *findings.FAIR_LADDER, *findings.FAIR_CURVE]
    assert (ladder["deals"] == 12).all() and s["fair_deals"] == 12
    fair = derived["fair"]
    solver_wins = int((fair.drop_duplicates("deal")["verdict"] == "win").sum())
    assert ladder.set_index("player").loc["solver", "won"] == solver_wins
    assert (ladder.set_index("player").loc["lookahead", "vs_lookahead"]) == 0
    curve = pd.read_parquet(d / "fair-curve.parquet")
    assert (curve["player"].tolist() == ["fair@16", "fair@64", "fair"]
            or curve["samples"].is_monotonic_increasing)
    # where the fair players' games are lost: every game on a deal the solver wins, once
    fatal = pd.read_parquet(d / "fair-fatal.parquet")
    assert list(dict.fromkeys(fatal["player"])) == [*findings.FAIR_LADDER, *findings.FAIR_CURVE]
    per_player = fatal.groupby("player")["games"].sum()
    assert (per_player == solver_wins).all()
    won = fair[fair["verdict"] == "win"].groupby("player")["won"].sum()
    never = fatal[fatal["outcome"] == "never lost"].set_index("player")["games"]
    assert (never.loc[won.index] == won).all()
    assert (fair.loc[fair["verdict"] != "win", "fatal_ply"] == -1).all()
    assert (fair.loc[(fair["verdict"] == "win") & ~fair["won"] & ~fair["unresolved"],
                     "fatal_ply"] >= 0).all()


def test_the_fair_stage_alone_adds_to_findings_made_without_it(census, derived, tmp_path):
    without = dict(derived, fair=None)
    d = save_data(without, tmp_path / "data")
    assert not (d / "fair-ladder.parquet").exists()
    fair = findings.derive_fair(census, d, workers=1, fair_deals=12, fair_samples=2, progress=False,
                                work=tmp_path / "work")
    findings.save_fair(fair, d)
    cols = ["deal", "player", "won", "moves_made", "cards_left", "fatal_ply", "fatal_cards_left"]
    pd.testing.assert_frame_equal(fair[cols].reset_index(drop=True),
                                  derived["fair"][cols].reset_index(drop=True))
    assert json.loads((d / "summary.json").read_text())["fair_deals"] == 12
    assert (d / "fair-fatal.parquet").exists()
    with pytest.raises(FindingsError, match="no findings data"):
        findings.derive_fair(census, tmp_path / "nothing", progress=False)
    other = tmp_path / "other"
    make_sample(other, range(400, 410), budget=5_000_000)
    with pytest.raises(FindingsError, match="another census"):
        findings.derive_fair(other, d, workers=1, fair_deals=2, progress=False,
                             work=tmp_path / "w2")


def test_derive_refuses_bad_workers_and_a_url_without_work(census):
    with pytest.raises(ValueError, match="workers"):
        derive(census, workers=0, progress=False)
    with pytest.raises(FindingsError, match="needs a local directory"):
        derive("memory://somewhere/census", workers=1, progress=False)


def test_a_census_without_losses_has_findings_too(tmp_path):
    path = tmp_path / "wins"
    make_sample(path, range(0, 20), budget=5_000_000)  # deals 0-19: every one won
    data = derive(path, seed=5, workers=1, players_deals=10, forgiveness_deals=2,
                  recheck_share=0.05, progress=False, fair_deals=0)
    assert data["summary"]["losses"] == 0 and data["summary"]["wins"] == 20
    assert len(data["losses"]) == 0 and "deadlock" in data["losses"].columns
