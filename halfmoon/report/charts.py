"""The charts of a results dataset, each drawn on a given matplotlib Axes so that the report
and the notebooks draw the same pictures (object-oriented API, no pyplot state)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from halfmoon.research import stats

from .style import BLUE, BROWN, GREEN, ORANGE, VERDICT_COLOURS


def figure(width: float = 6.4, height: float = 3.6) -> Figure:
    fig = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(fig)
    return fig


MIN_DEALS = 30  # a rate is drawn only where it rests on at least this many deals
RUN_ORDER = "in the run's order"  # the order of scan.in_run_order, said on the chart


NOTE_COLOUR = "#b71c1c"


def note_over(fig, note: str) -> None:
    """The page's note over a chart (a run not finished, or being written: its figures
    provisional), in room added at the top of the figure, wrapped to its width; the figure
    laid out below it."""
    import textwrap

    width, height = fig.get_size_inches()
    lines = textwrap.wrap(note, max(20, int(width * 16)))
    room = 0.12 + 0.14 * len(lines)
    fig.set_size_inches(width, height + room)
    fig.text(0.01, 1 - 0.04 / (height + room), "\n".join(lines), ha="left", va="top",
             fontsize=7.5, color=NOTE_COLOUR, gid="chart-note")
    fig.tight_layout(rect=(0, 0, 1, 1 - room / (height + room)))


def legend_beside(ax, **kwargs):
    """The legend right of the frame, where it covers no data (the figure's tight layout
    makes room for it)."""
    kwargs.setdefault("fontsize", 8)
    return ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
                     frameon=False, **kwargs)


def frame_values(ax, low, high) -> None:
    """y limits (in %) that hold every value from ``low`` to ``high`` with a margin: a line
    and its band never run off the frame."""
    lo, hi = float(np.nanmin(low)), float(np.nanmax(high))
    margin = max(0.5, 0.06 * (hi - lo))
    ax.set_ylim(max(lo - margin, -0.5), min(hi + margin, 100.5))


def plot_growing_win_rate(ax, run: pd.DataFrame, order: str = RUN_ORDER,
                          min_deals: int = MIN_DEALS) -> None:
    """The win rate (%) of the sample's first n deals and its interval (at the current
    confidence, :func:`.stats.at_confidence`), from
    ``min_deals`` deals on (``run``: ``n, win_rate, ci_low, ci_high`` as shares); ``order``
    says which deals come first, the sample's size stands over the chart."""
    total = int(run["n"].max()) if len(run) else 0
    run = run[run["n"] >= min_deals]
    if run.empty:
        ax.text(0.5, 0.5, f"{total:,} deals: fewer than {min_deals}, not drawn", ha="center",
                va="center", transform=ax.transAxes, fontsize=8)
        ax.set_axis_off()
        return
    ax.fill_between(run["n"], 100 * run["ci_low"], 100 * run["ci_high"], color="#90caf9",
                    alpha=0.7, label=f"{stats.confidence_words()} interval")
    ax.plot(run["n"], 100 * run["win_rate"], color=BLUE, lw=1.2, label="win rate")
    ax.set_xscale("log")
    first, last = int(run["n"].iloc[0]), int(run["n"].iloc[-1])
    ax.set_xlim(first, last if last > first else first + 1)
    frame_values(ax, 100 * run["ci_low"], 100 * run["ci_high"])
    ax.set_xlabel(f"the first n deals, {order}", fontsize=8)
    ax.set_ylabel("deals won (%)")
    ax.set_title(f"n = {first:,} to {total:,} deals", fontsize=8, loc="left")
    legend_beside(ax)
    ax.grid(alpha=0.3)


def plot_running_win_rate(ax, df: pd.DataFrame, order: str = RUN_ORDER) -> None:
    """The win rate (%) and its 95 % interval as the sample grows, the deals taken in the
    order of ``df`` (:func:`halfmoon.research.scan.in_run_order`: the run's, which the
    findings count too), from :data:`MIN_DEALS` deals on."""
    plot_growing_win_rate(ax, stats.running_win_rate(df), order)


