"""Checking a census by other means than the search that made it.

A win is checked by replaying its recorded winning line, move by move, through the reference
engine (:meth:`halfmoon.Game.play` refuses any move the rules do not allow), which must end
with every card removed.  A loss is checked by the CP-SAT model (:func:`solver.solve_cpsat`
with ``counting``), which shares no code with the search: it must find the deal infeasible
within its time limit, or the loss is counted as *not confirmed* (never as confirmed).  A
deal the two disagree on is a *disagreement*, the one result that would be a bug.

Usage::

    recheck(rows, limit=60)   # rows: deal, verdict, line (a census's own columns)
    recheck_counts(checked)   # {"wins replayed": …, "losses confirmed": …, …}
"""

from __future__ import annotations

import time
from typing import Optional

import pandas as pd

from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.errors import HalfMoonError

REPLAYED = "replayed"
NOT_REPLAYED = "not replayed"
CONFIRMED = "confirmed"
NOT_CONFIRMED = "not confirmed"  # the model's time limit ran out
DISAGREES = "disagrees"
COUNTS = ("wins replayed", "wins not replayed", "losses confirmed",
          "losses not confirmed within the limit", "disagreements", "unresolved")


def replays(number: int, line: Optional[str]) -> bool:
    """Whether ``line`` (moves joined by spaces) wins deal ``number`` in the reference engine."""
    if not line:
        return False
    game = Game(Deal.from_number(number))
    try:
        for move in line.split():
            game.play(move)
    except HalfMoonError:
        return False
    return game.is_won


def model_verdict(number: int, limit: float, counting: bool = True) -> tuple[str, float]:
    """The CP-SAT model's verdict on deal ``number`` within ``limit`` seconds (by counts, or
    by pairs without ``counting``), and its time."""
    from solver import solve_cpsat

    deal = Deal.from_number(number)
    t0 = time.perf_counter()
    r = solve_cpsat(deal, limit, counting=counting)
    return r.verdict, time.perf_counter() - t0


def recheck(rows: pd.DataFrame, limit: float = 60.0, counting: bool = True) -> pd.DataFrame:
    """Check each row (columns ``deal``, ``verdict``, ``line``).

    Returns ``deal``, ``verdict``, ``check`` (``replayed`` / ``not replayed`` for a win,
    ``confirmed`` / ``not confirmed`` / ``disagrees`` for a loss, ``unresolved`` for a deal
    without a verdict) and ``seconds`` (of the check).
    """
    if limit <= 0:
        raise ValueError(f"the model's time limit must be positive, got {limit}")
    out = []
    for n, verdict, line in zip(rows["deal"], rows["verdict"], rows["line"]):
        n = int(n)
        t0 = time.perf_counter()
        if verdict == "win":
            check = REPLAYED if replays(n, line) else NOT_REPLAYED
            seconds = time.perf_counter() - t0
        elif verdict == "loss":
            model, seconds = model_verdict(n, limit, counting)
            check = {"loss": CONFIRMED, "unresolved": NOT_CONFIRMED}.get(model, DISAGREES)
        else:
            check, seconds = "unresolved", 0.0
        out.append((n, verdict, check, seconds))
    return pd.DataFrame(out, columns=["deal", "verdict", "check", "seconds"]).astype(
        {"deal": "int64"})


def recheck_counts(checked: pd.DataFrame) -> dict[str, int]:
    """The counts of a :func:`recheck` frame, as the closing figures of a census."""
    c = checked["check"].value_counts()
    return dict(zip(COUNTS, (int(c.get(REPLAYED, 0)), int(c.get(NOT_REPLAYED, 0)),
                             int(c.get(CONFIRMED, 0)), int(c.get(NOT_CONFIRMED, 0)),
                             int(c.get(DISAGREES, 0)), int(c.get("unresolved", 0)))))
