"""Exact Half Moon checker built on OR-tools CP-SAT ("grouping view").

A position is winnable iff its cards can be grouped into pairs (rank r with
rank 11 - r, r in 1..10) and J+Q+K triplets so that the graph
"group of the card above -> group of the card below", over adjacent cards of
every pile, has no cycle.  A topological order of the groups is then a
winning move order, and every win yields such a grouping.

Model
-----
* ``t[c]`` in ``0..M-1`` is the removal step of card ``c`` (``M`` = number of
  moves = #number cards / 2 + #face cards / 3).  Its domain is narrowed up
  front: a card with ``a`` cards above it and ``b`` below it lies in
  ``[a, M-1-b]``.
* Pile order: the card above has a strictly smaller step than the card below.
* Number cards: one Boolean per compatible (rank r, rank 11-r) pair of cards
  in different piles whose step intervals meet; every card is in exactly one
  chosen pair, and a chosen pair has equal steps.
* Face cards: two perfect matchings, J-Q and J-K (Booleans, with the same
  filtering); each J, with its Q and its K, forms a triplet (equal steps).
  A third, redundant, Q-K matching tied to the other two by clauses made
  the search slower on full deals, so it is left out.
* Symmetry breaking (sound): "free" cards -- reserve cards and single-card
  piles, which have no pile neighbours -- of the same rank are
  interchangeable in any solution, so their steps are taken non-decreasing
  in source order.

With ``counting=True`` the Booleans of pairs and triplets are left out and
replaced by counts: for every class and step v, as many cards of rank r as of
rank 11 - r (as many J as Q as K) have a step <= v.  The cards of one step are
then balanced in each class and lie in different piles, so any grouping of
them is a set of legal moves (the grouping is chosen when the moves are
written out).  This view has none of the pairs' symmetry and proves the hard
losses with far fewer conflicts.

Steps need not be distinct: groups sharing a step have no pile adjacency
between them (adjacent cards have strictly ordered steps), so sorting groups
by step, ties broken arbitrarily, is a valid play order.  Every win is
replayed with the plain rules before it is returned.

This module is self-contained (pure Python + ortools); it imports nothing
from the rest of the project.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

from ortools.sat.python import cp_model

__all__ = ["CpsatResult", "solve_cpsat", "_replay_ok"]

JACK, QUEEN, KING = 11, 12, 13


@dataclass(frozen=True)
class CpsatResult:
    verdict: str  # "win" | "loss" | "unresolved"
    moves: Optional[Tuple[Tuple[str, ...], ...]]  # only for "win"
    seconds: float
    branches: int
    conflicts: int


# ---------------------------------------------------------------------------
# helpers

def _source_key(name: str) -> Tuple[int, int]:
    """Canonical order: P1..P12 by number, then R1..R8 by number."""
    return (0 if name[0] == "P" else 1, int(name[1:]))


def _check_rank(r) -> int:
    if isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= 13:
        raise ValueError(f"invalid rank {r!r} (expected an int 1..13)")
    return r


def _cards(piles, reserve):
    """List of cards as (rank, source, pile index or -1, depth from bottom)."""
    cards = []
    for p, pile in enumerate(piles):
        for d, r in enumerate(pile):
            cards.append((_check_rank(r), f"P{p + 1}", p, d))
    for s, r in enumerate(reserve):
        if r is not None:
            cards.append((_check_rank(r), f"R{s + 1}", -1, 0))
    return cards


def _replay_ok(piles, reserve, moves) -> bool:
    """Play ``moves`` with the plain rules; True iff all legal and the game ends empty."""
    try:
        pl = [[_check_rank(r) for r in pile] for pile in piles]
        rs = [None if r is None else _check_rank(r) for r in reserve]
    except ValueError:
        return False
    for move in moves:
        srcs = tuple(move)
        if len(srcs) not in (2, 3) or len(set(srcs)) != len(srcs):
            return False
        ranks = []
        for s in srcs:
            if not isinstance(s, str) or len(s) < 2 or s[0] not in "PR" or not s[1:].isdigit():
                return False
            i = int(s[1:]) - 1
            if s[0] == "P":
                if not 0 <= i < len(pl) or not pl[i]:
                    return False
                ranks.append(pl[i][-1])
            else:
                if not 0 <= i < len(rs) or rs[i] is None:
                    return False
                ranks.append(rs[i])
        if len(srcs) == 2:
            if not (ranks[0] <= 10 and ranks[1] <= 10 and ranks[0] + ranks[1] == 11):
                return False
        elif sorted(ranks) != [JACK, QUEEN, KING]:
            return False
        for s in srcs:
            i = int(s[1:]) - 1
            if s[0] == "P":
                pl[i].pop()
            else:
                rs[i] = None
    return all(not p for p in pl) and all(r is None for r in rs)


# ---------------------------------------------------------------------------
# the model, piece by piece

CLASSES = [(r, 11 - r) for r in range(1, 6)] + [(JACK, QUEEN, KING)]


def _moves(cards) -> Optional[int]:
    """The number of moves the cards make, or None if their ranks are not balanced (as
    many of rank r as of rank 11 - r, as many J as Q as K): the position is lost."""
    count = [0] * 14
    for r, _, _, _ in cards:
        count[r] += 1
    if any(count[r] != count[11 - r] for r in range(1, 6)) or not (
            count[JACK] == count[QUEEN] == count[KING]):
        return None
    return sum(count[1:6]) + count[JACK]


def _intervals(cards, pile_len, last) -> Optional[Tuple[list, list]]:
    """Each card's interval of steps: a card with ``a`` cards above it and ``b`` below
    it lies in ``[a, last - b]``; None if one is empty (a pile deeper than there are
    moves: lost)."""
    n = len(cards)
    lo = [0] * n
    hi = [last] * n
    for c, (_, _, p, d) in enumerate(cards):
        if p >= 0:
            lo[c] = pile_len[p] - 1 - d
            hi[c] = last - d
        if lo[c] > hi[c]:
            return None
    return lo, hi


def _matching(model, t, cards, lo, hi, left, right, tag):
    """A perfect matching left <-> right between compatible cards (in different piles,
    with intervals that meet), a chosen pair with equal steps; returns {(a, b): var}."""
    def compatible(a, b):
        pa, pb = cards[a][2], cards[b][2]
        if pa >= 0 and pa == pb:
            return False
        return max(lo[a], lo[b]) <= min(hi[a], hi[b])

    var = {}
    for a in left:
        for b in right:
            if compatible(a, b):
                x = model.NewBoolVar(f"{tag}_{a}_{b}")
                var[a, b] = x
                model.Add(t[a] == t[b]).OnlyEnforceIf(x)
    for a in left:
        model.AddExactlyOne([var[a, b] for b in right if (a, b) in var])
    for b in right:
        model.AddExactlyOne([var[a, b] for a in left if (a, b) in var])
    return var


def _balanced_counts(model, t, lo, hi, last, by_rank) -> bool:
    """The view by counts: ``gone[c][v]`` <=> ``t[c] <= v``, and as many cards of each
    rank of a class gone by every step; False if the counts are already unequal where
    they are fixed (lost)."""
    gone = []
    for c in range(len(t)):
        row = {}
        for v in range(lo[c], hi[c]):
            b = model.NewBoolVar(f"g{c}_{v}")
            model.Add(t[c] <= v).OnlyEnforceIf(b)
            model.Add(t[c] > v).OnlyEnforceIf(b.Not())
            row[v] = b
        gone.append(row)

    def gone_by(c, v):
        return 1 if v >= hi[c] else 0 if v < lo[c] else gone[c][v]

    for ranks in CLASSES:
        for v in range(last):
            counts = [sum(gone_by(c, v) for c in by_rank[r]) for r in ranks]
            for other in counts[1:]:
                if isinstance(counts[0], int) and isinstance(other, int):
                    if counts[0] != other:
                        return False
                else:
                    model.Add(counts[0] == other)
    return True


def _free_cards_in_order(model, t, cards, pile_len):
    """Symmetry breaking (sound): free cards of one rank -- reserve cards and single-card
    piles -- are interchangeable, so their steps are taken non-decreasing."""
    free_by_rank = {}
    for c, (r, _, p, _) in enumerate(cards):
        if p < 0 or pile_len[p] == 1:
            free_by_rank.setdefault(r, []).append(c)
    for group in free_by_rank.values():
        for a, b in zip(group, group[1:]):
            model.Add(t[a] <= t[b])


def _groups(solver, t, by_rank, n_moves, pairs, jq, jk, counting):
    """The groups of a solution, cards by index: by counts the k-th card of each rank of
    a class at a step grouped; by pairs the chosen pairs and triplets."""
    groups = []
    if counting:
        for ranks in CLASSES:
            at = {}
            for r in ranks:
                for c in by_rank[r]:
                    at.setdefault((solver.Value(t[c]), r), []).append(c)
            for v in range(n_moves):
                for group in zip(*(at.get((v, r), []) for r in ranks)):
                    groups.append(group)
    for (a, b), x in pairs.items():
        if solver.BooleanValue(x):
            groups.append((a, b))
    for (j, q), x in jq.items():
        if solver.BooleanValue(x):
            ks = [k for (jj, k), y in jk.items() if jj == j and solver.BooleanValue(y)]
            if len(ks) != 1:
                raise RuntimeError("CP-SAT solution has an inconsistent triplet")
            groups.append((j, q, ks[0]))
    return groups


# ---------------------------------------------------------------------------
# solver

def solve_cpsat(piles: Sequence[Sequence[int]],
                reserve: Sequence[Optional[int]],
                *,
                time_limit: Optional[float] = None,
                workers: int = 1,
                counting: bool = False) -> CpsatResult:
    """Decide a Half Moon position exactly with CP-SAT.

    ``piles``: sequences of ranks (1..13), bottom to top, named P1, P2, ...
    ``reserve``: ranks or None (empty slot), named R1, R2, ...
    ``time_limit``: seconds for the CP-SAT search (None = no limit); when it
    runs out the verdict is "unresolved".  ``workers``: CP-SAT search workers.
    ``counting``: the view by counts of each step instead of pair Booleans.
    """
    start = time.perf_counter()

    def done(verdict, moves=None, branches=0, conflicts=0):
        return CpsatResult(verdict, moves, time.perf_counter() - start, branches, conflicts)

    cards = _cards(piles, reserve)
    if not cards:
        return done("win", ())
    n_moves = _moves(cards)
    if n_moves is None:
        return done("loss")
    last = n_moves - 1
    pile_len = [len(p) for p in piles]
    bounds = _intervals(cards, pile_len, last)
    if bounds is None:
        return done("loss")
    lo, hi = bounds
    n = len(cards)

    model = cp_model.CpModel()
    t = [model.NewIntVar(lo[c], hi[c], f"t{c}") for c in range(n)]
    for c, (_, _, p, d) in enumerate(cards):  # pile order: the card above strictly earlier
        if p >= 0 and d > 0:
            model.Add(t[c] < t[c - 1])  # cards of a pile are consecutive
    by_rank = [[] for _ in range(14)]
    for c, (r, _, _, _) in enumerate(cards):
        by_rank[r].append(c)
    pairs, jq, jk = {}, {}, {}
    if counting:
        if not _balanced_counts(model, t, lo, hi, last, by_rank):
            return done("loss")
    else:
        for r in range(1, 6):
            pairs.update(_matching(model, t, cards, lo, hi, by_rank[r], by_rank[11 - r], f"x{r}"))
        # Each J is matched to one Q and to one K; the three share a step.  (A
        # redundant Q-K matching tied to these by clauses was measured slower.)
        jq = _matching(model, t, cards, lo, hi, by_rank[JACK], by_rank[QUEEN], "jq")
        jk = _matching(model, t, cards, lo, hi, by_rank[JACK], by_rank[KING], "jk")
    _free_cards_in_order(model, t, cards, pile_len)

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = max(1, int(workers))
    if counting:  # its linear relaxation of the counts costs far more than it prunes
        solver.parameters.linearization_level = 0
    if time_limit is not None:
        solver.parameters.max_time_in_seconds = max(0.0, float(time_limit))
    status = solver.Solve(model)
    branches, conflicts = int(solver.NumBranches()), int(solver.NumConflicts())

    if status == cp_model.INFEASIBLE:
        return done("loss", None, branches, conflicts)
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        if status == cp_model.MODEL_INVALID:
            raise RuntimeError("CP-SAT rejected the model: " + model.Validate())
        return done("unresolved", None, branches, conflicts)

    # the groups ordered by removal step
    groups = _groups(solver, t, by_rank, n_moves, pairs, jq, jk, counting)
    if sorted(c for g in groups for c in g) != list(range(n)):
        raise RuntimeError("CP-SAT solution does not partition the cards")
    groups.sort(key=lambda g: (solver.Value(t[g[0]]), g))
    moves = tuple(
        tuple(sorted((cards[c][1] for c in g), key=_source_key)) for g in groups)
    if not _replay_ok(piles, reserve, moves):
        raise RuntimeError("CP-SAT win does not replay (bug in the model)")
    return done("win", moves, branches, conflicts)
