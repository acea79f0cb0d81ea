"""The portfolio: the searches that take turns on one deal, and when the grouping search joins.

:func:`solve` settles a Deal with every knob of the search open (rules, tables, the first
turn), for tests and benchmarks; the applications call :func:`solver.solve`, its checked
front door."""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple, Optional, Union

import numpy as np

from halfmoon.game.deal import Deal
from halfmoon.game.inputs import load_deal
from halfmoon.game.moves import Move

from ..depth_first.bounds import partner_table
from ..depth_first.dfs import new_stack, search_kernel
from ..depth_first.projections import PROJECTION_MASKS, projection_arrays
from ..depth_first.pruning import (
    ALL_RULES,
    BOUNDS,
    COUNTING,
    GROUPING,
    ORDERING,
    PROJECTIONS,
    top_table,
)
from ..grouping.model import VIEW_COUNTS, VIEW_PAIRS, grouping_model, grouping_run, line_wins
from ..grouping.state import luby
from ..mirror.convert import deal_arrays, delta_to_move
from ..mirror.position import MAX_PLY, initial_position
from ..mirror.table import Table
from ..verdicts import LOSS, NAMES, UNRESOLVED, WIN

if TYPE_CHECKING:
    from .deadlocks import Deadlock

SOLVER_VERSION = "15"
DEFAULT_BUDGET = 5_000_000
# Hard wins are heavy-tailed: one move order finds them at once while another wanders
# in a lost subtree for millions of positions.  So a deal is searched by a portfolio
# of searches that take turns on one table of lost positions, SLICE positions at a
# time: the cheap search (the bounds test at the root only; its first turn is
# QUICK_PHASE positions, after the probe below: the two settle most wins), the search
# with every rule in the urgency order, a search in the engine's order with the free-card
# and class rules only, one with the urgency order jittered among near-ties, and one in a
# shuffled order that restarts with new orders (seeded, so a deal always gives the same
# result).  Only that one is ever restarted; the others keep their stacks between
# turns.  A position proved lost by one search is skipped by all, so no proof is lost.
QUICK_PHASE = 2_000
SLICE = 2_000
# Before the first turn, a probe: the cheap search without the projections, for PROBE
# positions.  It settles most deals (half of all wins take under 130 positions) before
# the projected games, which cost more than such a deal, are solved at the root; the
# first turn then starts over with them, on the table of positions the probe proved lost
# (measured: docs/tuning-log.md, 2026-12-05, night).
PROBE = 300
# The noise the jittered searches add to the urgency keys: NEAR_TIES keeps the urgency
# order and shuffles near-ties; SHUFFLE shuffles nearly everything, and that search is
# restarted with a new seed after RESTART_UNIT times the terms of the Luby sequence
# (short random runs sample many different openings).
NEAR_TIES = 64
SHUFFLE = 4096
RESTART_UNIT = 4_000
# Positions fewer than this many plies from the root get the bounds test (and the
# urgency order it gives); deeper, the plain search is cheaper than the test
# (depths measured: docs/tuning-log.md, 2026-11-30).
BOUNDS_DEPTH = 8
# The search in the urgency order takes the test deeper: its hard wins leave the urgency
# order a few plies below 8, where the test cuts the lost siblings; only that search pays
# for it (measured: docs/tuning-log.md, 2026-12-01, version 10).
URGENCY_DEPTH = 12
# The grouping search (clause learning in the grouping view, solver/grouping/) joins
# once the searches have spent GROUPING_AFTER positions (most deals are settled before,
# and its model would cost more than they do); it then takes turns of GROUPING_SLICE
# conflicts, each after the searches have spent grouping_share(nodes) positions per
# conflict of its last turn, and keeps its learnt clauses between turns.  The share
# falls once a deal has cost GROUPING_LATE nodes: the hard wins the depth-first searches
# find come before that, the deals still open after it are the grouping search's (60
# positions a conflict leave the searches a quarter of the time or less, conflicts costing
# more in long runs: some of those deals are losses only they prove).
# The join is a trade: an earlier one saves more on the deals past 100,000 positions
# than it adds to those settled between the join and 100,000 (at 30,000 rather than
# 100,000 the first save a fifth and the second pay a third, about 7 % less in all).
# Figures: docs/tuning-log.md (2026-12-04 for the join and the late share, 2026-12-01 and
# 2026-12-03 for the shares).
GROUPING_AFTER = 30_000
GROUPING_SLICE = 256
GROUPING_SHARE = 120
GROUPING_LATE = 1_000_000
GROUPING_SHARE_LATE = 60


