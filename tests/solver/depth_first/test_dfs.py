"""The search kernel (solver/dfs.py): pausing and resuming, searches sharing a table,
sleep sets, the plain search's own compiled version."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import brute_force, near_end

from halfmoon.game.deal import Deal
from solver.depth_first.dfs import (
    LOSS,
    STACK_DEPTH,
    UNRESOLVED,
    WIN,
    _drop_sleeping,
    _sleep_set,
    dfs,
    move_class,
    new_stack,
    plain_dfs,
    search_kernel,
)
from solver.depth_first.pruning import ALL_RULES, CLASS_IN_VIEW, COMMUTING, FREE_CARDS, ORDERING
from solver.mirror.convert import deal_arrays
from solver.mirror.position import MAX_MOVES, MAX_PLY, initial_position, rank_class, source_delta
from solver.mirror.table import Table, tt_store
from solver.portfolio.search import BOUNDS_DEPTH, NEAR_TIES, kernel_arrays


class Kernel:
    """One deal's arrays and its own tables, to call ``dfs`` directly."""

    def __init__(self, number) -> None:
        deal = number if isinstance(number, Deal) else Deal.from_number(number)
        self.piles, self.reserve = deal_arrays(deal)
        self.root, self.tops, self.part, self.npart, self.proj = kernel_arrays(self.piles,
                                                                               self.reserve)
        self.tab, self.ptab = Table(16), Table(16)
        self.ptab.next_generation()
        self.new_search()

    def new_search(self) -> None:
        self.gen = np.uint32(self.tab.next_generation())

    def run(self, stack, budget: int, flags: int = ALL_RULES, search=dfs, stats=None):
        """(status, positions expanded, line) of one call of ``search``."""
        line = np.zeros(MAX_PLY, np.uint64)
        stats = np.zeros(4, np.int64) if stats is None else stats
        ptab = (self.ptab.slots, np.uint32(self.ptab.generation), self.ptab.bits)
        status = search(self.piles, self.reserve, self.tops, self.part, self.npart, self.root,
                        budget, flags, self.tab.slots, self.gen, self.tab.bits, line, stats,
                        stack, NEAR_TIES, self.proj, ptab, BOUNDS_DEPTH)
        return status, int(stats[0]), [int(line[k]) for k in range(int(stats[1]))]

    def store(self, pos) -> None:
        tt_store(self.tab.slots, self.gen, self.tab.bits, np.uint64(pos))


@pytest.mark.parametrize("number, flags", [(0, ALL_RULES), (13, ALL_RULES), (55, ALL_RULES),
                                           (13, FREE_CARDS), (13, FREE_CARDS | COMMUTING),
                                           (262, ALL_RULES)])
def test_paused_and_resumed_search_is_the_same_search(number, flags):
    """A search run in slices of 37 positions expands the same positions, in the same
    order, as one uninterrupted run: same verdict, same count, same line (the sleep
    sets of ALL_RULES included)."""
    k = Kernel(number)
    whole = k.run(new_stack(np.uint64(0)), 200_000, flags)
    assert whole[0] in (WIN, LOSS)
    k.new_search()
    stack = new_stack(np.uint64(0))
    total = 0
    while True:
        status, nodes, line = k.run(stack, 37, flags)
        assert nodes <= 37
        total += nodes
        if status != UNRESOLVED:
            break
    assert (status, total, line) == whole


@pytest.mark.parametrize("number", [0, 13, 92, 129, 262])
def test_the_plain_search_compiled_alone_is_the_same_search(number):
    """plain_dfs (the plain search compiled for its rule set) and dfs with FREE_CARDS
    expand the same positions: same verdict, count, stores and line, whole or in slices;
    search_kernel picks it for that rule set only."""
    assert search_kernel(FREE_CARDS) is plain_dfs
    assert search_kernel(FREE_CARDS | COMMUTING) is dfs and search_kernel(ALL_RULES) is dfs
    budget = 150_000
    runs = []
    for search in (dfs, plain_dfs):
        k = Kernel(number)
        stats = np.zeros(4, np.int64)
        whole = k.run(new_stack(np.uint64(0)), budget, FREE_CARDS, search, stats)
        k.new_search()
        stack, status, total = new_stack(np.uint64(0)), UNRESOLVED, 0
        while status == UNRESOLVED and total < budget:
            status, nodes, line = k.run(stack, min(997, budget - total), FREE_CARDS, search)
            total += nodes
        assert (status, total, line) == whole
        runs.append(whole + (int(stats[2]),))
    assert runs[0] == runs[1]


def test_a_paused_search_keeps_its_place():
    k = Kernel(129)  # a hard win: not settled in a few thousand positions
    stack = new_stack(np.uint64(0))
    status, nodes, _ = k.run(stack, 3000)
    assert status == UNRESOLVED and nodes == 3000
    depth = int(stack[6][STACK_DEPTH])
    assert 1 <= depth <= 48
    status, nodes, _ = k.run(stack, 0)  # nothing more to spend: it stays where it was
    assert status == UNRESOLVED and nodes == 0
    assert int(stack[6][STACK_DEPTH]) == depth


