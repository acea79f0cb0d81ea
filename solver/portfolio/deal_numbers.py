"""Many deals in one call of compiled code: the batch's hot path.

Most deals are settled by the first turn of the portfolio (solver/portfolio/search.py: the
search with every rule, the bounds test at the root only,
``QUICK_PHASE`` positions).  For a piece of deal numbers, :func:`quick_kernel` makes each
deal with the generator's twin, counts its features, and plays that first turn, all without
Python; a deal it does not settle is handed, with that turn's paused search and its
generation of the table, to :func:`solver.portfolio.search.search_arrays`, which goes on from
there: every verdict, position count, line and settling search is exactly what
:func:`solver.solve` gives, and the first turn is searched once.  Times are read from the
processor's cycle counter inside the kernel and converted with the rate measured around the
calls.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Sequence

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from ..depth_first.bounds import partner_table
from ..depth_first.dfs import dfs, new_stack
from ..depth_first.projections import PROJECTION_MASKS, projection_arrays
from ..depth_first.pruning import ALL_RULES, PROJECTIONS, top_table
from ..mirror.generator import DECK_SIZE, deal_ranks, deck_layout_features
from ..mirror.position import (
    DEPTH,
    MAX_MOVES,
    MAX_PLY,
    NPILES,
    NRESERVE,
    RESERVE_SHIFT,
    all_moves,
    initial_position,
    rank_class,
)
from ..verdicts import LOSS, UNRESOLVED, WIN
from .search import (
    PROBE,
    QUICK_PHASE,
    _portfolio,
    _probe,
    default_tables,
    member_name,
    search_arrays,
)

# the features of a deal's start, in the columns' order
DEAL_FEATURES = ("start_moves", "reserve_faces", "top_faces", "free_classes")
NDEAL = len(DEAL_FEATURES)
OPEN = -2  # verdict of a deal the first turn left open


@intrinsic
def _read_cycles(typingctx):
    """The processor's cycle counter (llvm.readcyclecounter)."""
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [])
        fn = builder.module.declare_intrinsic("llvm.readcyclecounter", fnty=fnty)
        return builder.call(fn, [])
    return types.uint64(), codegen


@njit(cache=True)
def cycles():
    return _read_cycles()


@njit(cache=True)
def deal_features(piles, reserve, root, moves, out):
    """The batch's features of a deal's start (halfmoon.batch.results.deal_features):
    legal moves, faces in the reserve, faces on the pile tops, classes with a move."""
    m = all_moves(piles, reserve, root, moves)
    classes = 0
    for k in range(m):
        d = moves[k]
        rank = 0  # the class of a move is that of any of its cards: take the first
        for i in range(NPILES):
            if rank == 0 and (d >> np.uint64(4 * i)) & np.uint64(15):
                rank = piles[i, DEPTH - 1]
        for r in range(NRESERVE):
            if rank == 0 and (d >> np.uint64(RESERVE_SHIFT + r)) & np.uint64(1):
                rank = reserve[r]
        classes |= 1 << rank_class(rank)
    out[0] = m
    out[1] = 0
    for r in range(NRESERVE):
        if reserve[r] >= 11:
            out[1] += 1
    out[2] = 0
    for i in range(NPILES):
        if piles[i, DEPTH - 1] >= 11:
            out[2] += 1
    n = 0
    while classes:
        n += classes & 1
        classes >>= 1
    out[3] = n


@njit(cache=True)
def start_features(numbers, out):
    """The batch's features (:func:`deal_features`) of the start of each deal ``numbers[k]``,
    into ``out[k]`` (int64, NDEAL columns): what a results file of format 2 leaves out,
    since the deal number gives it."""
    deck = np.empty(DECK_SIZE, np.int64)
    state = np.zeros(1, np.uint64)
    moves = np.empty(MAX_MOVES, np.uint64)
    piles = np.zeros((NPILES, DEPTH), np.int8)
    reserve = np.zeros(NRESERVE, np.int8)
    for k in range(numbers.size):
        deal_ranks(numbers[k], piles, reserve, deck, state)
        deal_features(piles, reserve, initial_position(piles, reserve), moves, out[k])