def kernel_arrays(piles: np.ndarray, reserve: np.ndarray) -> tuple:
    """What the search kernels take of a deal besides its ranks: (start position, table
    of what each source shows, partner table, partner counts, the projections' arrays)."""
    part, npart = partner_table(piles, reserve)
    return (initial_position(piles, reserve), top_table(piles, reserve), part, npart,
            projection_arrays(piles, reserve, PROJECTION_MASKS))


_UNUSED: list = []


def _unused_projections() -> tuple:
    """Arrays of the projections' types holding none, for a search without them (the
    kernels read the projections only where their rule is on): a solve that such a search
    settles, as most of a walk's are, makes no projections."""
    if not _UNUSED:
        from ..mirror.convert import sample_arrays

        _UNUSED.append(projection_arrays(*sample_arrays(), PROJECTION_MASKS[:0]))
    return _UNUSED[0]


@dataclass(frozen=True)
class Result:
    """The verdict on a deal or position: ``verdict`` ("win", "loss" or "unresolved"),
    ``moves`` (the winning line, None unless won), ``nodes``, ``seconds`` (the search's
    alone), the deal's ``code``, the search that settled it (``settled_by``), the seconds
    spent before the search making the kernels ready in this process (``setup_seconds``:
    loading or compiling them, on a process's first solve only), the deal ``number`` (None
    for a position), the ``solver_version`` that gave it and, for a loss when asked, ``why``
    it is lost (a :class:`~solver.portfolio.deadlocks.Deadlock`; None otherwise)."""

    verdict: str  # "win" | "loss" | "unresolved"
    moves: Optional[tuple[Move, ...]]
    nodes: int  # positions expanded, plus conflicts of the grouping search (one each)
    seconds: float
    code: Optional[str] = None
    # which search settled it: a member of the portfolio (see member_name), "grouping",
    # "cpsat" for the constraint model, None if unresolved
    settled_by: Optional[str] = None
    setup_seconds: float = 0.0
    number: Optional[int] = None
    solver_version: str = SOLVER_VERSION
    why: Optional[Deadlock] = None

    @property
    def solved(self) -> bool:
        return self.verdict != "unresolved"


_default_tables: Optional[tuple[Table, Table]] = None
PROJECTION_TABLE_MIB = 48


def default_tables() -> tuple[Table, Table]:
    """The module-wide tables (main search, projected games), made on first use."""
    global _default_tables
    if _default_tables is None:
        _default_tables = (Table(), Table(PROJECTION_TABLE_MIB))
    return _default_tables


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
    projection_table: Optional[Table] = None,
    quick_phase: int = QUICK_PHASE,
) -> Result:
    """Settle a deal (a Deal, a code, a deal number or a layout file).

    ``budget`` bounds the positions expanded; ``rules`` selects the pruning rules of
    :mod:`solver.depth_first.pruning` (all by default); ``table`` is the transposition table to
    reuse (a module-wide one by default).
    """
    if budget < 1:
        raise ValueError(f"budget must be at least 1 position, got {budget}")
    d = _as_deal(deal)
    t0 = time.perf_counter()
    piles, reserve = deal_arrays(d)
    status, nodes, line, nline, settled_by = search_arrays(
        piles, reserve, budget, rules=rules, table=table, projection_table=projection_table,
        quick_phase=quick_phase)
    moves = None
    if status == WIN:
        moves = tuple(delta_to_move(int(line[k])) for k in range(nline))
    return Result(NAMES[status], moves, nodes, time.perf_counter() - t0, d.code, settled_by,
                  number=deal_number(d))


