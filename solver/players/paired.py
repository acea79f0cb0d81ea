"""Paired shares: one set of layouts for a position and all its moves, and the
recommendation read from them.

In each of K layouts drawn from what is known (the same layouts for every move), the
solver settles every legal move's child (:func:`child_table`: one row a layout, one column
a move; WIN, LOSS or UNRESOLVED).  From that one table:

- a move's share is the share of layouts in which its child is won;
- the position's share is the share of layouts in which *some* move's child is won (a
  position is won exactly when one of its moves keeps the win), so no move's share can
  exceed it;
- a move against the best (the move of largest share, ties to the base player's move):
  the layouts where only one of the two wins (the discordant pairs) decide the paired
  difference, with Newcombe's interval for paired proportions (method 10, 1998: each
  share's Wilson interval joined by the pairs' correlation); a move is **clearly below**
  the best when that interval's top is below 0 (:func:`paired_bounds`);
- the board's **recommendation** is the best, with the tuned player's move as the base (so
  ties go to it, then to the first in the engine's order): :func:`recommend_game` plays it,
  :func:`.hint.fair_hint` gives it;
- :func:`recommend`, the base player's move unless it is clearly below the best (then the
  best), is the rule the undo benchmark's ``board`` policy plays (:mod:`.undo`).

Known places (``fixed``) stay where they are in every layout: a player who undid a move
remembers the card it uncovered.  The cards drawn are the unknown places' multiset, put in
a canonical (sorted) order before the shuffle, so the layouts depend only on what is known.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..mirror.position import DEPTH, MAX_MOVES, NPILES, all_moves, pile_count, position_arrays
from ..portfolio.search import search_arrays
from ..verdicts import LOSS, UNRESOLVED, WIN
from .fair import base_choice, shuffle_into, view_layout
from .simple import TUNED

Z95 = 1.959963984540054


@njit(cache=True)
def sample_known(layout, pos, fixed, state, out):
    """A layout drawn uniformly among those that keep ``layout``'s cards at its tops (at
    ``pos``), at the places ``fixed`` marks and at removed places, the other places (under
    the tops) holding their cards' multiset, sorted then shuffled (Fisher–Yates with
    ``state``'s SplitMix64).  Returns how many places were drawn."""
    slots = np.empty(NPILES * DEPTH, np.int64)
    ranks = np.empty(NPILES * DEPTH, np.int8)
    n = 0
    for i in range(NPILES):
        c = pile_count(pos, i)
        for k in range(DEPTH):
            out[i, k] = layout[i, k]
            if k < c - 1 and not fixed[i, k]:
                slots[n] = i * DEPTH + k
                ranks[n] = layout[i, k]
                n += 1
    ranks[:n].sort()
    return shuffle_into(out, slots, ranks, n, state)


def child_table(layout, reserve, pos, moves, m: int, samples: int, state, budget: int,
                fixed=None) -> np.ndarray:
    """The solver's verdict (WIN, LOSS, UNRESOLVED) on each of the ``m`` moves' children in
    each of ``samples`` layouts drawn by :func:`sample_known` (``fixed``: the known places
    under the tops; None: none), int8 ``[samples, m]``."""
    if fixed is None:
        fixed = np.zeros((NPILES, DEPTH), np.bool_)
    table = np.full((samples, m), LOSS, np.int8)
    sample = np.zeros_like(layout)
    pos = np.uint64(pos)
    for s in range(samples):
        sample_known(layout, pos, fixed, state, sample)
        for j in range(m):
            p, r = position_arrays(sample, reserve, pos - moves[j])
            if not p.any() and not r.any():  # the move wins the game
                table[s, j] = WIN
                continue
            status = search_arrays(p, r, budget)[0]
            table[s, j] = WIN if status == WIN else LOSS if status == LOSS else UNRESOLVED
    return table


