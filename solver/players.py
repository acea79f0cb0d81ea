"""Simple players over the packed mirror: a random player and a greedy player.

Neither thinks ahead: each turn they look at the legal moves of the position (the
unpruned :func:`solver.kernels.all_moves`, in the reference engine's order) and
pick one, until the game is won or stuck.

- **Random** (``RANDOM``): a uniformly random legal move each turn.  The random
  numbers come from SplitMix64 (the generator of the deal codes) seeded per game,
  and a uniform index in ``[0, m)`` is drawn by rejection, so a game is exactly
  reproducible from its seed on every machine.
- **Greedy** (``GREEDY``): the legal move with the largest key, compared in order:

  1. cards uncovered: the move's pile cards that cover another card (their pile
     holds at least two cards), since each one brings a new card into play;
  2. pairs before triplets;
  3. the sum of the sizes of the piles the move takes from (dig into the fullest
     piles first; reserve cards count 0, so pile cards are preferred to them);

  and ties go to the first move in the engine's order (sources P1..P12, R1..R8).

  The rule was chosen among a few simple ones on deals 0–1,999: this one won 21.0 %
  of them; the same rule with triplets before pairs won 15.2 %, the fullest piles
  alone 17.8 %, pairs before triplets then the fullest piles 9.4 %.

Each game writes its moves, as deltas, into ``line`` (uint64[48]).  Like the other
kernels, this module imports nothing from the project outside :mod:`solver`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .generator import below
from .kernels import MAX_MOVES, NPILES, NRESERVE, all_moves, pile_count

RANDOM = 0
GREEDY = 1


@njit(cache=True)
def _greedy_key(pos, delta):
    """The greedy player's key of a move (larger is better), packed in one integer."""
    uncovered = 0
    sizes = 0
    nsrc = 0
    for i in range(NPILES):
        if (delta >> np.uint64(4 * i)) & np.uint64(15):
            nsrc += 1
            c = pile_count(pos, i)
            sizes += c
            if c >= 2:
                uncovered += 1
    for r in range(NRESERVE):
        if (delta >> np.uint64(48 + r)) & np.uint64(1):
            nsrc += 1
    pair = 1 if nsrc == 2 else 0
    # uncovered <= 3, pair <= 1, sizes <= 24 < 32
    return (uncovered * 2 + pair) * 32 + sizes


@njit(cache=True)
def play_game(piles, reserve, pos, strategy, state, line):
    """Play one game from ``pos``; return (moves made, final position).

    The game is won when the final position is 0.  ``state`` is the random
    player's one-element SplitMix64 state (ignored by the greedy player).
    """
    moves = np.empty(MAX_MOVES, np.uint64)
    n = 0
    while pos != np.uint64(0):
        m = all_moves(piles, reserve, pos, moves)
        if m == 0:
            break
        if strategy == RANDOM:
            k = below(state, m)
        else:
            k = 0
            best = _greedy_key(pos, moves[0])
            for j in range(1, m):
                key = _greedy_key(pos, moves[j])
                if key > best:
                    best = key
                    k = j
        line[n] = moves[k]
        n += 1
        pos = pos - moves[k]
    return n, pos


@njit(cache=True)
def play_batch(piles, reserve, roots, strategy, seeds, lines, nmoves, finals):
    """Play one game on each deal ``d`` (``piles[d]``, ``reserve[d]``, ``roots[d]``).

    Fills ``lines[d]`` with the moves, ``nmoves[d]`` with their number and
    ``finals[d]`` with the final position; ``seeds[d]`` seeds the random player.
    """
    state = np.empty(1, np.uint64)
    for d in range(roots.shape[0]):
        state[0] = seeds[d]
        n, pos = play_game(piles[d], reserve[d], roots[d], strategy, state, lines[d])
        nmoves[d] = n
        finals[d] = pos
