"""The findings page's charts: each drawn on a given matplotlib Axes or Figure from a run's
findings data (``RUN/_findings/findings``, the shipped census's ``docs/findings``;
:func:`halfmoon.report.findings.load_data`), so that the page and ``notebooks/findings.ipynb``
draw the same pictures from the same data.  Each keeps its lines and bands inside its frame,
says the n it rests on and keeps its legend beside the data."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator, Optional, Union

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from halfmoon.research.deadlocks import kind_table, kind_words
from halfmoon.research.stats import wilson_bounds

from .charts import (
    MIN_DEALS,
    RUN_ORDER,
    figure,
    frame_values,
    legend_beside,
    note_over,
    plot_growing_win_rate,
    plot_rate_bins,
    pool,
)
from .fair_charts import plot_fair_curve, plot_fair_fatal, plot_fair_ladder
from .style import BROWN, GREEN, GREY, ORANGE, PLAYER_COLOURS, RED


def win_rate_order(summary: dict) -> str:
    """The order of the findings' running win rate, in words: the run's own (findings made
    before it was: the seeded sample order of their seed)."""
    if summary.get("win_rate_order") == "run":
        return RUN_ORDER
    return f"in a seeded random order (seed {summary.get('seed', '?')})"


def plot_win_rate(ax, run: pd.DataFrame, order: str = RUN_ORDER) -> None:
    """The win rate of the run's first n deals and its interval, from 30 deals on; every
    point and band inside the frame (:func:`.charts.plot_growing_win_rate`)."""
    plot_growing_win_rate(ax, run, order)


def plot_deadlocks(ax, losses: pd.DataFrame) -> None:
    """The kinds of deadlock of the run's losses, in words: share of the losses, with
    intervals; a kind resting on fewer than 30 losses hatched, its count beside its name."""
    t = kind_table(losses)
    y = np.arange(len(t))[::-1]
    share = 100 * t["share"].to_numpy()
    few = t["losses"].to_numpy() < MIN_DEALS
    colours = [RED if k.startswith("faces") else BROWN for k in t.index]
    bars = ax.barh(y, share, color=colours, xerr=[share - 100 * t["ci_low"],
                                                   100 * t["ci_high"] - share],
                   capsize=3, error_kw={"ecolor": "black", "lw": 1})
    for bar, thin in zip(bars, few):
        if thin:
            bar.set_alpha(0.45)
            bar.set_hatch("///")
    # each kind's losses beside its name: nothing written over a bar or an interval
    ax.set_yticks(y, [f"{kind_words(k)} ({n:,} loss{'' if n == 1 else 'es'})"
                      for k, n in zip(t.index, t["losses"])], fontsize=7)
    ax.set_xlim(0, min(100.0, 100 * float(t["ci_high"].max()) * 1.08) if len(t) else 100)
    ax.set_xlabel("share of the losses (%)" + (
        f"; hatched: fewer than {MIN_DEALS} losses" if few.any() else ""), fontsize=8)
    ax.set_title(f"the smallest set of classes that cannot be cleared: n = {len(losses):,} "
                 "losses", fontsize=8, loc="left")
    ax.grid(axis="x", alpha=0.3)


def plot_loss_by_feature(fig, features: pd.DataFrame, min_deals: int = MIN_DEALS) -> None:
    """Loss rate (%) with its interval by each feature's values, one chart a row: neighbouring
    values pooled until each rate rests on ``min_deals`` deals (the chart names the pooled
    values), the deals behind each rate along its top."""
    names = list(dict.fromkeys(features["feature"]))
    for i, name in enumerate(names):
        ax = fig.add_subplot(len(names), 1, i + 1)
        t = features[features["feature"] == name]
        plot_rate_bins(ax, pool(t["value"], t["deals"], t["losses"], min_deals=min_deals), name,
                       "lost", RED, min_deals)


def plot_players(ax, players: pd.DataFrame) -> None:
    """Each player's share of the deals won, with its interval."""
    x = np.arange(len(players))
    rate = 100 * players["win_rate"].to_numpy()
    ax.bar(x, rate, color=[PLAYER_COLOURS.get(p, GREY) for p in players["player"]])
    ax.errorbar(x, rate, yerr=[rate - 100 * players["ci_low"], 100 * players["ci_high"] - rate],
                fmt="none", capsize=4, color="black")
    # the rate and the deals under each name: nothing written over a bar or an interval
    ax.set_xticks(x, [f"{p}\n{r:.1f} %\nof {int(n):,}" for p, r, n in
                      zip(players["player"], rate, players["deals"])], fontsize=7)
    ax.set_ylim(0, 100)
    ax.set_ylabel("deals won (%)")
    ax.grid(axis="y", alpha=0.3)


