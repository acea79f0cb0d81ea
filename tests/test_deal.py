"""Deals: the spec's vectors, the card counts of many deals, repr and str."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from halfmoon import Deal, parse_layout
from halfmoon.cards import Card
from halfmoon.codes import DEAL_COUNT
from halfmoon.deal import SOURCES, source_index
from halfmoon.errors import InvalidCodeError
from halfmoon.layouts import format_layout

# Copied verbatim from the deal-code spec (spec/deal-codes.md), section "Vectors".
SPEC_VECTORS = {
    "HM1-N-AAAAAAA": """\
P1: 3d 8s Jc 6c 4d 2h 10c 7d
P2: Ah 8d 10d 6c Ah Ks Jh Kd
P3: 5d 9d 5s 9c 3h Qh 5h Js
P4: Qc 10d 8c 3h Jh 2c Ac 9c
P5: Ks Kh 4s 7h 5c 9h 6d 2d
P6: 2c 6s 3c Kc Ac Qs Jd 8h
P7: 4c 9h 5h 3d 6h Qh 5c 6d
P8: 8c Ad 7c 7d 8d 6h 10s 4s
P9: 8s Qc 2d 7h 2s 2h 9d Qs
P10: 5d Kd 3s 4h 7c 4d Js 3s
P11: 7s 3c 10c Jd As 2s Jc Kh
P12: Qd 9s 4h 6s 4c Ad 7s 10h
R: As 8h 10s 9s Kc 5s Qd 10h
""",
    "HM1-N-AAAAAAB": """\
P1: 6h 7h Jc 8c Ks 7d 6s 8c
P2: 6c 9c 5c 10h Kd Jh Ah Qs
P3: 10s 4d 3c 4c Jc 9s Js Kc
P4: 5s 3s 7s Ac 8s 9c 8d 9d
P5: Qd 3d 6c 7d As Ad As 6d
P6: 6h Kh 3h Kc Js 10d 5s 5d
P7: 2d 3s 2c 8h 7c 4s 8h 2h
P8: Jh 2s 9h 2c 5c 9s 5h 7c
P9: 3c 6s 2s Ah 10h 4s 9h Qh
P10: 4c 4d Qs Qh 2h 9d 4h Qc
P11: Ks 10c 7h 6d 5d 5h Ad 10s
P12: 2d Kh Qd 3h 8s Qc 3d 8d
R: 10d Kd Jd 10c Jd Ac 4h 7s
""",
    "HM1-N-AKKEEKB": """\
P1: 7c Ad 2s 9h 6h Ac 2d 8d
P2: 4d 6s 10h Js Qs 9d 10d Ad
P3: 10s Ac 8c 5c 5h 10d 3s 5h
P4: 7c 2c 4h 3d 4d 10c 7d Jd
P5: 10c 6h 6s Qd 8s Jc 3s 3c
P6: 8c 9s 6c 5s Kd Jc 7s Kd
P7: Ah Qd 10h As 6d Kc 2s 7h
P8: 3h 8h 4s Kh 2h 10s Jd 7s
P9: 2d 6d 8d Js 4c Kc As 5d
P10: 2h Jh 4s 5c Ah 9c 5d Qc
P11: Ks Ks Qc Jh Qh Qh Kh 3h
P12: 7h 7d 8h 9d 6c 3d 3c 8s
R: Qs 9h 9s 5s 4h 4c 9c 2c
""",
    "HM1-N-ZZZZZZZ": """\
P1: 7c 9s Jd 6s Kc As Ah 4s
P2: 2d 2c 2s 9d Js 6d 10s 9d
P3: 5h Jc 4d 8c Jc 5c Qc 10h
P4: 2c 4c 2h 10c 10c Qh 7h 3d
P5: 8d 6d 6s Js 3c 4d 6c 9h
P6: Qd 4c 5s Jd 8d Ks 8h 5s
P7: 5d Ah 2h 8c 6h 5c Ks 7d
P8: 4s 2d 9s Ac Kh Ad Kc 4h
P9: 3d 4h Ad Jh 3c Jh 10s Qc
P10: Qd As Kd 7d 9h 3s 9c Qs
P11: 7s Kh 2s Qh 7s 6c 3h Ac
P12: 8s 8s 5d Kd 7c 8h 10d 7h
R: 10h 5h 9c Qs 6h 3s 10d 3h
""",
}

VECTOR_NUMBERS = {
    "HM1-N-AAAAAAA": 0,
    "HM1-N-AAAAAAB": 1,
    "HM1-N-AKKEEKB": 123456789,
    "HM1-N-ZZZZZZZ": 8031810175,
}

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
