"""Between the core game and the mirror: a Deal as the kernels' arrays, a packed move as a Move."""

from __future__ import annotations

import functools

import numpy as np

from halfmoon.game.deal import SOURCES, Deal
from halfmoon.game.moves import Move

from .position import DEPTH, NPILES, SOURCE_DELTAS, delta_sources

_SOURCE_DELTA = {s: int(SOURCE_DELTAS[i]) for i, s in enumerate(SOURCES)}


def deal_arrays(deal: Deal) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's view of a deal: ranks of piles (12 × 8, bottom first) and reserve."""
    piles = np.zeros((NPILES, DEPTH), np.int8)
    for i, pile in enumerate(deal.piles):
        for k, card in enumerate(pile):
            piles[i, k] = card.rank
    reserve = np.array([0 if c is None else c.rank for c in deal.reserve], np.int8)
    return piles, reserve


@functools.lru_cache(maxsize=None)  # at most 1,330 moves; a Move is immutable
def delta_to_move(delta: int) -> Move:
    """The game's Move of a packed move (the delta a position loses when it is played)."""
    out = np.empty(3, np.int64)
    n = delta_sources(np.uint64(delta), out)
    return Move(tuple(SOURCES[out[k]] for k in range(n)))


def move_delta(move: Move) -> int:
    """The packed move of a game's Move: the delta a position loses when it is played."""
    return sum(_SOURCE_DELTA[s] for s in move.sources)


def sample_arrays() -> tuple[np.ndarray, np.ndarray]:
    """Deal 0 as the kernels' arrays: what the warm-up groups of :mod:`solver.build` run on."""
    return deal_arrays(Deal.from_number(0))
