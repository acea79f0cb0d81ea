"""Between the core game and the mirror: a Deal's arrays and a packed move's Move."""

import numpy as np

from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from solver.mirror.convert import deal_arrays, delta_to_move, move_delta, sample_arrays
from solver.mirror.position import MAX_MOVES, all_moves, initial_position


def test_deal_arrays_hold_the_ranks_bottom_first():
    deal = Deal.from_number(7)
    piles, reserve = deal_arrays(deal)
    assert piles.shape == (12, 8) and reserve.shape == (8,)
    for i, pile in enumerate(deal.piles):
        assert list(piles[i]) == [c.rank for c in pile]
    assert list(reserve) == [c.rank for c in deal.reserve]


def test_every_packed_move_is_a_legal_move_of_the_engine():
    for number in (0, 1, 2, 3):
        deal = Deal.from_number(number)
        piles, reserve = deal_arrays(deal)
        moves = np.empty(MAX_MOVES, np.uint64)
        m = all_moves(piles, reserve, initial_position(piles, reserve), moves)
        engine = set(Game(deal).legal_moves)
        assert {delta_to_move(int(moves[k])) for k in range(m)} == engine


def test_the_sample_is_deal_0():
    p, r = sample_arrays()
    q, s = deal_arrays(Deal.from_number(0))
    assert (p == q).all() and (r == s).all()


def test_a_move_and_its_packed_delta_round_trip():
    game = Game(Deal.from_number(11))
    for move in game.legal_moves:
        assert delta_to_move(move_delta(move)) == move
