"""Why a deal is lost: the smallest set of classes whose cards alone cannot be cleared.

The cards of Half Moon fall into six classes that never mix in a move: the five pair
classes A+10, 2+9, 3+8, 4+7, 5+6 and the faces J+Q+K.  The *projection* of a deal onto
a set S of classes keeps only the cards of S, each in its pile in the same order, and
the reserve cards of S in their slots.  Any win of the deal, with the moves of the
other classes deleted, is a win of the projection (the deleted cards only ever covered
cards; proof in docs/solver.md), so a projection that cannot be won proves the deal
lost, and every larger set's projection is lost too.

The *deadlock* of a lost deal is a smallest such set: the projections are solved by
size, one class, then two, … (the six classes together are the deal itself), and the
first size with a lost projection gives it.  All sets of that size are solved, so the
number of minimal sets is known too; the first in :data:`CLASSES` order is reported.

Its *kind* says what it is made of: ``faces`` (the faces alone), ``faces+1`` (the
faces and one pair class), … , ``pairs:2`` (two pair classes, no face).

Usage::

    deadlock(3658319909)      # Deadlock(classes=('J+Q+K', '4+7'), kind='faces+1', ...)
    deadlocks([n1, n2, ...])  # DataFrame, one row per deal
    why_lost(deal)            # the same, bounded for a user waiting on one deal
    explain(why_lost(deal))   # 'the J–Q–K and 4–7 classes can never all be cleared (...)'
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Iterable, Optional, Union

import numpy as np
import pandas as pd

from halfmoon.game.cards import CLASS_NAMES, rank_class
from halfmoon.game.deal import Deal
from halfmoon.game.errors import HalfMoonError

# the game's classes, in the order of halfmoon.game.cards.rank_class: 0..4 pairs, 5 faces
CLASSES = CLASS_NAMES
FACES = 5
DEFAULT_BUDGET = 5_000_000
# why_lost: positions a projection, and in all, before saying "not known within the budget"
WHY_BUDGET = 500_000
WHY_TOTAL = 500_000


@dataclass(frozen=True)
class Deadlock:
    """The smallest lost projection of a deal (``classes`` empty if the deal is not lost)."""

    deal: Optional[int]
    classes: tuple[str, ...]
    kind: str  # see kind_of; "none" for a deal that is won, "unresolved" if not settled
    minimal_sets: int  # how many sets of that size are lost
    unresolved: int  # projections of that size or smaller the budget did not settle
    solves: int
    nodes: int


def class_of(rank: int) -> int:
    """The class 0..5 of a rank 1..13 (:func:`halfmoon.game.cards.rank_class`)."""
    return rank_class(rank)


def kind_of(classes: Iterable[int]) -> str:
    """``faces``, ``faces+k`` or ``pairs:k`` for a set of class indices."""
    cs = set(classes)
    if not cs:
        return "none"
    pairs = len(cs - {FACES})
    if FACES in cs:
        return "faces" if pairs == 0 else f"faces+{pairs}"
    return f"pairs:{pairs}"


KINDS = ("faces", "faces+1", "faces+2", "faces+3", "faces+4", "faces+5",
         "pairs:1", "pairs:2", "pairs:3", "pairs:4", "pairs:5")


def project(deal: Deal, classes: Iterable[int]) -> Deal:
    """The projection of a deal onto ``classes``: each pile keeps its cards of those classes
    in order, bottom first; the reserve keeps them in their slots."""
    cs = set(classes)
    piles = [[c for c in pile if rank_class(c.rank) in cs] for pile in deal.piles]
    reserve = [c if c is not None and rank_class(c.rank) in cs else None for c in deal.reserve]
    return Deal(piles=piles, reserve=reserve)


def _sets_of_size(k: int) -> list[tuple[int, ...]]:
    # faces first (most deadlocks involve them), then in class order
    sets = list(combinations(range(len(CLASSES)), k))
    return sorted(sets, key=lambda s: (FACES not in s, s))


def _deadlock(d: Deal, budget: int, number: Optional[int],
              total: Optional[int] = None) -> Deadlock:
    """The deadlock of a deal (see :func:`deadlock`), ``number`` its deal number or None;
    with ``total``, "unresolved" once the projections have cost that many positions."""
    from solver import solve

    if budget < 1:
        raise ValueError(f"budget must be at least 1 position, got {budget}")
    solves = nodes = unresolved = 0
    present = {rank_class(c.rank) for c in d.cards()}
    for k in range(1, len(CLASSES) + 1):
        lost = []
        for s in _sets_of_size(k):
            if not set(s) <= present:
                continue  # a class with no card left adds nothing: its smaller set decides
            if total is not None and nodes >= total:
                return Deadlock(number, (), "unresolved", 0, unresolved + 1, solves, nodes)
            result = solve(project(d, s), budget if total is None else min(budget, total - nodes))
            solves += 1
            nodes += result.nodes
            if result.verdict == "loss":
                lost.append(s)
            elif result.verdict == "unresolved":
                unresolved += 1
        if lost:
            first = lost[0]
            return Deadlock(number, tuple(CLASSES[c] for c in sorted(first, key=_class_order)),
                            kind_of(first), len(lost), unresolved, solves, nodes)
        if unresolved:
            # a larger lost set might not be minimal: say so rather than guess
            return Deadlock(number, (), "unresolved", 0, unresolved, solves, nodes)
    return Deadlock(number, (), "none", 0, 0, solves, nodes)


def _class_order(c: int) -> int:
    return -1 if c == FACES else c  # the faces first when a set is written


def deadlock(deal: Union[Deal, str, int], budget: int = DEFAULT_BUDGET) -> Deadlock:
    """The smallest set of classes whose projection of ``deal`` is lost.

    ``kind`` is ``"none"`` for a deal that can be won (no projection is lost), and
    ``"unresolved"`` when a projection could not be settled within ``budget``
    positions before a lost one was found.
    """
    from halfmoon.game.inputs import load_deal

    if isinstance(deal, Deal):
        d = deal
    else:
        d = Deal.from_number(deal) if isinstance(deal, int) else load_deal(deal)
    return _deadlock(d, budget, d.number)


def why_lost(deal: Union[Deal, str, int], budget: int = WHY_BUDGET,
             total: int = WHY_TOTAL) -> Deadlock:
    """:func:`deadlock` kept small for a user waiting on one lost deal or position: each
    projection gets ``budget`` positions and all of them ``total``; past either the answer
    is ``kind == "unresolved"`` (:func:`explain` says "not known within the budget").
    Called on a deal that can be won it finds no lost projection (``kind == "none"``)
    after solving them all: ask it of deals the solver has proved lost."""
    from halfmoon.game.inputs import load_deal

    if isinstance(total, bool) or not isinstance(total, int) or total < 1:
        raise HalfMoonError(f"total must be at least 1 position, got {total!r}")
    if isinstance(deal, Deal):
        d = deal
    else:
        d = Deal.from_number(deal) if isinstance(deal, int) else load_deal(deal)
    return _deadlock(d, budget, d.number, total)


def class_words(name: str) -> str:
    """A class as the page and the command line write it: ``J–Q–K``, ``3–8``."""
    return name.replace("+", "\u2013")


def explain(d: Deadlock) -> str:
    """Why a deal is lost, in words, from its (smallest) deadlock."""
    if d.kind == "unresolved":
        return (f"why is not known within the budget ({d.solves} smaller games solved, "
                f"{d.nodes:,} positions)")
    if not d.classes:
        return "no set of classes is deadlocked (the deal can be won)"
    names = [class_words(c) for c in d.classes]
    if len(names) == len(CLASSES):
        return ("no smaller set of classes is deadlocked: the loss needs the cards of all six "
                "classes together (smallest deadlocked set: the whole deal)")
    if len(names) == 1:
        text = f"the {names[0]} cards can never all be cleared, whatever else is played"
    else:
        listed = ", ".join(names[:-1]) + " and " + names[-1]
        text = f"the {listed} classes can never all be cleared"
    more = f"; {d.minimal_sets} such sets" if d.minimal_sets > 1 else ""
    return f"{text} (smallest deadlocked set{more})"


def why_dict(d: Deadlock) -> dict:
    """The explanation as JSON: ``deadlock`` (class names, empty if not known), ``kind``,
    ``minimal_sets``, ``text`` (:func:`explain`), ``solves`` and ``nodes`` (its cost)."""
    return {"deadlock": list(d.classes), "kind": d.kind, "minimal_sets": d.minimal_sets,
            "text": explain(d), "solves": d.solves, "nodes": d.nodes}


COLUMNS = ("deal", "deadlock", "kind", "size", "minimal_sets", "unresolved", "solves", "nodes")


def deadlocks(numbers: Iterable[int], budget: int = DEFAULT_BUDGET) -> pd.DataFrame:
    """The deadlock of each deal number, one row each.

    Columns: ``deal`` (int64), ``deadlock`` (the classes joined by spaces, e.g.
    ``"J+Q+K 4+7"``), ``kind``, ``size`` (classes in the set), ``minimal_sets``,
    ``unresolved``, ``solves`` (projections solved), ``nodes`` (their positions).
    """
    rows = []
    for n in numbers:
        n = int(n)
        if n < 0:
            raise HalfMoonError(f"deal numbers must be non-negative, got {n}")
        d = _deadlock(Deal.from_number(n), budget, n)
        rows.append((n, " ".join(d.classes), d.kind, len(d.classes), d.minimal_sets,
                     d.unresolved, d.solves, d.nodes))
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    return df.astype({"deal": "int64", "size": "int8", "minimal_sets": "int8",
                      "unresolved": "int8", "solves": "int16", "nodes": "int64"})


def kind_table(df: pd.DataFrame) -> pd.DataFrame:
    """How many losses have each kind of deadlock (``df`` from :func:`deadlocks`),
    with the share of the losses and its 95 % Wilson interval, and an example deal."""
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
