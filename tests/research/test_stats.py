"""Statistics: Wilson intervals against known values, summaries, win rates by feature."""

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


# --- Wilson intervals ----------------------------------------------------------------
@pytest.mark.parametrize(
    "k, n, low, high",
    [
        (0, 10, 0.0, 0.2775),  # textbook values, z = 1.96
        (10, 10, 0.7225, 1.0),
        (5, 10, 0.2366, 0.7634),
        (976, 1000, 0.9645, 0.9838),
        (1, 2000, 0.0000883, 0.002827),
    ],
)
def test_wilson_known_values(k, n, low, high):
    lo, hi = stats.wilson_interval(k, n)
    assert lo == pytest.approx(low, abs=5e-5)
    assert hi == pytest.approx(high, abs=5e-5)


def test_wilson_ends_are_exact_and_symmetric():
    assert stats.wilson_interval(0, 7)[0] == 0.0
    assert stats.wilson_interval(7, 7)[1] == 1.0
    for k in range(0, 21):
        lo, hi = stats.wilson_interval(k, 20)
        lo2, hi2 = stats.wilson_interval(20 - k, 20)
        assert lo == pytest.approx(1 - hi2, abs=1e-12)
        assert lo <= k / 20 <= hi


def test_wilson_z_widens_and_empty_sample():
    assert stats.wilson_interval(0, 0) == (0.0, 1.0)
    narrow = stats.wilson_interval(30, 100, z=1.0)
    wide = stats.wilson_interval(30, 100, z=2.576)
    assert wide[0] < narrow[0] < 0.3 < narrow[1] < wide[1]


@pytest.mark.parametrize("k, n", [(-1, 10), (11, 10), (0, -1)])
def test_wilson_rejects_impossible_counts(k, n):
    with pytest.raises(ValueError):
        stats.wilson_interval(k, n)


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


def _pairs(both, only_a, only_b, neither):
    import numpy as np

    a = np.array([1] * both + [1] * only_a + [0] * only_b + [0] * neither)
    b = np.array([1] * both + [0] * only_a + [1] * only_b + [0] * neither)
    return a, b


@pytest.mark.parametrize("table, expected", [
    # two paired tables of the textbooks (20 and 161 pairs), Newcombe's method 10
    ((1, 1, 7, 12), (-0.2857, -0.5069, -0.0256)),
    ((59, 6, 16, 80), (-0.0621, -0.1186, -0.0046)),
])
def test_paired_difference_is_newcombe_s_interval(table, expected):
    assert stats.paired_difference(*_pairs(*table)) == pytest.approx(expected, abs=5e-5)


def test_paired_differences_stay_within_the_range_on_few_deals():
    """The normal interval of the mean difference ran past ±100 points on a few deals (and
    was a single point when all pairs agreed); Newcombe's stays inside and is never empty."""
    import itertools

    for table in itertools.product(range(4), repeat=4):
        if sum(table) == 0:
            continue
        d, low, high = stats.paired_difference(*_pairs(*table))
        assert -1 <= low <= d <= high <= 1, table
        assert high - low > 0, table
    d, low, high = stats.paired_difference(*_pairs(0, 3, 0, 0))
    assert d == 1 and high == 1 and 0 < low < 1
    assert all(math.isnan(x) for x in stats.paired_difference([], []))
    with pytest.raises(ValueError, match="wins"):
        stats.paired_difference([0.5, 1], [0, 1])
    with pytest.raises(ValueError, match="as many"):
        stats.paired_difference([1, 0], [1])


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


def test_at_confidence_sets_the_intervals_whose_z_is_left_out():
    from halfmoon.research.stats import (
        at_confidence,
        confidence_words,
        current_confidence,
        wilson_interval,
        z_of,
    )

    at95 = wilson_interval(40, 50)
    with at_confidence(0.99) as z:
        assert z == z_of(0.99) and current_confidence() == 0.99
        assert confidence_words() == "99 %"
        assert wilson_interval(40, 50) == wilson_interval(40, 50, z_of(0.99))
        assert wilson_interval(40, 50)[0] < at95[0]
        assert wilson_interval(40, 50, 1.96) == at95  # a z given is kept
    assert current_confidence() == 0.95 and wilson_interval(40, 50) == at95
    assert confidence_words(0.999) == "99.9 %"
    with pytest.raises(ValueError):
        with at_confidence(1.0):
            pass
    assert current_confidence() == 0.95


def test_wilson_interval_of_one_pair_is_the_vectorised_bounds_exactly():
    import numpy as np

    for z in (None, 1.0, 2.5758293035489004):
        for n in (1, 2, 3, 7, 64, 384, 1000, 100_003):
            ks = sorted({0, 1, 2, n // 3, n // 2, n - 1, n} & set(range(n + 1)))
            lows, highs = stats.wilson_bounds(np.array(ks), np.full(len(ks), n), z)
            for k, low, high in zip(ks, lows, highs):
                assert stats.wilson_interval(k, n, z) == (float(low), float(high)), (k, n, z)
