"""A short Markdown report, with PNG charts, of a results dataset.

    python -m halfmoon.report results           # writes report/report.md and its charts
    halfmoon report results --out report

The report gives the win rate with its interval, how the estimate settles as the
sample grows, the positions searched (log axis), the win rate by deal feature, and
the simple players of :mod:`halfmoon.research.strategies` on the same deals.  The charts
come from :mod:`halfmoon.report.charts`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence, Union

import pandas as pd
from matplotlib.figure import Figure

from halfmoon.game.errors import HalfMoonError
from halfmoon.research import stats

from . import charts
from .style import pct

REPORT_NAME = "report.md"


def _md_table(df: pd.DataFrame, formats: dict) -> str:
    cols = [df.index.name or ""] + list(df.columns)
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "---|" * len(cols)]
    for i, idx in enumerate(df.index):
        cells = [str(idx)] + [formats.get(c, str)(df[c].iloc[i]) for c in df.columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _save(fig: Figure, path: Path) -> None:
    fig.tight_layout()
    fig.savefig(path)


def write_report(
    results_dir: Union[str, Path],
    out_dir: Union[str, Path] = "report",
    *,
    players: bool = True,
    seed: int = 0,
) -> Path:
    """Write ``out_dir/report.md`` and its PNG charts for the results in ``results_dir``.

    Returns the path of the Markdown file.  ``players`` adds the random and greedy
    players on the same deals (seeded by ``seed``).
    """
    df = stats.load(results_dir)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    s = stats.summarize(df)
    budgets = ", ".join(f"{b:,}" for b in s["budgets"])

    fig = charts.figure()
    charts.plot_running_win_rate(fig.add_subplot(), df)
    _save(fig, out / "win-rate.png")

    fig = charts.figure()
    charts.plot_nodes_histogram(fig.add_subplot(), df)
    _save(fig, out / "nodes.png")

    fig = charts.figure(8.0, 5.6)
    for i, feature in enumerate(stats.FEATURES):
        charts.plot_win_rate_by(fig.add_subplot(2, 2, i + 1), df, feature)
    _save(fig, out / "by-feature.png")

    lines = [
        "# Half Moon: results report",
        "",
        f"Results: `{results_dir}` — {s['deals']:,} deals, solver version "
        f"{', '.join(s['solver_versions'])}, budget {budgets} positions per deal.",
        "",
        "## Win rate",
        "",
        f"**{pct(s['win_rate'])}** of the deals are won "
        f"(95 % interval {pct(s['ci_low'])} – {pct(s['ci_high'])}).",
        "",
        "| deals | wins | losses | unresolved |",
        "|---|---|---|---|",
        f"| {s['deals']:,} | {s['wins']:,} | {s['losses']:,} | {s['unresolved']:,} |",
        "",
        "The interval is Wilson's; unresolved deals (the solver's budget ran out) count as",
        "losses for its lower end and as wins for its upper end.",
        "",
        "![win rate as the sample grows](win-rate.png)",
        "",
        "## Difficulty",
        "",
        "Positions searched by the solver per deal (log axis):",
        "",
        "![positions searched](nodes.png)",
        "",
        "| | mean | median | 90 % | 99 % | max |",
        "|---|---|---|---|---|---|",
    ]
    for key, unit in (("nodes", "positions"), ("seconds", "seconds")):
        q = s[key]
        fmt = (lambda v: f"{v:,.0f}") if key == "nodes" else (lambda v: f"{v:.4f}")
        cells = " | ".join(fmt(q[k]) for k in ("mean", "p50", "p90", "p99", "max"))
        lines.append(f"| {unit} | {cells} |")
    hard = stats.hardest(df, 5)
    lines += ["", "The hardest deals:", "", "| code | verdict | positions | seconds |",
              "|---|---|---|---|"]
    lines += [f"| {r.code} | {r.verdict} | {r.nodes:,} | {r.seconds:.3f} |"
              for r in hard.itertuples()]
    lines += [
        "",
        "Win rate by feature of the starting position (legal moves, face cards in the",
        "reserve and on the pile tops, classes with a move); the small numbers are deals:",
        "",
        "![win rate by feature](by-feature.png)",
        "",
    ]
    if players:
        from halfmoon.research.strategies import compare_players

        comp = compare_players(df, seed=seed)
        fig = charts.figure(5.0, 3.6)
        charts.plot_players(fig.add_subplot(), comp)
        _save(fig, out / "players.png")
        lines += [
            "## Playing without thinking ahead",
            "",
            "The same deals played once by a random player (a uniformly random legal move",
            "each turn) and by a greedy player (the move that uncovers most pile cards, then",
            "pairs before triplets, then the fullest piles):",
            "",
            _md_table(
                comp[["deals", "wins", "win_rate", "ci_low", "ci_high", "wins_of_winnable"]],
                {"deals": str, "wins": str, "win_rate": pct, "ci_low": pct, "ci_high": pct,
                 "wins_of_winnable": pct},
            ),
            "",
            "![players](players.png)",
            "",
        ]
    path = out / REPORT_NAME
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m halfmoon.report",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("results", metavar="DIR",
                        help="results directory written by 'halfmoon batch'")
    parser.add_argument("--out", default="report", help="where to write report.md and its charts")
    parser.add_argument("--no-players", action="store_true", help="leave out the simple players")
    args = parser.parse_args(argv)
    try:
        path = write_report(args.results, args.out, players=not args.no_players)
    except (HalfMoonError, OSError) as exc:
        print(f"halfmoon: error: {exc}", file=sys.stderr)
        return 2
    print(f"report written to {path}")
    return 0

