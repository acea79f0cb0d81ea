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
  propagator of :mod:`solver.count_propagator` (or, VIEW_COUNTERS, written as the totalizer
  clauses of :mod:`solver.counting`: the same search, with some 80,000 more clauses);
- by pairs (VIEW_PAIRS): one Boolean per pair of cards that may share a move (complementary ranks,
  different piles, intervals that meet); for faces, a J-Q and a J-K matching, as in the
  CP-SAT model of :mod:`solver.cpsat`; each card is in exactly one chosen pair of each
  kind it needs, and a chosen pair has equal steps (``x and [t_a <= v]`` implies
  ``[t_b <= v]`` and back);
- free cards of one rank (reserve cards and the only card of a pile) are
  interchangeable, so their steps are taken non-decreasing in source order;
- supports (implied, written out for propagation): a card removed by step v has a
  partner removed by step v, and one removed after v if it is removed after v.

:func:`grouping_model` writes the clauses of a position, propagates them at the root
(by pairs with failed-literal probing of the pair Booleans) and sets up a fresh search
state;
:func:`grouping_run`, the clause-learning search of :mod:`solver.cdcl`, decides them:
the answer is a grouping (which sorts into a winning line) or a proof that there is
none.  Given a budget of conflicts it stops without an answer; :func:`grouping_run` goes
on where it stopped.  :func:`grouping_search` does both for one position and
:func:`line_wins` checks a line against the move generator.

