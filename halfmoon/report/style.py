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
