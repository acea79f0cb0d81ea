"""The fitted move order (solver/depth_first/fitted.py): move generation's scores against the
features computed here from the deal's cards, its order, and the search's verdicts with it."""

from __future__ import annotations

import random

import numpy as np
import pytest

from halfmoon import Game
from halfmoon.game.deal import Deal
from solver.depth_first import fitted
from solver.depth_first.dfs import dfs, new_stack
from solver.depth_first.pruning import (
    CLASS_IN_VIEW,
    COMMUTING,
    FITTED,
    FREE_CARDS,
    ORDERING,
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
    view = {i: int(piles[i, counts[i] - 1]) for i in range(12) if counts[i]}
    view.update({12 + r: int(reserve[r]) for r in range(8) if (pos >> (48 + r)) & 1})
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
        others = [r for src, r in view.items() if src != i]
        key += fitted.W_PARTNER * all(p in others for p in partners)
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


@pytest.mark.parametrize("rules", [FREE_CARDS | CLASS_IN_VIEW, FREE_CARDS, 0])
def test_the_moves_come_best_first_in_the_fitted_order(rules):
    """The same moves as the engine's order, sorted by their score (the features weighted),
    equal scores in the engine's order."""
    out = np.empty(MAX_MOVES, np.uint64)
    keys = np.empty(MAX_MOVES, np.int64)
    ws = new_workspace()
    checked = reordered = 0
    scores = set()
    for piles, reserve, tops, pos in played_positions(100, seed=3):
        m = search_moves(tops, np.uint64(pos), rules, out, keys, ws)
        engine = [int(out[j]) for j in range(m)]
        m = search_moves(tops, np.uint64(pos), rules | FITTED, out, keys, ws)
        moves = [int(out[j]) for j in range(m)]
        assert sorted(moves) == sorted(engine)
        want = [reference_key(piles, reserve, pos, d) for d in moves]
        if m > 1:
            assert [int(keys[j]) for j in range(m)] == want
        assert want == sorted(want, reverse=True)
        for a, b in zip(moves, moves[1:]):
            if reference_key(piles, reserve, pos, a) == reference_key(piles, reserve, pos, b):
                assert engine.index(a) < engine.index(b)
        checked += m
        reordered += moves != engine
        scores.update(want)
    assert checked > 100 and reordered > 5 and len(scores) > 10


def test_the_order_by_fullest_piles_comes_first():
    out = np.empty(MAX_MOVES, np.uint64)
    keys = np.empty(MAX_MOVES, np.int64)
    ws = new_workspace()
    for piles, reserve, tops, pos in played_positions(20, seed=4):
        m = search_moves(tops, np.uint64(pos), ORDERING, out, keys, ws)
        ordered = [int(out[j]) for j in range(m)]
        m = search_moves(tops, np.uint64(pos), ORDERING | FITTED, out, keys, ws)
        assert [int(out[j]) for j in range(m)] == ordered


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
                 0, proj, (ptab.slots, np.uint32(ptab.generation), ptab.bits), MAX_PLY)
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