FINE_POINTS = 10  # fewer cards-left values on 30+ positions: the table's buckets are drawn


def plot_keep_share(ax, forgiveness: pd.DataFrame, buckets: Optional[pd.DataFrame] = None) -> None:
    """The share of legal moves that keep a winnable position winnable, by cards left, where
    it rests on 30 positions or more; the positions and deals behind each curve in its legend.
    A player with fewer than :data:`FINE_POINTS` such values (a small sample) is drawn in the
    page's buckets of cards left (``buckets``: forgiveness-buckets), as points with their
    intervals."""
    for player, colour in (("random", BROWN), ("greedy", ORANGE)):
        mine = forgiveness[forgiveness["player"] == player]
        if mine.empty:
            continue
        label = (f"{player} player's games:\n{int(mine['positions'].sum()):,} positions, "
                 f"{int(mine['deals'].max()):,} deals")
        t = mine[mine["positions"] >= MIN_DEALS]
        t = t.assign(cards_left=t["cards_left"].astype(int)).sort_values("cards_left")
        if len(t) >= FINE_POINTS or buckets is None:
            ax.fill_between(t["cards_left"], 100 * t["ci_low"], 100 * t["ci_high"],
                            color=colour, alpha=0.25)
            ax.plot(t["cards_left"], 100 * t["keep_share"], color=colour, lw=1.2,
                    marker="o" if len(t) < FINE_POINTS else None, ms=3, label=label)
            continue
        b = buckets[(buckets["player"] == player) & (buckets["positions"] >= MIN_DEALS)]
        if b.empty:
            continue
        x = np.array([np.mean([int(v) for v in str(c).split("–")]) for c in b["cards_left"]])
        rate = 100 * b["keep_share"].to_numpy()
        ax.errorbar(x, rate, yerr=[rate - 100 * b["ci_low"].to_numpy(),
                                   100 * b["ci_high"].to_numpy() - rate],
                    fmt="o-", ms=4, capsize=3, color=colour, lw=1.0,
                    label=label + "\n(in buckets of cards left)")
    ax.set_xlim(104, 0)
    ax.set_xlabel(f"cards left (where {MIN_DEALS}+ positions have them)")
    ax.set_ylabel("moves keeping it winnable (%)", fontsize=8)
    drawn = [line.get_ydata() for line in ax.get_lines()]
    drawn += [p.vertices[:, 1] for c in ax.collections for p in c.get_paths()]
    values = np.concatenate([np.asarray(v, float) for v in drawn]) if drawn else np.zeros(0)
    if not np.isfinite(values).any():
        ax.text(0.5, 0.5, f"no cards left on {MIN_DEALS}+ positions: not drawn", ha="center",
                va="center", transform=ax.transAxes, fontsize=8)
        ax.set_yticks([])
    else:
        frame_values(ax, values, values)
        legend_beside(ax)
    ax.grid(alpha=0.3)


def _walked(fatal: pd.DataFrame, player: str) -> int:
    """A player's walked games (deals proved winnable): every outcome's games together."""
    return int(fatal.loc[fatal["player"] == player, "games"].sum())


def plot_fatal(ax, fatal: pd.DataFrame, buckets=None) -> None:
    """Where the fatal moves are made: the share of each player's walked games (the page's
    table's denominator) whose fatal move comes with so many cards left, in the table's
    buckets, with intervals (the current confidence's)."""
    from halfmoon.research.forgiveness import CARD_BUCKETS

    buckets = CARD_BUCKETS if buckets is None else buckets
    players = [p for p in ("random", "greedy") if p in set(fatal["player"])]
    x = np.arange(len(buckets))
    width = 0.8 / max(len(players), 1)
    for k, player in enumerate(players):
        walked = _walked(fatal, player)
        t = fatal[(fatal["player"] == player) & (fatal["outcome"] == "fatal")]
        t = t.assign(cards_left=t["cards_left"].astype(int))
        if not walked:
            continue
        games = np.array([int(t.loc[(t["cards_left"] <= hi) & (t["cards_left"] >= lo),
                                    "games"].sum()) for hi, lo in buckets])
        rate = 100 * games / walked
        low, high = (100 * b for b in wilson_bounds(games, walked))
        ax.bar(x + (k - (len(players) - 1) / 2) * width, rate, width=width,
               yerr=[rate - low, high - rate], capsize=2,
               color={"random": BROWN, "greedy": ORANGE}[player],
               label=f"{player}: {int(games.sum()):,} lost of {walked:,} walked")
    ax.set_xticks(x, [f"{hi}–{lo}" for hi, lo in buckets], fontsize=7)
    ax.set_xlabel("cards left before the fatal move")
    ax.set_ylabel("walked games (%)")
    ax.set_ylim(bottom=0)
    if ax.get_legend_handles_labels()[0]:
        legend_beside(ax)
    ax.grid(axis="y", alpha=0.3)


