"""Why lost deals are lost, for the census: each loss's smallest deadlocked set, and tables of
their kinds and classes.

The search is the solver's (:func:`solver.deadlock`, :class:`solver.Deadlock`; the module
:mod:`solver.portfolio.deadlocks` says what a deadlock and its kind are): the smallest set
of classes (A+10, 2+9, 3+8, 4+7, 5+6, J+Q+K) whose projection of the deal, its cards of
those classes alone, cannot be won.  Here it is applied to many deals and counted.

Usage::

    deadlock(3658319909)      # Deadlock(classes=('J+Q+K', '4+7'), kind='faces+1', ...)
    deadlocks([n1, n2, ...])  # DataFrame, one row per deal
    why_lost(deal)            # the same, bounded for a user waiting on one deal
    explain(why_lost(deal))   # 'the J–Q–K and 4–7 classes can never all be cleared (...)'
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, Optional, Union

import numpy as np
import pandas as pd

from halfmoon.game.cards import CLASS_NAMES, rank_class
from halfmoon.game.deal import Deal
from halfmoon.game.errors import HalfMoonError

if TYPE_CHECKING:
    from solver import Deadlock

# the game's classes, in the order of halfmoon.game.cards.rank_class: 0..4 pairs, 5 faces
CLASSES = CLASS_NAMES
FACES = 5
DEFAULT_BUDGET = 5_000_000

KINDS = ("faces", "faces+1", "faces+2", "faces+3", "faces+4", "faces+5",
         "pairs:1", "pairs:2", "pairs:3", "pairs:4", "pairs:5")


def kind_words(kind: str) -> str:
    """A kind of deadlock in words (``"faces+2"`` -> ``"the faces and 2 pair classes"``)."""
    if kind == "faces":
        return "the faces alone"
    if kind.startswith("faces+"):
        k = int(kind.split("+")[1])
        return f"the faces and {k} pair class{'es' if k > 1 else ''}"
    if kind.startswith("pairs:"):
        k = int(kind.split(":")[1])
        return f"{k} pair class{'es' if k > 1 else ''}, no face"
    return {"unresolved": "not settled within the budget", "none": "none found"}.get(kind, kind)


def class_of(rank: int) -> int:
    """The class 0..5 of a rank 1..13 (:func:`halfmoon.game.cards.rank_class`)."""
    return rank_class(rank)


def deadlock(deal: Union[Deal, str, int], budget: int = DEFAULT_BUDGET) -> Deadlock:
    """The smallest set of classes whose projection of ``deal`` is lost
    (:func:`solver.deadlock`, no total bound).

    ``kind`` is ``"none"`` for a deal that can be won (no projection is lost), and
    ``"unresolved"`` when a projection could not be settled within ``budget``
    positions before a lost one was found.
    """
    from solver import deadlock as _deadlock

    return _deadlock(deal, budget)


def why_lost(deal: Union[Deal, str, int], budget: Optional[int] = None,
             total: Optional[int] = None) -> Deadlock:
    """:func:`deadlock` kept small for a user waiting on one lost deal or position
    (:func:`solver.why_lost`: ``budget`` positions a projection and ``total`` in all, by
    default the solver's; past either the answer is ``kind == "unresolved"``)."""
    from solver import why_lost as _why_lost

    bounds = {k: v for k, v in (("budget", budget), ("total", total)) if v is not None}
    return _why_lost(deal, **bounds)


def explain(d: Deadlock) -> str:
    """Why a deal is lost, in words, from its (smallest) deadlock (``d.text``)."""
    return d.text


def why_dict(d: Deadlock) -> dict:
    """The explanation as JSON (``d.to_dict()``): ``deadlock`` (class names, empty if not
    known), ``kind``, ``minimal_sets``, ``text`` (:func:`explain`), ``solves``, ``nodes``
    and ``seconds`` (its cost)."""
    return d.to_dict()


COLUMNS = ("deal", "deadlock", "kind", "size", "minimal_sets", "unresolved", "solves", "nodes")


def deadlocks(numbers: Iterable[int], budget: int = DEFAULT_BUDGET) -> pd.DataFrame:
    """The deadlock of each deal number, one row each.

    Columns: ``deal`` (int64), ``deadlock`` (the classes joined by spaces, e.g.
    ``"J+Q+K 4+7"``), ``kind``, ``size`` (classes in the set), ``minimal_sets``,
    ``unresolved``, ``solves`` (projections solved), ``nodes`` (their positions).
    """
    from solver import deadlock as _deadlock

    rows = []
    for n in numbers:
        n = int(n)
        if n < 0:
            raise HalfMoonError(f"deal numbers must be non-negative, got {n}")
        d = _deadlock(n, budget)
        rows.append((n, " ".join(d.classes), d.kind, len(d.classes), d.minimal_sets,
                     d.unresolved, d.solves, d.nodes))
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    return df.astype({"deal": "int64", "size": "int8", "minimal_sets": "int8",
                      "unresolved": "int8", "solves": "int16", "nodes": "int64"})


def kind_table(df: pd.DataFrame) -> pd.DataFrame:
    """How many losses have each kind of deadlock (``df`` from :func:`deadlocks`),
    with the share of the losses and its Wilson interval (the current confidence's), and an
    example deal."""
    from .stats import wilson_bounds

    n = len(df)
    g = df.groupby("kind", sort=False)
    out = pd.DataFrame({"losses": g.size(), "example": g["deal"].min()})
    order = [k for k in KINDS + ("unresolved", "none") if k in out.index]
    out = out.loc[order]
    out["share"] = out["losses"] / n if n else np.nan
    low, high = wilson_bounds(out["losses"].to_numpy(), n)
    out["ci_low"], out["ci_high"] = low, high
    return out


def class_table(df: pd.DataFrame) -> pd.DataFrame:
    """How often each class is part of a loss's deadlock (share of losses, Wilson)."""
    from .stats import wilson_bounds

    n = len(df)
    sets = df["deadlock"].str.split(" ")
    counts = [int(sets.map(lambda s, c=c: c in s).sum()) for c in CLASSES]
    low, high = wilson_bounds(np.array(counts), n)
    return pd.DataFrame({"losses": counts, "share": np.array(counts) / n if n else np.nan,
                         "ci_low": low, "ci_high": high}, index=pd.Index(CLASSES, name="class"))
