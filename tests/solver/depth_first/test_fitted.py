"""The fitted move order (solver/depth_first/fitted.py): its score against the features
computed here from the deal's cards, its sort, and the search's verdicts with it."""

from __future__ import annotations

import random

import numpy as np
import pytest
from halfmoon import Game
from halfmoon.game.deal import Deal
from solver.depth_first import fitted
from solver.depth_first.dfs import dfs, new_stack
from solver.depth_first.fitted import fitted_key, fitted_sort
from solver.depth_first.pruning import (
    CLASS_IN_VIEW,
    COMMUTING,
    FITTED,
    FREE_CARDS,
    new_workspace,
    search_moves,
    top_table,
)
from solver.mirror.convert import deal_arrays
from solver.mirror.position import MAX_MOVES, MAX_PLY, initial_position, rank_class
from solver.mirror.table import Table
from solver.portfolio.search import kernel_arrays
from solver.verdicts import LOSS, UNRESOLVED, WIN


def reference_key(piles, reserve, pos: int, delta: int) -> int:
    """The score from the cards themselves, feature by feature as the module describes."""
    counts = [(pos >> (4 * i)) & 15 for i in range(12)]
    src_piles = [i for i in range(12) if (delta >> (4 * i)) & 15]
    src_res = [r for r in range(8) if (delta >> (48 + r)) & 1]
    ranks = [int(piles[i, counts[i] - 1]) for i in src_piles] + [int(reserve[r]) for r in src_res]
    c = rank_class(ranks[0])
    view = [int(piles[i, counts[i] - 1]) for i in range(12) if counts[i] and i not in src_piles]
    view += [int(reserve[r]) for r in range(8) if (pos >> (48 + r)) & 1 and r not in src_res]
    key = int(fitted.W_CLASS[c]) + fitted.W_RESERVE * len(src_res)
    for i in src_piles:
        n = counts[i]
        key += fitted.W_COUNT * n
        if n == 1:
            key += fitted.W_EMPTIED
            continue
        below = [int(piles[i, k]) for k in range(n - 1)]
        key += fitted.W_COVERS_CLASS * any(rank_class(r) == c for r in below)
        u = below[-1]
        key += fitted.W_UNCOVERS_CLASS * (rank_class(u) == c)
        partners = [p for p in (11, 12, 13) if p != u] if u >= 11 else [11 - u]
        key += fitted.W_PARTNER * all(p in view for p in partners)
    return key


def played_positions(count: int, seed: int):
    """(piles, reserve, tops, position) after 0..40 random generated moves on random deals."""
    rng = random.Random(seed)
    out = np.empty(MAX_MOVES, np.uint64)
    keys = np.empty(MAX_MOVES, np.int64)
    ws = new_workspace()
    for number in rng.sample(range(10_000), count):
        piles, reserve = deal_arrays(Deal.from_number(number))
        tops = top_table(piles, reserve)
        pos = int(initial_position(piles, reserve))
        for _ in range(rng.randint(0, 40)):
            m = search_moves(tops, np.uint64(pos), 0, out, keys, ws)
            if m == 0:
                break
            pos -= int(out[rng.randrange(m)])
        yield piles, reserve, tops, pos


def test_the_weights_are_not_all_zero():
    weights = [*fitted.W_CLASS, fitted.W_RESERVE, fitted.W_COUNT, fitted.W_EMPTIED,
               fitted.W_UNCOVERS_CLASS, fitted.W_COVERS_CLASS, fitted.W_PARTNER]
    assert len({int(w) for w in weights}) > 3


@pytest.mark.parametrize("flags", [FREE_CARDS | CLASS_IN_VIEW, 0])
def test_the_score_is_the_features_weighted(flags):
    out = np.empty(MAX_MOVES, np.uint64)
    keys = np.empty(MAX_MOVES, np.int64)
    ws = new_workspace()
    scores = set()
    checked = 0
    for piles, reserve, tops, pos in played_positions(100, seed=3):
        m = search_moves(tops, np.uint64(pos), flags, out, keys, ws)
        for j in range(m):
            delta = int(out[j])
            got = int(fitted_key(piles, reserve, tops, ws, np.uint64(pos), np.uint64(delta)))
            assert got == reference_key(piles, reserve, pos, delta), (pos, delta)
            scores.add(got)
            checked += 1
    assert checked > 100 and len(scores) > 10


def test_the_sort_keeps_the_moves_and_puts_the_best_first():
    out = np.empty(MAX_MOVES, np.uint64)
    keys = np.empty(MAX_MOVES, np.int64)
    ws = new_workspace()
    reordered = 0
    for piles, reserve, tops, pos in played_positions(40, seed=4):
        m = search_moves(tops, np.uint64(pos), FREE_CARDS, out, keys, ws)
        before = [int(out[j]) for j in range(m)]
        fitted_sort(piles, reserve, tops, ws, np.uint64(pos), out, keys, m)
        after = [int(out[j]) for j in range(m)]
        assert sorted(after) == sorted(before)
        scores = [reference_key(piles, reserve, pos, d) for d in after]
        assert scores == sorted(scores, reverse=True)
        # stable: equal scores keep the engine's order
        for a, b in zip(after, after[1:]):
            if reference_key(piles, reserve, pos, a) == reference_key(piles, reserve, pos, b):
                assert before.index(a) < before.index(b)
        reordered += after != before
    assert reordered > 5


def search(deal: Deal, flags: int, budget: int = 20_000):
    """(status, positions, line, root, tops) of the search from the start of a deal or
    position, on a table of its own."""
    piles, reserve = deal_arrays(deal)
    root, tops, part, npart, proj = kernel_arrays(piles, reserve)
    tab, ptab = Table(16), Table(16)
    ptab.next_generation()
    line = np.zeros(MAX_PLY, np.uint64)
    stats = np.zeros(4, np.int64)
    status = dfs(piles, reserve, tops, part, npart, root, budget, flags, tab.slots,
                 np.uint32(tab.next_generation()), tab.bits, line, stats, new_stack(np.uint64(0)),
                 0, proj, (ptab.slots, np.uint32(ptab.generation), ptab.bits), 0)
    return status, int(stats[0]), [int(line[k]) for k in range(int(stats[1]))], root, tops


def test_the_search_in_the_fitted_order_gives_the_same_verdicts():
    flags = FREE_CARDS | CLASS_IN_VIEW | COMMUTING
    out = np.empty(MAX_MOVES, np.uint64)
    keys = np.empty(MAX_MOVES, np.int64)
    ws = new_workspace()
    differ = 0
    verdicts = []
    rng = random.Random(5)
    deals = [Deal.from_number(n) for n in range(30)]
    for number in range(30):  # positions after random moves: about half are lost
        game = Game(number)
        for _ in range(rng.randint(2, 20)):
            if not game.legal_moves:
                break
            game.push(rng.choice(list(game.legal_moves)))
        deals.append(game.remaining_deal())
    for deal in deals:
        plain, plain_nodes, _, _, _ = search(deal, flags)
        status, nodes, line, root, tops = search(deal, flags | FITTED)
        if UNRESOLVED not in (plain, status):
            assert plain == status, deal.code
            verdicts.append(status)
        if status == WIN:  # the line replays, each move a legal one
            pos = int(root)
            for delta in line:
                m = search_moves(tops, np.uint64(pos), 0, out, keys, ws)
                assert delta in [int(out[j]) for j in range(m)]
                pos -= delta
            assert pos == 0
        differ += nodes != plain_nodes
    assert differ > 0 and WIN in verdicts and LOSS in verdicts
