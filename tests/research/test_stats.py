"""Statistics: summaries, win rates by feature, difficulty tables (the intervals:
test_intervals.py)."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest
from results_samples import make_rows, write_results

from halfmoon.cli.main import main
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.layouts import parse_layout
from halfmoon.research import stats

# --- summaries -------------------------------------------------------------------------
VERDICTS = ["win"] * 7 + ["loss"] * 2 + ["unresolved"]


def test_summarize_counts_and_interval():
    df = pd.DataFrame(make_rows(VERDICTS))
    s = stats.summarize(df)
    assert (s["deals"], s["wins"], s["losses"], s["unresolved"]) == (10, 7, 2, 1)
    assert s["win_rate"] == pytest.approx(0.7)
    assert s["win_rate_resolved"] == pytest.approx(7 / 9)
    # unresolved as a loss for the lower end, as a win for the upper end
    assert s["ci_low"] == pytest.approx(stats.wilson_interval(7, 10)[0])
    assert s["ci_high"] == pytest.approx(stats.wilson_interval(8, 10)[1])
    assert s["seconds"]["total"] == pytest.approx(0.055)
    assert s["nodes"]["max"] == 1000  # the unresolved deal used the whole budget
    assert s["nodes"]["p50"] == pytest.approx(df["nodes"].median())
    assert s["budgets"] == [1000] and s["solver_versions"] == ["1"]
    json.dumps(s)  # plain Python values only


def test_summarize_without_unresolved_is_plain_wilson():
    s = stats.summarize(pd.DataFrame(make_rows(["win"] * 976 + ["loss"] * 24)))
    assert (s["ci_low"], s["ci_high"]) == pytest.approx(stats.wilson_interval(976, 1000))
    assert s["ci_low"] == pytest.approx(0.9645, abs=5e-5)


def test_unresolved_widen_the_interval_both_ways():
    base = stats.summarize(pd.DataFrame(make_rows(["win"] * 8 + ["loss"] * 2)))
    some = stats.summarize(pd.DataFrame(make_rows(["win"] * 8 + ["unresolved"] * 2)))
    assert some["ci_low"] == pytest.approx(base["ci_low"])
    assert some["ci_high"] == 1.0 > base["ci_high"]


def test_the_verdicts_are_the_solvers():
    import solver

    assert stats.VERDICTS == solver.VERDICTS
    assert set(stats.VERDICTS) == set(solver.VERDICT_NAMES.values())


def test_summarize_rejects_unknown_verdicts():
    df = pd.DataFrame(make_rows(["win", "loss"]))
    df.loc[0, "verdict"] = "maybe"
    with pytest.raises(HalfMoonError, match="maybe"):
        stats.summarize(df)


def test_format_summary_mentions_every_count():
    text = stats.format_summary(stats.summarize(pd.DataFrame(make_rows(VERDICTS))), "somewhere")
    assert "somewhere" in text
    assert "70.00 %" in text and "unresolved as losses" in text
    for label, value in (("wins", 7), ("losses", 2), ("unresolved", 1), ("deals", 10)):
        assert any(line.split()[:2] == [label, str(value)] for line in text.splitlines())


def test_win_rate_by_feature():
    df = pd.DataFrame(make_rows(VERDICTS))
    t = stats.win_rate_by(df, "top_faces")
    assert list(t.index) == [0, 1, 2, 3]
    assert t["deals"].sum() == 10
    for value, row in t.iterrows():
        sub = df[df["top_faces"] == value]
        wins = int((sub["verdict"] == "win").sum())
        unresolved = int((sub["verdict"] == "unresolved").sum())
        assert (row["wins"], row["unresolved"]) == (wins, unresolved)
        assert row["ci_low"] == pytest.approx(stats.wilson_interval(wins, len(sub))[0])
        assert row["ci_high"] == pytest.approx(
            stats.wilson_interval(wins + unresolved, len(sub))[1])


def test_running_win_rate_ends_at_the_summary():
    df = pd.DataFrame(make_rows(VERDICTS))
    run = stats.running_win_rate(df)
    assert list(run["n"]) == list(range(1, 11))
    assert list(run["wins"]) == [1, 2, 3, 4, 5, 6, 7, 7, 7, 7]
    s = stats.summarize(df)
    last = run.iloc[-1]
    assert (last["win_rate"], last["ci_low"], last["ci_high"]) == pytest.approx(
        (s["win_rate"], s["ci_low"], s["ci_high"])
    )


def test_difficulty_tables():
    df = pd.DataFrame(make_rows(VERDICTS))
    hard = stats.hardest(df, 3)
    assert list(hard["nodes"]) == sorted(df["nodes"], reverse=True)[:3]
    by = stats.nodes_by(df, "verdict")
    assert by.loc["unresolved", "max"] == 1000 and by["deals"].sum() == 10


# --- loading ---------------------------------------------------------------------------
def test_load_reads_every_chunk(tmp_path):
    write_results(tmp_path / "r", make_rows(VERDICTS), chunk_rows=4)
    df = stats.load(tmp_path / "r")
    assert list(df["deal"]) == list(range(10))
    assert stats.summarize(df)["wins"] == 7


def test_load_missing_or_empty_directory(tmp_path):
    with pytest.raises(HalfMoonError, match="no such directory"):
        stats.load(tmp_path / "nowhere")
    (tmp_path / "empty").mkdir()
    with pytest.raises(HalfMoonError, match="no finished chunk"):
        stats.load(tmp_path / "empty")


def test_load_or_make_makes_a_sample_once(tmp_path):
    out = tmp_path / "sample"
    df = stats.load_or_make(out, range(3), budget=5000)
    assert list(df["deal"]) == [0, 1, 2]
    assert set(df["verdict"]) <= {"win", "loss", "unresolved"}
    again = stats.load_or_make(out, range(50), budget=5000)  # already there: not remade
    assert len(again) == 3


# --- the stats command -----------------------------------------------------------------
def test_stats_command_text(tmp_path, capsys):
    write_results(tmp_path, make_rows(VERDICTS))
    assert main(["stats", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "70.00 %" in out and "positions" in out


def test_stats_command_json(tmp_path, capsys):
    write_results(tmp_path, make_rows(VERDICTS))
    assert main(["stats", str(tmp_path), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert {k: obj[k] for k in ("deals", "wins", "losses", "unresolved")} == {
        "deals": 10, "wins": 7, "losses": 2, "unresolved": 1,
    }
    assert obj["win_rate"] == pytest.approx(0.7)
    assert obj["ci_low"] < 0.7 < obj["ci_high"]


@pytest.mark.parametrize("make", ["missing", "empty", "not parquet"])
def test_stats_command_bad_directory(tmp_path, capsys, make):
    target = tmp_path / "r"
    if make != "missing":
        target.mkdir()
    if make == "not parquet":
        (target / "part-000000.parquet").write_text("not a parquet file")
    assert main(["stats", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("halfmoon: error:") and str(target) in err and len(err.splitlines()) == 1


# --- first moves -----------------------------------------------------------------------
TRAP = """
P1: Ac 10c
P2:
P3:
P4:
P5:
P6:
P7:
P8:
P9:
P10:
P11:
P12:
R: Ad 10d -- -- -- -- -- --
"""


def test_first_move_winnability_counts_moves_that_keep_the_win():
    # 10c + Ad leaves Ac and 10d: a win.  Ad + 10d leaves 10c over Ac: lost.
    f = stats.first_move_winnability(parse_layout(TRAP), budget=1000)
    assert (f.moves, f.winnable, f.losing, f.unresolved, f.verdict) == (2, 1, 1, 0, "win")


def test_first_move_table_on_deals():
    t = stats.first_move_table([0], budget=20_000)
    assert list(t.columns[:6]) == ["deal", "moves", "winnable", "losing", "unresolved", "verdict"]
    row = t.iloc[0]
    assert row["moves"] == 15  # the legal first moves of deal 0
    assert row["winnable"] + row["losing"] + row["unresolved"] == 15
    assert math.isclose(row["winnable_share"], row["winnable"] / 15)


def test_first_moves_not_settled_leave_the_share_unknown_not_zero():
    """At a budget too small to settle them, the first moves of a deal are unresolved: the
    share that keeps the win is not known (it was given as 0.00 for a proved win)."""
    row = stats.first_move_table([5], budget=50).iloc[0]
    assert row["unresolved"] == row["moves"] == 12
    assert math.isnan(row["winnable_share"])
    assert (row["winnable_low"], row["winnable_high"]) == (0.0, 1.0)


def test_stats_help(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["stats", "--help"])
    assert exc.value.code == 0 and "usage: halfmoon stats" in capsys.readouterr().out


def test_times_in_a_persons_units_with_three_significant_digits():
    from halfmoon.research.stats import duration

    # trailing zeros kept, so times side by side read alike; near a second, seconds
    assert [duration(s) for s in (0.0000340, 0.0000349, 0.000273, 0.05, 0.9994, 0.9999,
                                  12.34, 4000, 0, 1e-7, None, float("nan"))] == \
        ["0.0340 ms", "0.0349 ms", "0.273 ms", "50.0 ms", "999 ms", "1.0 s", "12.3 s",
         "4,000 s", "0 ms", "< 0.001 ms", "n/a", "n/a"]


def test_the_runs_verdict_is_kept_and_a_proved_loss_loses_every_first_move():
    """The difficulty notebook labelled a proved loss and two proved wins "unresolved" (the
    deal solved again at the first moves' small budget) and read 0–100 % for each."""
    from solver import solve

    loss = next(n for n in range(400) if solve(n, budget=200_000).verdict == "loss")
    assert solve(5, budget=200_000).verdict == "win"
    t = stats.first_move_table([loss, 5], budget=50, verdicts={loss: "loss", 5: "win"})
    lost, won = t.iloc[0], t.iloc[1]
    assert lost["verdict"] == "loss" and lost["losing"] == lost["moves"] > 0
    assert lost["winnable_share"] == 0.0  # proved: no move keeps a lost deal winnable
    assert won["verdict"] == "win" and won["unresolved"] == won["moves"] == 12
    # a won deal has a move that keeps the win: the range starts at one move, not 0 %
    assert (won["winnable_low"], won["winnable_high"]) == (1 / 12, 1.0)
