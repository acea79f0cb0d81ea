"""What the report's pages and charts share: the colours, and how a share, an interval and a
Markdown table are written.  Imports nothing of the project, so every module of the report can
import it."""

from __future__ import annotations

from typing import Optional, Sequence

BLUE, ORANGE, BROWN = "#0d47a1", "#ef6c00", "#6d4c41"
GREEN, RED, GREY = "#2e7d32", "#c62828", "#9e9e9e"
PLAYER_COLOURS = {"solver": BLUE, "lookahead3": GREEN, "lookahead": "#66bb6a", "greedy": ORANGE,
                  "random": BROWN}
VERDICT_COLOURS = {"win": GREEN, "loss": RED, "unresolved": GREY}


def pct(x: Optional[float], digits: int = 2) -> str:
    """A share as a percentage (``0.5`` -> ``'50.00 %'``); ``'n/a'`` for None or NaN."""
    return "n/a" if x is None or x != x else f"{100 * x:.{digits}f} %"


def interval(low: Optional[float], high: Optional[float], digits: int = 2) -> str:
    """An interval of shares: ``'12.00 % – 14.00 %'``."""
    return f"{pct(low, digits)} – {pct(high, digits)}"


def table_lines(header: Sequence[str], rows: Sequence[Sequence]) -> list[str]:
    """A Markdown table, one line each: the header, its rule, then each row."""
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + [
        "| " + " | ".join(str(c) for c in r) + " |" for r in rows]


# a table's columns that hold shares (0..1), and those that hold differences of shares
SHARE_COLUMNS = ("win_rate", "ci_low", "ci_high", "share", "loss_rate", "keep_share",
                 "unresolved_share", "of_winnable", "of_winnable_low", "of_winnable_high",
                 "loses", "never_lost", "early", "middle", "late", "share_of_fatal",
                 "winnable_share", "winnable_low", "winnable_high", "wins_of_winnable")
DIFFERENCE_PREFIXES = ("vs_",)


def in_percent(table, digits: int = 2):
    """A table (a pandas DataFrame) as the pages write it: each share in % and each difference
    of shares in points, rounded to ``digits``, their names saying so (``win_rate`` ->
    ``win_rate (%)``, ``vs_greedy`` -> ``vs_greedy (points)``); the rest as it is."""
    out = table.copy()
    names = {}
    for c in table.columns:
        if c in SHARE_COLUMNS:
            names[c] = f"{c} (%)"
        elif isinstance(c, str) and c.startswith(DIFFERENCE_PREFIXES):
            names[c] = f"{c} (points)"
        else:
            continue
        out[c] = (100 * table[c].astype(float)).round(digits) + 0.0  # no -0.0
    return out.rename(columns=names)
