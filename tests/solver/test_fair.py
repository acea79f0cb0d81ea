"""Fair play's kernels: the view, the layouts sampled from it, and players that never see
the hidden cards."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest

from halfmoon.game.codes import random_numbers
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from solver.fair import (MCTS, NPARAMS, NRANKS, P_BUDGET, P_C, P_PARTIAL, P_ROUNDS, P_Z, ROLLOUT, decide,
                         fair_game, hidden_counts, new_tree, sample_layout, view_layout)
from solver.kernels import DEPTH, MAX_MOVES, MAX_PLY, NPILES, all_moves, initial_position, pile_count
from solver.players import GREEDY, LOOKAHEAD, play_game
from solver.search import deal_arrays, delta_to_move

# (player, base, budget, credit of a lost roll-out): each fair player at a small budget
PLAYERS = [(GREEDY, GREEDY, 0, 0.0), (LOOKAHEAD, LOOKAHEAD, 0, 0.0), (ROLLOUT, GREEDY, 12, 0.0),
           (ROLLOUT, LOOKAHEAD, 6, 0.0), (MCTS, GREEDY, 60, 0.0), (ROLLOUT, GREEDY, 8, 0.5)]


def _params(budget, partial, z=2.0):
    p = np.zeros(NPARAMS, np.float64)
    p[[P_BUDGET, P_ROUNDS, P_Z, P_C, P_PARTIAL]] = budget, 4, z, 0.5, partial
    return p


def _arrays(number):
    return deal_arrays(Deal.from_number(number))


def _positions(number, plies):
    """Positions along the greedy player's game on a deal (the first ``plies``)."""
    piles, reserve = _arrays(number)
    pos = initial_position(piles, reserve)
    line = np.zeros(MAX_PLY, np.uint64)
    n, _ = play_game(piles, reserve, pos, GREEDY, np.zeros(1, np.uint64), line, 2)
    out = [pos]
    for k in range(min(n, plies)):
        pos = pos - line[k]
        out.append(pos)
    return piles, reserve, out


def _hidden_places(pos):
    return [(i, k) for i in range(NPILES) for k in range(pile_count(pos, i) - 1)]


def _shuffle_hidden(piles, pos, rng):
    """The deal with the cards under the tops at ``pos`` put in other places."""
    out = piles.copy()
    places = _hidden_places(pos)
    cards = [piles[i, k] for i, k in places]
    rng.shuffle(cards)
    for (i, k), r in zip(places, cards):
        out[i, k] = r
    return out


def test_the_view_keeps_the_tops_and_the_hidden_multiset_and_nothing_else():
    rng = np.random.default_rng(1)
    for number in random_numbers(20, seed=5):
        piles, _, positions = _positions(number, 30)
        for pos in positions[::5]:
            view = np.zeros_like(piles)
            view_layout(piles, pos, view)
            hidden = np.zeros(NRANKS + 1, np.int64)
            n = hidden_counts(piles, pos, hidden)
            assert n == len(_hidden_places(pos))
            for i in range(NPILES):
                c = pile_count(pos, i)
                assert (view[i, c:] == 0).all()
                if c:
                    assert view[i, c - 1] == piles[i, c - 1]
            assert Counter(view[i, k] for i, k in _hidden_places(pos)) == Counter(
                piles[i, k] for i, k in _hidden_places(pos))
            again = np.zeros_like(piles)
            view_layout(_shuffle_hidden(piles, pos, rng), pos, again)
            assert np.array_equal(view, again)  # where the hidden cards lie does not show


def test_every_sample_is_consistent_with_the_view():
    piles, _, positions = _positions(random_numbers(1, seed=9)[0], 20)
    state = np.array([7], np.uint64)
    for pos in positions:
        view = np.zeros_like(piles)
        view_layout(piles, pos, view)
        out = np.zeros_like(piles)
        for _ in range(50):
            n = sample_layout(view, pos, state, out)
            assert n == len(_hidden_places(pos))
            hidden = [p for p in _hidden_places(pos)]
            shown = np.ones_like(piles, bool)
            for i, k in hidden:
                shown[i, k] = False
            assert np.array_equal(out[shown], view[shown])  # tops and removed places as in view
            assert sorted(out[i, k] for i, k in hidden) == sorted(view[i, k] for i, k in hidden)