Everything is jitted over plain arrays; the search state lives in the model tuple
(laid out in :mod:`solver.cdcl`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..depth_first.bounds import NCARDS, partner_table
from .clause_learning import (VIEW_COUNTERS, VIEW_COUNTS, VIEW_PAIRS, C_COUNTING, C_HSIZE, C_N, C_NCL, C_NEXT_REDUCE, C_NEXT_RESTART, C_NLIT,
                   C_NMOVES, C_NORIG, C_NVARS, C_NX, C_QHEAD, C_RESTARTS, C_STATUS, C_TLEN,
                   C_XVAR0, LOSS, UNRESOLVED, WIN, NCTL, REDUCE_FIRST, RESTART_BASE,
                   _empty_model, _heap_up, grouping_run, luby)
from .count_propagation import count_state, no_count_state
from .count_clauses import FALSE, TRUE, _add, _le, _neg, counting_clauses, counting_room
from ..mirror.position import DEPTH, MAX_MOVES, NPILES, NRESERVE, all_moves, pile_count, reserve_full
from .unit_propagation import _probe

JACK, QUEEN, KING = 11, 12, 13


# ---------------------------------------------------------------------------
# writing the clauses


@njit(cache=True)
def _model_cards(piles, reserve, pos):
    """The cards left: source, rank, pile (-1 for the reserve), cards above and below,
    the card id of :mod:`solver.bounds` of each (``gid``) and the index here of each card
    id (``local``, -1 for a card gone)."""
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
    :func:`solver.bounds.partner_table`: the other rank for a number card; for a face
    card the lower (g = 0) or the higher (g = 1) of the two other face ranks -- and
    whose intervals meet c's, in increasing order; returns how many."""
    k = 0
    for j in range(npart[gid[c], g]):
        p = local[part[gid[c], g, j]]
        if p >= 0 and max(lo[c], lo[p]) <= min(hi[c], hi[p]):
            out[k] = p
            k += 1
    return k


# ---------------------------------------------------------------------------
# the model: the clauses and a fresh search state


@njit(cache=True)
def grouping_model(piles, reserve, part, npart, pos, view=VIEW_COUNTS):
    """The clauses of ``pos`` and a fresh search state, ready for :func:`grouping_run`
    (``part``, ``npart``: the deal's :func:`solver.bounds.partner_table`), in ``view``:
    by counts (VIEW_COUNTS through the propagator, VIEW_COUNTERS as clauses) or by pairs
    (VIEW_PAIRS).

    Returns (status, model): LOSS when writing the clauses or propagating them at the
    root (by pairs with failed-literal probing of the pair Booleans) already shows there
    is no solution, WIN for the empty position, else UNRESOLVED.  A model settled here
    gives the same status at once from :func:`grouping_run` (with an empty line).
    """
    counting = view != VIEW_PAIRS
    n, src, rank, pile, above, below, gid, local = _model_cards(piles, reserve, pos)
    if n == 0:
        return WIN, _empty_model(WIN)
    count = np.zeros(14, np.int64)
    for c in range(n):
        count[rank[c]] += 1
    for r in range(1, 6):
        if count[r] != count[11 - r]:
            return LOSS, _empty_model(LOSS)
    if count[JACK] != count[QUEEN] or count[JACK] != count[KING]:
        return LOSS, _empty_model(LOSS)
    nmoves = count[1] + count[2] + count[3] + count[4] + count[5] + count[JACK]
    lo = np.empty(n, np.int64)
    hi = np.empty(n, np.int64)
    base = np.empty(n, np.int64)
    nvars = 0
    for c in range(n):
        lo[c] = above[c]
        hi[c] = nmoves - 1 - below[c]
        if lo[c] > hi[c]:
            return LOSS, _empty_model(LOSS)
        base[c] = nvars
        nvars += hi[c] - lo[c]
    norder = nvars
    # the pair Booleans: (a, b, kind) with kind 0 pairs, 1 J-Q, 2 J-K
    maxx = 8 * 64
    xa = np.empty(maxx, np.int64)
    xb = np.empty(maxx, np.int64)
    xk = np.empty(maxx, np.int64)
    partners = np.empty(n, np.int64)
    nx = 0
    for a in range(0 if counting else n):  # each pair from its low card, each triplet from its J
        if rank[a] <= 5:
            for j in range(_partners(part, npart, gid, local, lo, hi, a, 0, partners)):
                xa[nx] = a
                xb[nx] = partners[j]
                xk[nx] = 0
                nx += 1
        elif rank[a] == JACK:  # its Qs and its Ks, merged in card order
            nq = _partners(part, npart, gid, local, lo, hi, a, 0, partners)
            end = nq + _partners(part, npart, gid, local, lo, hi, a, 1, partners[nq:])
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
    nvars = norder + nx
    xvar0 = norder

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
    cl_lits = np.empty(cap_lits, np.int64)
    cl_start = np.empty(cap_cl, np.int64)
    cl_len = np.empty(cap_cl, np.int64)
    ncl = 0
    nlit = 0
    buf = np.empty(nvars + 8, np.int64)
    pair = np.empty(2, np.int64)
    empty = False
    # the clauses of the model (cap_cl and cap_lits bound what each family writes)
    # order encoding
    for c in range(n):
        for v in range(lo[c], hi[c] - 1):
            buf[0] = _neg(_le(base, lo, hi, c, v))
            buf[1] = _le(base, lo, hi, c, v + 1)
            ncl, nlit, code = _add(cl_lits, cl_start, cl_len, ncl, nlit, buf, 2)
    # pile order: the card above goes strictly earlier
    for c in range(n):
        if pile[c] >= 0 and below[c] > 0:
            b = c - 1  # the card c lies on
            for v in range(lo[b], hi[b] + 1):
                buf[0] = _neg(_le(base, lo, hi, b, v))
                buf[1] = _le(base, lo, hi, c, v - 1)
                ncl, nlit, code = _add(cl_lits, cl_start, cl_len, ncl, nlit, buf, 2)
                if code == 2:
                    empty = True
    # a chosen pair shares its step
    for i in range(nx):
        a = xa[i]
        b = xb[i]
        x = 2 * (xvar0 + i)
        for side in range(2):
            p = a if side == 0 else b
            q = b if side == 0 else a
            for v in range(lo[p], hi[p] + 1):
                buf[0] = x ^ 1
                buf[1] = _neg(_le(base, lo, hi, p, v))
                buf[2] = _le(base, lo, hi, q, v)
                ncl, nlit, code = _add(cl_lits, cl_start, cl_len, ncl, nlit, buf, 3)
                if code == 2:
                    empty = True
    # every card in exactly one chosen pair of each kind it needs
    for c in range(0 if counting else n):
        for kind in range(3):
            if kind == 0 and rank[c] > 10:
                continue
            if kind > 0 and rank[c] <= 10:
                continue
            if kind > 0 and rank[c] == QUEEN and kind == 2:
                continue
            if kind > 0 and rank[c] == KING and kind == 1:
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
                    ncl, nlit, code = _add(cl_lits, cl_start, cl_len, ncl, nlit, pair, 2)
            ncl, nlit, code = _add(cl_lits, cl_start, cl_len, ncl, nlit, buf, k)
            if code == 2:
                empty = True
    # interchangeable free cards: steps non-decreasing
    for a in range(n):
        if not (pile[a] < 0 or (below[a] == 0 and above[a] == 0)):
            continue
        for b in range(a + 1, n):
            if rank[b] != rank[a] or not (pile[b] < 0 or (below[b] == 0 and above[b] == 0)):
                continue
            # t_a <= t_b: [t_b <= v] implies [t_a <= v]
            for v in range(lo[b], hi[b] + 1):
                buf[0] = _neg(_le(base, lo, hi, b, v))
                buf[1] = _le(base, lo, hi, a, v)
                ncl, nlit, code = _add(cl_lits, cl_start, cl_len, ncl, nlit, buf, 2)
                if code == 2:
                    empty = True
            break  # the next free card of the rank continues the chain
    # supports: a card's step is some partner's step (implied)
    for c in range(n):
        for g in range(1 + (rank[c] > 10)):
            np_ = _partners(part, npart, gid, local, lo, hi, c, g, partners)
            for side in range(2):
                for v in range(lo[c], hi[c]):
                    # side 0: [t_c <= v] -> some partner p has [t_p <= v]
                    # side 1: not [t_c <= v] -> some partner p has not [t_p <= v]
                    lit = _le(base, lo, hi, c, v)
                    buf[0] = lit ^ 1 if side == 0 else lit
                    k = 1
                    sat = False
                    for j in range(np_):
                        q = _le(base, lo, hi, partners[j], v)
                        if side == 1:
                            q = _neg(q)
                        if q == TRUE:
                            sat = True
                            break
                        if q != FALSE:
                            buf[k] = q
                            k += 1
                    if not sat:
                        ncl, nlit, code = _add(cl_lits, cl_start, cl_len, ncl, nlit, buf, k)
                        if code == 2:
                            empty = True
    if view == VIEW_COUNTERS:
        ncl, nlit, nvars, e = counting_clauses(cl_lits, cl_start, cl_len, ncl, nlit, nvars,
                                                      n, rank, lo, hi, base, nmoves)
        empty |= e
    if empty:
        return LOSS, _empty_model(LOSS)

    # ---- the CDCL state
    nlits = 2 * nvars
    assign = np.full(nvars, -1, np.int8)
    level = np.zeros(nvars, np.int64)
    reason = np.full(nvars, -1, np.int64)
    saved = np.zeros(nvars, np.int8)
    for i in range(nx):
        saved[xvar0 + i] = 1
    act = np.zeros(nvars, np.float64)
    for i in range(nx):
        act[xvar0 + i] = 1.0  # branch on the pairs first
    if counting:
        saved[:norder] = 1  # each card as early as it may go, first
    heap = np.empty(nvars, np.int64)
    hpos = np.full(nvars, -1, np.int64)
    hsize = 0
    for v in range(nvars):
        heap[hsize] = v
        hpos[v] = hsize
        hsize += 1
        _heap_up(heap, hpos, act, hsize - 1)
    trail = np.empty(nvars, np.int64)
    tlen = 0
    lim = np.empty(nvars + 1, np.int64)  # trail length at the start of each level
    seen = np.zeros(nvars, np.int8)
    learnt = np.empty(nvars + 1, np.int64)
    stack = np.empty(nvars + 1, np.int64)
    toclear = np.empty(nvars + 2, np.int64)
    # watch lists as linked lists of watch entries 2 * clause + w (w: which of the
    # clause's first two literals it watches)
    cap_w = 2 * cap_cl
    wnext = np.full(cap_w, -1, np.int64)
    whead = np.full(nlits, -1, np.int64)
    units = np.empty(ncl, np.int64)
    nunits = 0
    # the model's binary clauses as implication lists: bimp[bstart[f]:bstart[f+1]] are
    # the literals made true when literal f becomes false (bcl: their clauses)
    bstart = np.zeros(nlits + 1, np.int64)
    for cl in range(ncl):
        if cl_len[cl] == 2:
            s = cl_start[cl]
            bstart[cl_lits[s] + 1] += 1
            bstart[cl_lits[s + 1] + 1] += 1
    for lit in range(nlits):
        bstart[lit + 1] += bstart[lit]
    bfill = bstart[:nlits].copy()
    bimp = np.empty(bstart[nlits], np.int64)
    bcl = np.empty(bstart[nlits], np.int64)
    for cl in range(ncl):
        s = cl_start[cl]
        if cl_len[cl] == 1:
            units[nunits] = cl_lits[s]
            nunits += 1
            continue
        if cl_len[cl] == 2:
            for w in range(2):
                f = cl_lits[s + w]
                bimp[bfill[f]] = cl_lits[s + 1 - w]
                bcl[bfill[f]] = cl
                bfill[f] += 1
            continue
        for w in range(2):
            lit = cl_lits[s + w]
            wnext[2 * cl + w] = whead[lit]
            whead[lit] = 2 * cl + w
    for u in range(nunits):
        lit = units[u]
        v = lit >> 1
        val = 1 - (lit & 1)
        if assign[v] >= 0:
            if assign[v] != val:
                return LOSS, _empty_model(LOSS)
            continue
        assign[v] = val
        level[v] = 0
        trail[tlen] = lit
        tlen += 1

    ok, tlen = _probe(xvar0, xvar0 + nx, trail, tlen, 0, assign, level, reason, whead, wnext, cl_lits,
                      cl_start, cl_len, bstart, bimp, bcl)
    if not ok:
        return LOSS, _empty_model(LOSS)
    ctl = np.zeros(NCTL, np.int64)
    ctl[C_N] = n
    ctl[C_NVARS] = nvars
    ctl[C_XVAR0] = xvar0
    ctl[C_NX] = nx
    ctl[C_NCL] = ncl
    ctl[C_NLIT] = nlit
    ctl[C_TLEN] = tlen
    ctl[C_QHEAD] = tlen
    ctl[C_RESTARTS] = 1
    ctl[C_NEXT_RESTART] = RESTART_BASE * luby(1)
    ctl[C_HSIZE] = hsize
    ctl[C_NMOVES] = nmoves
    ctl[C_STATUS] = UNRESOLVED
    ctl[C_NORIG] = ncl
    ctl[C_NEXT_REDUCE] = REDUCE_FIRST
    ctl[C_COUNTING] = view
    fctl = np.ones(1, np.float64)
    counts = count_state(n, nvars, nmoves, rank, lo, hi, base) if view == VIEW_COUNTS else no_count_state()
    return UNRESOLVED, (ctl, fctl, src[:n].copy(), lo, hi, base, xa[:nx].copy(), xb[:nx].copy(),
                       xk[:nx].copy(), cl_lits, cl_start, cl_len, wnext, whead, assign,
                       level) + (reason, saved, act, heap, hpos, trail, lim, seen, learnt, stack,
                                 toclear, bstart, bimp, bcl, np.zeros(len(cl_start), np.int64),
                                 rank[:n].copy(), counts)


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
