"""The simple players' kernel (solver/players.py) against its naive twins: the same rule
written plainly over the reference engine, move for move."""

from __future__ import annotations

import numpy as np
import pytest

from halfmoon import Deal
from solver.kernels import MAX_PLY, cards_left, initial_position
from solver.players import GREEDY, RANDOM, play_batch
from solver.search import deal_arrays, delta_to_move

from conftest import naive_greedy, naive_random

DEALS = range(40)


def kernel_game(deal: Deal, strategy: int, seed: int = 0) -> tuple[list, int]:
    """The kernel's game on one deal: its moves and the cards left at its end."""
    piles, reserve = deal_arrays(deal)
    roots = np.array([initial_position(piles, reserve)], dtype=np.uint64)
    lines = np.zeros((1, MAX_PLY), np.uint64)
    nmoves = np.zeros(1, np.int64)
    finals = np.zeros(1, np.uint64)
    play_batch(piles[None], reserve[None], roots, np.int64(strategy), np.array([seed], dtype=np.uint64),
               lines, nmoves, finals)
    return [delta_to_move(int(x)) for x in lines[0, : nmoves[0]]], int(cards_left(finals[0]))


@pytest.mark.parametrize("number", DEALS)
def test_greedy_kernel_plays_the_documented_rule(number):
    deal = Deal.from_number(number)
    moves, left = kernel_game(deal, GREEDY)
    assert moves == naive_greedy(deal)
    assert left == 104 - 2 * sum(1 for m in moves if not m.is_triplet) - 3 * sum(1 for m in moves if m.is_triplet)


@pytest.mark.parametrize("number", DEALS)
def test_random_kernel_draws_uniformly_like_the_reference(number):
    deal = Deal.from_number(number)
    seed = 0x9E3779B97F4A7C15 ^ number
    moves, _ = kernel_game(deal, RANDOM, seed)
    assert moves == naive_random(deal, seed)
