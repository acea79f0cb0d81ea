"""Paired shares: one set of layouts for a position and its moves, the paired interval
against the best, the recommendation, and the recommender as a player."""

from __future__ import annotations

import numpy as np
import pytest

import solver
from halfmoon.game.codes import random_numbers
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.research.stats import paired_difference
from solver.mirror.convert import deal_arrays, delta_to_move
from solver.mirror.position import (
    DEPTH,
    MAX_MOVES,
    MAX_PLY,
    NPILES,
    all_moves,
    initial_position,
    pile_count,
)
from solver.players.fair import sample_layout, view_layout
from solver.players.paired import (
    Z95,
    child_table,
    compare,
    paired_bounds,
    position_counts,
    recommend,
    sample_known,
)
from solver.players.simple import GREEDY, play_game
from solver.verdicts import LOSS, UNRESOLVED, WIN


def _positions(count=3, plies=(0, 8, 16, 24), seed=53):
    """Positions along the greedy player's games on random deals."""
    for number in random_numbers(count, seed=seed):
        piles, reserve = deal_arrays(Deal.from_number(number))
        pos = initial_position(piles, reserve)
        line = np.zeros(MAX_PLY, np.uint64)
        n, _ = play_game(piles, reserve, pos, GREEDY, np.zeros(1, np.uint64), line, 2)
        for k in range(n + 1):
            if k in plies:
                yield piles, reserve, np.uint64(pos)
            if k < n:
                pos = pos - line[k]


def test_the_paired_interval_is_newcombes_as_the_ladder_computes_it():
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 60))
        a = rng.random(n) < rng.random()
        b = rng.random(n) < rng.random()
        both, only_a = int(np.sum(a & b)), int(np.sum(a & ~b))
        only_b = int(np.sum(~a & b))
        got = paired_bounds(both, only_a, only_b, n - both - only_a - only_b, Z95)
        want = paired_difference(a.astype(float), b.astype(float), Z95)
        assert np.allclose(got, want, atol=1e-9), (both, only_a, only_b, n)


def test_sampled_layouts_keep_what_is_known_and_draw_the_rest():
    rng = np.random.default_rng(3)
    for piles, reserve, pos in _positions():
        fixed = np.zeros((NPILES, DEPTH), np.bool_)
        hidden = [(i, k) for i in range(NPILES) for k in range(pile_count(pos, i) - 1)]
        for i, k in hidden:
            fixed[i, k] = rng.random() < 0.3
        state = np.array([11], np.uint64)
        out = np.zeros_like(piles)
        drawn = sample_known(piles, pos, fixed, state, out)
        assert drawn == len(hidden) - int(fixed.sum())
        for i in range(NPILES):
            c = pile_count(pos, i)
            for k in range(DEPTH):
                if k >= c - 1 or fixed[i, k]:
                    assert out[i, k] == piles[i, k]  # tops, known places, removed places
        free = [(i, k) for i, k in hidden if not fixed[i, k]]
        assert sorted(out[i, k] for i, k in free) == sorted(piles[i, k] for i, k in free)
        # nothing known under the tops: the fair players' draw, from the view, the same
        view = np.zeros_like(piles)
        view_layout(piles, pos, view)
        a, b = np.zeros_like(piles), np.zeros_like(piles)
        sample_layout(view, pos, np.array([5], np.uint64), a)
        sample_known(view, pos, np.zeros_like(fixed), np.array([5], np.uint64), b)
        assert np.array_equal(a, b)


def test_no_move_is_above_the_position_and_the_recommendation_is_never_clearly_below():
    checked = 0
    for piles, reserve, pos in _positions():
        moves = np.empty(MAX_MOVES, np.uint64)
        m = int(all_moves(piles, reserve, pos, moves))
        if m < 2:
            continue
        view = np.zeros_like(piles)
        view_layout(piles, pos, view)
        table = child_table(view, reserve, pos, moves, m, 24, np.array([9], np.uint64), 5_000)
        assert set(np.unique(table)) <= {WIN, LOSS, UNRESOLVED}
        wins, open_ = position_counts(table)
        keeps = (table == WIN).sum(axis=0)
        assert wins >= keeps.max() and wins + open_ <= 24
        for base in range(m):
            out = np.zeros((m, 5))
            rec, best = recommend(table, base, Z95, out)
            assert keeps[best] == keeps.max()
            assert out[rec, 4] >= 0.0  # the recommendation is never clearly below the best
            assert rec == base or (rec == best and out[base, 4] < 0)
            assert out[best, 1] == out[best, 2] == 0
        checked += 1
    assert checked >= 6


