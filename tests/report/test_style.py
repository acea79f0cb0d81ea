"""The report's shared colours and its ways of writing shares, intervals and tables."""

from __future__ import annotations

from matplotlib.colors import is_color_like

from halfmoon.report import style


def test_a_share_is_written_as_a_percentage():
    assert style.pct(0.5) == "50.00 %"
    assert style.pct(0.12345, 3) == "12.345 %"
    assert style.pct(1 / 3, 1) == "33.3 %"


def test_a_missing_share_is_not_available():
    assert style.pct(float("nan")) == "n/a"
    assert style.pct(None, 1) == "n/a"


def test_an_interval_writes_both_ends_with_the_same_digits():
    assert style.interval(0.1, 0.125, 1) == "10.0 % – 12.5 %"
    assert style.interval(None, 0.2) == "n/a – 20.00 %"


def test_a_table_has_a_header_a_rule_and_a_line_per_row():
    lines = style.table_lines(("player", "won"), [("greedy", 3), ("random", "1,024")])
    assert lines == ["| player | won |", "|---|---|", "| greedy | 3 |", "| random | 1,024 |"]
    assert style.table_lines(["a"], []) == ["| a |", "|---|"]


def test_every_colour_is_a_colour():
    named = [style.BLUE, style.ORANGE, style.BROWN, style.GREEN, style.RED, style.GREY]
    assert len(set(named)) == len(named)
    for colour in [*named, *style.PLAYER_COLOURS.values(), *style.VERDICT_COLOURS.values()]:
        assert is_color_like(colour), colour
    assert set(style.VERDICT_COLOURS) == {"win", "loss", "unresolved"}


def test_a_table_is_shown_in_percent_and_points_as_the_pages_write_it():
    import pandas as pd

    t = pd.DataFrame({"player": ["greedy", "random"], "deals": [200, 200],
                      "win_rate": [0.155, 0.0], "ci_low": [0.11, 0.0],
                      "vs_greedy": [0.0, -0.0000001]})
    shown = style.in_percent(t)
    assert list(shown.columns) == ["player", "deals", "win_rate (%)", "ci_low (%)",
                                   "vs_greedy (points)"]
    assert shown["win_rate (%)"].tolist() == [15.5, 0.0]
    assert shown["deals"].tolist() == [200, 200]
    assert str(shown["vs_greedy (points)"].iloc[1]) == "0.0"  # no -0.0
