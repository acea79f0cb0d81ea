"""The rules every chart keeps: each line and band inside its frame, a growing sample drawn from
30 deals on and in the run's order, n on every chart of a sample, legends beside the data,
a chart on its table's denominator, labels in words, and the page's notes over the charts."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from halfmoon.report import charts
from halfmoon.report import findings_charts as fc
from halfmoon.report.findings import load_data
from halfmoon.research.deadlocks import KINDS
from halfmoon.research.forgiveness import fatal_points
from halfmoon.research.stats import wilson_bounds


def _ax(width=6.0, height=3.0):
    return charts.figure(width, height).add_subplot()


def _running(rates: np.ndarray, n: np.ndarray) -> pd.DataFrame:
    wins = np.round(rates * n)
    low, high = wilson_bounds(wins, n)
    return pd.DataFrame({"n": n, "wins": wins, "win_rate": wins / n, "ci_low": low,
                         "ci_high": high})


def _drawn_values(ax) -> tuple[np.ndarray, np.ndarray]:
    """Every y of the lines and bands drawn."""
    ys = [line.get_ydata() for line in ax.get_lines()]
    ys += [p.vertices[:, 1] for c in ax.collections for p in c.get_paths()]
    ys = np.concatenate([np.asarray(y, float) for y in ys])
    xs = np.concatenate([np.asarray(line.get_xdata(), float) for line in ax.get_lines()])
    return xs, ys


def test_a_win_rate_that_drifts_stays_inside_its_frame():
    """A run whose early deals win less than its end (the findings' chart fixed its axis at the
    final rate -1.5/+1.0 points, and the line ran off it)."""
    n = np.unique(np.geomspace(30, 50_000, 60).astype(int))
    rates = np.where(n < 2000, 0.90, 0.97)
    ax = _ax()
    fc.plot_win_rate(ax, _running(rates, n))
    low, high = ax.get_ylim()
    xs, ys = _drawn_values(ax)
    assert low <= ys.min() and ys.max() <= high
    assert ax.get_xlim()[0] <= xs.min() and xs.max() <= ax.get_xlim()[1]


def test_the_curve_of_a_growing_sample_starts_at_30_deals():
    n = np.arange(1, 400)
    ax = _ax()
    fc.plot_win_rate(ax, _running(np.full(n.size, 0.95), n))
    xs, _ = _drawn_values(ax)
    assert xs.min() == 30
    assert "n = 30 to 399 deals" == ax.get_title(loc="left")


@pytest.mark.parametrize("summary, said", [
    ({"win_rate_order": "run"}, "in the run's order"),
    ({"seed": 2026}, "in a seeded random order (seed 2026)"),  # findings made before
])
def test_the_win_rate_chart_says_its_order(summary, said):
    ax = _ax()
    n = np.arange(30, 200)
    fc.plot_win_rate(ax, _running(np.full(n.size, 0.95), n), fc.win_rate_order(summary))
    assert ax.get_xlabel() == f"the first n deals, {said}"


def _overlaps(ax, legend) -> bool:
    """Whether the legend's box meets the frame the data are drawn in."""
    fig = ax.figure
    fig.tight_layout()
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    return legend.get_window_extent(r).overlaps(ax.get_window_extent(r))


def _fatal(players=("random", "greedy")) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    games = pd.DataFrame({
        "player": np.repeat(players, 200), "start": "win",
        "fatal_ply": rng.integers(-1, 40, 200 * len(players)),
        "fatal_cards_left": rng.integers(1, 105, 200 * len(players)),
        "won": False, "unresolved": False})
    games.loc[games["fatal_ply"] < 0, "won"] = True
    return games


def _forgiveness() -> pd.DataFrame:
    rows = []
    for player in ("random", "greedy"):
        for left in range(104, 0, -1):
            rows.append({"player": player, "cards_left": left, "positions": 40, "deals": 40,
                         "keep_share": 0.9, "ci_low": 0.8, "ci_high": 0.96,
                         "unresolved_share": 0.0})
    return pd.DataFrame(rows)


DRAWN_WITH_LEGENDS = {
    "win rate": lambda ax: fc.plot_win_rate(ax, _running(np.full(50, 0.9),
                                                         np.arange(30, 80))),
    "keep share": lambda ax: fc.plot_keep_share(ax, _forgiveness()),
    "fatal moves": lambda ax: fc.plot_fatal(ax, fatal_points(_fatal(), None)),
    "difficulty": lambda ax: fc.plot_difficulty(ax, pd.DataFrame(
        {"nodes_from": [0, 10], "nodes_below": [10, 100], "wins": [50, 40],
         "losses": [3, 2], "unresolved": [0, 0]})),
    "positions": lambda ax: charts.plot_nodes_histogram(ax, pd.DataFrame(
        {"nodes": [0, 12, 150, 3000] * 10, "verdict": ["win", "win", "loss", "unresolved"] * 10})),
}


@pytest.mark.parametrize("name", sorted(DRAWN_WITH_LEGENDS))
def test_legends_sit_beside_the_data_not_on_it(name):
    ax = _ax(7.0, 3.0)
    DRAWN_WITH_LEGENDS[name](ax)
    legend = ax.get_legend()
    assert legend is not None and not _overlaps(ax, legend), name