@njit(cache=True, nogil=True)
def census_features(numbers, out):
    """The start's features (:func:`deal_features`) and the layout's
    (:data:`solver.mirror.generator.LAYOUT_FEATURES`) of each deal ``numbers[k]``, into
    ``out[k]`` (int64, NDEAL + 2 columns), the deal generated once; without the GIL, so that
    threads share the work."""
    deck = np.empty(DECK_SIZE, np.int64)
    state = np.zeros(1, np.uint64)
    moves = np.empty(MAX_MOVES, np.uint64)
    where = np.empty(DECK_SIZE, np.int64)
    piles = np.zeros((NPILES, DEPTH), np.int8)
    reserve = np.zeros(NRESERVE, np.int8)
    for k in range(numbers.size):
        deal_ranks(numbers[k], piles, reserve, deck, state)  # leaves the shuffled deck in deck
        row = out[k]
        deal_features(piles, reserve, initial_position(piles, reserve), moves, row)
        deck_layout_features(deck, where, row[NDEAL:])


@njit(cache=True)
def quick_kernel(numbers, start, probe, allowance, budget, flags, slots, gen, bits, pslots, pgen,
                 pbits, verdicts, nodes, lines, nline, features, piles_out, reserve_out, ticks,
                 probed):
    """For each deal number from index ``start`` on: its ranks (into
    ``piles_out``/``reserve_out``), features and the portfolio's first turn of ``allowance``
    positions (``flags``: its rules) on a fresh generation of the table and of the projected
    games' table (``pslots``, ``pgen``, ``pbits``).  Writes the verdict
    (WIN, LOSS, UNRESOLVED when the deal's ``budget`` is spent, OPEN when budget is left),
    positions, winning line and cycles of each deal.  Stops after the first deal left OPEN,
    so that the portfolio goes on from where that turn paused: returns the two tables'
    generations, the index of the deal after the last one played and the first turn's
    search (its stack)."""
    deck = np.empty(DECK_SIZE, np.int64)
    state = np.zeros(1, np.uint64)
    moves = np.empty(MAX_MOVES, np.uint64)
    line = np.zeros(MAX_PLY, np.uint64)
    stats = np.zeros(4, np.int64)
    no_masks = np.zeros(0, np.int64)
    rows = np.int64(1) << bits
    stack = new_stack(np.uint64(0))
    for k in range(start, numbers.size):
        t0 = _read_cycles()
        piles = piles_out[k]
        reserve = reserve_out[k]
        deal_ranks(numbers[k], piles, reserve, deck, state)
        root = initial_position(piles, reserve)
        deal_features(piles, reserve, root, moves, features[k])
        tops = top_table(piles, reserve)
        part, npart = partner_table(piles, reserve)
        gen += 1  # as Table.next_generation: older entries read as empty, filter cleared
        if gen >= 4294967295:
            slots[:] = 0
            gen = 1
        slots[rows:] = 0
        pgen += 1  # the projected games of this deal (that table's filter is not read)
        if pgen >= 4294967295:
            pslots[:] = 0
            pgen = 1
        ptab = (pslots, np.uint32(pgen), pbits)
        line[:] = 0
        stack = new_stack(np.uint64(0))
        # root, noise and depth typed as the portfolio passes them from Python (int64), so
        # that this call and search_arrays share one compiled dfs instead of two
        used = 0
        if probe:  # the probe, without the projections (their arrays left empty)
            status = dfs(piles, reserve, tops, part, npart, np.int64(root), min(probe, budget),
                         flags & ~PROJECTIONS, slots, np.uint32(gen), bits, line, stats, stack,
                         np.int64(0), projection_arrays(piles, reserve, no_masks), ptab,
                         np.int64(1))
            used = stats[0]
            if status == UNRESOLVED and used < budget:
                stack = new_stack(np.uint64(0))
                status = dfs(piles, reserve, tops, part, npart, np.int64(root),
                             min(allowance, budget - used), flags, slots, np.uint32(gen), bits,
                             line, stats, stack, np.int64(0),
                             projection_arrays(piles, reserve, PROJECTION_MASKS), ptab,
                             np.int64(1))
            else:
                stats[0] = 0
                probed[k] = True
        else:
            status = dfs(piles, reserve, tops, part, npart, np.int64(root), allowance, flags,
                         slots, np.uint32(gen), bits, line, stats, stack, np.int64(0),
                         projection_arrays(piles, reserve, PROJECTION_MASKS), ptab, np.int64(1))
        stats[0] += used
        nodes[k] = stats[0]
        if status == WIN:
            nline[k] = stats[1]
            for j in range(stats[1]):
                lines[k, j] = line[j]
        verdicts[k] = status
        ticks[k] = _read_cycles() - t0
        if status == UNRESOLVED and stats[0] < budget:  # the portfolio goes on
            verdicts[k] = OPEN
            return gen, pgen, k + 1, stack
    return gen, pgen, numbers.size, stack