@njit(cache=True)
def wilson(k, n, z):
    """The Wilson score interval of ``k`` successes in ``n`` trials ((0, 1) when n is 0)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    d = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / d
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return max(0.0, centre - half), min(1.0, centre + half)


@njit(cache=True)
def paired_bounds(both, only_a, only_b, neither, z):
    """The difference of two shares over the same layouts (a's minus b's) and Newcombe's
    interval for paired proportions (method 10): (difference, low, high)."""
    n = both + only_a + only_b + neither
    if n == 0:
        return 0.0, -1.0, 1.0
    p1 = (both + only_a) / n
    p2 = (both + only_b) / n
    l1, u1 = wilson(both + only_a, n, z)
    l2, u2 = wilson(both + only_b, n, z)
    margins = float(both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    cross = float(both * neither - only_a * only_b)
    # the correlation, shrunk toward 0 by n/2 when positive (Newcombe's correction)
    if cross > n / 2:
        cross = cross - n / 2
    elif cross > 0:
        cross = 0.0
    phi = cross / np.sqrt(margins) if margins > 0 else 0.0
    d = p1 - p2
    low = d - np.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    high = d + np.sqrt(max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2))
    return d, max(-1.0, low), min(1.0, high)


@njit(cache=True)
def compare(table, base, z, out):
    """Each move of ``table`` (:func:`child_table`) against the best, into ``out[m, 5]``:
    wins, only this move wins, only the best wins, the paired difference's low and high
    bounds.  Returns the best's index (most wins, ties to ``base``)."""
    samples, m = table.shape
    best = base
    for j in range(m):
        w = 0
        for s in range(samples):
            w += table[s, j] == WIN
        out[j, 0] = w
    for j in range(m):
        if out[j, 0] > out[best, 0]:
            best = j
    for j in range(m):
        both = only_j = only_b = 0
        for s in range(samples):
            a = table[s, j] == WIN
            b = table[s, best] == WIN
            both += a and b
            only_j += a and not b
            only_b += b and not a
        out[j, 1] = only_j
        out[j, 2] = only_b
        _, low, high = paired_bounds(both, only_j, only_b, samples - both - only_j - only_b, z)
        out[j, 3] = low
        out[j, 4] = high
    return best


@njit(cache=True)
def recommend(table, base, z, out):
    """The recommendation from ``table``: the base player's move ``base`` unless its paired
    difference with the best is clearly below 0 (the interval's top, at ``z``, below 0),
    then the best.  Returns (recommended, best); ``out`` as :func:`compare` fills it."""
    best = compare(table, base, z, out)
    if out[base, 4] < 0.0:
        return best, best
    return base, best


def position_counts(table: np.ndarray) -> tuple[int, int]:
    """(layouts in which some move's child is won, layouts with none won and some not
    settled) of a :func:`child_table`."""
    won = (table == WIN).any(axis=1)
    open_ = ~won & (table == UNRESOLVED).any(axis=1)
    return int(won.sum()), int(open_.sum())


def recommend_game(piles, reserve, root, samples: int, budget: int, z: float, seed: int,
                   line) -> tuple[int, int, int]:
    """A game of the board's recommendation from ``root`` (its moves into ``line``): at each
    decision the move whose child is won in most of ``samples`` layouts drawn from the view
    (:func:`compare`, at ``z``), ties to the tuned player's move (then the first in the
    engine's order).  Returns (moves made, final position, solves)."""
    moves = np.empty(MAX_MOVES, np.uint64)
    view = np.zeros((NPILES, DEPTH), np.int8)
    state = np.array([seed], np.uint64)
    cmp = np.zeros((MAX_MOVES, 5), np.float64)
    pos = np.uint64(root)
    n = solves = 0
    while pos != 0:
        m = int(all_moves(piles, reserve, pos, moves))
        if m == 0:
            break
        k = 0
        if m > 1:
            view_layout(piles, pos, view)
            tuned = int(base_choice(view, reserve, pos, moves, m, TUNED))
            table = child_table(view, reserve, pos, moves, m, samples, state, budget)
            solves += table.size
            k = int(compare(table, tuned, z, cmp[:m]))
        line[n] = moves[k]
        n += 1
        pos = np.uint64(pos - moves[k])
    return n, int(pos), solves
