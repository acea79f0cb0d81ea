"""The findings page's charts: each drawn on a given matplotlib Axes or Figure from the
data of ``docs/findings/`` (:func:`halfmoon.report.findings.load_data`), so that the page and
``notebooks/findings.ipynb`` draw the same pictures from the same data."""

from __future__ import annotations

from pathlib import Path
from typing import Union

import numpy as np
import pandas as pd

from halfmoon.research.deadlocks import kind_table

from .charts import MIN_DEALS, figure, plot_rate_bins, pool
from .fairplay import plot_fair_curve, plot_fair_fatal, plot_fair_ladder
from .style import BLUE, BROWN, GREEN, GREY, ORANGE, PLAYER_COLOURS, RED


def plot_win_rate(ax, run: pd.DataFrame) -> None:
    """The win rate of the first n deals of the census and its 95 % interval."""
    ax.fill_between(run["n"], 100 * run["ci_low"], 100 * run["ci_high"], color="#90caf9",
                    alpha=0.7, label="95 % interval")
    ax.plot(run["n"], 100 * run["win_rate"], color=BLUE, lw=1.2, label="win rate")
    ax.set_xscale("log")
    last = run.iloc[-1]
    ax.set_ylim(100 * last["win_rate"] - 1.5, 100 * last["win_rate"] + 1.0)
    ax.set_xlabel("deals of the census (in sample order)")
    ax.set_ylabel("deals won (%)")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)


def plot_deadlocks(ax, losses: pd.DataFrame) -> None:
    """The kinds of deadlock of the census's losses: share of the losses, with intervals."""
    t = kind_table(losses)
    x = np.arange(len(t))
    share = 100 * t["share"].to_numpy()
    ax.bar(x, share, color=[RED if k.startswith("faces") else BROWN for k in t.index])
    ax.errorbar(x, share, yerr=[share - 100 * t["ci_low"], 100 * t["ci_high"] - share],
                fmt="none", capsize=3, color="black")
    # each kind's losses under its name: nothing written over a bar or an interval
    ax.set_xticks(x, [f"{k}\n{n:,}" for k, n in zip(t.index, t["losses"])], fontsize=7)
    ax.set_ylabel("losses (%)")
    ax.set_title("the smallest set of classes that cannot be cleared", fontsize=9)
    ax.grid(axis="y", alpha=0.3)


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


def plot_keep_share(ax, forgiveness: pd.DataFrame) -> None:
    """The share of legal moves that keep a winnable position winnable, by cards left."""
    for player, colour in (("random", BROWN), ("greedy", ORANGE)):
        t = forgiveness[(forgiveness["player"] == player) & (forgiveness["positions"] >= 30)]
        if t.empty:
            continue
        t = t.assign(cards_left=t["cards_left"].astype(int)).sort_values("cards_left")
        ax.fill_between(t["cards_left"], 100 * t["ci_low"], 100 * t["ci_high"], color=colour,
                        alpha=0.25)
        ax.plot(t["cards_left"], 100 * t["keep_share"], color=colour, lw=1.2,
                label=f"along the {player} player's games")
    ax.invert_xaxis()
    ax.set_xlabel("cards left")
    ax.set_ylabel("moves keeping it winnable (%)")
    ax.set_ylim(0, 102)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(loc="lower left", fontsize=8)
    ax.grid(alpha=0.3)


def plot_fatal(ax, fatal: pd.DataFrame) -> None:
    """Where the fatal moves are made: games by cards left before the fatal move."""
    width = 4
    bins = np.arange(0, 108, width)
    for k, (player, colour) in enumerate((("random", BROWN), ("greedy", ORANGE))):
        t = fatal[(fatal["player"] == player) & (fatal["outcome"] == "fatal")]
        t = t.assign(cards_left=t["cards_left"].astype(int))
        total = int(t["games"].sum())
        if not total:
            continue
        h = np.histogram(t["cards_left"], bins=bins, weights=t["games"])[0]
        ax.bar(bins[:-1] + k * width / 2, 100 * h / total, width=width / 2, align="edge",
               color=colour, label=f"{player} ({total:,} games lost)")
    ax.invert_xaxis()
    ax.set_xlabel("cards left before the fatal move")
    ax.set_ylabel("lost games (%)")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8)
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
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)


def common_deals(deals: int) -> int:
    """Feature values are shown where at least this many deals have them: 0.1 % of the run,
    and never fewer than :data:`.charts.MIN_DEALS`."""
    return max(MIN_DEALS, deals // 1000)


def draw_charts(data: dict, out_dir: Union[str, Path]) -> dict[str, Path]:
    """Every chart of the page as a small PNG in ``out_dir``; their paths by name."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    jobs = {
        "win-rate.png": (6.0, 3.0, lambda f: plot_win_rate(f.add_subplot(), data["win-rate"])),
        "deadlocks.png": (8.0, 3.4, lambda f: plot_deadlocks(f.add_subplot(), data["losses"])),
        "loss-by-feature.png": (7.5, 11.0, lambda f: plot_loss_by_feature(
            f, data["features"], common_deals(data["summary"]["deals"]))),
        "forgiveness.png": (6.0, 3.2, lambda f: plot_keep_share(
            f.add_subplot(), data["forgiveness"])),
        "fatal-moves.png": (6.0, 3.0, lambda f: plot_fatal(f.add_subplot(), data["fatal-moves"])),
        "players.png": (5.5, 3.4, lambda f: plot_players(f.add_subplot(), data["players"])),
        "difficulty.png": (6.0, 3.0, lambda f: plot_difficulty(
            f.add_subplot(), data["difficulty"])),
    }
    if "fair-ladder" in data:
        jobs["fair-ladder.png"] = (6.0, 3.2, lambda f: plot_fair_ladder(
            f.add_subplot(), data["fair-ladder"]))
        jobs["fair-curve.png"] = (5.0, 3.0, lambda f: plot_fair_curve(
            f.add_subplot(), data["fair-curve"], data["fair-ladder"]))
        if "fair-fatal" in data:
            jobs["fair-fatal.png"] = (6.0, 3.0, lambda f: plot_fair_fatal(
                f.add_subplot(), data["fair-fatal"]))
    paths = {}
    for name, (w, h, draw) in jobs.items():
        fig = figure(w, h)
        draw(fig)
        fig.tight_layout()
        fig.savefig(out / name, dpi=90)
        paths[name] = out / name
    return paths
