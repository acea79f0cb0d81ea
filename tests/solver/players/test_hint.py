"""The fair hint: the player's move and the children solved in sampled layouts, as the
kernels give them one by one; blind to where the hidden cards lie; and its checks."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import make_layout

import solver
from halfmoon.game.codes import random_numbers
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.layouts import parse_layout
from halfmoon.game.moves import Move
from solver.mirror.convert import deal_arrays, delta_to_move
from solver.mirror.position import MAX_MOVES, all_moves, initial_position
from solver.players.bandit import bandit_decide, new_solver
from solver.players.fair import base_choice, decide, new_tree, view_layout
from solver.players.hint import FairHint
from solver.players.pimc import child_solves
from solver.players.roster import TABLE_BITS


def _positions():
    """Positions along a few games (each after a few first moves), as Deals."""
    for number in random_numbers(3, seed=81):
        game = Game(number)
        for _ in range(4):
            game.play(sorted(game.legal_moves, key=str)[0])
        yield game.remaining_deal()


def _by_hand(position: Deal, player, samples, seed, budget):
    """The hint as the kernels give it, called one by one."""
    piles, reserve = deal_arrays(position)
    pos = np.uint64(initial_position(piles, reserve))
    moves = np.empty(MAX_MOVES, np.uint64)
    m = int(all_moves(piles, reserve, pos, moves))
    state = np.array([seed % (1 << 64)], np.uint64)
    view = np.zeros_like(piles)
    view_layout(piles, pos, view)
    if player.kind == "kernel":
        k = decide(piles, reserve, pos, moves, m, player.code, player.base, player.params(), state,
                   *new_tree(TABLE_BITS), np.zeros(1, np.int64), np.zeros_like(piles))
    elif player.kind == "bandit":
        k = bandit_decide(piles, reserve, pos, moves, m, player.base, player.params(), state,
                          new_solver(view, reserve, player.budget), np.zeros(1, np.int64),
                          np.zeros_like(piles))
    else:
        k = base_choice(view, reserve, pos, moves, m, player.code)
    keeps, unknown, _ = child_solves(view, reserve, pos, moves, m, samples, state, budget)
    return delta_to_move(int(moves[k])), [delta_to_move(int(d)) for d in moves[:m]], keeps, unknown


@pytest.mark.parametrize("name", ["rollout@16", "lookahead", "bandit@cap=100,lead=10,total=60"])
def test_the_hint_is_the_kernels_one_by_one(name):
    for position in _positions():
        hint = solver.fair_hint(position, 3, -5, 5_000, name)
        move, moves, keeps, unknown = _by_hand(position, solver.player_named(name), 3, -5, 5_000)
        assert hint.move == move and hint.samples == 3 and hint.moves == tuple(moves)
        assert (hint.keeps, hint.unresolved) == (tuple(keeps), tuple(unknown))
        assert hint.move in hint.moves and max(hint.keeps) <= 3
        assert set(hint.moves) == set(Game(position).legal_moves)


def test_the_hint_does_not_see_where_the_hidden_cards_lie():
    """Two layouts with the same view (the hidden cards moved between their places) get the
    same hint."""
    rng = np.random.default_rng(5)
    for position in _positions():
        piles = [list(p) for p in position.piles]
        places = [(i, k) for i, p in enumerate(piles) for k in range(len(p) - 1)]
        cards = [piles[i][k] for i, k in places]
        rng.shuffle(cards)
        for (i, k), c in zip(places, cards):
            piles[i][k] = c
        shuffled = Deal(piles=piles, reserve=list(position.reserve))
        assert shuffled != position
        assert solver.fair_hint(shuffled, 4, 3, 5_000) == solver.fair_hint(position, 4, 3, 5_000)


def test_no_move_left_no_hint():
    stuck = parse_layout(make_layout({1: "10c Ad", 2: "10d Ah"}))
    assert solver.fair_hint(stuck, 4, 0) == FairHint(None, 0, (), (), ())


def test_bad_input_is_refused():
    position = Deal.from_number(1)
    checks = [
        (lambda: solver.fair_hint(position, 0, 1), "samples must be"),
        (lambda: solver.fair_hint(position, 4, 1, budget=0), "budget"),
        (lambda: solver.fair_hint(position, 4, "x"), "seed must be a whole number"),
        (lambda: solver.fair_hint(position, 4, 1, player="wise"), "unknown player 'wise'"),
        (lambda: solver.fair_hint(2.5, 4, 1), "expected a Deal"),
    ]
    for call, message in checks:
        with pytest.raises(HalfMoonError, match=message):
            call()


# 10c + Ac is the only move; then the tops are the cards under 10c and Ac and 5c: won when
# the 6 is under 10c or Ac (it pairs with 5c and uncovers the last pair), lost when it is
# under the 5c (3 + 8 leaves 5c over the last 6)
SIX_UNDER_FIVE = parse_layout(make_layout({1: "3c 10c", 2: "8c Ac", 3: "6c 5c"}))


def test_known_places_keep_their_cards_in_every_layout():
    """A player who undid a move remembers the card it uncovered: ``known`` places keep
    their cards, the rest are drawn again."""
    unknown = solver.fair_hint(SIX_UNDER_FIVE, 32, 1, 5_000)
    assert unknown.moves == (Move.parse("P1+P2"),) and 0 < unknown.keeps[0] < 32
    six_known = solver.fair_hint(SIX_UNDER_FIVE, 32, 1, 5_000, known=[(2, 0)])
    assert six_known.keeps == (0,) and six_known.wins == 0
    three_known = solver.fair_hint(SIX_UNDER_FIVE, 32, 1, 5_000, known=[(0, 0)])
    assert 0 < three_known.keeps[0] < 32  # the 6 under the Ace or under the 5: drawn
    all_known = solver.fair_hint(SIX_UNDER_FIVE, 32, 1, 5_000, known=[(0, 0), (1, 0), (2, 0)])
    assert all_known.keeps == (0,)
    won = parse_layout(make_layout({1: "6c 10c", 2: "8c Ac", 3: "3c 5c"}))
    assert solver.fair_hint(won, 32, 1, 5_000, known=[(2, 0)]).keeps == (32,)
    for bad in ([(0, 1)], [(5, 0)], [(0, -1)], [(0,)], "00", [(0.0, 0)]):
        with pytest.raises(HalfMoonError, match="known"):
            solver.fair_hint(SIX_UNDER_FIVE, 4, 1, known=bad)