def plot_nodes_histogram(ax, df: pd.DataFrame) -> None:
    """Positions searched per deal, on a log axis, stacked by verdict.  Deals settled with no
    search at all (0 positions: no legal move at the start, or the start already decides)
    have no place on a log axis: they are counted in the legend, not drawn."""
    nodes = df["nodes"].astype(float)
    searched = nodes > 0
    hi = max(10.0, float(nodes.max()) * 1.5) if len(nodes) else 10.0
    bins = np.logspace(0, math.log10(hi), 40)
    data, colours, labels = [], [], []
    for v, colour in VERDICT_COLOURS.items():
        mine = (df["verdict"] == v).to_numpy()
        sel = nodes[mine & searched.to_numpy()]
        if mine.any():
            data.append(sel.to_numpy())
            colours.append(colour)
            labels.append(f"{v} ({int(mine.sum()):,})")
    if data:
        ax.hist(data, bins=bins, stacked=True, color=colours, label=labels)
    zero = int((~searched).sum())
    if zero:
        from matplotlib.patches import Patch

        handles, names = ax.get_legend_handles_labels()
        handles.append(Patch(facecolor="none", edgecolor="none"))
        names.append(f"not drawn: {zero:,} settled with 0 positions")
        legend_beside(ax, handles=handles, labels=names)
    elif data:
        legend_beside(ax)
    ax.set_xscale("log")
    ax.set_xlabel("positions searched (deals with at least one)")
    ax.set_ylabel("deals")
    ax.grid(alpha=0.3)


@dataclass(frozen=True)
class Bin:
    """Values of a feature pooled until they rest on enough deals: ``lo`` to ``hi``."""

    lo: int
    hi: int
    deals: int
    hits: int  # deals counted by the rate (wins, or losses)
    hits_high: int  # for the interval's upper end (wins and unresolved deals)

    @property
    def label(self) -> str:
        return f"{self.lo}" if self.lo == self.hi else f"{self.lo}–{self.hi}"


def pool(values, deals, hits, hits_high=None, min_deals: int = MIN_DEALS) -> list[Bin]:
    """Neighbouring values pooled, in order, until each bin rests on ``min_deals`` deals; a
    remainder too small for a bin of its own joins the last bin.  None if all the values
    together rest on fewer."""
    hits_high = hits if hits_high is None else hits_high
    rows = sorted(zip(map(int, values), map(int, deals), map(int, hits), map(int, hits_high)))
    bins: list[Bin] = []
    acc = None
    for v, n, k, kh in rows:
        acc = Bin(v, v, n, k, kh) if acc is None else Bin(acc.lo, v, acc.deals + n,
                                                            acc.hits + k, acc.hits_high + kh)
        if acc.deals >= min_deals:
            bins.append(acc)
            acc = None
    if acc is not None and bins:
        b = bins.pop()
        bins.append(Bin(b.lo, acc.hi, b.deals + acc.deals, b.hits + acc.hits,
                        b.hits_high + acc.hits_high))
    return bins


