"""What the notebooks read: the run they are given and its own findings, said in words; the
shipped census's findings only when asked for by name."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from results_samples import make_rows, write_results

from halfmoon.game.errors import HalfMoonError
from halfmoon.report.notebook_data import drawn_from, findings_of, load_run

SHIPPED = Path(__file__).resolve().parents[2] / "docs" / "findings"


def test_the_run_is_read_in_its_own_order(tmp_path):
    rows = make_rows(["win", "loss"] * 20, start=100)
    rows = rows[20:] + rows[:20]  # its files list deals 120.. before 100..
    run = write_results(tmp_path / "run", rows, 20)
    df, said = load_run(run, tmp_path / "sample")
    assert df["deal"].tolist() == [r["deal"] for r in rows]
    assert said == f"40 deals from {run}, in the run's order"
    assert not (tmp_path / "sample").exists()


def test_a_folder_that_is_not_a_run_is_an_error_not_a_sample(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(HalfMoonError, match="no finished chunk file"):
        load_run(tmp_path / "empty", tmp_path / "sample")
    with pytest.raises(HalfMoonError, match="no such directory"):
        load_run(tmp_path / "missing")  # and no sample folder named
    assert not (tmp_path / "sample").exists()


def test_the_runs_own_findings_are_found_beside_it(page):
    census = page.parent.parent / "census"
    data = page.parent / "findings"
    own = census / "_findings" / "findings"
    shutil.copytree(data, own)
    try:
        where, words = findings_of(census, "", SHIPPED)
        assert where == own
        assert words.startswith(f"findings in {own}: 300 deals of halfmoon batch --range "
                                "1000:1300")
        assert "NOT" not in words
    finally:
        shutil.rmtree(own)


def test_a_run_without_findings_has_the_census_drawn_in_their_place_said_not_of_it(page):
    """A checkout after ``make run`` (its run has no findings): the notebook goes on with the
    shipped census's, saying first that they are not of the run and how to make its own (it
    stopped with an error on "Run All")."""
    census = page.parent.parent / "census"
    where, words = findings_of(census, "", SHIPPED)
    assert where == SHIPPED
    assert words == (
        f"NOT of your run: {census} has no findings in {census / '_findings' / 'findings'} "
        f"('halfmoon findings {census}' writes them there; findings written with --out DIR are "
        "in DIR/findings: set FINDINGS to it). Drawn instead: the shipped census's findings "
        f"({SHIPPED}: 1,000,000 deals of halfmoon batch --random 1000000 --seed 2026 --out "
        "census --chunk-size 5000)")
    where, words = findings_of(census, str(page.parent / "findings"), SHIPPED)  # named: read
    assert where == page.parent / "findings" and "NOT" not in words


def test_the_census_is_drawn_only_by_name_and_said_not_of_the_run(page):
    census = page.parent.parent / "census"
    where, words = findings_of(census, "census", SHIPPED)
    assert where == SHIPPED
    assert words.startswith(f"the shipped census's findings ({SHIPPED}: 1,000,000 deals of "
                            "halfmoon batch --random 1000000 --seed 2026")
    assert words.endswith(f"as asked (FINDINGS = 'census'); not of {census}")


def test_findings_of_another_run_are_said_so(page, tmp_path):
    other = tmp_path / "findings"
    shutil.copytree(page.parent / "findings", other)
    s = json.loads((other / "summary.json").read_text())
    s["run"] = {**s["run"], "source": {"kind": "range", "start": 0, "stop": 300}}
    (other / "summary.json").write_text(json.dumps(s))
    census = page.parent.parent / "census"
    _, words = findings_of(census, str(other), SHIPPED)
    assert words.endswith(f"; NOT of {census}: they are of another run")


def test_a_folder_with_no_findings_is_named(tmp_path):
    with pytest.raises(HalfMoonError, match="no findings data"):
        findings_of(tmp_path, str(tmp_path), SHIPPED)


def test_each_cell_names_the_files_it_draws(tmp_path):
    line = drawn_from(tmp_path, "win-rate.parquet", "summary.json")
    first, second = line.splitlines()
    assert first.startswith(f"drawn from {tmp_path / 'win-rate.parquet'}: n, wins, win_rate")
    assert second.startswith(f"drawn from {tmp_path / 'summary.json'}: headline figures")


def test_findings_made_before_runs_were_kept_are_told_apart_by_their_command(page):
    """The shipped census's findings keep no run identity: named as a folder beside another
    run, they are said not to be of it."""
    census = page.parent.parent / "census"
    _, words = findings_of(census, str(SHIPPED), SHIPPED)
    assert words.endswith(f"; NOT of {census}: they are of another run")


def test_the_players_are_replayed_with_the_seed_of_the_runs_findings(page):
    """strategies.ipynb played the players with its own seed (random won 7 where the page said
    4 on the same deals): with the findings' seed, its games are the page's."""
    import pandas as pd

    from halfmoon.report.notebook_data import players_seed
    from halfmoon.research.stats import load
    from halfmoon.research.strategies import compare_players

    census = page.parent.parent / "census"
    seed, said = players_seed(census)
    assert (seed, said) == (2026, "players seeded with 2026, the seed 'halfmoon findings "
                                  f"{census}' plays them with by default")
    own = census / "_findings" / "findings"
    shutil.copytree(page.parent / "findings", own)
    try:
        seed, said = players_seed(census)
        assert (seed, said) == (3, f"players seeded with 3, the seed of the findings in {own}")
        players = pd.read_parquet(own / "players.parquet").set_index("player")
        df = load(census)
        sample = json.loads((own / "summary.json").read_text())["players_deals"]
        assert sample == 120 < len(df)
        # the page's players' deals are its seeded sample: the notebook's games on the same
        # deals, with the same seed, win the same
        import numpy as np

        from halfmoon.research.census import sample_keys

        chosen = df.iloc[np.argsort(sample_keys(df["deal"].to_numpy(), seed),
                                    kind="stable")[:sample]]
        t = compare_players(chosen, seed=seed, players=("random", "greedy"))
        assert t.loc["random", "wins"] == players.loc["random", "wins"]
        assert t.loc["greedy", "wins"] == players.loc["greedy", "wins"]
    finally:
        shutil.rmtree(own)
