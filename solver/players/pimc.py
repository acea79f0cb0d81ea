"""The PIMC player: perfect-information sampling (hindsight optimisation), the baseline of
the literature.  In each of K layouts drawn from the view (:func:`.fair.sample_layout`, the
same layouts for every move) the solver settles every move's child; the move that wins in
most samples is played, ties to the base player's move.

The solver's searches are called from Python here (a solve a child), so these loops are
Python's; the view and the samples are the fair players' kernels.
"""

from __future__ import annotations

import numpy as np

from ..mirror.position import (
    DEPTH,
    MAX_MOVES,
    NPILES,
    all_moves,
    position_arrays,
)
from ..portfolio.search import search_arrays
from ..verdicts import LOSS, WIN
from .fair import base_choice, sample_layout, view_layout


def child_solves(view, reserve, pos, moves, m, samples, state,
                 budget) -> tuple[np.ndarray, np.ndarray, int]:
    """In ``samples`` layouts drawn from the view ``view`` (the same for every move), how
    often the solver (``budget`` positions a solve) wins each move's child, how often it
    cannot settle it, and the solves made."""
    wins = np.zeros(m, np.int64)
    unknown = np.zeros(m, np.int64)
    sample = np.zeros_like(view)
    solves = 0
    for _ in range(samples):
        sample_layout(view, pos, state, sample)
        for j in range(m):
            p, r = position_arrays(sample, reserve, pos - moves[j])
            if not p.any() and not r.any():  # the move wins the game
                wins[j] += 1
                continue
            status = search_arrays(p, r, budget)[0]
            wins[j] += status == WIN
            unknown[j] += status not in (WIN, LOSS)
            solves += 1
    return wins, unknown, solves


def pimc_choice(view, reserve, pos, moves, m, base, samples, budget, state) -> tuple[int, int]:
    """The PIMC player's move index on the view ``view`` and the solves it took: the move
    whose child the solver wins in most of ``samples`` sampled layouts, ties to the move of
    the base player ``base``."""
    b = int(base_choice(view, reserve, pos, moves, m, base))
    if m == 1:
        return b, 0
    wins, _, solves = child_solves(view, reserve, pos, moves, m, samples, state, budget)
    best = b
    for j in range(m):
        if wins[j] > wins[best]:
            best = j
    return best, solves


def pimc_game(piles, reserve, root, base, samples, budget, seed: int, line) -> tuple[int, int, int]:
    """A game of the PIMC player from ``root`` (its moves into ``line``): (moves made, final
    position, solves)."""
    moves = np.empty(MAX_MOVES, np.uint64)
    view = np.zeros((NPILES, DEPTH), np.int8)
    state = np.array([seed], np.uint64)
    pos = np.uint64(root)
    n = solves = 0
    while pos != 0:
        m = all_moves(piles, reserve, pos, moves)
        if m == 0:
            break
        view_layout(piles, pos, view)
        k, s = pimc_choice(view, reserve, pos, moves, m, base, samples, budget, state)
        solves += s
        line[n] = moves[k]
        n += 1
        pos = np.uint64(pos - moves[k])
    return n, int(pos), solves
