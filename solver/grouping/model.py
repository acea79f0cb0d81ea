"""The grouping view written as clauses, and the grouping search's entry points.

A position is winnable exactly when every card can be given a removal step 0..M-1
(M = moves left), a card lying on another strictly earlier, so that its cards can be
grouped -- number cards into pairs adding up to 11 from different sources, face cards
into J+Q+K triplets -- with the cards of a group sharing a step; or, equally, so that
the cards gone by each step v are balanced in each class and make v + 1 moves
(docs/solver.md, rule ``GROUPING``).  This module writes that as clauses:

- ``[t_c <= v]`` is a Boolean for every card c and step v inside c's interval
  [cards above c, M-1 - cards below c] (the order encoding: ``[t_c <= v]`` implies
  ``[t_c <= v+1]``);
- a card lying on card b: ``[t_b <= v]`` implies ``[t_above <= v-1]``;
- by counts (``view`` VIEW_COUNTS, the solver's default): the per-step balance kept by the
  propagator of :mod:`solver.grouping.count_propagation` (or, VIEW_COUNTERS, written as the
  totalizer clauses of :mod:`solver.grouping.count_clauses`: the same search, with some
  80,000 more clauses);
- by pairs (VIEW_PAIRS): one Boolean per pair of cards that may share a move (complementary ranks,
  different piles, intervals that meet); for faces, a J-Q and a J-K matching, as in the
  CP-SAT model of :mod:`solver.check.cpsat`; each card is in exactly one chosen pair of each
  kind it needs, and a chosen pair has equal steps (``x and [t_a <= v]`` implies
  ``[t_b <= v]`` and back);
- free cards of one rank (reserve cards and the only card of a pile) are
  interchangeable, so their steps are taken non-decreasing in source order;
- supports (implied, written out for propagation): a card removed by step v has a
  partner removed by step v, and one removed after v if it is removed after v.

:func:`grouping_model` writes the clauses of a position and sets up a fresh search state
on them (:func:`solver.grouping.state.fresh_state`: propagated at the root, by pairs with
failed-literal probing of the pair Booleans);
:func:`grouping_run`, the clause-learning search of :mod:`solver.grouping.clause_learning`,
decides them:
the answer is a grouping (which sorts into a winning line) or a proof that there is
none.  Given a budget of conflicts it stops without an answer; :func:`grouping_run` goes
on where it stopped.  :func:`grouping_search` does both for one position and
:func:`line_wins` checks a line against the move generator.

Everything is jitted over plain arrays; the search state is a named tuple of them
(:class:`solver.grouping.state.Model`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from ..depth_first.bounds import NCARDS, partner_table
from ..mirror.position import (
    DEPTH,
    MAX_MOVES,
    NPILES,
    NRESERVE,
    all_moves,
    pile_count,
    reserve_full,
)
from ..verdicts import LOSS, UNRESOLVED, WIN
from .clause_learning import grouping_run
from .count_clauses import FALSE, TRUE, _add, _le, _neg, counting_clauses, counting_room
from .state import VIEW_COUNTERS, VIEW_COUNTS, VIEW_PAIRS, Cards, empty_model, fresh_state

__all__ = ["grouping_model", "grouping_run", "grouping_search", "line_wins", "WIN", "LOSS",
           "UNRESOLVED", "VIEW_PAIRS", "VIEW_COUNTERS", "VIEW_COUNTS"]

JACK, QUEEN, KING = 11, 12, 13


# ---------------------------------------------------------------------------
# writing the clauses


@njit(cache=True)
def _model_cards(piles, reserve, pos):
    """The cards left: source, rank, pile (-1 for the reserve), cards above and below,
    the card id of :mod:`solver.depth_first.bounds` of each (``gid``) and the index here
    of each card id (``local``, -1 for a card gone)."""
    src = np.empty(NCARDS, np.int64)
    rank = np.empty_like(src)
    pile = np.empty_like(src)
    above = np.empty_like(src)
    below = np.empty_like(src)
    gid = np.empty_like(src)
    local = np.full(NCARDS, -1, np.int64)
    n = 0
    for i in range(NPILES):
        m = pile_count(pos, i)
        for k in range(m):
            gid[n] = i * DEPTH + k
            local[gid[n]] = n
            src[n] = i
            rank[n] = piles[i, k]
            pile[n] = i
            above[n] = m - 1 - k
            below[n] = k
            n += 1
    for r in range(NRESERVE):
        if reserve_full(pos, r):
            gid[n] = NPILES * DEPTH + r
            local[gid[n]] = n
            src[n] = NPILES + r
            rank[n] = reserve[r]
            pile[n] = -1
            above[n] = 0
            below[n] = 0
            n += 1
    return n, src, rank, pile, above, below, gid, local


@njit(cache=True, _nrt=False)
def _partners(part, npart, gid, local, lo, hi, c, g, out):
    """The cards left that may share a move with card c -- group g of
    :func:`solver.depth_first.bounds.partner_table`: the other rank for a number card; for a face
    card the lower (g = 0) or the higher (g = 1) of the two other face ranks -- and
    whose intervals meet c's, in increasing order; returns how many."""
    k = 0
    for j in range(npart[gid[c], g]):
        p = local[part[gid[c], g, j]]
        if p >= 0 and max(lo[c], lo[p]) <= min(hi[c], hi[p]):
            out[k] = p
            k += 1
    return k