def deal_number(deal: Deal) -> Optional[int]:
    """The deal number of a whole deal (a code, a number, a layout file of a deal), else
    None (a position, a partial layout)."""
    return deal.number if deal.is_full and not deal.is_partial else None


def _next_seed(seed: int) -> int:
    return (seed * 6364136223846793005 + 1442695040888963407) & (2**64 - 1) or 1


def grouping_share(nodes: int) -> int:
    """Positions the depth-first searches spend per conflict of the grouping search's
    last turn, once a deal has cost ``nodes``."""
    return GROUPING_SHARE if nodes < GROUPING_LATE else GROUPING_SHARE_LATE


class Member(NamedTuple):
    """One search of the portfolio."""

    flags: int  # the pruning rules of solver.depth_first.pruning it searches with
    seed: int  # the seed of its jitter of the move order (0: none)
    noise: int  # the size of that jitter (NEAR_TIES, SHUFFLE; 0: none)
    depth: int  # the plies from the root that get the bounds test
    restarts: bool  # whether it starts again from the root with a new order (on Luby's terms)


def _portfolio(rules: int, quick_phase: int) -> list[Member]:
    """The searches that take turns on a deal, in turn order."""
    return list(_members(rules, quick_phase))


@lru_cache(maxsize=64)
def _members(rules: int, quick_phase: int) -> tuple[Member, ...]:
    """:func:`_portfolio`'s searches, made once for each rule set (a walk asks for them at
    every one of its many small solves)."""
    members = []
    if rules & (BOUNDS | PROJECTIONS) and quick_phase:  # the bounds test at the root only
        members.append(Member(rules, 0, 0, 1, False))
    members.append(Member(rules, 0, 0, URGENCY_DEPTH, False))
    if rules & (ORDERING | BOUNDS | PROJECTIONS):
        members.append(Member(rules & ~(ORDERING | BOUNDS | PROJECTIONS), 0, 0, 0, False))
    if rules & BOUNDS:
        seed = _next_seed(0)
        members.append(Member(rules, seed, NEAR_TIES, BOUNDS_DEPTH, False))
        members.append(Member(rules, _next_seed(seed), SHUFFLE, BOUNDS_DEPTH, True))
    return tuple(members)


@lru_cache(maxsize=64)
def _probe(rules: int, quick_phase: int) -> Optional[Member]:
    """The probe played before the first turn, if any (see PROBE): the first member
    without the projections."""
    members = _members(rules, quick_phase)
    if rules & PROJECTIONS and members[0].depth == 1:
        return Member(rules & ~PROJECTIONS, 0, 0, 1, False)
    return None


def member_name(member: Member) -> str:
    """A portfolio member's name, as results and benchmarks report it."""
    if member.restarts:
        return "shuffled"
    if member.noise:
        return "near-ties"
    if member.depth == 1:
        return "quick"
    if not member.flags & (ORDERING | BOUNDS | PROJECTIONS):
        return "engine order"
    return "urgency"


