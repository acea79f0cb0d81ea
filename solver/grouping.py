"""The grouping view decided by a clause-learning search (CDCL), in numba.

A position is winnable exactly when its cards can be grouped -- number cards into
pairs adding up to 11 from different sources, face cards into J+Q+K triplets -- and
every card given a removal step 0..M-1 (M = moves left) so that the cards of a group
share a step and a card lying on another goes strictly earlier (docs/solver.md, "The
grouping view").  This module writes that as clauses and decides them:

- ``[t_c <= v]`` is a Boolean for every card c and step v inside c's interval
  [cards above c, M-1 - cards below c] (the order encoding: ``[t_c <= v]`` implies
  ``[t_c <= v+1]``);
- a card lying on card b: ``[t_b <= v]`` implies ``[t_above <= v-1]``;
- one Boolean per pair of cards that may share a move (complementary ranks, different
  piles, intervals that meet); for faces, a J-Q and a J-K matching, as in the CP-SAT
  model of :mod:`solver.cpsat`; each card is in exactly one chosen pair of each kind
  it needs, and a chosen pair has equal steps (``x and [t_a <= v]`` implies
  ``[t_b <= v]`` and back);
- free cards of one rank (reserve cards and the only card of a pile) are
  interchangeable, so their steps are taken non-decreasing in source order.

- supports (implied, written out for propagation): a card removed by step v has a
  partner removed by step v, and one removed after v if it is removed after v.

Unit propagation on these clauses narrows the intervals much as :mod:`solver.bounds`
does; learning a clause from each conflict (first unique implication point,
recursively minimized), VSIDS branching with phase saving, Luby restarts and
failed-literal probing at the root make it a complete search: the answer is a grouping
(which sorts into a winning line) or a proof that there is none.  Given a budget of
conflicts it stops without an answer; :func:`grouping_run` goes on where it stopped.

Everything is jitted over plain arrays; the search state lives in the model tuple.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bounds import NCARDS, partner_table
from .kernels import DEPTH, MAX_MOVES, NPILES, NRESERVE, all_moves, pile_count, reserve_full, source_delta

G_WIN = 1
G_LOSS = 0
G_UNKNOWN = -1

TRUE = -1  # literal codes of constants while the clauses are written
FALSE = -2
JACK, QUEEN, KING = 11, 12, 13
RESTART_BASE = 64
# the search's counters, kept between runs in the model's ctl array
(C_N, C_NVARS, C_XVAR0, C_NX, C_NCL, C_NLIT, C_TLEN, C_QHEAD, C_DL, C_CONFLICTS, C_RESTARTS,
 C_SINCE, C_NEXT_RESTART, C_HSIZE, C_NMOVES, C_STATUS, C_NORIG, C_NEXT_REDUCE, C_REDUCTIONS,
 C_DELETED) = range(20)
NCTL = 20
# Learnt clauses are thinned at the first restart after REDUCE_FIRST conflicts, then
# after REDUCE_FIRST + REDUCE_INC * k more (k: reductions so far): half of those whose
# literals span more than GLUE decision levels go, the most levels first (Glucose's
# rule; a learnt clause is implied by the model, so forgetting one is always sound).
REDUCE_FIRST = 4000
REDUCE_INC = 1000
GLUE = 2
# The activity decay of the branching (VSIDS): 0.85 forgets old conflicts faster than
# MiniSat's 0.95.  Measured on deals 0-9,999 in three ranges, solved one after another in
# one process, side by side: 55.1 s against 62.1 s in all (0-2,999 23.4 / 25.6 s,
# 3,000-5,999 12.3 / 14.0 s, 6,000-9,999 18.7-20.1 / 22.0-23.1 s); it costs one deal
# much (129: about 2 s against 0.1 s) and saves several (2269: under 1.2 s against 4.9 s).
VAR_DECAY = 0.85


# ---------------------------------------------------------------------------
# writing the clauses


@njit(cache=True, _nrt=False)
def _le(base, lo, hi, c, v):
    """The literal [t_c <= v] (or the constant TRUE / FALSE)."""
    if v < lo[c]:
        return FALSE
    if v >= hi[c]:
        return TRUE
    return 2 * (base[c] + v - lo[c])


@njit(cache=True, _nrt=False)
def _neg(lit):
    if lit == TRUE:
        return FALSE
    if lit == FALSE:
        return TRUE
    return lit ^ 1


@njit(cache=True, _nrt=False)
def _add(cl_lits, cl_start, cl_len, ncl, nlit, buf, k):
    """Append the clause buf[:k] simplified (constants dropped); returns (ncl, nlit,
    code): code 0 added, 1 satisfied (skipped), 2 empty (the model has no solution)."""
    m = 0
    for i in range(k):
        lit = buf[i]
        if lit == TRUE:
            return ncl, nlit, 1
        if lit == FALSE:
            continue
        buf[m] = lit
        m += 1
    if m == 0:
        return ncl, nlit, 2
    cl_start[ncl] = nlit
    cl_len[ncl] = m
    for i in range(m):
        cl_lits[nlit + i] = buf[i]
    return ncl + 1, nlit + m, 0


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
# the decision heap (VSIDS)


@njit(cache=True, _nrt=False)
def _heap_up(heap, hpos, act, i):
    v = heap[i]
    while i > 0:
        p = (i - 1) >> 1
        if act[heap[p]] >= act[v]:
            break
        heap[i] = heap[p]
        hpos[heap[i]] = i
        i = p
    heap[i] = v
    hpos[v] = i


@njit(cache=True, _nrt=False)
def _heap_down(heap, hpos, act, size, i):
    v = heap[i]
    while True:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and act[heap[c + 1]] > act[heap[c]]:
            c += 1
        if act[heap[c]] <= act[v]:
            break
        heap[i] = heap[c]
        hpos[heap[i]] = i
        i = c
    heap[i] = v
    hpos[v] = i


@njit(cache=True, _nrt=False)
def _redundant(p, reason, level, seen, cl_lits, cl_start, cl_len, stack, toclear, nclear):
    """True if the false literal p of a learnt clause follows from the clause's other
    literals (every path through the reasons ends in a marked literal or level 0).
    Literals met on the way are marked and listed in toclear; the list's new length is
    left in toclear[-1]."""
    top = 0
    stack[top] = p
    top += 1
    start = nclear
    while top > 0:
        top -= 1
        q = stack[top]
        cl = reason[q >> 1]
        s = cl_start[cl]
        for j in range(s, s + cl_len[cl]):
            lit = cl_lits[j]
            u = lit >> 1
            if u == (q >> 1) or seen[u] != 0 or level[u] == 0:
                continue
            if reason[u] >= 0:
                seen[u] = 1
                stack[top] = lit
                top += 1
                toclear[nclear] = lit
                nclear += 1
            else:
                for i in range(start, nclear):
                    seen[toclear[i] >> 1] = 0
                toclear[-1] = start
                return False
    toclear[-1] = nclear
    return True


@njit(cache=True, _nrt=False)
def _undo(target, trail, tlen, assign, saved, reason, heap, hpos, act, hsize):
    """Unassign the trail down to length target (phases saved, variables back in the
    heap); returns (trail length, heap size)."""
    while tlen > target:
        tlen -= 1
        v = trail[tlen] >> 1
        saved[v] = assign[v]
        assign[v] = -1
        reason[v] = -1
        if hpos[v] < 0:
            heap[hsize] = v
            hpos[v] = hsize
            hsize += 1
            _heap_up(heap, hpos, act, hsize - 1)
    return tlen, hsize


@njit(cache=True)
def _reduce(first, ncl, cl_len, cl_lbd):
    """Delete half of the learnt clauses first..ncl-1 that span more than GLUE levels,
    the most levels first, the older first among equals (at the root, where no clause
    is the reason of an assignment above level 0); returns how many went.  A deleted
    clause's length is made negative; its watches are dropped as propagation meets them."""
    cand = np.empty(ncl - first, np.int64)
    key = np.empty(ncl - first, np.int64)
    m = 0
    for cl in range(first, ncl):
        if cl_len[cl] > 2 and cl_lbd[cl] > GLUE:
            cand[m] = cl
            key[m] = -(cl_lbd[cl] * (ncl + 1) + (ncl - cl))
            m += 1
    order = np.argsort(key[:m])
    for j in range(m // 2):
        cl = cand[order[j]]
        cl_len[cl] = -cl_len[cl]
    return m // 2


@njit(cache=True, _nrt=False)
def luby(i):
    """The i-th term (from 1) of the Luby sequence 1 1 2 1 1 2 4 1 1 2 …"""
    k = 1
    while (1 << k) - 1 < i:
        k += 1
    while i != (1 << k) - 1:
        i -= (1 << (k - 1)) - 1
        k = 1
        while (1 << k) - 1 < i:
            k += 1
    return 1 << (k - 1)


@njit(cache=True, _nrt=False)
def _propagate(trail, tlen, qhead, assign, level, reason, whead, wnext, cl_lits, cl_start,
               cl_len, dl, bstart, bimp, bcl):
    """Unit propagation (two watched literals) of the trail from qhead; returns
    (conflicting clause or -1, trail length, qhead)."""
    confl = -1
    while qhead < tlen and confl < 0:
        p = trail[qhead]
        qhead += 1
        f = p ^ 1  # the literal that just became false
        for j in range(bstart[f], bstart[f + 1]):
            q = bimp[j]
            qv = assign[q >> 1]
            if qv < 0:
                assign[q >> 1] = 1 - (q & 1)
                level[q >> 1] = dl
                reason[q >> 1] = bcl[j]
                trail[tlen] = q
                tlen += 1
            elif qv == (q & 1):
                confl = bcl[j]
                break
        if confl >= 0:
            break
        prev = -1
        e = whead[f]
        while e >= 0:
            cl = e >> 1
            w = e & 1
            nxt = wnext[e]
            if cl_len[cl] < 0:  # a deleted learnt clause: unlink its watch
                if prev < 0:
                    whead[f] = nxt
                else:
                    wnext[prev] = nxt
                e = nxt
                continue
            s = cl_start[cl]
            other = cl_lits[s + 1 - w]
            ov = assign[other >> 1]
            if ov >= 0 and ov != (other & 1):  # other watch true: keep
                prev = e
                e = nxt
                continue
            moved = False
            for j in range(s + 2, s + cl_len[cl]):
                q = cl_lits[j]
                qv = assign[q >> 1]
                if qv < 0 or qv != (q & 1):  # not false: watch it instead
                    cl_lits[j] = f
                    cl_lits[s + w] = q
                    if prev < 0:
                        whead[f] = nxt
                    else:
                        wnext[prev] = nxt
                    wnext[e] = whead[q]
                    whead[q] = e
                    moved = True
                    break
            if moved:
                e = nxt
                continue
            prev = e
            e = nxt
            if ov < 0:  # unit: imply the other watch
                assign[other >> 1] = 1 - (other & 1)
                level[other >> 1] = dl
                reason[other >> 1] = cl
                trail[tlen] = other
                tlen += 1
            else:
                confl = cl
                break
    return confl, tlen, qhead


@njit(cache=True, _nrt=False)
def _probe(first, last, trail, tlen, qhead, assign, level, reason, whead, wnext, cl_lits,
           cl_start, cl_len, bstart, bimp, bcl):
    """Failed literals at the root: a variable of first..last-1 whose value leads to a
    conflict by propagation alone takes the other value for good.  Rounds until nothing
    changes; returns (False if the root itself is contradictory, trail length)."""
    confl, tlen, qhead = _propagate(trail, tlen, qhead, assign, level, reason, whead, wnext,
                                    cl_lits, cl_start, cl_len, 0, bstart, bimp, bcl)
    if confl >= 0:
        return False, tlen
    changed = True
    while changed:
        changed = False
        for v in range(first, last):
            if assign[v] >= 0:
                continue
            for val in range(1, -1, -1):
                mark = tlen
                assign[v] = val
                level[v] = 1
                reason[v] = -1
                trail[tlen] = 2 * v + 1 - val
                confl, t2, q2 = _propagate(trail, tlen + 1, tlen, assign, level, reason, whead,
                                           wnext, cl_lits, cl_start, cl_len, 1, bstart, bimp,
                                           bcl)
                for j in range(mark, t2):
                    u = trail[j] >> 1
                    assign[u] = -1
                    reason[u] = -1
                if confl >= 0:  # v = val fails: v = 1 - val at the root
                    assign[v] = 1 - val
                    level[v] = 0
                    trail[tlen] = 2 * v + val
                    confl, tlen, qhead = _propagate(trail, tlen + 1, tlen, assign, level, reason,
                                                    whead, wnext, cl_lits, cl_start, cl_len, 0,
                                                    bstart, bimp, bcl)
                    if confl >= 0:
                        return False, tlen
                    changed = True
                    break
    return True, tlen


# ---------------------------------------------------------------------------
# the search


@njit(cache=True)
def grouping_model(piles, reserve, part, npart, pos):
    """The clauses of ``pos`` and a fresh search state, ready for :func:`grouping_run`
    (``part``, ``npart``: the deal's :func:`solver.bounds.partner_table`).

    Returns (status, model): G_LOSS when writing the clauses or propagating them at the
    root (with failed-literal probing of the pair Booleans) already shows there is no
    grouping, G_WIN for the empty position, else G_UNKNOWN.  A model settled here
    gives the same status at once from :func:`grouping_run` (with an empty line).
    """
    n, src, rank, pile, above, below, gid, local = _model_cards(piles, reserve, pos)
    if n == 0:
        return G_WIN, _empty_model(G_WIN)
    count = np.zeros(14, np.int64)
    for c in range(n):
        count[rank[c]] += 1
    for r in range(1, 6):
        if count[r] != count[11 - r]:
            return G_LOSS, _empty_model(G_LOSS)
    if count[JACK] != count[QUEEN] or count[JACK] != count[KING]:
        return G_LOSS, _empty_model(G_LOSS)
    nmoves = count[1] + count[2] + count[3] + count[4] + count[5] + count[JACK]
    lo = np.empty(n, np.int64)
    hi = np.empty(n, np.int64)
    base = np.empty(n, np.int64)
    nvars = 0
    for c in range(n):
        lo[c] = above[c]
        hi[c] = nmoves - 1 - below[c]
        if lo[c] > hi[c]:
            return G_LOSS, _empty_model(G_LOSS)
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
    for a in range(n):  # each pair from its low card, each triplet from its J
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
    for c in range(n):
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
    if empty:
        return G_LOSS, _empty_model(G_LOSS)

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
                return G_LOSS, _empty_model(G_LOSS)
            continue
        assign[v] = val
        level[v] = 0
        trail[tlen] = lit
        tlen += 1

    ok, tlen = _probe(xvar0, nvars, trail, tlen, 0, assign, level, reason, whead, wnext, cl_lits,
                      cl_start, cl_len, bstart, bimp, bcl)
    if not ok:
        return G_LOSS, _empty_model(G_LOSS)
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
    ctl[C_STATUS] = G_UNKNOWN
    ctl[C_NORIG] = ncl
    ctl[C_NEXT_REDUCE] = REDUCE_FIRST
    fctl = np.ones(1, np.float64)
    return G_UNKNOWN, (ctl, fctl, src[:n].copy(), lo, hi, base, xa[:nx].copy(), xb[:nx].copy(),
                       xk[:nx].copy(), cl_lits, cl_start, cl_len, wnext, whead, assign,
                       level) + (reason, saved, act, heap, hpos, trail, lim, seen, learnt, stack,
                                 toclear, bstart, bimp, bcl, np.zeros(len(cl_start), np.int64))


@njit(cache=True)
def _empty_model(status):
    i = np.zeros(1, np.int64)
    b = np.zeros(1, np.int8)
    ctl = np.zeros(NCTL, np.int64)
    ctl[C_STATUS] = status
    # (built in two parts: a tuple display of more than 30 items is a list to Python,
    # which numba cannot type)
    return (ctl, np.ones(1, np.float64), i, i, i, i, i, i, i, i, i, i, i,
            i, b, i) + (i, b, np.zeros(1, np.float64), i, i, i, i, b, i, i, i, i, i, i, i)


@njit(cache=True)
def grouping_run(model, budget, line, info):
    """Go on with the search of :func:`grouping_model` for at most ``budget`` conflicts.

    Returns (status, model) -- the model to pass next time (its clause arrays may have
    been regrown).  G_WIN: ``line[:info[1]]`` is a winning line as move deltas, in play
    order; G_LOSS: no grouping exists, the position is lost; G_UNKNOWN: budget spent.
    ``info[0]`` receives the conflicts of this call.  The learnt clauses and the
    branching state are kept from one call to the next.
    """
    (ctl, fctl, src, lo, hi, base, xa, xb, xk, cl_lits, cl_start, cl_len, wnext, whead, assign,
     level, reason, saved, act, heap, hpos, trail, lim, seen, learnt, stack, toclear, bstart, bimp,
     bcl, cl_lbd) = model
    info[0] = 0
    info[1] = 0
    n = ctl[C_N]
    nvars = ctl[C_NVARS]
    xvar0 = ctl[C_XVAR0]
    nx = ctl[C_NX]
    ncl = ctl[C_NCL]
    nlit = ctl[C_NLIT]
    tlen = ctl[C_TLEN]
    qhead = ctl[C_QHEAD]
    dl = ctl[C_DL]
    restarts = ctl[C_RESTARTS]
    since_restart = ctl[C_SINCE]
    next_restart = ctl[C_NEXT_RESTART]
    hsize = ctl[C_HSIZE]
    nmoves = ctl[C_NMOVES]
    var_inc = fctl[0]
    cap_cl = len(cl_start)
    cap_lits = len(cl_lits)
    if ctl[C_STATUS] != G_UNKNOWN:
        return ctl[C_STATUS], model
    norig = ctl[C_NORIG]
    stamp = np.zeros(nvars + 2, np.int64)  # per decision level: last clause counted
    conflicts = 0
    result = G_UNKNOWN
    while True:
        # ---- propagate
        confl, tlen, qhead = _propagate(trail, tlen, qhead, assign, level, reason, whead, wnext,
                                        cl_lits, cl_start, cl_len, dl, bstart, bimp, bcl)
        if confl >= 0:
            conflicts += 1
            since_restart += 1
            if dl == 0:
                result = G_LOSS
                break
            # ---- first-UIP learning
            k = 1
            path = 0
            p = -1
            idx = tlen - 1
            cl = confl
            while True:
                s = cl_start[cl]
                for j in range(s, s + cl_len[cl]):
                    q = cl_lits[j]
                    if q == p:
                        continue
                    v = q >> 1
                    if seen[v] == 0 and level[v] > 0:
                        seen[v] = 1
                        act[v] += var_inc
                        if act[v] > 1e100:
                            for u in range(nvars):
                                act[u] *= 1e-100
                            var_inc *= 1e-100
                        if hpos[v] >= 0:
                            _heap_up(heap, hpos, act, hpos[v])
                        if level[v] == dl:
                            path += 1
                        else:
                            learnt[k] = q
                            k += 1
                while seen[trail[idx] >> 1] == 0:
                    idx -= 1
                p = trail[idx]
                idx -= 1
                seen[p >> 1] = 0
                path -= 1
                if path == 0:
                    break
                cl = reason[p >> 1]
            learnt[0] = p ^ 1
            # minimize: drop a literal implied by the others (its reason's literals are
            # all in the clause, recursively) -- MiniSat's recursive minimization
            nclear = 0
            for j in range(1, k):
                toclear[nclear] = learnt[j]
                nclear += 1
            m = 1
            for j in range(1, k):
                q = learnt[j]
                if reason[q >> 1] < 0 or not _redundant(q, reason, level, seen, cl_lits, cl_start,
                                                          cl_len, stack, toclear, nclear):
                    learnt[m] = q
                    m += 1
                else:
                    nclear = toclear[-1]  # _redundant left the new length here
            k = m
            for j in range(nclear):
                seen[toclear[j] >> 1] = 0
            var_inc /= VAR_DECAY
            # backjump level: the highest level among the rest (moved to position 1)
            back = 0
            if k > 1:
                best = 1
                for j in range(2, k):
                    if level[learnt[j] >> 1] > level[learnt[best] >> 1]:
                        best = j
                tmp = learnt[1]
                learnt[1] = learnt[best]
                learnt[best] = tmp
                back = level[learnt[1] >> 1]
            # undo to level back
            tlen, hsize = _undo(lim[back + 1], trail, tlen, assign, saved, reason, heap, hpos, act, hsize)
            dl = back
            qhead = tlen
            # store the clause (grow the arrays when full)
            if nlit + k > cap_lits:
                new_l = np.empty(2 * cap_lits + k, np.int64)
                new_l[:nlit] = cl_lits[:nlit]
                cl_lits = new_l
                cap_lits = 2 * cap_lits + k
            if ncl + 1 > cap_cl:
                new_s = np.empty(2 * cap_cl, np.int64)
                new_s[:ncl] = cl_start[:ncl]
                cl_start = new_s
                new_n = np.empty(2 * cap_cl, np.int64)
                new_n[:ncl] = cl_len[:ncl]
                cl_len = new_n
                new_b = np.empty(2 * cap_cl, np.int64)
                new_b[:ncl] = cl_lbd[:ncl]
                cl_lbd = new_b
                new_w = np.full(4 * cap_cl, -1, np.int64)
                new_w[: 2 * ncl] = wnext[: 2 * ncl]
                wnext = new_w
                cap_cl *= 2
            cl = ncl
            cl_start[cl] = nlit
            cl_len[cl] = k
            lbd = 0
            for j in range(k):
                lv = level[learnt[j] >> 1]
                if stamp[lv] != cl + 1:
                    stamp[lv] = cl + 1
                    lbd += 1
            cl_lbd[cl] = lbd
            for j in range(k):
                cl_lits[nlit + j] = learnt[j]
            nlit += k
            ncl += 1
            if k > 1:
                for w in range(2):
                    lit = learnt[w]
                    wnext[2 * cl + w] = whead[lit]
                    whead[lit] = 2 * cl + w
            lit = learnt[0]
            v = lit >> 1
            assign[v] = 1 - (lit & 1)
            level[v] = dl
            reason[v] = cl if k > 1 else -1
            trail[tlen] = lit
            tlen += 1
            if conflicts >= budget:  # pause at the root (the next run starts there)
                if dl > 0:
                    tlen, hsize = _undo(lim[1], trail, tlen, assign, saved, reason, heap, hpos, act,
                                        hsize)
                    dl = 0
                    qhead = tlen
                break
            continue
        # ---- restart
        if since_restart >= next_restart and dl > 0:
            since_restart = 0
            restarts += 1
            next_restart = RESTART_BASE * luby(restarts)
            tlen, hsize = _undo(lim[1], trail, tlen, assign, saved, reason, heap, hpos, act, hsize)
            dl = 0
            qhead = tlen
            if ctl[C_CONFLICTS] + conflicts >= ctl[C_NEXT_REDUCE]:
                ctl[C_REDUCTIONS] += 1
                ctl[C_NEXT_REDUCE] = (ctl[C_CONFLICTS] + conflicts + REDUCE_FIRST
                                      + REDUCE_INC * ctl[C_REDUCTIONS])
                ctl[C_DELETED] += _reduce(norig, ncl, cl_len, cl_lbd)
        # ---- decide
        v = -1
        while hsize > 0:
            top = heap[0]
            hsize -= 1
            hpos[top] = -1
            if hsize > 0:
                heap[0] = heap[hsize]
                hpos[heap[0]] = 0
                _heap_down(heap, hpos, act, hsize, 0)
            if assign[top] < 0:
                v = top
                break
        if v < 0:
            result = G_WIN  # every variable assigned, no conflict: a solution
            break
        dl += 1
        lim[dl] = tlen
        assign[v] = saved[v]
        level[v] = dl
        reason[v] = -1
        trail[tlen] = 2 * v + (1 - saved[v])
        tlen += 1

    info[0] = conflicts
    ctl[C_STATUS] = result
    ctl[C_NCL] = ncl
    ctl[C_NLIT] = nlit
    ctl[C_TLEN] = tlen
    ctl[C_QHEAD] = qhead
    ctl[C_DL] = dl
    ctl[C_CONFLICTS] += conflicts
    ctl[C_RESTARTS] = restarts
    ctl[C_SINCE] = since_restart
    ctl[C_NEXT_RESTART] = next_restart
    ctl[C_HSIZE] = hsize
    fctl[0] = var_inc
    model = (ctl, fctl, src, lo, hi, base, xa, xb, xk, cl_lits, cl_start, cl_len, wnext, whead,
             assign, level) + (reason, saved, act, heap, hpos, trail, lim, seen, learnt, stack,
                               toclear, bstart, bimp, bcl, cl_lbd)
    if result != G_WIN:
        return result, model
    # ---- a solution: steps of the cards, groups sorted by step
    step = np.empty(n, np.int64)
    for c in range(n):
        step[c] = hi[c]
        for v in range(lo[c], hi[c]):
            if assign[base[c] + v - lo[c]] == 1:
                step[c] = v
                break
    gkey = np.empty(nmoves, np.int64)
    gdelta = np.empty(nmoves, np.uint64)
    ng = 0
    for i in range(nx):
        if assign[xvar0 + i] != 1:
            continue
        a = xa[i]
        b = xb[i]
        if xk[i] == 0:
            gkey[ng] = step[a] * 1024 + a
            gdelta[ng] = source_delta(src[a]) + source_delta(src[b])
            ng += 1
        elif xk[i] == 1:  # J a with Q b: find the K of a
            for i2 in range(nx):
                if xk[i2] == 2 and xa[i2] == a and assign[xvar0 + i2] == 1:
                    gkey[ng] = step[a] * 1024 + a
                    gdelta[ng] = source_delta(src[a]) + source_delta(src[b]) + source_delta(src[xb[i2]])
                    ng += 1
    order = np.argsort(gkey[:ng])
    for j in range(ng):
        line[j] = gdelta[order[j]]
    info[1] = ng
    return G_WIN, model


@njit(cache=True)
def grouping_search(piles, reserve, pos, budget, line, info):
    """Decide ``pos`` in the grouping view with at most ``budget`` conflicts: the model
    and one run (see :func:`grouping_run` for the result and ``line``/``info``)."""
    part, npart = partner_table(piles, reserve)
    status, model = grouping_run(grouping_model(piles, reserve, part, npart, pos)[1], budget,
                                 line, info)
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