class Layout(NamedTuple):
    """The cards left as the clauses see them (per card, from :func:`_model_cards` and
    :func:`_intervals`)."""

    rank: np.ndarray
    pile: np.ndarray  # -1 for the reserve
    above: np.ndarray  # cards above it in its pile
    below: np.ndarray
    gid: np.ndarray  # its card id in solver.depth_first.bounds
    local: np.ndarray  # per card id: its index here (-1 for a card gone)
    lo: np.ndarray  # its interval of steps
    hi: np.ndarray
    base: np.ndarray  # the variable of [t_c <= lo[c]]


@njit(cache=True)
def _intervals(above, below, n, nmoves):
    """Each card's interval of steps [cards above it, nmoves - 1 - cards below it] and the
    first variable of its order literals; returns (lo, hi, base, variables), the variables
    -1 if an interval is empty."""
    lo = np.empty(n, np.int64)
    hi = np.empty(n, np.int64)
    base = np.empty(n, np.int64)
    nvars = 0
    for c in range(n):
        lo[c] = above[c]
        hi[c] = nmoves - 1 - below[c]
        if lo[c] > hi[c]:
            return lo, hi, base, -1
        base[c] = nvars
        nvars += hi[c] - lo[c]
    return lo, hi, base, nvars


@njit(cache=True)
def _pair_booleans(part, npart, lay, n):
    """The pair Booleans (a, b, kind), kind 0 two number cards, 1 a J with a Q, 2 a J with
    a K: each pair from its low card, each triplet from its J."""
    maxx = 8 * 64
    xa = np.empty(maxx, np.int64)
    xb = np.empty(maxx, np.int64)
    xk = np.empty(maxx, np.int64)
    partners = np.empty(n, np.int64)
    nx = 0
    for a in range(n):
        if lay.rank[a] <= 5:
            for j in range(_partners(part, npart, lay.gid, lay.local, lay.lo, lay.hi, a, 0,
                                     partners)):
                xa[nx] = a
                xb[nx] = partners[j]
                xk[nx] = 0
                nx += 1
        elif lay.rank[a] == JACK:  # its Qs and its Ks, merged in card order
            nq = _partners(part, npart, lay.gid, lay.local, lay.lo, lay.hi, a, 0, partners)
            end = nq + _partners(part, npart, lay.gid, lay.local, lay.lo, lay.hi, a, 1,
                                 partners[nq:])
            i = 0
            j = nq
            while i < nq or j < end:
                take_q = j == end or (i < nq and partners[i] < partners[j])
                xa[nx] = a
                xb[nx] = partners[i] if take_q else partners[j]
                xk[nx] = 1 if take_q else 2
                nx += 1
                if take_q:
                    i += 1
                else:
                    j += 1
    return xa[:nx].copy(), xb[:nx].copy(), xk[:nx].copy()


# Each family of clauses below appends to the arrays (lits, start, length) from clause ncl
# and literal nlit on, with buf as room for one clause, and returns (ncl, nlit, True if it
# wrote an empty clause: the position is lost).


@njit(cache=True)
def _order_clauses(lits, start, length, ncl, nlit, buf, lay, n):
    """The order encoding: ``[t_c <= v]`` implies ``[t_c <= v+1]``."""
    empty = False
    for c in range(n):
        for v in range(lay.lo[c], lay.hi[c] - 1):
            buf[0] = _neg(_le(lay.base, lay.lo, lay.hi, c, v))
            buf[1] = _le(lay.base, lay.lo, lay.hi, c, v + 1)
            ncl, nlit, code = _add(lits, start, length, ncl, nlit, buf, 2)
            empty |= code == 2
    return ncl, nlit, empty


@njit(cache=True)
def _pile_clauses(lits, start, length, ncl, nlit, buf, lay, n):
    """Pile order: the card above goes strictly earlier than the card it lies on."""
    empty = False
    for c in range(n):
        if lay.pile[c] >= 0 and lay.below[c] > 0:
            b = c - 1  # the card c lies on
            for v in range(lay.lo[b], lay.hi[b] + 1):
                buf[0] = _neg(_le(lay.base, lay.lo, lay.hi, b, v))
                buf[1] = _le(lay.base, lay.lo, lay.hi, c, v - 1)
                ncl, nlit, code = _add(lits, start, length, ncl, nlit, buf, 2)
                empty |= code == 2
    return ncl, nlit, empty