def search_arrays(piles: np.ndarray, reserve: np.ndarray, budget: int, *, rules: int = ALL_RULES,
                  table: Optional[Table] = None, projection_table: Optional[Table] = None,
                  quick_phase: int = QUICK_PHASE,
                  started: Optional[tuple] = None) -> tuple[int, int, np.ndarray, int,
                                                            Optional[str]]:
    """The portfolio on a deal given as the kernel's arrays (see :func:`solve`): its status
    (WIN, LOSS, UNRESOLVED), positions, winning line (deltas, the first ``nline`` of
    ``line``) and the search that settled it.

    ``started`` = (stack, positions): the probe and the first turn were played already, on
    the tables' current generations, and paused with that stack after that many positions
    in all (the batch's compiled first turns, solver/portfolio/deal_numbers.py); the
    portfolio goes on from there, as if it had played them itself."""
    part, npart = partner_table(piles, reserve)
    root, tops = initial_position(piles, reserve), top_table(piles, reserve)
    proj = None  # the projections' arrays, made when a search that uses them first runs
    tab = table if table is not None else default_tables()[0]
    ptab = projection_table if projection_table is not None else default_tables()[1]
    # a started search goes on with the first turn's generations of both tables
    pgen = ptab.next_generation() if started is None else ptab.generation
    ptab_args = (ptab.slots, np.uint32(pgen), ptab.bits)
    line = np.zeros(MAX_PLY, np.uint64)
    stats = np.zeros(4, np.int64)
    members = _members(rules, quick_phase)
    stacks = [None] * len(members)  # made at a search's first turn: most deals need one
    nodes = 0
    turn = 0
    probe = _probe(rules, quick_phase)
    if started is None:
        gen = tab.next_generation()
        if probe is not None:
            stacks[0] = new_stack(np.uint64(0))
            status = search_kernel(probe.flags)(piles, reserve, tops, part, npart, root,
                                                min(PROBE, budget), probe.flags, tab.slots,
                                                np.uint32(gen), tab.bits, line, stats, stacks[0],
                                                0, _unused_projections(), ptab_args, probe.depth)
            nodes = int(stats[0])
            if status != UNRESOLVED:
                return status, nodes, line, int(stats[1]) if status == WIN else 0, "probe"
            stacks[0] = None  # the first turn starts over, with the projections
    else:  # the first turn's stores are in the current generation
        if members[0].depth != 1:
            raise ValueError("a started search needs the quick search first")
        gen = tab.generation
        stacks[0], nodes = started
        turn = 1
    seeds = [m.seed for m in members]
    runs = [1] * len(members)  # Luby term of the current run of a restarting search
    left = [RESTART_UNIT * luby(1)] * len(members)
    status = UNRESOLVED
    grouping_at = GROUPING_AFTER
    model = None
    info = np.zeros(2, np.int64)
    settled_by = None
    while status == UNRESOLVED and nodes < budget:
        if nodes >= grouping_at and rules & GROUPING:
            if model is None:
                model = grouping_model(piles, reserve, part, npart, root,
                                       VIEW_COUNTS if rules & COUNTING else VIEW_PAIRS)[1]
            g, model = grouping_run(model, min(GROUPING_SLICE, budget - nodes), line, info)
            nodes += int(info[0])
            if g == LOSS:
                status, settled_by = LOSS, "grouping"
                break
            if g == WIN:
                if not line_wins(piles, reserve, root, line, int(info[1])):
                    raise RuntimeError("the grouping search's line does not replay (a bug)")
                status, settled_by = WIN, "grouping"
                stats[1] = info[1]
                break
            grouping_at = nodes + grouping_share(nodes) * max(int(info[0]), 1)
            continue
        k = turn % len(members)
        member = members[k]
        allowance = quick_phase if turn == 0 and len(members) > 1 and quick_phase else SLICE
        if member.restarts:
            allowance = min(allowance, left[k])
        if stacks[k] is None:
            stacks[k] = new_stack(np.uint64(seeds[k]))
        if proj is None and member.flags & PROJECTIONS:
            proj = projection_arrays(piles, reserve, PROJECTION_MASKS)
        status = search_kernel(member.flags)(piles, reserve, tops, part, npart, root,
                                             min(allowance, budget - nodes), member.flags,
                                             tab.slots, np.uint32(gen), tab.bits, line, stats,
                                             stacks[k], member.noise,
                                             proj if proj is not None else _unused_projections(),
                                             ptab_args, member.depth)
        used = int(stats[0])
        nodes += used
        turn += 1
        if status != UNRESOLVED:
            settled_by = member_name(member)
        if member.restarts and status == UNRESOLVED:
            left[k] -= used
            if left[k] <= 0:  # start again from the root with a new order
                runs[k] += 1
                left[k] = RESTART_UNIT * luby(runs[k])
                seeds[k] = _next_seed(seeds[k])
                stacks[k] = new_stack(np.uint64(seeds[k]))
    return status, nodes, line, int(stats[1]) if status == WIN else 0, settled_by


