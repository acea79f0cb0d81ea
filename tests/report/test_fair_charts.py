"""The fair-play section's charts: the deals they rest on said, their legends beside the data,
every interval inside the frame, and a curve with no sampled player said, not drawn."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from halfmoon.report import charts, fair_charts
from halfmoon.research.forgiveness import fatal_points


def _ax(width=6.0, height=3.0):
    return charts.figure(width, height).add_subplot()


def _ladder(deals=20) -> pd.DataFrame:
    return pd.DataFrame({"player": ["solver", "greedy", "lookahead", "fair"],
                         "deals": deals, "win_rate": [0.95, 0.2, 0.25, 0.25],
                         "ci_low": [0.8, 0.08, 0.1, 0.1], "ci_high": [0.99, 0.4, 0.45, 0.45]})


def _curve(deals=20) -> pd.DataFrame:
    return pd.DataFrame({"player": ["fair@16", "fair"], "samples": [16, 256], "deals": deals,
                         "win_rate": [0.2, 0.3], "ci_low": [0.08, 0.14],
                         "ci_high": [0.4, 0.52]})


def test_the_fair_charts_say_the_deals_they_rest_on():
    ax = _ax()
    fair_charts.plot_fair_ladder(ax, _ladder(20))
    assert ax.get_title(loc="left").startswith("n = 20 deals")
    assert "one deal is 5 points" in ax.get_title(loc="left")
    ax = _ax()
    fair_charts.plot_fair_curve(ax, _curve(20), _ladder(20))
    assert ax.get_title(loc="left").startswith("n = 20 deals")
    low, high = ax.get_ylim()
    assert low <= 14 and high >= 52  # every interval inside the frame


def test_a_fair_curve_with_no_sampled_player_is_said_not_drawn():
    """Findings with the ladder but no fair@K rows (the chart raised 'Data cannot be
    log-scaled')."""
    for curve in (None, _curve().iloc[:0]):
        ax = _ax()
        fair_charts.plot_fair_curve(ax, curve, _ladder())
        assert not ax.axison and "no fair player with sampled layouts" in ax.texts[0].get_text()


def _fatal() -> pd.DataFrame:
    rng = np.random.default_rng(2)
    n = 40
    games = pd.DataFrame({"player": np.repeat(["greedy", "fair"], n), "start": "win",
                          "fatal_ply": rng.integers(-1, 40, 2 * n),
                          "fatal_cards_left": rng.integers(1, 105, 2 * n),
                          "won": False, "unresolved": False})
    games.loc[games["fatal_ply"] < 0, "won"] = True
    return fatal_points(games, None)


def _beside(ax) -> bool:
    fig = ax.figure
    fig.tight_layout()
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    legend = ax.get_legend()
    return legend is not None and not legend.get_window_extent(r).overlaps(
        ax.get_window_extent(r))


def test_the_fair_legends_sit_beside_the_data():
    ax = _ax(7.0, 3.0)
    fair_charts.plot_fair_curve(ax, _curve(), _ladder())
    assert _beside(ax)
    ax = _ax(7.0, 3.0)
    fair_charts.plot_fair_fatal(ax, _fatal())
    assert _beside(ax)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert all(re.fullmatch(r"(greedy|fair): \d+ of 40 lost", t) for t in labels), labels
    assert ax.get_title(loc="left") == ("n = 40 games on winnable deals a player; the table's 2 "
                                        "players")
