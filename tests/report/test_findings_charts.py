"""The findings page's charts, drawn from the page's own data."""

from __future__ import annotations

import matplotlib
import pytest

from halfmoon.report.findings import load_data
from halfmoon.report.findings_charts import common_deals, draw_charts, plot_win_rate

matplotlib.use("Agg")


def test_every_chart_is_drawn_as_a_small_png(page, tmp_path):
    data = load_data(page.parent / "findings")
    paths = draw_charts(data, tmp_path / "charts")
    assert {"win-rate.png", "deadlocks.png", "loss-by-feature.png", "forgiveness.png",
            "fatal-moves.png", "players.png", "difficulty.png", "fair-ladder.png",
            "fair-curve.png", "fair-fatal.png"} == set(paths)
    for path in paths.values():
        head = path.read_bytes()[:8]
        assert head == b"\x89PNG\r\n\x1a\n" and 2_000 < path.stat().st_size < 200_000, path


def test_the_win_rate_chart_draws_its_interval_and_its_line(page):
    import matplotlib.pyplot as plt

    data = load_data(page.parent / "findings")
    fig, ax = plt.subplots()
    plot_win_rate(ax, data["win-rate"])
    assert ax.collections and ax.lines  # the interval's band and the rate's line
    plt.close(fig)


@pytest.mark.parametrize("deals, least", [(0, 30), (999, 30), (30_000, 30), (1_000_000, 1000)])
def test_feature_values_are_shown_from_a_thousandth_of_the_census_and_30_deals(deals, least):
    assert common_deals(deals) == least