@njit(cache=True)
def _pair_clauses(lits, start, length, ncl, nlit, buf, lay, n, xa, xb, xk, xvar0):
    """By pairs: a chosen pair shares its step, and every card is in exactly one chosen
    pair of each kind it needs."""
    empty = False
    nx = len(xa)
    for i in range(nx):
        x = 2 * (xvar0 + i)
        for side in range(2):
            p = xa[i] if side == 0 else xb[i]
            q = xb[i] if side == 0 else xa[i]
            for v in range(lay.lo[p], lay.hi[p] + 1):
                buf[0] = x ^ 1
                buf[1] = _neg(_le(lay.base, lay.lo, lay.hi, p, v))
                buf[2] = _le(lay.base, lay.lo, lay.hi, q, v)
                ncl, nlit, code = _add(lits, start, length, ncl, nlit, buf, 3)
                empty |= code == 2
    pair = np.empty(2, np.int64)
    for c in range(n):
        r = lay.rank[c]
        for kind in range(3):
            if (kind == 0) != (r <= 10) or (r == QUEEN and kind == 2) or (r == KING and kind == 1):
                continue
            k = 0
            for i in range(nx):
                if xk[i] == kind and (xa[i] == c or xb[i] == c):
                    buf[k] = 2 * (xvar0 + i)
                    k += 1
            for s in range(k):  # at most one
                for t in range(s + 1, k):
                    pair[0] = buf[s] ^ 1
                    pair[1] = buf[t] ^ 1
                    ncl, nlit, code = _add(lits, start, length, ncl, nlit, pair, 2)
            ncl, nlit, code = _add(lits, start, length, ncl, nlit, buf, k)
            empty |= code == 2
    return ncl, nlit, empty


@njit(cache=True)
def _free_card_clauses(lits, start, length, ncl, nlit, buf, lay, n):
    """Interchangeable free cards (reserve cards, the only card of a pile) of one rank:
    their steps non-decreasing in source order."""
    empty = False
    for a in range(n):
        if not (lay.pile[a] < 0 or (lay.below[a] == 0 and lay.above[a] == 0)):
            continue
        for b in range(a + 1, n):
            if lay.rank[b] != lay.rank[a] or not (lay.pile[b] < 0 or (lay.below[b] == 0
                                                                    and lay.above[b] == 0)):
                continue
            # t_a <= t_b: [t_b <= v] implies [t_a <= v]
            for v in range(lay.lo[b], lay.hi[b] + 1):
                buf[0] = _neg(_le(lay.base, lay.lo, lay.hi, b, v))
                buf[1] = _le(lay.base, lay.lo, lay.hi, a, v)
                ncl, nlit, code = _add(lits, start, length, ncl, nlit, buf, 2)
                empty |= code == 2
            break  # the next free card of the rank continues the chain
    return ncl, nlit, empty


@njit(cache=True)
def _support_clauses(lits, start, length, ncl, nlit, buf, lay, n, part, npart):
    """Supports (implied): a card removed by step v has a partner removed by step v, and
    one removed after v if it is removed after v."""
    empty = False
    partners = np.empty(n, np.int64)
    for c in range(n):
        for g in range(1 + (lay.rank[c] > 10)):
            np_ = _partners(part, npart, lay.gid, lay.local, lay.lo, lay.hi, c, g, partners)
            for side in range(2):
                for v in range(lay.lo[c], lay.hi[c]):
                    # side 0: [t_c <= v] -> some partner p has [t_p <= v]
                    # side 1: not [t_c <= v] -> some partner p has not [t_p <= v]
                    lit = _le(lay.base, lay.lo, lay.hi, c, v)
                    buf[0] = lit ^ 1 if side == 0 else lit
                    k = 1
                    sat = False
                    for j in range(np_):
                        q = _le(lay.base, lay.lo, lay.hi, partners[j], v)
                        if side == 1:
                            q = _neg(q)
                        if q == TRUE:
                            sat = True
                            break
                        if q != FALSE:
                            buf[k] = q
                            k += 1
                    if not sat:
                        ncl, nlit, code = _add(lits, start, length, ncl, nlit, buf, k)
                        empty |= code == 2
    return ncl, nlit, empty


# ---------------------------------------------------------------------------
# the model: the clauses and a fresh search state


