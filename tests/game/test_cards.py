"""Cards: the written form, every accepted read form, and rejections."""

from __future__ import annotations

import pytest

from halfmoon.game.cards import (
    FACE_RANKS,
    Card,
    pair_partner,
    parse_card,
    rank_class,
)
from halfmoon.game.errors import HalfMoonError, InvalidCardError

ALL_CARDS = [Card.from_index(i) for i in range(52)]


@pytest.mark.parametrize(
    "text, rank, suit",
    [
        ("Ac", 1, 0),
        ("2d", 2, 1),
        ("9h", 9, 2),
        ("10s", 10, 3),
        ("Jc", 11, 0),
        ("Qd", 12, 1),
        ("Kh", 13, 2),
    ],
)
def test_parse_written_form(text, rank, suit):
    assert parse_card(text) == Card(rank, suit)


@pytest.mark.parametrize(
    "card, text",
    [(Card(1, 0), "Ac"), (Card(10, 2), "10h"), (Card(12, 3), "Qs"), (Card(13, 1), "Kd")],
)
def test_str_is_written_form(card, text):
    assert str(card) == text


def test_symbol_form():
    assert Card(10, 2).symbol() == "10♥"
    assert Card(1, 0).symbol() == "A♣"
    assert Card(12, 1).symbol() == "Q♦"
    assert Card(13, 3).symbol() == "K♠"


@pytest.mark.parametrize("text", ["Th", "th", "tH", "TH", "10H", "10♥", "T♥", " 10h "])
def test_ten_read_forms(text):
    assert parse_card(text) == Card(10, 2)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Vc", Card(11, 0)),
        ("v♣", Card(11, 0)),
        ("Dh", Card(12, 2)),
        ("d♥", Card(12, 2)),
        ("Rh", Card(13, 2)),
        ("r♥", Card(13, 2)),
        ("RS", Card(13, 3)),
        ("V♠", Card(11, 3)),
    ],
)
def test_french_face_letters(text, expected):
    assert parse_card(text) == expected


@pytest.mark.parametrize("symbol, suit", [("♣", 0), ("♦", 1), ("♥", 2), ("♠", 3)])
def test_suit_symbols(symbol, suit):
    assert parse_card("7" + symbol) == Card(7, suit)
    assert parse_card("Q" + symbol) == Card(12, suit)


def test_symbol_with_variation_selector():
    assert parse_card("A♥\ufe0f") == Card(1, 2)


@pytest.mark.parametrize("text", ["qs", "QS", "qS", "Qs"])
def test_any_letter_case(text):
    assert parse_card(text) == Card(12, 3)


def test_round_trip_all_52_cards_written_form():
    assert len(set(ALL_CARDS)) == 52
    for card in ALL_CARDS:
        assert parse_card(str(card)) == card
        assert parse_card(str(card).upper()) == card
        assert parse_card(str(card).lower()) == card


def test_round_trip_all_52_cards_symbol_form():
    for card in ALL_CARDS:
        assert parse_card(card.symbol()) == card


def test_written_forms_are_distinct():
    assert len({str(c) for c in ALL_CARDS}) == 52
    assert len({c.symbol() for c in ALL_CARDS}) == 52


def test_repr_evaluates_back():
    for card in ALL_CARDS:
        assert eval(repr(card)) == card


def test_card_parse_classmethod():
    assert Card.parse("Th") == Card(10, 2)


def test_index_matches_ordered_deck():
    for i in range(104):
        card = Card.from_index(i)
        assert card.index == i % 52
        assert card.rank == i % 13 + 1
        assert card.suit == (i % 52) // 13
    assert Card.from_index(0) == parse_card("Ac")
    assert Card.from_index(51) == parse_card("Ks")
    assert Card.from_index(52 + 13) == parse_card("Ad")


def test_face_cards():
    assert [c.rank for c in ALL_CARDS if c.is_face and c.suit == 0] == list(FACE_RANKS)
    assert not parse_card("10h").is_face
    assert parse_card("Jh").is_face


def test_pair_partner_and_rank_class():
    for rank in range(1, 11):
        assert rank + pair_partner(rank) == 11
        assert rank_class(rank) == rank_class(pair_partner(rank))
    assert {rank_class(r) for r in range(1, 11)} == {0, 1, 2, 3, 4}
    assert {rank_class(r) for r in FACE_RANKS} == {5}


@pytest.mark.parametrize(
    "text",
    ["", "A", "h", "1h", "11h", "Ax", "Zh", "10", "A h", "Ahh", "♥A", "B♠", "0s"],
)
def test_unreadable_cards_raise(text):
    with pytest.raises(InvalidCardError) as info:
        parse_card(text)
    assert repr(text) in str(info.value)


def test_error_names_bad_part():
    with pytest.raises(InvalidCardError, match="unknown rank 'Z'"):
        parse_card("Zh")
    with pytest.raises(InvalidCardError, match="unknown suit 'x'"):
        parse_card("Ax")
    # a card and a character more: named as such, not as an unknown rank '4h'
    with pytest.raises(InvalidCardError, match=r"not a card: '4hh' \('4h' is a card, then 'h' "
                       r"more: one card a token\)"):
        parse_card("4hh")
    with pytest.raises(InvalidCardError, match=r"'10♥' is a card, then 'x' more"):
        parse_card("10♥x")


def test_non_text_is_rejected():
    with pytest.raises(InvalidCardError):
        parse_card(10)  # type: ignore[arg-type]


def test_card_error_is_value_error():
    assert issubclass(InvalidCardError, HalfMoonError)
    assert issubclass(InvalidCardError, ValueError)


def test_the_unknown_card_of_a_partial_deal():
    from halfmoon.game.cards import DOUBLE_DECK, UNKNOWN, is_unknown

    assert str(UNKNOWN) == UNKNOWN.symbol() == UNKNOWN.rank_name == "??"
    assert repr(UNKNOWN) == "UNKNOWN" and not UNKNOWN.is_face
    assert is_unknown(UNKNOWN) and not is_unknown(None)
    assert not any(is_unknown(c) for c in DOUBLE_DECK)
    assert len(DOUBLE_DECK) == 104 and len(set(DOUBLE_DECK)) == 52
    with pytest.raises(InvalidCardError):
        parse_card("??")  # a layout reads ??, a card is always a card
    with pytest.raises(ValueError):
        UNKNOWN.index
