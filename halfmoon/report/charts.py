"""The charts of a results dataset, each drawn on a given matplotlib Axes so that the report
and the notebooks draw the same pictures (object-oriented API, no pyplot state)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from halfmoon.research import stats

from .style import BLUE, BROWN, ORANGE, VERDICT_COLOURS


def figure(width: float = 6.4, height: float = 3.6) -> Figure:
    fig = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(fig)
    return fig


def plot_running_win_rate(ax, df: pd.DataFrame) -> None:
    """The win rate and its 95 % interval as the sample grows (deals in order)."""
    run = stats.running_win_rate(df)
    ax.fill_between(run["n"], run["ci_low"], run["ci_high"], color="#90caf9", alpha=0.6,
                    label="95 % interval")
    ax.plot(run["n"], run["win_rate"], color=BLUE, lw=1.2, label="win rate")
    ax.set_xscale("log")
    ax.set_xlabel("deals in the sample")
    ax.set_ylabel("win rate")
    ax.set_ylim(max(0.0, float(run["ci_low"].iloc[-1]) - 0.15) if len(run) else 0, 1.0)
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)


def plot_nodes_histogram(ax, df: pd.DataFrame) -> None:
    """Positions searched per deal, on a log axis, stacked by verdict."""
    nodes = df["nodes"].clip(lower=1).astype(float)
    hi = max(10.0, float(nodes.max()) * 1.5)
    bins = np.logspace(0, math.log10(hi), 40)
    data, colours, labels = [], [], []
    for v, colour in VERDICT_COLOURS.items():
        sel = nodes[df["verdict"] == v]
        if len(sel):
            data.append(sel.to_numpy())
            colours.append(colour)
            labels.append(f"{v} ({len(sel)})")
    ax.hist(data, bins=bins, stacked=True, color=colours, label=labels)
    ax.set_xscale("log")
    ax.set_xlabel("positions searched")
    ax.set_ylabel("deals")
    ax.legend()
    ax.grid(alpha=0.3)


def plot_win_rate_by(ax, df: pd.DataFrame, feature: str) -> None:
    """Win rate with its interval for each value of a deal feature."""
    t = stats.win_rate_by(df, feature)
    x = t.index.to_numpy()
    ax.errorbar(x, t["win_rate"], yerr=[t["win_rate"] - t["ci_low"], t["ci_high"] - t["win_rate"]],
                fmt="o", capsize=3, color=BLUE)
    ax.set_xlabel(feature.replace("_", " "))
    ax.set_ylabel("win rate")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    label_counts(ax, x, t["deals"].to_numpy())


COUNT_FONT = 7  # points


def label_counts(ax, x, counts) -> None:
    """Each value's number of deals, written upright along the bottom of ``ax``; where the
    values stand too close for their labels (a feature of many values in a narrow chart),
    only every so many are labelled, so that no two labels overlap."""
    if len(x) == 0:
        return
    lo, hi = min(x), max(x)
    pad = max(0.5, 0.03 * (hi - lo))
    ax.set_xlim(lo - pad, hi + pad)
    width_px = ax.get_window_extent().width
    label_px = COUNT_FONT * ax.figure.dpi / 72 * 1.6  # a line of text, upright, with a gap
    gap = (hi - lo + 2 * pad) * label_px / max(width_px, 1.0)
    last = None
    for xi, n in sorted(zip(x, counts)):
        if last is not None and xi - last < gap:
            continue
        ax.annotate(_count(int(n)), (xi, 0.02), ha="center", va="bottom", rotation=90,
                    fontsize=COUNT_FONT, color="#555555", xycoords=("data", "axes fraction"))
        last = xi


def _count(n: int) -> str:
    """A count in few characters: 950, 9,500, 95k, 9.5M."""
    if n < 10_000:
        return f"{n:,}"
    if n < 1_000_000:
        return f"{n / 1000:.0f}k"
    return f"{n / 1e6:.2g}M"


def plot_players(ax, comparison: pd.DataFrame) -> None:
    """Win rate with its interval for each player of :func:`compare_players`."""
    c = comparison
    x = np.arange(len(c))
    ax.bar(x, c["win_rate"], color=[BLUE, ORANGE, BROWN][: len(c)])
    ax.errorbar(x, c["win_rate"], yerr=[c["win_rate"] - c["ci_low"], c["ci_high"] - c["win_rate"]],
                fmt="none", capsize=4, color="black")
    for xi, r in zip(x, c["win_rate"]):
        ax.text(xi, r + 0.03, f"{100 * r:.1f} %", ha="center")
    ax.set_xticks(x, list(c.index))
    ax.set_ylim(0, 1.1)
    ax.set_ylabel("win rate")
    ax.grid(axis="y", alpha=0.3)
