"""The search kernel (solver/dfs.py): pausing and resuming, searches sharing a table."""

from __future__ import annotations

import numpy as np
import pytest

from halfmoon.deal import Deal
from solver.dfs import LOSS, STACK_DEPTH, UNRESOLVED, WIN, dfs, move_class, new_stack
from solver.kernels import MAX_PLY, initial_position, rank_class
from solver.pruning import ALL_RULES, FREE_CARDS
from solver.search import BOUNDS_DEPTH, NEAR_TIES, deal_arrays, kernel_arrays
from solver.table import Table, tt_store


class Kernel:
    """One deal's arrays and its own tables, to call ``dfs`` directly."""

    def __init__(self, number: int) -> None:
        self.piles, self.reserve = deal_arrays(Deal.from_number(number))
        self.root, self.tops, self.part, self.npart, self.proj = kernel_arrays(self.piles, self.reserve)
        self.tab, self.ptab = Table(16), Table(16)
        self.ptab.next_generation()
        self.new_search()

    def new_search(self) -> None:
        self.gen = np.uint32(self.tab.next_generation())

    def run(self, stack, budget: int, flags: int = ALL_RULES):
        """(status, positions expanded, line) of one call."""
        line = np.zeros(MAX_PLY, np.uint64)
        stats = np.zeros(4, np.int64)
        ptab = (self.ptab.slots, np.uint32(self.ptab.generation), self.ptab.bits)
        status = dfs(self.piles, self.reserve, self.tops, self.part, self.npart, self.root, budget,
                     flags, self.tab.slots, self.gen, self.tab.bits, line, stats,
                     stack, NEAR_TIES, self.proj, ptab, BOUNDS_DEPTH)
        return status, int(stats[0]), [int(line[k]) for k in range(int(stats[1]))]

    def store(self, pos) -> None:
        tt_store(self.tab.slots, self.gen, self.tab.bits, np.uint64(pos))


@pytest.mark.parametrize("number, flags", [(0, ALL_RULES), (13, ALL_RULES), (55, ALL_RULES),
                                           (13, FREE_CARDS), (262, ALL_RULES)])
def test_paused_and_resumed_search_is_the_same_search(number, flags):
    """A search run in slices of 37 positions expands the same positions, in the same
    order, as one uninterrupted run: same verdict, same count, same line."""
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
