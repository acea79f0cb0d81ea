"""Games of the players on many deals: the batch of arrays, the games of the front door
against the kernels called one by one, the fatal move against a walk along the game, the
weighted player on threads, and the front door's checks."""

from __future__ import annotations

import numpy as np
import pytest

import solver
from halfmoon.game.codes import random_numbers
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.errors import HalfMoonError
from solver.mirror.convert import deal_arrays
from solver.mirror.position import MAX_PLY, cards_left, initial_position, position_arrays
from solver.players.fair import fair_game
from solver.players.features import weighted_wins as weighted_wins_kernel
from solver.players.games import deal_batch, fatal_move
from solver.players.roster import SIMPLE, TABLE_BITS
from solver.players.simple import GREEDY, play_batch, play_game
from solver.portfolio.search import search_arrays
from solver.verdicts import WIN

NUMBERS = random_numbers(12, seed=61)
SEEDS = [(n * 0x9E3779B97F4A7C15) % (1 << 64) for n in NUMBERS]  # some above 2**63


def test_a_batch_is_the_deals_arrays():
    batch = solver.deal_batch(NUMBERS)
    assert len(batch) == 12 and batch.piles.dtype == np.int8 and batch.roots.dtype == np.uint64
    for k, n in enumerate(NUMBERS):
        piles, reserve = deal_arrays(Deal.from_number(n))
        assert np.array_equal(batch.piles[k], piles) and np.array_equal(batch.reserve[k], reserve)
        assert batch.roots[k] == initial_position(piles, reserve)
    deals = [Deal.from_number(n) for n in NUMBERS]
    for other in (solver.deal_batch(deals), solver.deal_batch(np.array(NUMBERS)),
                  solver.deal_batch([d.code for d in deals])):
        assert all(np.array_equal(a, b) for a, b in zip(
            (batch.piles, batch.reserve, batch.roots), (other.piles, other.reserve, other.roots)))
    one = Deal.from_number(5)
    twice = deal_batch([one, 7, one])  # a Deal given twice is read once, and copied
    assert np.array_equal(twice.piles[0], twice.piles[2]) and not np.array_equal(twice.piles[0],
                                                                                 twice.piles[1])
    part = batch.part(3, 5)
    assert len(part) == 2 and np.array_equal(part.roots, batch.roots[3:5])


@pytest.mark.parametrize("name", list(SIMPLE))
def test_simple_games_are_the_kernels_batch(name):
    """The front door against play_batch called as the research layer called it before."""
    code, depth = SIMPLE[name]
    batch = solver.deal_batch(NUMBERS)
    lines = np.zeros((12, MAX_PLY), np.uint64)
    nmoves = np.zeros(12, np.int64)
    finals = np.zeros(12, np.uint64)
    play_batch(batch.piles, batch.reserve, batch.roots, np.int64(code), np.array(SEEDS, np.uint64),
               lines, nmoves, finals, np.int64(depth))
    g = solver.simple_games(NUMBERS, name, SEEDS)
    assert np.array_equal(g.moves_made, nmoves) and np.array_equal(g.lines, lines)
    assert np.array_equal(g.won, finals == 0) and len(g) == 12
    assert list(g.cards_left) == [cards_left(f) for f in finals]
    assert g.seconds is None and g.start is None


def test_a_simple_game_replays_through_the_engine():
    g = solver.simple_games(NUMBERS[:4], "lookahead3")
    for k, n in enumerate(NUMBERS[:4]):
        game = Game(n)
        for move in solver.line_moves(g.lines[k, :g.moves_made[k]]):
            game.play(move)
        assert game.is_over and game.is_won == g.won[k] and game.cards_left() == g.cards_left[k]


def test_random_games_differ_by_seed_only():
    same = solver.simple_games([NUMBERS[0]] * 3, "random", [7, 7, 8])
    assert np.array_equal(same.lines[0], same.lines[1]) and not np.array_equal(same.lines[0],
                                                                               same.lines[2])
    zeros = solver.simple_games(NUMBERS[:3], "random")  # no seeds: all 0
    assert np.array_equal(zeros.lines, solver.simple_games(NUMBERS[:3], "random", [0, 0, 0]).lines)


@pytest.mark.parametrize("name", ["greedy", "tuned", "rollout@3", "rollout-lookahead@2", "uct@20"])
def test_player_games_are_the_kernels_one_by_one(name):
    """The front door against the kernels called as the research layer called them before."""
    p = solver.player_named(name)
    batch = solver.deal_batch(NUMBERS[:6])
    g = solver.player_games(batch, p, SEEDS[:6])
    assert g.seconds.shape == (6,) and (g.seconds > 0).all() and g.start is None
    for k in range(6):
        line = np.zeros(MAX_PLY, np.uint64)
        if p.kind == "simple":
            n, final = play_game(batch.piles[k], batch.reserve[k], batch.roots[k], p.code,
                                 np.array([SEEDS[k]], np.uint64), line, 2)
            evaluations = 0
        else:
            stats = np.zeros(1, np.int64)
            n, final = fair_game(batch.piles[k], batch.reserve[k], batch.roots[k], p.code, p.base,
                                 p.params(), np.uint64(SEEDS[k]), TABLE_BITS, line, stats)
            evaluations = stats[0]
        assert (g.moves_made[k], g.won[k], g.evaluations[k]) == (n, final == 0, evaluations)
        assert g.cards_left[k] == cards_left(final) and np.array_equal(g.lines[k, :n], line[:n])
    if p.kind != "simple":
        assert (g.evaluations > 0).all()


