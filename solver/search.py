"""The solver's Python API: ``solve(deal_or_code_or_layout, budget=…) -> Result``."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional, Union

import numpy as np

from halfmoon.deal import SOURCES, Deal
from halfmoon.inputs import load_deal
from halfmoon.moves import Move

from .bounds import partner_table
from .dfs import LOSS, UNRESOLVED, WIN, dfs
from .kernels import DEPTH, MAX_PLY, NPILES, NRESERVE, delta_sources, initial_position
from .pruning import ALL_RULES, BOUNDS, class_prefix
from .table import Table

SOLVER_VERSION = "1"
DEFAULT_BUDGET = 50_000_000
# Phase one searches this many positions without the bounds test (cheap; settles
# most wins); phase two goes on with it.
QUICK_PHASE = 2_000
VERDICTS = {WIN: "win", LOSS: "loss", UNRESOLVED: "unresolved"}


@dataclass(frozen=True)
class Result:
    """The verdict on a deal or position."""

    verdict: str  # "win" | "loss" | "unresolved"
    moves: Optional[tuple[Move, ...]]
    nodes: int
    seconds: float
    code: Optional[str] = None

    @property
    def solved(self) -> bool:
        return self.verdict != "unresolved"


def deal_arrays(deal: Deal) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's view of a deal: ranks of piles (12 × 8, bottom first) and reserve."""
    piles = np.zeros((NPILES, DEPTH), np.int8)
    for i, pile in enumerate(deal.piles):
        for k, card in enumerate(pile):
            piles[i, k] = card.rank
    reserve = np.array([0 if c is None else c.rank for c in deal.reserve], np.int8)
    return piles, reserve


def delta_to_move(delta: int) -> Move:
    out = np.empty(3, np.int64)
    n = delta_sources(np.uint64(delta), out)
    return Move(tuple(SOURCES[out[k]] for k in range(n)))


_default_table: Optional[Table] = None


def default_table() -> Table:
    global _default_table
    if _default_table is None:
        _default_table = Table()
    return _default_table


def _as_deal(deal: Union[Deal, str, int]) -> Deal:
    if isinstance(deal, Deal):
        return deal
    if isinstance(deal, int):
        return Deal.from_number(deal)
    return load_deal(deal)


def solve(
    deal: Union[Deal, str, int],
    budget: int = DEFAULT_BUDGET,
    *,
    rules: int = ALL_RULES,
    table: Optional[Table] = None,
    quick_phase: int = QUICK_PHASE,
) -> Result:
    """Settle a deal (a Deal, a code, a deal number or a layout file).

    ``budget`` bounds the positions expanded; ``rules`` selects the pruning rules of
    :mod:`solver.pruning` (all by default); ``table`` is the transposition table to
    reuse (a module-wide one by default).
    """
    if budget < 1:
        raise ValueError(f"budget must be at least 1 position, got {budget}")
    d = _as_deal(deal)
    t0 = time.perf_counter()
    piles, reserve = deal_arrays(d)
    root = initial_position(piles, reserve)
    pref = class_prefix(piles, reserve)
    part, npart = partner_table(piles, reserve)
    tab = table if table is not None else default_table()
    line = np.zeros(MAX_PLY, np.uint64)
    stats = np.zeros(4, np.int64)
    gen = tab.next_generation()
    nodes = 0
    phases = [(rules & ~BOUNDS, min(quick_phase, budget))] if rules & BOUNDS and quick_phase else []
    phases.append((rules, budget))
    status = UNRESOLVED
    for flags, limit in phases:
        status = dfs(piles, reserve, pref, part, npart, root, limit - nodes if limit > nodes else 1,
                     flags, tab.keys, tab.gens, np.uint32(gen), tab.bits, line, stats)
        nodes += int(stats[0])
        if status != UNRESOLVED or nodes >= budget:
            break
    moves = None
    if status == WIN:
        moves = tuple(delta_to_move(int(line[k])) for k in range(int(stats[1])))
    return Result(VERDICTS[status], moves, nodes, time.perf_counter() - t0, d.code)