def test_resumed_search_drops_what_another_proved_lost():
    """If another search has stored a position of this one's stack as lost, the
    resumed search leaves that subtree; if it stored the root, the deal is lost."""
    k = Kernel(129)
    stack = new_stack(np.uint64(0))
    k.run(stack, 3000)
    depth = int(stack[6][STACK_DEPTH])
    assert depth >= 3
    states = stack[3]
    k.store(states[2])
    status, nodes, _ = k.run(stack, 0)
    assert status == UNRESOLVED and nodes == 0
    assert int(stack[6][STACK_DEPTH]) == 1  # back at the parent of the lost position
    k.store(k.root)
    assert k.run(stack, 1000)[0] == LOSS


def test_searches_sharing_a_table_agree():
    """Two searches with different move orders taking turns on one table reach the
    verdict each reaches alone."""
    for number in (55, 92, 0, 13):
        k = Kernel(number)
        alone = k.run(new_stack(np.uint64(0)), 500_000)[0]
        k.new_search()
        stacks = [new_stack(np.uint64(0)), new_stack(np.uint64(12345))]
        status, turn = UNRESOLVED, 0
        while status == UNRESOLVED:
            status = k.run(stacks[turn % 2], 50)[0]
            turn += 1
        assert status == alone


def test_move_class():
    deal = Deal.from_number(0)
    piles, reserve = deal_arrays(deal)
    pos = initial_position(piles, reserve)
    for i in range(12):
        delta = np.uint64(1) << np.uint64(4 * i)
        assert move_class(piles, reserve, pos, delta) == rank_class(piles[i, 7])
    for r in range(8):
        delta = np.uint64(1) << np.uint64(48 + r)
        assert move_class(piles, reserve, pos, delta) == rank_class(reserve[r])


def _delta(*sources: int) -> int:
    return sum(int(source_delta(s)) for s in sources)


def test_sleep_set_of_a_child():
    """A child inherits the parent's sleeping moves and the parent's earlier moves that
    take cards from none of its move's sources; its own sleeping moves are dropped."""
    moves = np.zeros((MAX_PLY + 1, MAX_MOVES), np.uint64)
    sleep = np.zeros((MAX_PLY + 1, MAX_MOVES), np.uint64)
    index = np.zeros(MAX_PLY + 1, np.int64)
    nsleep = np.zeros(MAX_PLY + 1, np.int64)
    a, b, c, d = _delta(0, 1), _delta(2, 3), _delta(1, 4), _delta(12, 5, 6)
    moves[0, :4] = [a, b, c, d]
    sleep[0, 0], nsleep[0] = _delta(7, 8), 1
    index[0] = 3  # moving on with c = moves[0, 2]
    ns = _sleep_set(moves, index, sleep, nsleep, 0, np.uint64(c))
    assert sorted(int(x) for x in sleep[1, :ns]) == sorted([_delta(7, 8), b])  # a shares P2 with c
    index[0] = 4  # then with d: a, b and c were searched before it, none shares a source
    ns = _sleep_set(moves, index, sleep, nsleep, 0, np.uint64(d))
    assert sorted(int(x) for x in sleep[1, :ns]) == sorted([_delta(7, 8), a, b, c])
    found = np.array([c, _delta(9, 10), a, _delta(7, 8)], np.uint64)
    left = _drop_sleeping(found, 4, sleep[1], ns)
    assert [int(x) for x in found[:left]] == [_delta(9, 10)]


def test_commuting_moves_keep_every_verdict():
    """With sleep sets, the search from every position reachable from small positions
    gives the exhaustive verdict, and it searches fewer positions than without them
    (few fewer here: in positions this small the table catches most transpositions)."""
    flags = FREE_CARDS | CLASS_IN_VIEW | ORDERING
    total = {0: 0, COMMUTING: 0}
    positions = 0
    for number in range(8):
        game = near_end(number, 28)
        memo = brute_force(game)
        k = Kernel(game.deal)
        for pos, winnable in memo.items():
            if pos == 0:
                continue
            k.root = np.uint64(pos)
            for rule in (0, COMMUTING):
                k.new_search()
                status, nodes, line = k.run(new_stack(np.uint64(0)), 10**6, flags | rule)
                assert status == (WIN if winnable else LOSS), (game.deal.code, hex(pos), rule)
                total[rule] += nodes
            positions += 1
    assert positions > 5_000
    assert total[COMMUTING] < total[0], total



def test_projected_positions_kept_on_the_stack():
    """The projected positions the search keeps per ply (each the parent's, minus the
    move where the projection holds the move's class) are the projections of the
    positions on its stack, at every pause of a search."""
    from solver.depth_first.projections import NPROJ, project

    for number in (129, 876):
        k = Kernel(number)
        _, preserve, _, count, _ = k.proj
        stack = new_stack(np.uint64(0))
        checked = 0
        for _ in range(40):
            status, _, _ = k.run(stack, 97)
            assert status == UNRESOLVED
            depth = int(stack[6][STACK_DEPTH])
            states, pp = stack[3], stack[10]
            for ply in range(depth + 1):
                for p in range(NPROJ):
                    assert pp[ply, p] == project(states[ply], p, preserve, count), (number, ply, p)
                    checked += 1
        assert checked > 1000
