"""Section 4b of the findings page: what a player who sees only the app's cards can win
(the fair-play ladder and the fair player's win rate against its samples), and its charts."""

from __future__ import annotations

import pandas as pd

from .findings import BLUE, GREY
from .findings import _ci as ci
from .findings import _pct as pct
from .findings import _table as table


def plot_fair_ladder(ax, t: pd.DataFrame) -> None:
    """Each player's win rate on the fair-play deals, with its 95 % interval, the solver
    (every card shown) last."""
    t = pd.concat([t[t["player"] != "solver"], t[t["player"] == "solver"]])
    y = range(len(t))
    rate = 100 * t["win_rate"].to_numpy()
    err = [rate - 100 * t["ci_low"].to_numpy(), 100 * t["ci_high"].to_numpy() - rate]
    ax.barh(list(y), rate, xerr=err, color=[BLUE if p != "solver" else GREY for p in t["player"]],
            capsize=2)
    ax.set_yticks(list(y), [("every card shown" if p == "solver" else p) for p in t["player"]], fontsize=8)
    ax.set_xlabel("win rate (%)")
    ax.grid(axis="x", alpha=0.3)


def plot_fair_curve(ax, curve: pd.DataFrame, ladder: pd.DataFrame) -> None:
    """The fair player's win rate against the samples it spends a decision, lookahead's level beside."""
    ax.errorbar(curve["samples"], 100 * curve["win_rate"],
                yerr=[100 * (curve["win_rate"] - curve["ci_low"]), 100 * (curve["ci_high"] - curve["win_rate"])],
                marker="o", color=BLUE, capsize=3, label="fair player")
    look = ladder[ladder["player"] == "lookahead"]
    if len(look):
        ax.axhline(100 * look["win_rate"].iloc[0], color=GREY, ls="--", lw=1, label="lookahead")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("sampled layouts a decision")
    ax.set_ylabel("win rate (%)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)



def fair_section(data: dict, img) -> list[str]:
    """Section 4b: the fair-play ladder, if these findings have it."""
    L = ["## 4b. What a player who sees only the app's cards can win", ""]
    if "fair-ladder" not in data:
        return L + ["Not in these findings yet: they were derived before the fair-play stage; "
                    "`halfmoon findings` on the census adds it.", ""]
    t = data["fair-ladder"]
    n = int(t["deals"].iloc[0])
    L += [f"The solver sees all 104 cards; a player sees 20. On {n:,} deals of the census (the first of "
          "the players' sample), each fair player of `halfmoon players` — given only the tops, the "
          "reserve and how many of each card are still hidden, never the deal (see "
          "[fair-play.md](fair-play.md)) — against every card shown, paired by deal:", ""]
    rows = []
    for r in t.itertuples():
        vs = "" if r.player in ("lookahead",) else (f"{100 * r.vs_lookahead:+.2f} ({100 * r.vs_lookahead_low:+.2f} "
                                                  f"to {100 * r.vs_lookahead_high:+.2f})")
        rows.append(("every card shown (solver)" if r.player == "solver" else r.player, f"{r.deals:,}",
                     f"{r.won:,}", pct(r.win_rate), ci(r.ci_low, r.ci_high), vs,
                     "" if r.player == "solver" else f"{r.seconds_per_game:.3f}"))
    L += table(("player", "deals", "won", "win rate", "95 % interval", "against lookahead (points)",
                 "seconds a game"), rows)
    L += ["", img("fair-ladder.png", "the fair-play ladder"), ""]
    if "fair-curve" in data and len(data["fair-curve"]):
        c = data["fair-curve"]
        L += ["The fair player's win rate against the layouts it samples a decision (the cost of a game "
              "grows with them: " + ", ".join(f"{int(r.samples)}: {r.seconds_per_game:.2f} s"
                                               for r in c.itertuples()) + " on one core):", "",
              img("fair-curve.png", "win rate against samples"), ""]
    return L
