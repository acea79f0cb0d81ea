"""A fair player's move features, and the weighted player that weighs them."""

from __future__ import annotations

import numpy as np

from halfmoon.game.codes import random_numbers
from halfmoon.game.deal import Deal
from solver.mirror.convert import deal_arrays
from solver.mirror.position import (
    DEPTH,
    MAX_MOVES,
    MAX_PLY,
    NPILES,
    NRESERVE,
    all_moves,
    delta_sources,
    initial_position,
    pile_count,
    reserve_full,
)
from solver.players.fair import sample_layout, view_layout
from solver.players.features import (
    GREEDY_WEIGHTS,
    NMOVE_FEATURES,
    TUNED_WEIGHTS,
    move_features,
    weighted_choice,
    weighted_wins,
)
from solver.players.games import deal_batch
from solver.players.simple import GREEDY, TUNED, greedy_choice, play_game


def _positions(number, strategy=GREEDY):
    piles, reserve = deal_arrays(Deal.from_number(number))
    pos = initial_position(piles, reserve)
    line = np.zeros(MAX_PLY, np.uint64)
    n, _ = play_game(piles, reserve, pos, strategy, np.zeros(1, np.uint64), line, 2)
    out = [pos]
    for k in range(n):
        pos = pos - line[k]
        out.append(pos)
    return piles, reserve, out


def test_the_simple_features_say_what_the_move_takes():
    moves = np.empty(MAX_MOVES, np.uint64)
    feats = np.zeros((MAX_MOVES, NMOVE_FEATURES))
    srcs = np.empty(3, np.int64)
    for number in random_numbers(10, seed=41):
        piles, reserve, positions = _positions(number)
        for pos in positions:
            m = all_moves(piles, reserve, pos, moves)
            move_features(piles, reserve, pos, moves, m, feats)
            nres = sum(reserve_full(pos, r) for r in range(NRESERVE))
            for j in range(m):
                n = delta_sources(moves[j], srcs)
                sizes = [pile_count(pos, s) for s in srcs[:n] if s < NPILES]
                assert feats[j, 0] == sum(c >= 2 for c in sizes)
                assert feats[j, 1] == (n == 2)
                assert feats[j, 2] == n - len(sizes)
                assert feats[j, 3] == sum(sizes)
                assert feats[j, 8] == max(sizes, default=0)
                assert feats[j, 13] == sum(c * c for c in sizes)
                assert feats[j, 10] == feats[j, 2] * nres
                assert 0 <= feats[j, 4] <= 96 and feats[j, 5] in (0, 1) and 0 <= feats[j, 6] <= 6


def test_the_features_use_the_view_only():
    """The features of the true layout, of the view and of any layout sampled from it agree."""
    moves = np.empty(MAX_MOVES, np.uint64)
    state = np.array([3], np.uint64)
    for number in random_numbers(8, seed=42):
        piles, reserve, positions = _positions(number)
        for pos in positions[::3]:
            m = all_moves(piles, reserve, pos, moves)
            if m == 0:
                continue
            view = np.zeros((NPILES, DEPTH), np.int8)
            view_layout(piles, pos, view)
            sample = np.zeros_like(view)
            sample_layout(view, pos, state, sample)
            got = []
            for layout in (piles, view, sample):
                f = np.zeros((MAX_MOVES, NMOVE_FEATURES))
                move_features(layout, reserve, pos, moves, m, f)
                got.append(f[:m])
            assert np.array_equal(got[0], got[1]) and np.array_equal(got[0], got[2])


def test_greedys_weights_make_greedys_moves():
    moves = np.empty(MAX_MOVES, np.uint64)
    scratch = np.zeros((MAX_MOVES, NMOVE_FEATURES))
    decisions = 0
    for number in random_numbers(20, seed=43):
        piles, reserve, positions = _positions(number)
        for pos in positions:
            m = all_moves(piles, reserve, pos, moves)
            if m >= 2:
                decisions += 1
                assert weighted_choice(piles, reserve, pos, moves, m, GREEDY_WEIGHTS, scratch) == \
                    greedy_choice(pos, moves, m)
    assert decisions > 200


def test_the_tuned_player_is_its_weights_and_differs_from_greedy():
    numbers = random_numbers(300, seed=44)
    batch = deal_batch(numbers)
    piles, reserve, roots = batch.piles, batch.reserve, batch.roots
    assert np.abs(TUNED_WEIGHTS).sum() > 0  # fitted, not left empty
    tuned = np.zeros(len(numbers), np.bool_)
    weighted_wins(piles, reserve, roots, TUNED_WEIGHTS, tuned)
    greedy = np.zeros_like(tuned)
    weighted_wins(piles, reserve, roots, GREEDY_WEIGHTS, greedy)
    line = np.zeros(MAX_PLY, np.uint64)
    same_moves = 0
    for k in range(len(numbers)):
        n, final = play_game(piles[k], reserve[k], roots[k], TUNED, np.zeros(1, np.uint64), line, 2)
        assert tuned[k] == (final == 0)
        gline = np.zeros(MAX_PLY, np.uint64)
        g, gfinal = play_game(piles[k], reserve[k], roots[k], GREEDY, np.zeros(1, np.uint64),
                              gline, 2)
        assert greedy[k] == (gfinal == 0)
        same_moves += n == g and np.array_equal(line[:n], gline[:g])
    assert same_moves < len(numbers)  # another player, not greedy under another name
