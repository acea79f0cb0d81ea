"""The deal generator on arrays of deal numbers, and the start's and layout's features: the
same as the reference generator and engine, deal by deal."""

from __future__ import annotations

import numpy as np
import pytest

from halfmoon.batch import deal_arrays
from halfmoon.batch.deal_arrays import (
    LAYOUT_FEATURES,
    START_FEATURES,
    layout_features,
    shuffled_decks,
    start_features,
)
from halfmoon.game.cards import rank_class
from halfmoon.game.codes import MAX_NUMBER
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.generator import shuffled_deck

NUMBERS = [0, 1, 2, 25, 26, 12345, 999_999_999, MAX_NUMBER, *np.random.default_rng(41).integers(
    0, MAX_NUMBER + 1, 400).tolist()]


def test_the_decks_are_the_generators_deal_by_deal():
    decks = shuffled_decks(NUMBERS)
    assert decks.shape == (len(NUMBERS), 104)
    for k, n in enumerate(NUMBERS):
        assert decks[k].tolist() == shuffled_deck(n)


def test_the_decks_of_a_long_array_cross_blocks_in_order(monkeypatch):
    monkeypatch.setattr(deal_arrays, "_BLOCK", 7)
    decks = shuffled_decks(NUMBERS[:30])
    assert [d.tolist() for d in decks] == [shuffled_deck(n) for n in NUMBERS[:30]]


def test_a_rejected_draw_is_drawn_again_as_the_generator_does(monkeypatch):
    # a draw below 2**64 mod n is rejected; so rare that no deal shows one: forced here by
    # raising the threshold of every step, on the twin and the reference alike
    import halfmoon.game.generator as generator

    class Strict(generator.SplitMix64):
        def below(self, n):
            while True:
                r = self.next()
                if r >= 1 << 63:
                    return r % n

    def decks_of(numbers):
        out = []
        for number in numbers:
            deck, rng = list(range(104)), Strict(number)
            for i in range(103, 0, -1):
                j = rng.below(i + 1)
                deck[i], deck[j] = deck[j], deck[i]
            out.append(deck)
        return out

    monkeypatch.setattr(deal_arrays, "_threshold", lambda size: np.uint64(1 << 63))
    twin = shuffled_decks([0, 7, 99])
    assert [d.tolist() for d in twin] == decks_of([0, 7, 99])


def _reference(n: int) -> dict:
    deal = Deal.from_number(n)
    game = Game(deal)
    moves = list(game.legal_moves)
    return {
        "start_moves": len(moves),
        "reserve_faces": sum(1 for c in deal.reserve if c.is_face),
        "top_faces": sum(1 for p in deal.piles if p[-1].is_face),
        "free_classes": len({rank_class(game.card_at(m.sources[0]).rank) for m in moves}),
    }


def test_the_start_features_are_the_engines():
    got = start_features(NUMBERS)
    for k, n in enumerate(NUMBERS):
        assert dict(zip(START_FEATURES, got[k].tolist())) == _reference(n)


def test_the_layout_features_count_copies_and_faces():
    got = layout_features(NUMBERS)
    for k, n in enumerate(NUMBERS):
        deal = Deal.from_number(n)
        same = sum(1 for pile in deal.piles for c in {card.index for card in pile}
                   if [card.index for card in pile].count(c) == 2)
        faces = max(sum(card.is_face for card in pile) for pile in deal.piles)
        assert dict(zip(LAYOUT_FEATURES, got[k].tolist())) == {"same_pile_copies": same,
                                                               "max_pile_faces": faces}


def test_no_deals_give_empty_arrays():
    assert shuffled_decks([]).shape == (0, 104)
    assert start_features([]).shape == (0, len(START_FEATURES))
    assert layout_features([]).shape == (0, len(LAYOUT_FEATURES))


@pytest.mark.parametrize("numbers", [[3], np.array([3], np.uint32), (3,)])
def test_any_sequence_of_whole_numbers(numbers):
    assert shuffled_decks(numbers)[0].tolist() == shuffled_deck(3)
