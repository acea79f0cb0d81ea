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

The front door (:func:`solver.deadlock`, :func:`solver.why_lost`, ``solve(deal,
why=True)``) checks the input and makes the kernels ready; :func:`smallest_deadlock` here
is the search.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from itertools import combinations
from typing import Callable, Iterable, Optional

from halfmoon.game.cards import CLASS_NAMES, rank_class
from halfmoon.game.deal import Deal

# the game's classes, in the order of halfmoon.game.cards.rank_class: 0..4 pairs, 5 faces
CLASSES = CLASS_NAMES
FACES = 5
# why_lost: positions a projection, and in all, before saying "not known within the budget"
WHY_BUDGET = 500_000
WHY_TOTAL = 500_000


@dataclass(frozen=True)
class Deadlock:
    """The smallest lost projection of a deal (``classes`` empty if the deal is not lost):
    ``deal`` (its deal number, None for a position), ``classes`` (the names of the set's
    classes, the faces first), ``kind`` (:func:`kind_of`; ``"none"`` for a deal that is
    won, ``"unresolved"`` if not settled within the budget), ``minimal_sets`` (how many sets
    of that size are lost), ``unresolved`` (projections of that size or smaller the budget
    did not settle), its cost (``solves``, ``nodes``, ``seconds``), and ``text``: why the
    deal is lost, in words."""

    deal: Optional[int]
    classes: tuple[str, ...]
    kind: str
    minimal_sets: int
    unresolved: int
    solves: int
    nodes: int
    seconds: float = field(default=0.0, compare=False)

    @property
    def text(self) -> str:
        """Why the deal is lost, in words (:func:`explain`)."""
        return explain(self)

    def to_dict(self) -> dict:
        """As JSON (``why`` of ``solve --json``): ``deadlock`` (class names, empty if not
        known), ``kind``, ``minimal_sets``, ``text``, and its cost: ``solves``, ``nodes``,
        ``seconds``."""
        return {"deadlock": list(self.classes), "kind": self.kind,
                "minimal_sets": self.minimal_sets, "text": self.text, "solves": self.solves,
                "nodes": self.nodes, "seconds": self.seconds}


def kind_of(classes: Iterable[int]) -> str:
    """``faces``, ``faces+k`` or ``pairs:k`` for a set of class indices."""
    cs = set(classes)
    if not cs:
        return "none"
    pairs = len(cs - {FACES})
    if FACES in cs:
        return "faces" if pairs == 0 else f"faces+{pairs}"
    return f"pairs:{pairs}"


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


def smallest_deadlock(solve: Callable, d: Deal, budget: int, number: Optional[int],
                      total: Optional[int] = None) -> Deadlock:
    """The deadlock of a deal, ``number`` its deal number or None, each projection settled
    by ``solve(deal, budget)`` (the portfolio's: a Result) with ``budget`` positions; with
    ``total``, "unresolved" once the projections have cost that many positions."""
    t0 = time.perf_counter()
    solves = nodes = unresolved = 0

    def found(classes, kind, minimal_sets, unresolved) -> Deadlock:
        return Deadlock(number, classes, kind, minimal_sets, unresolved, solves, nodes,
                        time.perf_counter() - t0)

    present = {rank_class(c.rank) for c in d.cards()}
    for k in range(1, len(CLASSES) + 1):
        lost = []
        for s in _sets_of_size(k):
            if not set(s) <= present:
                continue  # a class with no card left adds nothing: its smaller set decides
            if total is not None and nodes >= total:
                return found((), "unresolved", 0, unresolved + 1)
            result = solve(project(d, s), budget if total is None else min(budget, total - nodes))
            solves += 1
            nodes += result.nodes
            if result.verdict == "loss":
                lost.append(s)
            elif result.verdict == "unresolved":
                unresolved += 1
        if lost:
            first = lost[0]
            return found(tuple(CLASSES[c] for c in sorted(first, key=_class_order)),
                         kind_of(first), len(lost), unresolved)
        if unresolved:
            # a larger lost set might not be minimal: say so rather than guess
            return found((), "unresolved", 0, unresolved)
    return found((), "none", 0, 0)


def _class_order(c: int) -> int:
    return -1 if c == FACES else c  # the faces first when a set is written


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