def plot_difficulty(ax, difficulty: pd.DataFrame) -> None:
    """Deals by positions searched (decades), wins and losses side by side, log scale."""
    x = np.arange(len(difficulty))
    ax.bar(x - 0.2, difficulty["wins"], width=0.4, color=GREEN, label="wins")
    ax.bar(x + 0.2, difficulty["losses"], width=0.4, color=RED, label="losses")
    ax.set_yscale("log")
    labels = [f"<{b:,.0f}" if a == 0 else f"{a:.0e}".replace("e+0", "e") for a, b in
              zip(difficulty["nodes_from"], difficulty["nodes_below"])]
    ax.set_xticks(x, labels, fontsize=7)
    ax.set_xlabel("positions searched (decade from)")
    ax.set_ylabel("deals")
    total = int(difficulty[["wins", "losses"]].to_numpy().sum() + difficulty.get(
        "unresolved", pd.Series([0])).sum())
    ax.set_title(f"n = {total:,} deals", fontsize=8, loc="left")
    legend_beside(ax)
    ax.grid(axis="y", alpha=0.3)


def common_deals(deals: int) -> int:
    """Feature values are shown where at least this many deals have them: 0.1 % of the run,
    and never fewer than :data:`.charts.MIN_DEALS`."""
    return max(MIN_DEALS, deals // 1000)


def chart_note(summary: dict) -> str:
    """What every chart of the page says over it, as the page does: a run not finished, or
    being written while the findings were derived (empty for a finished run)."""
    if not summary.get("partial") and not summary.get("writer"):
        return ""
    note = (f"The run is not finished: {int(summary['deals']):,} of "
            f"{int(summary.get('planned') or 0):,} planned deals")
    if summary.get("writer") is not None:
        note += "; provisional: a batch process was writing it"
    return note + "."


DPI = 90


def chart_figures(data: dict) -> Iterator[tuple[str, Figure]]:
    """Each chart of the page, by its file name, as a Figure laid out at :data:`DPI`; a run
    not finished (or being written) has the page's note over each chart."""
    s = data["summary"]
    jobs = {
        "win-rate.png": (6.8, 3.0, lambda f: plot_win_rate(f.add_subplot(), data["win-rate"],
                                                           win_rate_order(s))),
        "deadlocks.png": (8.0, 3.6, lambda f: plot_deadlocks(f.add_subplot(), data["losses"])),
        "loss-by-feature.png": (7.5, 11.0, lambda f: plot_loss_by_feature(
            f, data["features"], common_deals(s["deals"]))),
        "forgiveness.png": (7.2, 3.2, lambda f: plot_keep_share(
            f.add_subplot(), data["forgiveness"], data.get("forgiveness-buckets"))),
        "fatal-moves.png": (7.2, 3.0, lambda f: plot_fatal(f.add_subplot(),
                                                           data["fatal-moves"])),
        "players.png": (5.5, 3.4, lambda f: plot_players(f.add_subplot(), data["players"])),
        "difficulty.png": (6.6, 3.0, lambda f: plot_difficulty(
            f.add_subplot(), data["difficulty"])),
    }
    if "fair-ladder" in data:
        jobs["fair-ladder.png"] = (8.2, 3.2, lambda f: plot_fair_ladder(
            f.add_subplot(), data["fair-ladder"]))
        jobs["fair-curve.png"] = (5.8, 3.0, lambda f: plot_fair_curve(
            f.add_subplot(), data.get("fair-curve"), data["fair-ladder"]))
        if "fair-fatal" in data:
            jobs["fair-fatal.png"] = (7.2, 3.0, lambda f: plot_fair_fatal(
                f.add_subplot(), data["fair-fatal"]))
    note = chart_note(s)
    for name, (w, h, draw) in jobs.items():
        fig = figure(w, h)
        fig.set_dpi(DPI)  # laid out at the resolution it is saved at: no label cut at its edge
        draw(fig)
        if note:
            note_over(fig, note)
        else:
            fig.tight_layout()
        yield name, fig


def draw_charts(data: dict, out_dir: Union[str, Path], formats=(),
                made_by: str = "") -> dict[str, Path]:
    """Every chart of the page (:func:`chart_figures`) as a small PNG in ``out_dir``, and as
    each vector format of ``formats`` beside it (:func:`.exports.save_figure`: ``svg``,
    ``pdf``); the PNGs' paths by name."""
    from .exports import save_figure

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, fig in chart_figures(data):
        save_figure(fig, out / name, formats, dpi=DPI, made_by=made_by)
        paths[name] = out / name
    return paths
