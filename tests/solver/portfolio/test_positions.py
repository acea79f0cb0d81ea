"""The positions of a game (solver/portfolio/positions.py, solver.walk_games): a position's
arrays, moves as deltas, the commuting moves of a line, the walk's table, and every child
of every position walked against a fresh solve of that child as a Deal of its own."""

from __future__ import annotations

import random

import numpy as np
import pytest

import solver
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.moves import MOVE_COUNT, Move, move_from_number
from solver import GameWalk, solve, walk_games
from solver.mirror.convert import deal_arrays, delta_to_move
from solver.mirror.position import MAX_MOVES, all_moves, initial_position
from solver.portfolio.positions import WalkTable, commuting, front, move_delta

BUDGET = 200_000


def test_a_moves_delta_is_the_mirrors():
    for k in range(MOVE_COUNT):
        move = move_from_number(k)
        assert delta_to_move(move_delta(move)) == move
    game = Game(7)
    piles, reserve = deal_arrays(game.deal)
    out = np.empty(MAX_MOVES, np.uint64)
    n = all_moves(piles, reserve, initial_position(piles, reserve), out)
    assert sorted(out[:n].tolist()) == sorted(move_delta(m) for m in game.legal_moves)


def test_commuting_moves_of_a_line_by_hand():
    a, b, c = 0x11, 0x110, 0x1000  # b touches a's second source; c touches neither
    assert commuting((a, b, c)) == [0, 2]
    assert front((a, b, c), c) == (a, b)
    assert front((a, b, c), b) is None  # a takes a card of b's sources first
    assert front((a, b, c), 0x2) is None  # not in the line


def test_the_walk_table_starts_a_generation_per_walk_only():
    table = WalkTable(1)
    g = table.generation
    assert table.next_generation() == g  # a solve keeps the walk's generation
    table.new_walk()
    assert table.generation == g + 1 and table.next_generation() == g + 1


def _random_game(number: int, seed: int) -> list[Move]:
    game, rng = Game(number), random.Random(seed)
    while game.legal_moves:
        game.push(rng.choice(sorted(game.legal_moves)))
    return list(game.stack)


def _fresh(game: Game, move: Move) -> str:
    game.push(move)
    verdict = "win" if game.cards_left() == 0 else solve(game.remaining_deal(), BUDGET).verdict
    game.pop()
    return verdict


@pytest.mark.parametrize("number,seed", [(0, 1), (5, 2), (6, 3)])
def test_every_child_is_a_fresh_solves_verdict(number, seed):
    moves = _random_game(number, seed)
    (w,) = walk_games(number, [moves], BUDGET)
    assert isinstance(w, GameWalk) and w.start == solve(number, BUDGET).verdict == "win"
    game = Game(number)
    for ply, children in enumerate(w.children):
        assert list(children) and set(children) == set(game.legal_moves)
        assert children == {m: _fresh(game, m) for m in children}
        if ply < len(w.children) - 1:
            assert children[moves[ply]] == "win"  # the walk goes on from won children only
        game.push(moves[ply])
    last = w.children[-1][moves[len(w.children) - 1]]
    assert last != "win" or len(w.children) == len(moves)
    assert 1 <= w.solves < sum(len(c) for c in w.children)  # most children are proved


def test_games_share_the_start_and_each_walk_depends_on_itself_alone():
    one, two = _random_game(0, 4), _random_game(0, 5)
    both = walk_games(0, [one, two], BUDGET)
    assert both == walk_games(0, [one], BUDGET) + walk_games(0, [two], BUDGET)
    assert walk_games(0, [], BUDGET) == ()
    # a game cut short: the position its moves leave is not walked
    short = walk_games(Deal.from_number(0), [one[:2]], BUDGET)[0]
    assert short.children == both[0].children[:2]


def test_unwalked_starts():
    lost = walk_games(55, [_random_game(55, 1)], BUDGET)[0]  # a deal the solver proves lost
    assert (lost.start, lost.children, lost.solves) == ("loss", (), 1) and lost.nodes > 0
    open_ = walk_games(2, [_random_game(2, 1)], 1)[0]
    assert (open_.start, open_.children, open_.solves) == ("unresolved", (), 1)
    empty = Deal(piles=[()] * 12, reserve=[None] * 8)
    assert walk_games(empty, [[]])[0] == GameWalk("win", (), 0, 0)


def test_the_front_door_lists_its_positions_entries():
    assert {"walk_games", "GameWalk"} <= set(solver.__all__)


def _illegal(number: int) -> Move:
    legal = set(Game(number).legal_moves)
    return next(m for m in map(move_from_number, range(MOVE_COUNT)) if m not in legal)


@pytest.mark.parametrize("call,text", [
    (lambda: walk_games(-1, [[]]), "-1"),
    (lambda: walk_games(2.5, [[]]), "2.5"),
    (lambda: walk_games(0, [[]], budget=0), "budget must be at least 1"),
    (lambda: walk_games(0, [[]], budget=1.5), "budget must be a whole number"),
    (lambda: walk_games(0, "P1+P2"), "games must be a sequence"),
    (lambda: walk_games(0, [Move.parse("P1+P2")]), "game 0 must be a sequence of Moves"),
    (lambda: walk_games(0, [[], ["P1+P2"]]), "game 1: ply 0 is not a Move"),
    (lambda: walk_games(0, [[_illegal(0)]]), f"game 0: move {_illegal(0)} at ply 0 is not legal"),
])
def test_bad_input_is_a_one_line_error(call, text):
    with pytest.raises(HalfMoonError) as info:
        call()
    assert text in str(info.value) and "\n" not in str(info.value)


def test_a_move_after_the_last_card_is_not_legal():
    game = Game(0)
    moves = list(solve(0, BUDGET).moves)
    for m in moves:
        game.push(m)
    assert game.cards_left() == 0
    with pytest.raises(HalfMoonError, match=f"ply {len(moves)} is not legal"):
        walk_games(0, [moves + [moves[0]]], BUDGET)