def _first_lost(piles, reserve, root, line, budget):
    """The walk: every position along the game solved; the moves made before the first lost
    one (None if there is none)."""
    pos = int(root)
    for k in range(len(line) + 1):
        if pos and search_arrays(*position_arrays(piles, reserve, pos), budget)[0] != WIN:
            return k
        if k < len(line):
            pos -= int(line[k])
    return None


def test_the_fatal_move_is_the_end_of_the_winnable_prefix():
    batch = solver.deal_batch(random_numbers(16, seed=62))
    g = solver.player_games(batch, "random", list(range(16)), fatal_budget=1_000_000)
    named = 0
    for k in range(16):
        line = g.lines[k, :g.moves_made[k]]
        lost = _first_lost(batch.piles[k], batch.reserve[k], batch.roots[k], line, 1_000_000)
        assert not g.unresolved[k]
        if lost == 0:
            assert (g.start[k], g.fatal_ply[k], g.fatal_cards_left[k]) == ("loss", -1, -1)
        elif lost is None:
            assert g.won[k] and (g.start[k], g.fatal_ply[k]) == ("win", -1)
        else:
            named += 1
            pos = int(batch.roots[k]) - int(line[:lost - 1].sum())
            assert (g.start[k], g.fatal_ply[k]) == ("win", lost - 1)
            assert g.fatal_cards_left[k] == cards_left(np.uint64(pos))
    assert named >= 3  # enough fatal moves to compare


def test_no_fatal_move_on_a_lost_or_unsettled_deal():
    piles, reserve = deal_arrays(Deal.from_number(55))  # lost (tests/solver/portfolio)
    root = initial_position(piles, reserve)
    line = np.zeros(MAX_PLY, np.uint64)
    n, final = play_game(piles, reserve, root, GREEDY, np.array([1], np.uint64), line, 2)
    assert final != 0
    assert fatal_move(piles, reserve, int(root), line[:n], 1_000_000) == ("loss", -1, -1, False)

    piles, reserve = deal_arrays(Deal.from_number(0))  # won, but not within a budget of 1
    root = initial_position(piles, reserve)
    n, final = play_game(piles, reserve, root, GREEDY, np.array([1], np.uint64), line, 2)
    assert fatal_move(piles, reserve, int(root), line[:n], 1) == ("unresolved", -1, -1, True)
    assert fatal_move(piles, reserve, int(root), line[:n], 1_000_000)[0] == "win"


def test_weighted_wins_on_threads_are_the_kernel_on_the_whole_batch():
    batch = solver.deal_batch(random_numbers(600, seed=63))
    w = np.linspace(1.0, 0.1, solver.NMOVE_FEATURES)
    alone = np.zeros(600, np.bool_)
    weighted_wins_kernel(batch.piles, batch.reserve, batch.roots, w, alone)
    assert np.array_equal(solver.weighted_wins(batch, w, threads=3), alone)
    greedy = solver.weighted_wins(batch, solver.GREEDY_WEIGHTS, threads=1)
    assert np.array_equal(greedy, solver.simple_games(batch, "greedy").won)
    assert 0 < greedy.sum() < 600


def test_bad_input_is_refused():
    checks = [
        (lambda: solver.deal_batch("HM1-N-AAAAAAA"), "sequence of deals"),
        (lambda: solver.deal_batch(5), "sequence of deals"),
        (lambda: solver.deal_batch([-1]), "outside"),
        (lambda: solver.deal_batch([1.5]), "expected a Deal"),
        (lambda: solver.simple_games([1], "clever"), "unknown simple player 'clever'"),
        (lambda: solver.simple_games([1, 2], "random", [1]), "a seed for each of the 2 deals"),
        (lambda: solver.simple_games([1], "random", [-1]), "0..2\\*\\*64-1"),
        (lambda: solver.simple_games([1], "random", [1 << 64]), "0..2\\*\\*64-1"),
        (lambda: solver.simple_games([1], "random", 7), "seeds must be a sequence"),
        (lambda: solver.player_games([1], "wise", [0]), "unknown player 'wise'"),
        (lambda: solver.player_games([1], 3, [0]), "a player's name or a Player"),
        (lambda: solver.player_games([1], "greedy", [0], fatal_budget=-1), "at least 0"),
        (lambda: solver.weighted_wins([1], [1.0, 2.0]), "18 finite numbers"),
        (lambda: solver.weighted_wins([1], [np.nan] * 18), "18 finite numbers"),
        (lambda: solver.weighted_wins([1], [1.0] * 18, threads=-1), "threads"),
    ]
    for call, message in checks:
        with pytest.raises(HalfMoonError, match=message):
            call()
    odd = solver.Player("odd", "clever")
    with pytest.raises(HalfMoonError, match="of no known kind"):
        solver.player_games([1], odd, [0])
