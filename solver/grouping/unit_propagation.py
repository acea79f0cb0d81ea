"""Unit propagation for the clause-learning search (:mod:`solver.grouping.clause_learning`).

Literal ``2 * v`` says variable v is 1, ``2 * v + 1`` that it is 0; ``assign`` holds -1
(unassigned), 0 or 1.  Clause cl is ``cl_lits[s:s + cl_len[cl]]``, s = ``cl_start[cl]``
(a negative length marks a deleted learnt clause).  The model's binary clauses
propagate through implication lists (``bstart``, ``bimp``, ``bcl``), the longer ones
through two watched literals, their first two, kept in linked watch lists (``whead``,
``wnext``).  :func:`_probe` finds failed literals at the root by propagation alone.
"""

from __future__ import annotations

from numba import njit


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

