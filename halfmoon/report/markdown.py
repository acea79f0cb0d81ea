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
from halfmoon.research import scan, stats

from . import charts
from .style import pct, table_lines
from .wording import count

REPORT_NAME = "report.md"


def _md_table(df: pd.DataFrame, formats: dict) -> str:
    cols = [df.index.name or ""] + list(df.columns)
    lines = ["| " + " | ".join(map(str, cols)) + " |", "|" + "---|" * len(cols)]
    for i, idx in enumerate(df.index):
        cells = [str(idx)] + [formats.get(c, str)(df[c].iloc[i]) for c in df.columns]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


PLAYER_COLUMNS = ("player", "deals", "won", "win rate", "95 % interval",
                  "won of the winnable deals")


def players_table(comp: pd.DataFrame) -> list[str]:
    """The players' table in words: counts with thousands separators, rates in %."""
    rows = [(p, f"{int(r.deals):,}", f"{int(r.wins):,}", pct(r.win_rate),
             f"{pct(r.ci_low)} – {pct(r.ci_high)}", pct(r.wins_of_winnable, 1))
            for p, r in zip(comp.index, comp.itertuples())]
    return table_lines(PLAYER_COLUMNS, rows)


def run_lines(results_dir, done: int, df: Optional[pd.DataFrame] = None) -> list[str]:
    """What the run is, from its manifest and rows: its deals, its solver versions, and
    whether it is finished or being written now."""
    from halfmoon.batch.sources import population
    from halfmoon.batch.state import run_state

    st = run_state(results_dir)
    L = []
    if st.manifest is not None:
        made = f", made by `halfmoon batch {st.source()}`" if st.manifest.get("source") else ""
        L.append(f"Results: `{results_dir}`: {population(st.manifest.get('source', {}), done)}"
                 f"{made}.")
    else:
        L.append(f"Results: `{results_dir}`: {done:,} deals (no manifest: how they were chosen "
                 "is not recorded).")
    if df is not None and "solver_version" in df:
        L[-1] += " " + versions_sentence(df["solver_version"].astype(str).value_counts())
    L.append("")
    notes = st.lines(done)
    if notes:
        L += [f"**{n[0].upper() + n[1:]}.**" for n in notes] + [""]
    return L


def versions_sentence(counts) -> str:
    """The solver versions of a run's rows (a count per version): one, or mixed."""
    counts = {str(k): int(v) for k, v in dict(counts).items()}
    if len(counts) == 1:
        return f"Every row was solved by solver version {next(iter(counts))}."
    parts = ", ".join(f"{n:,} by version {v}" for v, n in sorted(counts.items()))
    return f"The rows were solved by mixed solver versions: {parts}."


def _save(fig: Figure, path: Path, note: str = "", formats=(), made_by: str = "") -> None:
    """A chart as a PNG, with the page's note over it where the run is not finished, and in
    each vector format of ``formats`` beside it (:func:`.exports.save_figure`)."""
    from .exports import save_figure

    if note:
        charts.note_over(fig, note)
    else:
        fig.tight_layout()
    save_figure(fig, path, formats, made_by=made_by)


def chart_note(results_dir, done: int) -> str:
    """The page's notes on an unfinished or live run, as one sentence over each chart."""
    from halfmoon.batch.state import run_state

    text = "; ".join(run_state(results_dir).lines(done))
    return text[:1].upper() + text[1:] + "." if text else ""


