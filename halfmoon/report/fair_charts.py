"""The charts of the findings' fair-play section (section 4b): the ladder, the fair player's win
rate against its samples, and where the fair players' games are lost.  Each says the deals
it rests on and keeps its legend beside the frame."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .charts import frame_values, legend_beside
from .fairplay import _fatal_rows, fatal_shown
from .style import BLUE, GREY, ORANGE, PLAYER_COLOURS


def _deals_title(ax, deals: int, what: str = "") -> None:
    """The deals a chart rests on, and what one deal weighs in points."""
    step = f"; one deal is {100 / deals:.2g} points" if deals else ""
    ax.set_title(f"n = {deals:,} deals{what}{step}", fontsize=8, loc="left")


# a bar's colour and hatch by the player's standing on the ladder: the page's sentence says the
# same of each (halfmoon.report.fairplay.standing_words, from the same column)
STANDING_LOOK = {"best": (ORANGE, ""), "highest": (ORANGE, ""), "tied highest": (ORANGE, ""),
                 "not told apart from the highest": (BLUE, "///"),
                 "below the highest": (BLUE, ""), "every card shown": (GREY, "")}
STANDING_LABEL = {"best": "the best: highest win rate, told apart from each other",
                  "highest": "highest win rate", "tied highest": "tied at the highest win rate",
                  "not told apart from the highest": "not told apart from the highest",
                  "below the highest": "told apart, below the highest",
                  "every card shown": "every card shown (no fair player)"}


def plot_fair_ladder(ax, t: pd.DataFrame) -> None:
    """Each player's win rate on the fair-play deals, with its interval, the solver
    (every card shown) last; each fair player's bar says its standing (the highest win rate,
    not told apart from it, below it), as the page's sentence does, in a legend beside."""
    from .fairplay import ladder_standings

    t = t.reset_index(drop=True)
    st = ladder_standings(t)
    t = t.assign(standing=st if st is not None else
                 ["every card shown" if p == "solver" else "" for p in t["player"]])
    t = pd.concat([t[t["player"] != "solver"], t[t["player"] == "solver"]])
    y = list(range(len(t)))
    rate = 100 * t["win_rate"].to_numpy()
    err = [rate - 100 * t["ci_low"].to_numpy(), 100 * t["ci_high"].to_numpy() - rate]
    looks = [STANDING_LOOK.get(s, (BLUE, "")) for s in t["standing"]]
    bars = ax.barh(y, rate, xerr=err, color=[c for c, _ in looks], capsize=2)
    seen = set()
    for bar, (_, hatch), s in zip(bars, looks, t["standing"]):
        bar.set_hatch(hatch)
        if s in STANDING_LABEL and s not in seen:  # one legend entry a standing drawn
            bar.set_label(STANDING_LABEL[s])
            seen.add(s)
    ax.set_yticks(y, [("every card shown" if p == "solver" else p) for p in t["player"]],
                  fontsize=8)
    ax.set_xlim(0, 101)  # a rate of 100 % and its interval inside the frame
    ax.set_xlabel("win rate (%)")
    _deals_title(ax, int(t["deals"].max()) if len(t) else 0, ", the same for every player")
    if seen:
        legend_beside(ax)
    ax.grid(axis="x", alpha=0.3)


def plot_fair_curve(ax, curve: pd.DataFrame, ladder: pd.DataFrame) -> None:
    """The fair player's win rate against the samples it spends a decision, lookahead's level
    beside; said, not drawn, where no sampled player was run."""
    if curve is None or not len(curve):
        ax.text(0.5, 0.5, "no fair player with sampled layouts in these findings",
                ha="center", va="center", transform=ax.transAxes, fontsize=8)
        ax.set_axis_off()
        return
    rate = 100 * curve["win_rate"].to_numpy()
    low, high = 100 * curve["ci_low"].to_numpy(), 100 * curve["ci_high"].to_numpy()
    ax.errorbar(curve["samples"], rate, yerr=[rate - low, high - rate], marker="o", color=BLUE,
                capsize=3, label="fair player")
    look = ladder[ladder["player"] == "lookahead"]
    levels = [low, high]
    if len(look):
        level = 100 * float(look["win_rate"].iloc[0])
        ax.axhline(level, color=GREY, ls="--", lw=1, label="lookahead")
        levels.append([level])
    ax.set_xscale("log", base=2)
    samples = curve["samples"].to_numpy()
    ax.set_xticks(samples, [f"{int(k)}" for k in samples])
    ax.set_xlim(samples.min() / 1.5, samples.max() * 1.5)
    frame_values(ax, np.concatenate(levels), np.concatenate(levels))
    ax.set_xlabel("sampled layouts a decision")
    ax.set_ylabel("win rate (%)")
    _deals_title(ax, int(curve["deals"].max()))
    legend_beside(ax)
    ax.grid(alpha=0.3)


def plot_fair_fatal(ax, fatal: pd.DataFrame) -> None:
    """Where the fair-play players' games on winnable deals are lost: the share of their games
    whose fatal move is made with so many cards left (bins of 8), one line a player, for the
    players of :func:`.fairplay.fatal_shown` (the title says which of the table's they are);
    each line has its own dash, so that one lying on another still shows."""
    bins = np.arange(0, 112, 8)
    colours = {**PLAYER_COLOURS, "tuned": "#7b1fa2", "fair": BLUE, "greedy": ORANGE}
    dashes = ["-", "--", ":", "-."]
    games_each = 0
    shown, every = fatal_shown(fatal)
    for k, player in enumerate(shown):
        left, games, total = _fatal_rows(fatal, player)
        games_each = max(games_each, total)
        h = np.histogram(left, bins=bins, weights=games)[0]
        ax.step(bins, 100 * np.append(h, h[-1]) / total, where="post",
                color=colours.get(player, GREY), lw=2.2 - 0.4 * (k % 4), ls=dashes[k % 4],
                label=f"{player}: {int(games.sum()):,} of {total:,} lost")
    ax.set_xlim(bins[-1], bins[0])
    ax.set_xlabel("cards left before the fatal move (bins of 8)")
    ax.set_ylabel("games on winnable deals (%)")
    ax.set_ylim(bottom=0)
    which = (f"the table's {len(every)} players" if len(shown) == len(every) else
             f"{len(shown)} of the table's {len(every)} players")
    ax.set_title(f"n = {games_each:,} games on winnable deals a player; {which}", fontsize=8,
                 loc="left")
    if ax.get_legend_handles_labels()[0]:
        legend_beside(ax)
    ax.grid(alpha=0.3)
