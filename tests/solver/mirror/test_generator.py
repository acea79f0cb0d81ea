"""The generator's numba twin against the reference generator (halfmoon/game/generator.py)."""

from __future__ import annotations

import numpy as np
import pytest

from halfmoon import Deal
from halfmoon.game.codes import DEAL_COUNT, random_numbers
from halfmoon.game.generator import SplitMix64, shuffled_deck
from solver.mirror.convert import deal_arrays
from solver.mirror.generator import (
    LAYOUT_FEATURES,
    below,
    deal_ranks,
    layout_features,
    splitmix_next,
)
from solver.mirror.generator import shuffled_deck as shuffled_deck_nb

# deals spread over the whole code space, its two ends, and the spec's vector deals
NUMBERS = random_numbers(3000, seed=104) + [0, 1, 123456789, DEAL_COUNT - 1]


def scratch():
    return np.empty(104, np.int64), np.zeros(1, np.uint64)


def test_splitmix_draws_match_the_reference():
    for seed in (0, 1, 2**63 + 5, 2**64 - 1):
        ref, state = SplitMix64(seed), np.array([seed], np.uint64)
        assert [int(splitmix_next(state)) for _ in range(50)] == [ref.next() for _ in range(50)]


@pytest.mark.parametrize("n", [1, 2, 3, 7, 13, 104, 320, 2**32 + 1])
def test_below_matches_the_reference_rejection(n):
    ref, state = SplitMix64(42), np.array([42], np.uint64)
    assert [int(below(state, n)) for _ in range(200)] == [ref.below(n) for _ in range(200)]


def test_shuffles_match_the_reference():
    deck, state = scratch()
    for number in NUMBERS[:500]:
        shuffled_deck_nb(number, deck, state)
        assert deck.tolist() == shuffled_deck(number), number


def test_deals_match_the_reference_on_thousands_of_deals():
    piles = np.zeros((12, 8), np.int8)
    reserve = np.zeros(8, np.int8)
    deck, state = scratch()
    for number in NUMBERS:
        deal_ranks(number, piles, reserve, deck, state)
        ref_piles, ref_reserve = deal_arrays(Deal.from_number(number))
        assert np.array_equal(piles, ref_piles) and np.array_equal(reserve, ref_reserve), number


def test_layout_features_match_the_reference_deal():
    from collections import Counter

    numbers = np.array(NUMBERS[:1000], np.int64)
    out = np.zeros((numbers.size, len(LAYOUT_FEATURES)), np.int64)
    layout_features(numbers, out)
    seen_same = set()
    for k, number in enumerate(numbers):
        deal = Deal.from_number(int(number))
        same = sum(1 for pile in deal.piles for n in Counter(pile).values() if n == 2)
        faces = max(sum(1 for c in pile if c.is_face) for pile in deal.piles)
        assert out[k].tolist() == [same, faces], number
        seen_same.add(same)
    assert len(seen_same) > 3  # the feature varies over deals
