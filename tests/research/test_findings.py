"""The findings' derived data, on a small census made here."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import halfmoon.research.findings as findings
from halfmoon.batch.results import load_results
from halfmoon.research.findings import (
    FindingsError, census_command, census_summary, derive, difficulty_table, feature_table,
    layout_columns, load_census, players_table, running_points, save_data)
from halfmoon.research.stats import make_sample, wilson_interval


@pytest.fixture(scope="module")
def census(tmp_path_factory):
    path = tmp_path_factory.mktemp("census") / "c"
    make_sample(path, range(0, 400), budget=5_000_000)
    return path


@pytest.fixture(scope="module")
def derived(census):
    return derive(census, seed=5, workers=1, players_deals=150, forgiveness_deals=6,
                  recheck_share=0.02, recheck_limit=60, progress=False)


def test_load_census_leaves_out_the_lines_and_refuses_an_unfinished_one(census, tmp_path):
    df, manifest = load_census(census)
    assert len(df) == 400 and "line" not in df and df["deal"].is_monotonic_increasing
    assert manifest["status"] == "complete"
    with pytest.raises(FindingsError, match="no census"):
        load_census(tmp_path / "nothing")
    unfinished = tmp_path / "u"
    unfinished.mkdir()
    m = dict(manifest, status="running")
    (unfinished / "_manifest.json").write_text(json.dumps(m))
    with pytest.raises(FindingsError, match=r"not finished \(0 of 400 deals\)"):
        load_census(unfinished)


def test_summary_counts_and_intervals(census):
    df = load_results(census)
    s = census_summary(df)
    wins = int((df["verdict"] == "win").sum())
    assert (s["deals"], s["wins"], s["losses"], s["unresolved"]) == (400, wins, 400 - wins, 0)
    assert (s["win_low"], s["win_high"]) == pytest.approx(wilson_interval(wins, 400))
    doa = int((df["start_moves"] == 0).sum())
    assert s["dead_on_arrival"] == doa and (s["doa_low"], s["doa_high"]) == pytest.approx(wilson_interval(doa, 400))


def test_command_of_a_census():
    m = {"source": {"kind": "random", "count": 1000000, "seed": 2026}, "chunk_size": 5000}
    assert census_command(m, "census") == "halfmoon batch --random 1000000 --seed 2026 --out census --chunk-size 5000"


def test_feature_table_is_a_groupby_with_wilson_intervals(census):
    df, _ = load_census(census)
    df = pd.concat([df, layout_columns(df["deal"].to_numpy())], axis=1)
    t = feature_table(df)
    assert set(t["feature"]) == set(findings.FEATURES)
    sub = t[t["feature"] == "top_faces"].set_index("value")
    for v, g in df.groupby("top_faces"):
        lost = int((g["verdict"] == "loss").sum())
        assert (sub.loc[v, "deals"], sub.loc[v, "losses"]) == (len(g), lost)
        assert (sub.loc[v, "ci_low"], sub.loc[v, "ci_high"]) == pytest.approx(wilson_interval(lost, len(g)))
    assert t.groupby("feature")["deals"].sum().eq(400).all()


def test_difficulty_decades_and_running_points(census):
    df, _ = load_census(census)
    t = difficulty_table(df)
    assert t["wins"].sum() + t["losses"].sum() == 400
    row = t[(t["nodes_from"] <= 150) & (t["nodes_below"] > 150)].iloc[0]
    assert row["wins"] == int(((df["nodes"] >= 100) & (df["nodes"] < 1000) & (df["verdict"] == "win")).sum())
    run = running_points(pd.Series(["win", "loss"] * 300), points=10)
    assert run["n"].iloc[-1] == 600 and run["win_rate"].iloc[-1] == 0.5
    assert (run["ci_low"] <= run["win_rate"]).all()


def test_players_table_against_hand_counts():
    p = pd.DataFrame({"deal": [1, 2, 3, 4], "greedy_won": [True, False, True, False],
                      "greedy_left": [0, 10, 0, 3], "verdict": ["win", "win", "win", "loss"]})
    t = players_table(p, (p["verdict"] == "win").to_numpy(), ["greedy"]).set_index("player")
    assert t.loc["solver", "wins"] == 3 and t.loc["greedy", "wins"] == 2
    assert t.loc["greedy", "of_winnable"] == pytest.approx(2 / 3)
    assert t.loc["greedy", "mean_cards_left"] == pytest.approx(13 / 4)
    # the solver against greedy, paired by deal: differences 0, 1, 0, 0
    assert t.loc["solver", "vs_greedy"] == pytest.approx(0.25)
    se = np.std([0, 1, 0, 0], ddof=1) / 2
    assert t.loc["solver", "vs_greedy_low"] == pytest.approx(0.25 - 1.96 * se)
    assert t.loc["greedy", "vs_greedy"] == 0


def test_pieces_are_kept_and_not_redone(tmp_path):
    calls = []

    def fn(rows, add):
        calls.append(len(rows))
        return {"out": rows.assign(y=rows["x"] + add)}

    items = pd.DataFrame({"x": np.arange(10)})
    a = findings._run_pieces(tmp_path, "s", items, fn, {"add": 1}, 4, 1, False)["out"]
    assert a["y"].tolist() == list(range(1, 11)) and calls == [4, 4, 2]
    (tmp_path / "s" / "piece-000001.done").unlink()  # as if cut off during that piece
    b = findings._run_pieces(tmp_path, "s", items, fn, {"add": 1}, 4, 1, False)["out"]
    assert b.equals(a) and calls == [4, 4, 2, 4]
    findings._run_pieces(tmp_path, "s", items, fn, {"add": 2}, 4, 1, False)  # new parameters: redone
    assert calls[-3:] == [4, 4, 2]


def test_derive_and_save(derived, tmp_path):
    s = derived["summary"]
    assert s["deals"] == 400 and s["players_deals"] == 150 and s["forgiveness_deals"] == 6
    losses = derived["losses"]
    assert len(losses) == s["losses"] and losses["kind"].str.startswith(("faces", "pairs")).all()
    assert set(derived["recheck"]["check"]) <= {"replayed", "confirmed"} and len(derived["recheck"]) == 8
    d = save_data(derived, tmp_path / "data")
    for name in findings.DATA_FILES:
        assert (d / name).exists(), name
    saved = json.loads((d / "summary.json").read_text())
    assert saved["recheck"]["wins replayed"] + saved["recheck"]["losses confirmed"] == 8
    assert pd.read_parquet(d / "players.parquet")["player"].tolist()[0] == "solver"


def test_derive_refuses_bad_workers(census):
    with pytest.raises(ValueError, match="workers"):
        derive(census, workers=0, progress=False)
