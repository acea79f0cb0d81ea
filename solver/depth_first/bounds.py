"""Dead-end detection by removal-time bounds (the grouping view; proof in docs/solver.md).

In any win from a position with M moves left, every card still in the game is
removed at a step 0..M-1, and:

- a card lying on another is removed strictly earlier (so a card with j cards above
  it goes at step j or later, and with j cards below it at step M-1-j or earlier);
- a number card is removed at the same step as a partner (a card of the
  complementary rank, not in its own pile); a face card at the same step as a card
  of each of the two other face ranks;
- two cards removed at the same step belong to the same move.

Each card gets an interval [lo, hi] of possible steps; the rules above narrow the
intervals until nothing changes.  An empty interval, a card with no partner whose
interval meets its own, or two incompatible cards pinned to the same step prove
that the position cannot be won.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..mirror.position import DEPTH, NPILES, NRESERVE, pile_count, reserve_full

NCARDS = NPILES * DEPTH + NRESERVE  # card id: pile i, height k -> 8 i + k; reserve r -> 96 + r
MAX_PARTNERS = 8
# Sweeps of the narrowing: to the fixpoint from scratch, a couple from a parent's
# intervals (stopping early is sound: the intervals are only less narrow).
MAX_COLD_SWEEPS = 1000
MAX_WARM_SWEEPS = 2


@njit(cache=True, inline='always')
def card_rank(piles, reserve, c):
    if c < NPILES * DEPTH:
        return np.int64(piles[c // DEPTH, c % DEPTH])
    return np.int64(reserve[c - NPILES * DEPTH])


@njit(cache=True)
def partner_table(piles, reserve):
    """``part[c, g, :npart[c, g]]``: the cards that can share a move with card c,
    group g (one group for number cards, two for face cards: the lower and the higher
    of the two other face ranks), never in c's pile; each list in card order."""
    part = np.full((NCARDS, 2, MAX_PARTNERS * 2), -1, np.int16)
    npart = np.zeros((NCARDS, 2), np.int8)
    # the cards of each rank, in card order
    of_rank = np.empty((14, NCARDS), np.int64)
    nrank = np.zeros(14, np.int64)
    for c in range(NCARDS):
        r = card_rank(piles, reserve, c)
        if r != 0:
            of_rank[r, nrank[r]] = c
            nrank[r] += 1
    for c in range(NCARDS):
        rc = card_rank(piles, reserve, c)
        if rc == 0:
            continue
        pc = c // DEPTH if c < NPILES * DEPTH else -1
        g = 0
        for rp in range(1, 14):
            if rc <= 10:
                if rp + rc != 11:
                    continue
            elif rp <= 10 or rp == rc:
                continue
            for j in range(nrank[rp]):
                p = of_rank[rp, j]
                pp = p // DEPTH if p < NPILES * DEPTH else -2
                if pp != pc:
                    part[c, g, npart[c, g]] = p
                    npart[c, g] += 1
            if rc > 10:
                g += 1
    return part, npart


@njit(cache=True, inline='always')
def _alive(pos, c):
    if c < NPILES * DEPTH:
        return (c % DEPTH) < pile_count(pos, c // DEPTH)
    return reserve_full(pos, c - NPILES * DEPTH)


@njit(cache=True, _nrt=False)
def bounds_dead(piles, reserve, part, npart, pos, lo, hi, plo, phi, warm, alive, pinned):
    """True if the removal-time bounds prove ``pos`` lost.

    ``lo``/``hi`` (int64[NCARDS]) receive the intervals.  With ``warm`` set, the
    search starts from ``plo``/``phi``, the intervals of the parent position, shifted
    one step (the parent's first move is step 0).  ``alive`` (bool[NCARDS]) and
    ``pinned`` (int64[48, 14]) are scratch space.
    """
    numbers = 0
    faces = 0
    for c in range(NCARDS):
        a = _alive(pos, c)
        alive[c] = a
        if a:
            if card_rank(piles, reserve, c) > 10:
                faces += 1
            else:
                numbers += 1
    m = numbers // 2 + faces // 3
    if m == 0:
        return False
    for i in range(NPILES):
        n = pile_count(pos, i)
        for k in range(n):
            c = i * DEPTH + k
            lo[c] = n - 1 - k
            hi[c] = m - 1 - k
    for r in range(NRESERVE):
        c = NPILES * DEPTH + r
        lo[c] = 0
        hi[c] = m - 1
    if warm:
        for c in range(NCARDS):
            if not alive[c]:
                continue
            if plo[c] - 1 > lo[c]:
                lo[c] = plo[c] - 1
            if phi[c] - 1 < hi[c]:
                hi[c] = phi[c] - 1
    changed = True
    sweeps = 0
    limit = MAX_WARM_SWEEPS if warm else MAX_COLD_SWEEPS
    while changed and sweeps < limit:
        sweeps += 1
        changed = False
        for i in range(NPILES):
            n = pile_count(pos, i)
            base = i * DEPTH
            for k in range(n - 2, -1, -1):
                if lo[base + k] < lo[base + k + 1] + 1:
                    lo[base + k] = lo[base + k + 1] + 1
            for k in range(1, n):
                if hi[base + k] > hi[base + k - 1] - 1:
                    hi[base + k] = hi[base + k - 1] - 1
        for c in range(NCARDS):
            if not alive[c]:
                continue
            lc = lo[c]
            hc = hi[c]
            if lc > hc:
                return True
            for g in range(2):
                np_ = npart[c, g]
                if np_ == 0:
                    continue
                best_lo = 1 << 30
                best_hi = -1
                for q in range(np_):
                    p = part[c, g, q]
                    if alive[p]:
                        lp = lo[p]
                        hp = hi[p]
                        if lp <= hc and hp >= lc:
                            if lp < best_lo:
                                best_lo = lp
                            if hp > best_hi:
                                best_hi = hp
                if best_hi < 0:
                    return True
                # the card's step lies in some partner's interval, and in its own
                if best_lo > lc:
                    lc = best_lo
                    changed = True
                if best_hi < hc:
                    hc = best_hi
                    changed = True
            lo[c] = lc
            hi[c] = hc
            if lc > hc:
                return True
    # cards pinned to one step must all belong to one move
    for t in range(m):
        for r in range(14):
            pinned[t, r] = 0
    for c in range(NCARDS):
        if alive[c] and lo[c] == hi[c]:
            pinned[lo[c], card_rank(piles, reserve, c)] += 1
    for t in range(m):
        nums = 0
        fac = 0
        first = 0
        for r in range(1, 14):
            k = pinned[t, r]
            if k > 1:
                return True
            if k == 1:
                if r > 10:
                    fac += 1
                else:
                    nums += 1
                    if first == 0:
                        first = r
                    elif first + r != 11:
                        return True
        if nums > 2 or (nums > 0 and fac > 0):
            return True
    return False