@njit(cache=True)
def grouping_model(piles, reserve, part, npart, pos, view=VIEW_COUNTS):
    """The clauses of ``pos`` and a fresh search state, ready for :func:`grouping_run`
    (``part``, ``npart``: the deal's :func:`solver.depth_first.bounds.partner_table`), in
    ``view``: by counts (VIEW_COUNTS through the propagator, VIEW_COUNTERS as clauses) or by
    pairs (VIEW_PAIRS).

    Returns (status, model): LOSS when writing the clauses or propagating them at the
    root (by pairs with failed-literal probing of the pair Booleans) already shows there
    is no solution, WIN for the empty position, else UNRESOLVED.  A model settled here
    gives the same status at once from :func:`grouping_run` (with an empty line).
    """
    n, src, rank, pile, above, below, gid, local = _model_cards(piles, reserve, pos)
    if n == 0:
        return WIN, empty_model(WIN)
    count = np.zeros(14, np.int64)
    for c in range(n):
        count[rank[c]] += 1
    for r in range(1, 6):
        if count[r] != count[11 - r]:
            return LOSS, empty_model(LOSS)
    if count[JACK] != count[QUEEN] or count[JACK] != count[KING]:
        return LOSS, empty_model(LOSS)
    nmoves = count[1] + count[2] + count[3] + count[4] + count[5] + count[JACK]
    lo, hi, base, norder = _intervals(above, below, n, nmoves)
    if norder < 0:
        return LOSS, empty_model(LOSS)
    lay = Layout(rank, pile, above, below, gid, local, lo, hi, base)
    if view == VIEW_PAIRS:
        xa, xb, xk = _pair_booleans(part, npart, lay, n)
    else:
        xa = xb = xk = np.empty(0, np.int64)
    nx = len(xa)
    nvars = norder + nx
    # room for the model's clauses.  Per card at most: 48 order, 48 pile-order and 48
    # free-card clauses, 2 x 2 x 48 supports, 2 x (28 + 1) exactly-one clauses: < 392;
    # per pair Boolean 2 x (nmoves + 1) equalities.  Literals: at most 3 a clause but
    # supports (up to 1 + 8) and at-least-one clauses (up to 8): n x 1,920 more covers them.
    cap_cl = n * 8 * 49 + nx * 2 * (nmoves + 1) + n * 60 + 64
    cap_lits = 3 * cap_cl + n * 4 * 48 * 10
    if view == VIEW_COUNTERS:
        room_cl, room_lits = counting_room(count, nmoves)
        cap_cl += room_cl
        cap_lits += room_lits
    lits = np.empty(cap_lits, np.int64)
    start = np.empty(cap_cl, np.int64)
    length = np.empty(cap_cl, np.int64)
    buf = np.empty(nvars + 8, np.int64)
    ncl, nlit, e1 = _order_clauses(lits, start, length, 0, 0, buf, lay, n)
    ncl, nlit, e2 = _pile_clauses(lits, start, length, ncl, nlit, buf, lay, n)
    empty = e1 or e2
    if view == VIEW_PAIRS:
        ncl, nlit, e = _pair_clauses(lits, start, length, ncl, nlit, buf, lay, n, xa, xb, xk,
                                     norder)
        empty |= e
    ncl, nlit, e = _free_card_clauses(lits, start, length, ncl, nlit, buf, lay, n)
    empty |= e
    ncl, nlit, e = _support_clauses(lits, start, length, ncl, nlit, buf, lay, n, part, npart)
    empty |= e
    if view == VIEW_COUNTERS:
        ncl, nlit, nvars, e = counting_clauses(lits, start, length, ncl, nlit, nvars, n, rank,
                                               lo, hi, base, nmoves)
        empty |= e
    if empty:
        return LOSS, empty_model(LOSS)
    cards = Cards(src[:n].copy(), rank[:n].copy(), lo, hi, base, xa, xb, xk)
    return fresh_state(cards, lits, start, length, ncl, nlit, nvars, norder, nmoves, view)


# ---------------------------------------------------------------------------
# one position at once, and checking a line


@njit(cache=True)
def grouping_search(piles, reserve, pos, budget, line, info, view=VIEW_COUNTS):
    """Decide ``pos`` in the grouping ``view`` with at most ``budget`` conflicts: the
    model and one run (see :func:`grouping_run` for the result and ``line``/``info``)."""
    part, npart = partner_table(piles, reserve)
    status, model = grouping_run(grouping_model(piles, reserve, part, npart, pos, view)[1],
                                 budget, line, info)
    return status


@njit(cache=True)
def line_wins(piles, reserve, pos, line, m):
    """True if the moves ``line[:m]`` are legal one after another from ``pos`` and
    clear the table (checked against the mirror's unpruned move list)."""
    moves = np.empty(MAX_MOVES, np.uint64)
    for j in range(m):
        k = all_moves(piles, reserve, pos, moves)
        ok = False
        for i in range(k):
            if moves[i] == line[j]:
                ok = True
                break
        if not ok:
            return False
        pos = pos - line[j]
    return pos == np.uint64(0)