@dataclass
class Piece:
    """The results of a piece of deals, as arrays (one row per deal)."""

    numbers: np.ndarray
    verdicts: np.ndarray  # WIN, LOSS or UNRESOLVED
    nodes: np.ndarray
    seconds: np.ndarray
    lines: np.ndarray  # winning moves as deltas, ``nline`` of each row
    nline: np.ndarray
    features: np.ndarray  # a column per name of DEAL_FEATURES
    settled_by: list  # the settling search of each deal, None if unresolved


def solve_numbers(numbers: Sequence[int], budget: int) -> Piece:
    """Settle deals by number, the first turn of each in compiled code, the rest by the
    portfolio: the same verdicts, positions and lines as :func:`solver.solve` on each."""
    if budget < 1:
        raise ValueError(f"budget must be at least 1 position, got {budget}")
    nums = np.asarray(numbers, dtype=np.int64)
    n = nums.size
    tab, ptab = default_tables()
    first = _portfolio(ALL_RULES, QUICK_PHASE)[0]  # its first turn, after the probe
    probe = PROBE if _probe(ALL_RULES, QUICK_PHASE) is not None else 0
    verdicts = np.zeros(n, np.int64)
    nodes = np.zeros(n, np.int64)
    lines = np.zeros((n, MAX_PLY), np.uint64)
    nline = np.zeros(n, np.int64)
    features = np.zeros((n, NDEAL), np.int64)
    piles = np.zeros((n, NPILES, DEPTH), np.int8)
    reserve = np.zeros((n, NRESERVE), np.int8)
    ticks = np.zeros(n, np.uint64)
    name = member_name(first)
    probed = np.zeros(n, np.bool_)  # settled (or stopped by the budget) in the probe
    settled_by = [None] * n
    later = np.zeros(n)  # seconds in the portfolio, after the first turn
    c0, t0 = int(cycles()), time.perf_counter()
    at = 0
    while at < n:
        gen, pgen, at, stack = quick_kernel(nums, at, probe, min(QUICK_PHASE, budget), budget,
                                            first[0], tab.slots, tab.generation, tab.bits,
                                            ptab.slots, ptab.generation, ptab.bits, verdicts,
                                            nodes, lines, nline, features, piles, reserve, ticks,
                                            probed)
        tab.generation = int(gen)
        ptab.generation = int(pgen)
        k = at - 1
        if verdicts[k] != OPEN:
            break
        # the portfolio goes on from the first turn's pause, on its generation of the table
        t = time.perf_counter()
        status, nodes[k], line, nline[k], settled_by[k] = search_arrays(
            piles[k], reserve[k], budget, started=(stack, int(nodes[k])))
        later[k] = time.perf_counter() - t
        verdicts[k] = status
        lines[k, : nline[k]] = line[: nline[k]]
    rate = (int(cycles()) - c0) / max(time.perf_counter() - t0, 1e-9)  # cycles a second
    seconds = ticks / rate + later
    for k in range(n):
        if settled_by[k] is None and (verdicts[k] == WIN or verdicts[k] == LOSS):
            settled_by[k] = "probe" if probed[k] else name
    return Piece(nums, verdicts, nodes, seconds, lines, nline, features, settled_by)
