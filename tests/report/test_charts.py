"""The charts: each draws on the Axes it is given what the statistics say."""

from __future__ import annotations

import pandas as pd
import pytest
from results_samples import make_rows

from halfmoon.report import charts
from halfmoon.research import stats

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


def test_running_win_rate_ends_at_the_sample_rate(ax, df):
    charts.plot_running_win_rate(ax, df)
    (line,) = ax.get_lines()
    x, y = line.get_data()
    assert list(x) == list(range(1, len(df) + 1))
    assert y[-1] == pytest.approx(17 / 20)  # wins among all deals, as in the report
    assert ax.get_xscale() == "log"


def test_nodes_histogram_counts_every_deal_by_verdict(ax, df):
    charts.plot_nodes_histogram(ax, df)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["win (17)", "loss (2)", "unresolved (1)"]
    layers = [sum(p.get_height() for p in c) for c in ax.containers]
    assert layers == [17, 2, 1]


def test_win_rate_by_a_feature_has_one_point_per_value(ax, df):
    charts.plot_win_rate_by(ax, df, "top_faces")
    table = stats.win_rate_by(df, "top_faces")
    x, y = ax.get_lines()[0].get_data()
    assert list(x) == list(table.index)
    assert list(y) == pytest.approx(list(table["win_rate"]))
    assert [t.get_text() for t in ax.texts] == [str(n) for n in table["deals"]]


def test_players_bars_are_their_win_rates(ax):
    comparison = pd.DataFrame(
        {"win_rate": [0.9, 0.5], "ci_low": [0.85, 0.4], "ci_high": [0.95, 0.6]},
        index=pd.Index(["solver", "greedy"], name="player"),
    )
    charts.plot_players(ax, comparison)
    assert [p.get_height() for p in ax.patches] == [0.9, 0.5]
    assert [t.get_text() for t in ax.texts] == ["90.0 %", "50.0 %"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["solver", "greedy"]


def test_the_counts_under_a_feature_of_many_values_never_overlap():
    """``start moves`` takes some 40 values: in the report's quarter of a figure their counts
    stood on top of each other. Drawn, every label lies inside its chart and no two meet."""
    values = list(range(2, 44))
    moves = [v for v in values for _ in range(30)] + [20] * 12_000  # one count of 5 digits
    df = pd.DataFrame({"verdict": ["win"] * len(moves), "start_moves": moves})
    df.loc[::7, "verdict"] = "loss"
    fig = charts.figure(8.0, 5.6)
    ax = fig.add_subplot(2, 2, 1)
    charts.plot_win_rate_by(ax, df, "start_moves")
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    frame = ax.get_window_extent(renderer)
    boxes = [t.get_window_extent(renderer) for t in ax.texts]
    assert 5 <= len(boxes) < len(values)  # thinned, but still telling
    for box in boxes:
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 <= frame.y1
    boxes.sort(key=lambda b: b.x0)
    assert all(a.x1 <= b.x0 for a, b in zip(boxes, boxes[1:]))


def test_a_few_values_are_each_labelled_and_counts_are_short():
    fig = charts.figure(8.0, 5.6)
    ax = fig.add_subplot(2, 2, 1)
    df = pd.DataFrame({"verdict": ["win"] * 12_345 + ["loss"] * 5,
                       "top_faces": [0] * 12_345 + [1] * 5})
    charts.plot_win_rate_by(ax, df, "top_faces")
    assert [t.get_text() for t in ax.texts] == ["12k", "5"]
