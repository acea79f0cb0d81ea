"""Deals: the spec's vectors, the card counts of many deals, repr and str."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from spec_vectors import SPEC_VECTORS, VECTOR_NUMBERS

from halfmoon import Deal, parse_layout
from halfmoon.game.cards import Card
from halfmoon.game.codes import DEAL_COUNT
from halfmoon.game.deal import SOURCES, source_index
from halfmoon.game.errors import InvalidCodeError
from halfmoon.game.layouts import format_layout

TWO_DECKS = Counter({Card.from_index(i): 2 for i in range(52)})


def _cards_of(text: str) -> tuple[list[list[str]], list[str]]:
    lines = text.strip().splitlines()
    piles = [line.split(":", 1)[1].split() for line in lines[:12]]
    reserve = lines[12].split(":", 1)[1].split()
    return piles, reserve


@pytest.mark.parametrize("code", list(SPEC_VECTORS))
def test_spec_vector_cards(code):
    deal = Deal(code)
    piles, reserve = _cards_of(SPEC_VECTORS[code])
    assert [[str(c) for c in pile] for pile in deal.piles] == piles
    assert [str(c) for c in deal.reserve] == reserve
    assert deal.code == code
    assert deal.number == VECTOR_NUMBERS[code]


@pytest.mark.parametrize("code", list(SPEC_VECTORS))
def test_spec_vector_layout_text(code):
    assert format_layout(Deal(code)) == f"# {code}\n" + SPEC_VECTORS[code]


@pytest.mark.parametrize("code", list(SPEC_VECTORS))
def test_from_number_and_lower_case_code(code):
    number = VECTOR_NUMBERS[code]
    assert Deal.from_number(number) == Deal(code)
    assert Deal(code.lower()).code == code
    assert Deal(code.lower()) == Deal(code)


def test_top_card_is_last_of_each_pile():
    deal = Deal("HM1-N-AAAAAAA")
    # Pile 1 is listed bottom first, so its top card (the one on show) is 7d.
    assert str(deal.piles[0][-1]) == "7d"
    assert str(deal.piles[11][-1]) == "10h"


def test_ten_thousand_random_deals_hold_each_card_twice():
    rng = random.Random(104)
    numbers = [rng.randrange(DEAL_COUNT) for _ in range(10_000)]
    for number in numbers:
        deal = Deal.from_number(number)
        assert deal.is_full
        assert deal.card_count() == 104
        assert Counter(deal.cards()) == TWO_DECKS, number


def test_full_deal_properties():
    deal = Deal("HM1-N-AAAAAAB")
    assert deal.is_full
    assert all(len(p) == 8 for p in deal.piles)
    assert len(deal.reserve) == 8
    assert deal.class_counts() == Counter({0: 16, 1: 16, 2: 16, 3: 16, 4: 16, 5: 24})


@pytest.mark.parametrize("code", list(SPEC_VECTORS) + ["HM1-N-BCDEFGH"])
def test_repr_round_trip(code):
    deal = Deal(code)
    assert repr(deal) == f"Deal({code!r})"
    again = eval(repr(deal))
    assert again == deal
    assert again.code == deal.code


def test_repr_of_a_position_evaluates_back():
    deal = Deal("HM1-N-AAAAAAA")
    # Removed: 7d (top of P1) + 4s (top of P8), and As (R1) + 10s (R3).
    piles = [list(p) for p in deal.piles]
    piles[0].pop()
    piles[7].pop()
    reserve = list(deal.reserve)
    reserve[0] = reserve[2] = None
    position = Deal(piles=piles, reserve=reserve)
    position.code = deal.code
    text = repr(position)
    assert text.startswith("parse_layout(")
    again = eval(text)
    assert again == position
    assert again.code == "HM1-N-AAAAAAA"
    assert not again.is_full


def test_equality_ignores_code_but_not_cards():
    a = Deal("HM1-N-AAAAAAA")
    b = Deal(piles=a.piles, reserve=a.reserve)
    assert a == b and hash(a) == hash(b)
    assert b.code is None and b.number is None
    assert Deal("HM1-N-AAAAAAB") != a


def test_str_is_the_diagram():
    text = str(Deal("HM1-N-AAAAAAA"))
    assert text.splitlines()[0] == "HM1-N-AAAAAAA"
    assert "R8:1" in text and "12:8" in text


def test_bad_code_raises():
    with pytest.raises(InvalidCodeError):
        Deal("HM1-N-AAAA")


def test_deal_needs_code_or_cards():
    with pytest.raises(InvalidCodeError):
        Deal()
    with pytest.raises(ValueError):
        Deal(piles=[[]] * 11, reserve=[None] * 8)


def test_source_index():
    assert SOURCES[:3] == ("P1", "P2", "P3")
    assert source_index("P1") == 0
    assert source_index(" p12 ") == 11
    assert source_index("R1") == 12
    assert source_index("r8") == 19
    with pytest.raises(KeyError):
        source_index("P13")


def test_position_layout_round_trip_via_parse_layout():
    deal = Deal("HM1-N-AKKEEKB")
    assert parse_layout(format_layout(deal)) == deal


def test_a_partial_deal_knows_its_unknown_cards_not_their_places():
    from conftest import app_view

    from halfmoon.game.cards import UNKNOWN

    full = Deal("HM1-N-AAAAAAB")
    view = app_view(full)
    assert view.is_partial and not full.is_partial and full.unknown() == Counter()
    assert view.unknown() == Counter(c for p in full.piles for c in p[:-1])
    assert view.unknown_places() == [(i, k) for i in range(12) for k in range(7)]
    assert len(view.cards()) == 20 and view.card_count() == 104 and UNKNOWN not in view.cards()
    assert view != full and view.removed == ()
    moved = Deal(piles=view.piles, reserve=view.reserve, removed=[full.reserve[0]])
    assert moved != view and hash(moved) != hash(view)