def test_the_rule_keeps_the_base_move_unless_the_evidence_is_clear():
    # 40 layouts: move 0 wins in all, move 1 in 38 (2 discordant), move 2 in 20
    table = np.full((40, 3), WIN, np.int8)
    table[:2, 1] = LOSS
    table[:20, 2] = LOSS
    out = np.zeros((3, 5))
    assert recommend(table, 1, Z95, out) == (1, 0)  # 38 against 40: not told apart
    assert out[1, 4] >= 0 > out[2, 4]
    assert recommend(table, 2, Z95, out) == (0, 0)  # 20 against 40: clearly below
    # ties go to the base move
    assert compare(np.full((5, 3), WIN, np.int8), 2, Z95, np.zeros((3, 5))) == 2


@pytest.mark.parametrize("number", random_numbers(2, seed=5))
def test_the_fair_hint_is_paired(number):
    game = Game(number)
    for _ in range(6):
        game.play(sorted(game.legal_moves, key=str)[0])
    h = solver.fair_hint(game.remaining_deal(), 16, 3, 5_000)
    assert h.wins >= max(h.keeps) and h.wins + h.open <= 16
    best = h.moves.index(h.best)
    assert h.keeps[best] == max(h.keeps)
    rec = h.moves.index(h.recommended)
    assert h.high[rec] >= 0
    # the board's rule: the largest share, ties to the tuned player's move, then the first
    assert h.recommended == h.best
    tops = [m for m, k in zip(h.moves, h.keeps) if k == max(h.keeps)]
    tuned = solver.fair_hint(game.remaining_deal(), 1, 3, 5_000, player="tuned").move
    assert h.best == (tuned if tuned in tops else tops[0])
    for j in range(len(h.moves)):  # the discordant pairs make the difference
        assert h.keeps[j] - h.keeps[best] == h.only[j] - h.only_best[j]


def test_the_recommender_plays_legal_games_that_repeat_from_their_seed():
    numbers = random_numbers(3, seed=29)
    games = [solver.player_games(numbers, "recommend@4", [1, 2, 3]) for _ in range(2)]
    assert np.array_equal(games[0].lines, games[1].lines)
    for number, line, n, won in zip(numbers, games[0].lines, games[0].moves_made, games[0].won):
        game = Game(number)
        for delta in line[:n]:
            game.play(delta_to_move(int(delta)))
        assert game.is_over and game.is_won == bool(won)
    assert games[0].evaluations.sum() > 0


def test_the_recommender_plays_the_largest_share_ties_to_the_tuned_move():
    """Its first decision, made again by hand from the same random numbers: the move of
    most wins in the layouts drawn, ties to the tuned player's move."""
    from solver.players.fair import base_choice
    from solver.players.paired import recommend_game
    from solver.players.simple import TUNED

    for number in random_numbers(2, seed=31):
        piles, reserve = deal_arrays(Deal.from_number(number))
        root = np.uint64(initial_position(piles, reserve))
        line = np.zeros(MAX_PLY, np.uint64)
        n, _, solves = recommend_game(piles, reserve, root, 4, 2_000, Z95, 11, line)
        assert n > 0 and solves > 0
        moves = np.empty(MAX_MOVES, np.uint64)
        m = int(all_moves(piles, reserve, root, moves))
        view = np.zeros_like(piles)
        view_layout(piles, root, view)
        tuned = int(base_choice(view, reserve, root, moves, m, TUNED))
        table = child_table(view, reserve, root, moves, m, 4, np.array([11], np.uint64), 2_000)
        best = int(compare(table, tuned, Z95, np.zeros((m, 5))))
        assert line[0] == moves[best]
        wins = (table == WIN).sum(axis=0)
        assert wins[best] == wins.max()
