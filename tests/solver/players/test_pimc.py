"""The PIMC player: a layout at a position as the solver takes it, the children solved in
sampled layouts, and whole games that replay through the engine."""

from __future__ import annotations

import numpy as np
from conftest import make_layout

from halfmoon.game.codes import random_numbers
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.layouts import parse_layout
from solver import solve
from solver.mirror.convert import deal_arrays, delta_to_move
from solver.mirror.position import (
    MAX_MOVES,
    MAX_PLY,
    all_moves,
    initial_position,
)
from solver.players.fair import view_layout
from solver.players.pimc import child_solves, pimc_choice, pimc_game
from solver.players.simple import LOOKAHEAD


def test_with_one_rank_hidden_every_sample_is_the_position():
    """The only hidden card is a 10: every sample is the layout itself, so a move's child is
    won in every sample or in none, as the solver settles it.  Ad + 10d leaves Ah over the
    last 10: lost; Ah + 10d uncovers it for Ad: won."""
    deal = parse_layout(make_layout({1: "10c Ah", 2: "Ad", 3: "10d"}))
    piles, reserve = deal_arrays(deal)
    pos = initial_position(piles, reserve)
    moves = np.empty(MAX_MOVES, np.uint64)
    m = all_moves(piles, reserve, pos, moves)
    view = np.zeros_like(piles)
    view_layout(piles, pos, view)
    wins, unknown, solves = child_solves(view, reserve, pos, moves, m, 3, np.array([5], np.uint64),
                                         100_000)
    assert m == 2 and not unknown.any() and solves == 3 * m
    for j in range(m):
        game = Game(deal)
        game.play(delta_to_move(int(moves[j])))
        won = solve(game.remaining_deal(), 100_000).verdict == "win"
        assert wins[j] == (3 if won else 0)
    assert sorted(wins) == [0, 3]


def test_one_move_is_the_base_players_without_a_solve():
    piles, reserve = deal_arrays(parse_layout(make_layout({1: "5c Ah", 2: "10c", 3: "6d"})))
    pos = initial_position(piles, reserve)
    moves = np.empty(MAX_MOVES, np.uint64)
    assert all_moves(piles, reserve, pos, moves) == 1
    assert pimc_choice(piles, reserve, pos, moves, 1, LOOKAHEAD, 8, 20_000,
                       np.array([1], np.uint64)) == (0, 0)


def test_pimc_games_replay_and_repeat_from_their_seed():
    for number in random_numbers(3, seed=72):
        piles, reserve = deal_arrays(Deal.from_number(number))
        root = initial_position(piles, reserve)
        runs = []
        for _ in range(2):
            line = np.zeros(MAX_PLY, np.uint64)
            n, final, solves = pimc_game(piles, reserve, root, LOOKAHEAD, 2, 20_000, 99, line)
            runs.append((line[:n].tolist(), final, solves))
        assert runs[0] == runs[1]
        moves, final, solves = runs[0]
        game = Game(number)
        for delta in moves:
            game.play(delta_to_move(delta))
        assert game.is_over and game.is_won == (final == 0) and solves > 0