def plot_rate_bins(ax, bins: list[Bin], name: str, what: str, colour: str = BLUE,
                   min_deals: int = MIN_DEALS) -> None:
    """A rate (%) with its 95 % Wilson interval for each bin of a feature, one place each;
    the deals behind each rate along the top of the chart, the pooled values named."""
    if not bins:
        ax.text(0.5, 0.5, f"{name}: fewer than {min_deals} deals in all: not drawn",
                ha="center", va="center", transform=ax.transAxes, fontsize=8)
        ax.set_axis_off()
        return
    n = np.array([b.deals for b in bins])
    rate = 100 * np.array([b.hits for b in bins]) / n
    low = 100 * stats.wilson_bounds([b.hits for b in bins], n)[0]
    high = 100 * stats.wilson_bounds([b.hits_high for b in bins], n)[1]
    x = np.arange(len(bins))
    ax.errorbar(x, rate, yerr=[rate - low, high - rate], fmt="o", ms=4, capsize=3,
                color=colour)
    labels = [b.label for b in bins]
    # upright where the pooled values' names would meet side by side
    ax.set_xticks(x, labels, fontsize=7, rotation=0 if _label_step(ax, labels, 7) == 1 else 90)
    ax.set_xlim(-0.6, len(bins) - 0.4)
    ax.set_ylim(max(0.0, float(low.min()) - 2), min(100.0, float(high.max()) + 2) + 0.5)
    ax.set_ylabel(f"{what} (%)", fontsize=8)
    ax.tick_params(axis="y", labelsize=7)
    ax.grid(alpha=0.3)
    pooled = [b.label for b in bins if b.lo != b.hi]
    note = (f"; values pooled to {min_deals}+ deals: {', '.join(pooled)}" if pooled
            else f"; every value rests on {min_deals}+ deals")
    ax.set_xlabel(f"{name.replace('_', ' ')}{note}", fontsize=8)
    top = ax.secondary_xaxis("top")
    every = _label_step(ax, [_count(int(k)) for k in n])
    top.set_xticks(x[::every], [_count(int(k)) for k in n[::every]], fontsize=6, color="#555555")
    top.tick_params(length=2, pad=1)
    top.set_xlabel("deals" + ("" if every == 1 else f" (every {_ordinal(every)} value)"),
                   fontsize=7, color="#555555", labelpad=2)


def _label_step(ax, labels: list[str], points: float = 6) -> int:
    """Label every k-th place so that the labels (of ``points`` points) do not meet."""
    width_px = ax.get_window_extent().width
    widest = max(len(t) for t in labels) * points * 0.62 * ax.figure.dpi / 72 + 4
    room = width_px / max(len(labels), 1)
    return max(1, math.ceil(widest / max(room, 1.0)))


def _ordinal(k: int) -> str:
    return {2: "2nd", 3: "3rd"}.get(k, f"{k}th")


def plot_win_rate_by(ax, df: pd.DataFrame, feature: str, min_deals: int = MIN_DEALS) -> None:
    """Win rate (%) with its interval for each value of a deal feature, values pooled until
    each rate rests on ``min_deals`` deals (unresolved deals widen the interval upward)."""
    t = stats.win_rate_by(df, feature)
    bins = pool(t.index, t["deals"], t["wins"], t["wins"] + t["unresolved"], min_deals)
    plot_rate_bins(ax, bins, feature, "deals won", BLUE, min_deals)


def _count(n: int) -> str:
    """A count in few characters: 950, 9,500, 95k, 9.5M."""
    if n < 10_000:
        return f"{n:,}"
    if n < 1_000_000:
        return f"{n / 1000:.0f}k"
    return f"{n / 1e6:.2g}M"


def plot_players(ax, comparison: pd.DataFrame) -> None:
    """Win rate (%) with its interval for each player of :func:`compare_players`; each bar's
    rate and deals under its name, nothing over a bar or an interval."""
    c = comparison
    x = np.arange(len(c))
    rate = 100 * c["win_rate"].to_numpy()
    ax.bar(x, rate, color=[BLUE, ORANGE, BROWN, GREEN][: len(c)])
    ax.errorbar(x, rate, yerr=[rate - 100 * c["ci_low"].to_numpy(),
                               100 * c["ci_high"].to_numpy() - rate],
                fmt="none", capsize=4, color="black")
    deals = c["deals"].to_numpy() if "deals" in c else [None] * len(c)
    ax.set_xticks(x, [f"{p}\n{r:.1f} %" + ("" if n is None else f" of {int(n):,}")
                      for p, r, n in zip(c.index, rate, deals)], fontsize=8)
    ax.set_ylim(0, 100)
    ax.set_ylabel("deals won (%)")
    ax.grid(axis="y", alpha=0.3)