def test_samples_are_uniform_over_the_arrangements_and_include_the_true_deal():
    """A small case: 5 hidden places holding ranks {1, 1, 2, 3, 3}, 30 arrangements."""
    piles = np.zeros((NPILES, DEPTH), np.int8)
    piles[0, :3] = [1, 2, 13]  # two hidden under a king
    piles[1, :2] = [3, 12]
    piles[2, :3] = [3, 1, 11]
    pos = initial_position(piles, np.zeros(8, np.int8))
    places = _hidden_places(pos)
    assert len(places) == 5
    arrangements = set(itertools.permutations([1, 1, 2, 3, 3]))
    assert len(arrangements) == 30
    view = np.zeros_like(piles)
    view_layout(piles, pos, view)
    state = np.array([20261203], np.uint64)
    out = np.zeros_like(piles)
    draws = 30_000
    seen = Counter()
    for _ in range(draws):
        sample_layout(view, pos, state, out)
        seen[tuple(int(out[i, k]) for i, k in places)] += 1
    assert set(seen) == arrangements
    assert tuple(int(piles[i, k]) for i, k in places) in seen  # the true deal is one of them
    expected = draws / 30
    chi2 = sum((seen[a] - expected) ** 2 / expected for a in arrangements)
    # 29 degrees of freedom: the 0.1 % and 99.9 % points are 11.0 and 58.3
    assert 11.0 < chi2 < 58.3, chi2


@pytest.mark.parametrize("player, base, budget, partial", PLAYERS)
def test_a_fair_players_moves_do_not_depend_on_the_hidden_cards(player, base, budget, partial):
    """At positions along real games, with the same random numbers, the deal with its hidden
    cards shuffled gets the same move, though its samples and roll-outs would differ if the
    player looked."""
    rng = np.random.default_rng(player * 10 + base)
    moves = np.empty(MAX_MOVES, np.uint64)
    checked = changed = 0
    for number in random_numbers(6, seed=17):
        piles, reserve, positions = _positions(number, 48)
        for pos in positions[::4]:
            m = all_moves(piles, reserve, pos, moves)
            if m < 2:
                continue
            picks = []
            for layout in (piles, _shuffle_hidden(piles, pos, rng)):
                changed += not np.array_equal(layout, piles)
                k = decide(layout, reserve, pos, moves, m, player, base, _params(budget, partial),
                           np.array([99], np.uint64), *new_tree(16), np.zeros(1, np.int64), np.zeros_like(piles))
                picks.append(int(k))
            assert picks[0] == picks[1], (number, hex(int(pos)))
            checked += 1
    assert checked >= 20 and changed >= checked // 2


def test_a_peeking_decision_would_be_caught():
    """The test above can fail: a player given the true layout instead of the view (the
    rollout player's samples then start from where the cards really are) changes its move
    when the hidden cards move, somewhere along these games."""
    from solver.fair import rollout_choice

    rng = np.random.default_rng(3)
    moves = np.empty(MAX_MOVES, np.uint64)
    differ = 0
    for number in random_numbers(6, seed=17):
        piles, reserve, positions = _positions(number, 40)
        for pos in positions[::4]:
            m = all_moves(piles, reserve, pos, moves)
            if m < 2:
                continue
            picks = []
            for layout in (piles, _shuffle_hidden(piles, pos, rng)):
                # peeking: the hidden places' order is the deal's, so the same shuffle lands elsewhere
                picks.append(int(rollout_choice(layout, reserve, pos, moves, m, GREEDY, 12, 4, 0.0, 0.0,
                                                np.array([99], np.uint64), np.zeros(1, np.int64))))
            differ += picks[0] != picks[1]
    assert differ > 0


@pytest.mark.parametrize("player, base, budget, partial", PLAYERS)
def test_fair_games_replay_through_the_engine_and_repeat_from_their_seed(player, base, budget, partial):
    won = 0
    for number in random_numbers(8, seed=23):
        piles, reserve = _arrays(number)
        root = initial_position(piles, reserve)
        lines = []
        for _ in range(2):
            line = np.zeros(MAX_PLY, np.uint64)
            n, final = fair_game(piles, reserve, root, player, base, _params(budget, partial), 12345, 16, line,
                                 np.zeros(1, np.int64))
            lines.append(line[:n].tolist())
        assert lines[0] == lines[1]  # the same seed, the same game
        game = Game(number)
        for delta in lines[0]:
            game.play(delta_to_move(int(delta)))  # raises on an illegal move
        assert game.is_over and game.is_won == (final == 0)
        won += game.is_won
    assert won <= 8

