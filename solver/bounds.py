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

from .kernels import DEPTH, NPILES, NRESERVE, pile_count, reserve_full

NCARDS = NPILES * DEPTH + NRESERVE  # card id: pile i, height k -> 8 i + k; reserve r -> 96 + r
MAX_PARTNERS = 8
# Sweeps of the narrowing: to the fixpoint from scratch, a couple from a parent's
# intervals (stopping early is sound: the intervals are only less narrow).
MAX_COLD_SWEEPS = 1000
MAX_WARM_SWEEPS = 2
# columns of the scratch array ``pinned`` (int64[48, SCRATCH_COLS]): pinned cards by rank,
# then the balance rule's counts (possibly gone, surely gone) and its two kinds of cut
PIN, MAYBE, SURE, NO_MORE, ALL_BY = 0, 14, 28, 42, 56
SCRATCH_COLS = 70


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
def bounds_dead(piles, reserve, part, npart, pos, lo, hi, plo, phi, warm, alive, pinned, balance=False):
    """True if the removal-time bounds prove ``pos`` lost.

    ``lo``/``hi`` (int64[NCARDS]) receive the intervals.  With ``warm`` set, the
    search starts from ``plo``/``phi``, the intervals of the parent position, shifted
    one step (the parent's first move is step 0).  ``alive`` (bool[NCARDS]) and
    ``pinned`` (int64[48, SCRATCH_COLS]) are scratch space.  With ``balance`` the
    narrowing also uses the balance of each step (:func:`_balance_cuts`).
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
        if balance:
            cut = _balance_cuts(piles, reserve, alive, lo, hi, m, pinned)
            if cut < 0:
                return True
            changed |= cut > 0
    # cards pinned to one step must all belong to one move
    for t in range(m):
        for r in range(14):
            pinned[t, PIN + r] = 0
    for c in range(NCARDS):
        if alive[c] and lo[c] == hi[c]:
            pinned[lo[c], PIN + card_rank(piles, reserve, c)] += 1
    for t in range(m):
        nums = 0
        fac = 0
        first = 0
        for r in range(1, 14):
            k = pinned[t, PIN + r]
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



@njit(cache=True, _nrt=False, inline='always')
def _group_bounds(pinned, v, r0, r1, r2):
    """The bounds on a class's moves by step v: each of its ranks has as many cards gone."""
    lb = max(pinned[v, SURE + r0], pinned[v, SURE + r1])
    ub = min(pinned[v, MAYBE + r0], pinned[v, MAYBE + r1])
    if r2 > 0:
        lb = max(lb, pinned[v, SURE + r2])
        ub = min(ub, pinned[v, MAYBE + r2])
    return lb, ub


@njit(cache=True, _nrt=False)
def _balance_cuts(piles, reserve, alive, lo, hi, m, pinned):
    """Narrow the intervals by the balance of each step (rule ``BALANCE``, docs/solver.md):
    the cards gone by step v are as many of rank r as of rank 11 - r, as many J as Q as K,
    and make v + 1 moves.  Returns -1 if that cannot hold, else the cards narrowed."""
    for v in range(m):
        for r in range(14):
            pinned[v, MAYBE + r] = 0
            pinned[v, SURE + r] = 0
            pinned[v, NO_MORE + r] = 0
            pinned[v, ALL_BY + r] = 0
    for c in range(NCARDS):
        if alive[c]:
            r = card_rank(piles, reserve, c)
            pinned[lo[c], MAYBE + r] += 1  # histograms, summed below
            pinned[hi[c], SURE + r] += 1
    for v in range(1, m):
        for r in range(1, 14):
            pinned[v, MAYBE + r] += pinned[v - 1, MAYBE + r]
            pinned[v, SURE + r] += pinned[v - 1, SURE + r]
    for v in range(m - 1):  # by the last step everything is gone: nothing to learn
        low = 0
        high = 0
        for g in range(6):
            r0 = g + 1 if g < 5 else 11
            r1 = 10 - g if g < 5 else 12
            r2 = 0 if g < 5 else 13
            lb, ub = _group_bounds(pinned, v, r0, r1, r2)
            if lb > ub:
                return -1
            low += lb
            high += ub
        if low > v + 1 or high < v + 1:
            return -1
        for g in range(6):
            r0 = g + 1 if g < 5 else 11
            r1 = 10 - g if g < 5 else 12
            r2 = 0 if g < 5 else 13
            lb, ub = _group_bounds(pinned, v, r0, r1, r2)
            nlb = max(lb, v + 1 - (high - ub))
            nub = min(ub, v + 1 - (low - lb))
            if nlb > nub:
                return -1
            for q in range(3):
                r = r0 if q == 0 else (r1 if q == 1 else r2)
                if r == 0:
                    continue
                if pinned[v, SURE + r] >= nub:
                    pinned[v, NO_MORE + r] = 1  # no card of rank r not yet sure goes by v
                if pinned[v, MAYBE + r] <= nlb:
                    pinned[v, ALL_BY + r] = 1  # every card of rank r that may go by v does
    cuts = 0
    for c in range(NCARDS):
        if not alive[c]:
            continue
        r = card_rank(piles, reserve, c)
        lc = lo[c]
        hc = hi[c]
        nl = lc
        nh = hc
        for v in range(lc, hc):
            if pinned[v, NO_MORE + r]:
                nl = v + 1
        for v in range(hc - 1, lc - 1, -1):
            if pinned[v, ALL_BY + r]:
                nh = v
        if nl > nh:
            return -1
        if nl != lc or nh != hc:
            lo[c] = nl
            hi[c] = nh
            cuts += 1
    return cuts