def test_the_fatal_moves_chart_is_on_the_tables_denominator():
    """The page's table gives each bucket's share of the player's walked games: so do the
    bars, bucket by bucket (the chart drew shares of the lost games)."""
    table = fatal_points(_fatal())  # as the page's table buckets them
    ax = _ax(7.0, 3.0)
    fc.plot_fatal(ax, fatal_points(_fatal(), None))  # as the data keep them, card by card
    heights = [p.get_height() for p in ax.patches]
    fatal = table[table["outcome"] == "fatal"]
    want = [100 * fatal.loc[fatal["player"] == p, "share"].to_numpy() for p in ("random", "greedy")]
    assert heights == pytest.approx(list(np.concatenate(want)))
    assert [t.get_text() for t in ax.get_xticklabels()] == list(
        dict.fromkeys(fatal["cards_left"]))
    assert ax.get_ylabel() == "walked games (%)"


def _losses(kinds: dict) -> pd.DataFrame:
    rows = [k for k, n in kinds.items() for _ in range(n)]
    return pd.DataFrame({"deal": np.arange(len(rows)), "kind": rows})


def test_deadlock_kinds_are_named_in_words_and_a_bar_on_one_loss_says_so():
    ax = _ax(8.0, 3.6)
    fc.plot_deadlocks(ax, _losses({"faces": 40, "faces+2": 35, "pairs:4": 1}))
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["the faces alone (40 losses)", "the faces and 2 pair classes (35 losses)",
                      "4 pair classes, no face (1 loss)"]
    codes = re.compile(r"faces\+\d|pairs:\d")
    assert not any(codes.search(t) for t in labels)
    hatched = [bool(p.get_hatch()) for p in ax.patches]
    assert hatched == [False, False, True]  # the kind resting on 1 loss
    assert "hatched: fewer than 30 losses" in ax.get_xlabel()
    assert "n = 76 losses" in ax.get_title(loc="left")


def test_every_kind_of_deadlock_has_words():
    ax = _ax(8.0, 4.0)
    fc.plot_deadlocks(ax, _losses({k: 30 for k in (*KINDS, "unresolved")}))
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == len(KINDS) + 1
    assert not any(re.search(r"faces\+\d|pairs:\d|^unresolved", t) for t in labels)
    assert "not settled within the budget (30 losses)" in labels


def test_the_page_charts_carry_the_partial_note_and_draw_without_the_fair_curve(page):
    data = load_data(page.parent / "findings")
    assert fc.chart_note(data["summary"]) == ""  # a finished run: no note
    data["summary"] = {**data["summary"], "partial": True, "planned": 5_000,
                       "writer": 1234}
    data["fair-curve"] = data["fair-curve"].iloc[:0]
    figures = dict(fc.chart_figures(data))
    assert "fair-curve.png" in figures
    want = ("The run is not finished: 300 of 5,000 planned deals; provisional: a batch process "
            "was writing it.")
    for name, fig in figures.items():
        notes = [" ".join(t.get_text().split()) for t in fig.texts if t.get_gid() == "chart-note"]
        assert notes == [want], name
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        note = next(t for t in fig.texts if t.get_gid() == "chart-note").get_window_extent(r)
        assert not any(note.overlaps(ax.get_window_extent(r)) for ax in fig.axes), name


def test_a_small_forgiveness_sample_is_drawn_in_the_tables_buckets_not_left_blank():
    """40 walks leave one value of cards left on 30 positions: the curve was a single point,
    drawn as nothing; the page's buckets are drawn instead, each with its interval."""
    fine = _forgiveness()
    fine.loc[fine["cards_left"] < 104, "positions"] = 5
    buckets = pd.DataFrame({"player": ["random"] * 3 + ["greedy"] * 3,
                            "cards_left": ["104–96", "95–80", "15–1"] * 2,
                            "positions": [160, 90, 12, 170, 120, 49], "deals": 40,
                            "keep_share": [0.95, 0.9, 0.8, 0.97, 0.94, 0.99],
                            "ci_low": [0.92, 0.85, 0.6, 0.95, 0.9, 0.98],
                            "ci_high": [0.98, 0.94, 0.9, 0.99, 0.97, 1.0]})
    ax = _ax(7.0, 3.0)
    fc.plot_keep_share(ax, fine, buckets)
    drawn = [line.get_xdata() for line in ax.get_lines() if line.get_linestyle() != "None"]
    assert [list(x) for x in drawn] == [[100.0, 87.5], [100.0, 87.5, 8.0]]  # 30+ positions
    low, high = ax.get_ylim()
    assert low <= 85 and high >= 100
    assert "(in buckets of cards left)" in ax.get_legend().get_texts()[0].get_text()


def test_a_forgiveness_sample_too_small_for_any_point_is_said_not_drawn():
    fine = _forgiveness().assign(positions=4)
    buckets = pd.DataFrame({"player": ["random"], "cards_left": ["104–96"], "positions": [12],
                            "deals": 4, "keep_share": [0.9], "ci_low": [0.6], "ci_high": [1.0]})
    ax = _ax(7.0, 3.0)
    fc.plot_keep_share(ax, fine, buckets)
    assert ax.texts[0].get_text() == "no cards left on 30+ positions: not drawn"
    assert ax.get_legend() is None
