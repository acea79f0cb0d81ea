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
from solver.players.fair import (
    MCTS,
    NPARAMS,
    NRANKS,
    P_BUDGET,
    P_C,
    P_DEDUPE,
    P_DEFAULT,
    P_PARTIAL,
    P_ROUNDS,
    P_Z,
    ROLLOUT,
    decide,
    fair_game,
    hidden_counts,
    move_signature,
    new_tree,
    sample_layout,
    view_layout,
)
from solver.players.simple import GREEDY, LOOKAHEAD, TUNED, play_game

# (player, base, budget, other settings): each fair player at a small budget
PLAYERS = [(GREEDY, GREEDY, 0, {}), (LOOKAHEAD, LOOKAHEAD, 0, {}), (ROLLOUT, GREEDY, 12, {}),
           (ROLLOUT, LOOKAHEAD, 6, {}), (MCTS, GREEDY, 60, {}),
           (ROLLOUT, GREEDY, 8, {P_PARTIAL: 0.5}),
           (ROLLOUT, GREEDY, 12, {P_DEDUPE: 1, P_DEFAULT: LOOKAHEAD + 1}), (TUNED, TUNED, 0, {}),
           (ROLLOUT, TUNED, 8, {P_DEDUPE: 1})]


def _params(budget, other, z=2.0):
    p = np.zeros(NPARAMS, np.float64)
    p[[P_BUDGET, P_ROUNDS, P_Z, P_C]] = budget, 4, z, 0.5
    for k, v in other.items():
        p[k] = v
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


def _decisions(rng):
    """(the deal's layout, the same with its hidden cards shuffled, reserve, position, moves, m)
    at positions along greedy games where there is a choice."""
    moves = np.empty(MAX_MOVES, np.uint64)
    for number in random_numbers(6, seed=17):
        piles, reserve, positions = _positions(number, 48)
        for pos in positions[::4]:
            m = all_moves(piles, reserve, pos, moves)
            if m >= 2:
                yield piles, _shuffle_hidden(piles, pos, rng), reserve, pos, moves, m


@pytest.mark.parametrize("player, base, budget, other", PLAYERS)
def test_a_fair_players_moves_do_not_depend_on_the_hidden_cards(player, base, budget, other):
    """At positions along real games, with the same random numbers, the deal with its hidden
    cards shuffled gets the same move, though its samples and roll-outs would differ if the
    player looked."""
    checked = changed = 0
    rng = np.random.default_rng(player * 10 + base)
    for piles, shuffled, reserve, pos, moves, m in _decisions(rng):
        changed += not np.array_equal(shuffled, piles)
        picks = [int(decide(layout, reserve, pos, moves, m, player, base, _params(budget, other),
                            np.array([99], np.uint64), *new_tree(16), np.zeros(1, np.int64),
                            np.zeros_like(piles)))
                 for layout in (piles, shuffled)]
        assert picks[0] == picks[1], hex(int(pos))
        checked += 1
    assert checked >= 20 and changed >= checked // 2


def test_a_peeking_decision_would_be_caught():
    """The test above can fail: a player given the true layout instead of the view (the
    rollout player's samples then start from where the cards really are) changes its move
    when the hidden cards move, somewhere along these games."""
    from solver.players.fair import rollout_choice

    differ = 0
    for piles, shuffled, reserve, pos, moves, m in _decisions(np.random.default_rng(3)):
        # peeking: the hidden places' order is the deal's, so the same shuffle lands elsewhere
        picks = [int(rollout_choice(layout, reserve, pos, moves, m, GREEDY, 12, 4, 0.0, 0.0,
                                    np.array([99], np.uint64), np.zeros(1, np.int64)))
                 for layout in (piles, shuffled)]
        differ += picks[0] != picks[1]
    assert differ > 0


@pytest.mark.parametrize("player, base, budget, other", PLAYERS)
def test_fair_games_replay_through_the_engine_and_repeat_from_their_seed(player, base, budget,
                                                                         other):
    won = 0
    for number in random_numbers(8, seed=23):
        piles, reserve = _arrays(number)
        root = initial_position(piles, reserve)
        lines = []
        for _ in range(2):
            line = np.zeros(MAX_PLY, np.uint64)
            n, final = fair_game(piles, reserve, root, player, base, _params(budget, other), 12345,
                                 16, line, np.zeros(1, np.int64))
            lines.append(line[:n].tolist())
        assert lines[0] == lines[1]  # the same seed, the same game
        game = Game(number)
        for delta in lines[0]:
            game.play(delta_to_move(int(delta)))  # raises on an illegal move
        assert game.is_over and game.is_won == (final == 0)
        won += game.is_won
    assert won <= 8



def test_moves_a_fair_player_cannot_tell_apart_share_a_signature():
    from solver.mirror.position import source_delta

    piles = np.zeros((NPILES, DEPTH), np.int8)
    piles[0, :3] = [1, 2, 5]  # P1 and P2: three cards, a 5 on top
    piles[1, :3] = [3, 4, 5]
    piles[2, :2] = [7, 5]  # P3: two cards, a 5 on top
    reserve = np.array([6, 6, 9, 0, 0, 0, 0, 0], np.int8)
    pos = initial_position(piles, reserve)
    view = np.zeros_like(piles)
    view_layout(piles, pos, view)

    def sig(*sources):
        return move_signature(view, reserve, pos, sum(source_delta(s) for s in sources))

    # same-size piles, same-rank reserve cards
    assert sig(0, 12) == sig(1, 12) == sig(0, 13) == sig(1, 13)
    assert sig(0, 12) != sig(2, 12)  # a pile of another size
    hidden = piles.copy()
    hidden[0, :2] = [4, 3]  # where the hidden cards lie does not count
    hidden[1, :2] = [2, 1]
    again = np.zeros_like(piles)
    view_layout(hidden, pos, again)
    assert move_signature(again, reserve, pos, source_delta(0) + source_delta(12)) == sig(0, 12)
