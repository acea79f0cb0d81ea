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


@njit(cache=True)
def card_rank(piles, reserve, c):
    if c < NPILES * DEPTH:
        return np.int64(piles[c // DEPTH, c % DEPTH])
    return np.int64(reserve[c - NPILES * DEPTH])


@njit(cache=True)
def partner_table(piles, reserve):
    """``part[c, g, :npart[c, g]]``: the cards that can share a move with card c,
    group g (one group for number cards, two for face cards), never in c's pile."""
    part = np.full((NCARDS, 2, MAX_PARTNERS * 2), -1, np.int16)
    npart = np.zeros((NCARDS, 2), np.int8)
    for c in range(NCARDS):
        rc = card_rank(piles, reserve, c)
        if rc == 0:
            continue
        pc = c // DEPTH if c < NPILES * DEPTH else -1
        for p in range(NCARDS):
            rp = card_rank(piles, reserve, p)
            if rp == 0 or p == c:
                continue
            pp = p // DEPTH if p < NPILES * DEPTH else -2
            if pp == pc:
                continue
            if rc <= 10:
                if rp + rc == 11:
                    part[c, 0, npart[c, 0]] = p
                    npart[c, 0] += 1
            elif rp > 10 and rp != rc:
                # group 0: the lower of the two other face ranks, group 1: the higher
                g = 0
                other = 0
                for f in range(11, 14):
                    if f != rc:
                        if f == rp:
                            g = other
                        other += 1
                part[c, g, npart[c, g]] = p
                npart[c, g] += 1
    return part, npart


@njit(cache=True)
def _alive(pos, c):
    if c < NPILES * DEPTH:
        return (c % DEPTH) < pile_count(pos, c // DEPTH)
    return reserve_full(pos, c - NPILES * DEPTH)


@njit(cache=True)
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
            if alive[c]:
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
            if lo[c] > hi[c]:
                return True
            for g in range(2):
                np_ = npart[c, g]
                if np_ == 0:
                    continue
                best_lo = 1 << 30
                best_hi = -1
                for j in range(np_):
                    p = part[c, g, j]
                    if alive[p] and lo[p] <= hi[c] and hi[p] >= lo[c]:
                        a = lo[c] if lo[c] > lo[p] else lo[p]
                        b = hi[c] if hi[c] < hi[p] else hi[p]
                        if a < best_lo:
                            best_lo = a
                        if b > best_hi:
                            best_hi = b
                if best_hi < 0:
                    return True
                if best_lo > lo[c]:
                    lo[c] = best_lo
                    changed = True
                if best_hi < hi[c]:
                    hi[c] = best_hi
                    changed = True
            if lo[c] > hi[c]:
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
    return False  # _counting_dead(piles, reserve, pos, lo, hi, alive, m, pinned)


@njit(cache=True)
def _groups_needed(counts):
    """Moves needed to remove cards counted by rank (index 1..13): one of each
    complementary rank per pair, one of each face rank per triplet."""
    need = 0
    for r in range(1, 6):
        a = counts[r]
        b = counts[11 - r]
        need += a if a > b else b
    f = counts[11]
    if counts[12] > f:
        f = counts[12]
    if counts[13] > f:
        f = counts[13]
    return need + f


@njit(cache=True)
def _counting_dead(piles, reserve, pos, lo, hi, alive, m, work):
    """Counting and matching arguments on the intervals.

    - Deadlines: the cards that must go by step t need at least as many moves as
      their ranks demand, and only t + 1 moves fit in steps 0..t; likewise for the
      cards that cannot go before step t and the m - t moves from t on.
    - Matching: in a win each number card shares its move with a card of the
      complementary rank in another pile whose interval meets its own, and each card
      has its own partner: a perfect bipartite matching must exist between the two
      ranks of every pair class, and between each two face ranks.
    """
    # work[t, r]: cards of rank r with hi == t (rows 0..m-1)
    for t in range(m):
        for r in range(14):
            work[t, r] = 0
    counts = np.zeros(14, np.int64)
    for c in range(NCARDS):
        if alive[c]:
            work[hi[c], card_rank(piles, reserve, c)] += 1
    for t in range(m):
        for r in range(1, 14):
            counts[r] += work[t, r]
        if _groups_needed(counts) > t + 1:
            return True
    for t in range(m):
        for r in range(14):
            work[t, r] = 0
    counts[:] = 0
    for c in range(NCARDS):
        if alive[c]:
            work[lo[c], card_rank(piles, reserve, c)] += 1
    for t in range(m - 1, -1, -1):
        for r in range(1, 14):
            counts[r] += work[t, r]
        if _groups_needed(counts) > m - t:
            return True
    # matching
    byrank = np.full((14, 8), -1, np.int64)
    nby = np.zeros(14, np.int64)
    for c in range(NCARDS):
        if alive[c]:
            r = card_rank(piles, reserve, c)
            byrank[r, nby[r]] = c
            nby[r] += 1
    for r in range(1, 6):
        if not _perfect_matching(byrank, nby, r, 11 - r, lo, hi):
            return True
    if not _perfect_matching(byrank, nby, 11, 12, lo, hi):
        return True
    if not _perfect_matching(byrank, nby, 11, 13, lo, hi):
        return True
    if not _perfect_matching(byrank, nby, 12, 13, lo, hi):
        return True
    return False


@njit(cache=True)
def _compatible(a, b, lo, hi):
    if a < NPILES * DEPTH and b < NPILES * DEPTH and a // DEPTH == b // DEPTH:
        return False
    return lo[a] <= hi[b] and lo[b] <= hi[a]


@njit(cache=True)
def _perfect_matching(byrank, nby, ra, rb, lo, hi):
    """Whether every card of rank ``ra`` can get its own compatible card of rank ``rb``
    (Kuhn's augmenting paths; at most 8 cards a side)."""
    na = nby[ra]
    nb = nby[rb]
    if na != nb:
        return False
    match_b = np.full(8, -1, np.int64)
    for a in range(na):
        seen = np.zeros(8, np.bool_)
        # iterative DFS for an augmenting path from a
        stack_a = np.empty(9, np.int64)
        stack_j = np.empty(9, np.int64)
        via = np.full(8, -1, np.int64)
        top = 0
        stack_a[0] = a
        stack_j[0] = 0
        found = -1
        while top >= 0:
            x = stack_a[top]
            j = stack_j[top]
            if j >= nb:
                top -= 1
                continue
            stack_j[top] = j + 1
            if seen[j] or not _compatible(byrank[ra, x], byrank[rb, j], lo, hi):
                continue
            seen[j] = True
            via[j] = x
            if match_b[j] < 0:
                found = j
                break
            top += 1
            stack_a[top] = match_b[j]
            stack_j[top] = 0
        if found < 0:
            return False
        # flip the path: follow via links back to a
        j = found
        while True:
            x = via[j]
            prev = -1
            # the b-node x was matched to before (if any) continues the path
            for k in range(nb):
                if match_b[k] == x and k != j:
                    prev = k
            match_b[j] = x
            if x == a:
                break
            j = prev
    return True
