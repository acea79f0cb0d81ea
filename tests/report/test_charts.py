"""The charts: each draws on the Axes it is given what the statistics say."""

from __future__ import annotations

import pandas as pd
import pytest
from results_samples import make_rows

from halfmoon.report import charts

VERDICTS = ["win"] * 17 + ["loss"] * 2 + ["unresolved"]


@pytest.fixture
def df() -> pd.DataFrame:
    return pd.DataFrame(make_rows(VERDICTS))


@pytest.fixture
def ax():
    return charts.figure().add_subplot()


def test_a_figure_is_drawn_off_screen_at_its_size():
    fig = charts.figure(5.0, 3.0)
    assert tuple(fig.get_size_inches()) == (5.0, 3.0)
    assert fig.canvas.get_width_height() == (500, 300)


def test_running_win_rate_ends_at_the_sample_rate_in_percent(ax):
    df = pd.DataFrame(make_rows(VERDICTS * 5))
    charts.plot_running_win_rate(ax, df)
    (line,) = ax.get_lines()
    x, y = line.get_data()
    assert list(x) == list(range(30, len(df) + 1))  # from 30 deals on
    assert y[-1] == pytest.approx(100 * 17 / 20)  # wins among all deals, as in the report
    assert ax.get_xscale() == "log" and "%" in ax.get_ylabel()
    assert "in the run's order" in ax.get_xlabel() and "n = 30 to 100 deals" in ax.get_title(
        loc="left")


def test_a_running_win_rate_on_fewer_than_30_deals_is_said_not_drawn(ax, df):
    charts.plot_running_win_rate(ax, df)
    assert not ax.get_lines() and not ax.axison
    assert ax.texts[0].get_text() == "20 deals: fewer than 30, not drawn"


def test_nodes_histogram_counts_every_deal_by_verdict(ax, df):
    charts.plot_nodes_histogram(ax, df)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["win (17)", "loss (2)", "unresolved (1)"]
    layers = [sum(p.get_height() for p in c) for c in ax.containers]
    assert layers == [17, 2, 1]


def test_deals_settled_with_no_search_are_counted_apart_not_drawn_at_one(ax, df):
    df = df.copy()
    df.loc[:2, "nodes"] = 0
    charts.plot_nodes_histogram(ax, df)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[-1] == "not drawn: 3 settled with 0 positions"
    assert sum(p.get_height() for c in ax.containers for p in c) == len(df) - 3


def _bins_drawn(ax):
    x, y = ax.get_lines()[0].get_data()
    return [t.get_text() for t in ax.get_xticklabels()], list(y)


def test_small_groups_are_pooled_until_each_rate_rests_on_30_deals():
    bins = charts.pool([1, 2, 3, 4, 5, 6], [5, 40, 10, 10, 12, 3], [5, 20, 10, 0, 6, 3])
    assert [(b.label, b.deals, b.hits) for b in bins] == [("1–2", 45, 25), ("3–6", 35, 19)]
    assert charts.pool([1, 2], [10, 10], [1, 1]) == []  # fewer than 30 in all: nothing


def test_win_rate_by_a_feature_in_percent_with_counts_and_pooled_values_named(ax):
    values = [0] * 3 + [1] * 40 + [2] * 50 + [3] * 5
    frame = pd.DataFrame({"verdict": ["win"] * 90 + ["loss"] * 8, "top_faces": values})
    charts.plot_win_rate_by(ax, frame, "top_faces")
    labels, y = _bins_drawn(ax)
    assert labels == ["0–1", "2–3"]  # 3 deals pooled with 40; 5 with 50
    assert y == pytest.approx([100.0, 100 * 47 / 55])
    assert "pooled to 30+ deals: 0–1, 2–3" in ax.get_xlabel()
    top = [a for a in ax.child_axes]
    assert [t.get_text() for t in top[0].get_xticklabels()] == ["43", "55"]


def test_players_rates_are_under_their_names_not_over_the_bars(ax):
    comparison = pd.DataFrame(
        {"deals": [2000, 2000], "win_rate": [0.9, 0.5], "ci_low": [0.85, 0.4],
         "ci_high": [0.95, 0.6]},
        index=pd.Index(["solver", "greedy"], name="player"),
    )
    charts.plot_players(ax, comparison)
    assert [p.get_height() for p in ax.patches] == [90.0, 50.0]
    assert len(ax.texts) == 0
    assert [t.get_text() for t in ax.get_xticklabels()] == ["solver\n90.0 % of 2,000",
                                                            "greedy\n50.0 % of 2,000"]


def test_the_counts_over_a_feature_of_many_values_never_overlap():
    """``start moves`` takes some 40 values: each count along the top of the chart, thinned
    where they would meet, and the chart says so."""
    values = list(range(2, 44))
    moves = [v for v in values for _ in range(30)] + [20] * 12_000
    df = pd.DataFrame({"verdict": ["win"] * len(moves), "start_moves": moves})
    df.loc[::7, "verdict"] = "loss"
    fig = charts.figure(4.0, 2.5)
    ax = fig.add_subplot()
    charts.plot_win_rate_by(ax, df, "start_moves")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    top = ax.child_axes[0]
    boxes = sorted((t.get_window_extent(renderer) for t in top.get_xticklabels()
                    if t.get_text()), key=lambda b: b.x0)
    assert 5 <= len(boxes) < len(values)
    assert all(a.x1 <= b.x0 for a, b in zip(boxes, boxes[1:]))
    assert "every" in top.get_xlabel()