def write_report(
    results_dir: Union[str, Path],
    out_dir: Union[str, Path] = "report",
    *,
    players: bool = True,
    seed: int = 0,
    formats=(),
) -> Path:
    """Write ``out_dir/report.md`` and its PNG charts for the results in ``results_dir``.

    Returns the path of the Markdown file.  ``players`` adds the random and greedy
    players on the same deals (seeded by ``seed``).  ``formats``
    (:func:`.exports.parse_formats`): its tables also as CSV and LaTeX in ``out_dir/tables``,
    its charts also as SVG and PDF.
    """
    from halfmoon.research.provenance import provenance, provenance_words

    from .exports import tables_words, write_tables

    made_by = provenance_words(provenance())
    df = stats.load(results_dir)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    s = stats.summarize(df)
    budgets = ", ".join(f"{b:,}" for b in s["budgets"])
    note = chart_note(results_dir, s["deals"])

    fig = charts.figure()
    charts.plot_running_win_rate(fig.add_subplot(), scan.in_run_order(df, results_dir))
    _save(fig, out / "win-rate.png", note, formats, made_by)

    fig = charts.figure()
    charts.plot_nodes_histogram(fig.add_subplot(), df)
    _save(fig, out / "nodes.png", note, formats, made_by)

    fig = charts.figure(7.5, 2.3 * len(stats.FEATURES))
    for i, feature in enumerate(stats.FEATURES):
        charts.plot_win_rate_by(fig.add_subplot(len(stats.FEATURES), 1, i + 1), df, feature)
    _save(fig, out / "by-feature.png", note, formats, made_by)

    lines = ["# Half Moon: results report", ""]
    lines += run_lines(results_dir, s["deals"], df)
    lines += [
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
        f"Positions searched by the solver per deal (log axis; budget {budgets} a deal):",
        "",
        "![positions searched](nodes.png)",
        "",
    ]
    zero = int((df["nodes"] == 0).sum())
    if zero:
        lines += [f"{zero:,} of the deals {'was' if zero == 1 else 'were'} settled with no "
                  "search at all (0 positions: the "
                  "start alone decides them, e.g. no legal move); a log axis has no place for "
                  "them, so the chart counts them in its legend and draws the others.", ""]
    lines += ["| | mean | median | 90 % | 99 % | max |", "|---|---|---|---|---|---|"]
    q = s["nodes"]
    lines.append("| positions searched | " + " | ".join(
        f"{q[k]:,.0f}" for k in ("mean", "p50", "p90", "p99", "max")) + " |")
    q = s["seconds"]
    lines.append("| time a deal | " + " | ".join(
        stats.duration(q[k]) for k in ("mean", "p50", "p90", "p99", "max")) + " |")
    lines += ["", f"All deals together: {stats.duration(q['total'])} of solving."]
    hard = stats.hardest(df, 5)
    lines += ["", "The hardest deals:", "", "| code | verdict | positions | time |",
              "|---|---|---|---|"]
    lines += [f"| {r.code} | {r.verdict} | {r.nodes:,} | {stats.duration(r.seconds)} |"
              for r in hard.itertuples()]
    lines += [
        "",
        "Win rate by feature of the starting position (legal moves, face cards in the",
        "reserve and on the pile tops, classes with a move), in %, each with its 95 % interval;",
        f"neighbouring values are pooled until a rate rests on {charts.MIN_DEALS} deals or more",
        "(the chart names the pooled values), the deals behind each rate along its top:",
        "",
        "![win rate by feature](by-feature.png)",
        "",
    ]
    if players:
        from halfmoon.research.strategies import compare_players

        comp = compare_players(df, seed=seed)
        fig = charts.figure(5.0, 3.6)
        charts.plot_players(fig.add_subplot(), comp)
        _save(fig, out / "players.png", note, formats, made_by)
        lines += [
            "## Playing without thinking ahead",
            "",
            f"The same {count(s['deals'], 'deal')} played once by a random player (a uniformly "
            "random legal move",
            "each turn) and by a greedy player (the move that uncovers most pile cards, then",
            "pairs before triplets, then the fullest piles), seeded with "
            f"{seed}; the solver's row is the run's verdicts:",
            "",
            *players_table(comp),
            "",
            "![players](players.png)",
            "",
        ]
    lines += [f"Made by {made_by}.", ""]
    if tables_words(formats):
        lines += [f"The report's tables as {tables_words(formats)} are in `tables/` "
                  "(`table-S-K`: the K-th table under the S-th heading).", ""]
    path = out / REPORT_NAME
    path.write_text("\n".join(lines), encoding="utf-8")
    write_tables("\n".join(lines), out / "tables", formats, made_by, path.name)
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

