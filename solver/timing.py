"""How fast this machine runs at the moment: a fixed workload timed beside a benchmark.

A machine shared with other work, or one that changes its clock, runs the same code at
different speeds from one second to the next: a benchmark figure alone cannot tell a slower
program from a slower machine.  So a benchmark times this workload before, between and after
its parts and reports it beside its figures.

The workload is one of the solver's insides, its move generation with the free-card rule,
over the packed positions of five deals reached by random play from their starts: about
30 KiB of data, which stays in a core's first-level cache, so it measures the processor, not
memory.  :meth:`Reference.time` returns nanoseconds per generation, the best of three short
runs (about 8 ms in all); its spread over a run says whether the machine held its speed.
"""

from __future__ import annotations

import time

import numpy as np

from halfmoon.game.deal import Deal

from .depth_first.pruning import generate_over, new_workspace, top_table
from .mirror.convert import deal_arrays
from .mirror.position import MAX_MOVES, all_moves, initial_position

DEALS = (129, 1570, 38, 390, 876)
POSITIONS = 2048
PASSES = 20


def sample_positions(numbers=DEALS, count: int = POSITIONS, seed: int = 0):
    """``count`` positions of the deals ``numbers`` reached by random play from their
    starts (the same ones for the same arguments): (top tables, deal index of each
    position, positions)."""
    rng = np.random.default_rng(seed)
    arrays = [deal_arrays(Deal.from_number(n)) for n in numbers]
    tops = np.stack([top_table(p, r) for p, r in arrays])
    which = np.empty(count, np.int64)
    positions = np.empty(count, np.uint64)
    moves = np.empty(MAX_MOVES, np.uint64)
    k = 0
    while k < count:
        d = k % len(arrays)
        piles, reserve = arrays[d]
        pos = initial_position(piles, reserve)
        while k < count:
            m = all_moves(piles, reserve, pos, moves)
            if m == 0:
                break
            which[k], positions[k] = d, pos
            k += 1
            pos = pos - moves[rng.integers(m)]
    return tops, which, positions


class Reference:
    """The reference workload, ready to time (compiled or loaded from numba's cache when
    made)."""

    def __init__(self, numbers=DEALS) -> None:
        self.tops, self.which, self.positions = sample_positions(numbers)
        self.out = np.empty(MAX_MOVES, np.uint64)
        self.keys = np.empty(MAX_MOVES, np.int64)
        self.ws = new_workspace()
        self._run(1)

    def _run(self, passes: int) -> float:
        t = time.perf_counter()
        generate_over(self.tops, self.which, self.positions, passes, self.out, self.keys, self.ws)
        return time.perf_counter() - t

    def time(self, repeats: int = 3) -> float:
        """Nanoseconds per move generation, the best of ``repeats`` runs."""
        n = PASSES * self.positions.size
        return min(self._run(PASSES) for _ in range(repeats)) / n * 1e9
