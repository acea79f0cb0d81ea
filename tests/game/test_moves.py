"""Moves: parsing, canonical order of sources, rejections."""

from __future__ import annotations

import pytest

from halfmoon.game.errors import IllegalMoveError
from halfmoon.game.moves import Move


@pytest.mark.parametrize(
    "text, sources",
    [
        ("P1+P8", ("P1", "P8")),
        ("P8+P1", ("P1", "P8")),
        ("p8 p1", ("P1", "P8")),
        ("  P8 ,  P1  ", ("P1", "P8")),
        ("p8, p5, p3", ("P3", "P5", "P8")),
        ("R1+P12", ("P12", "R1")),
        ("R8 R2", ("R2", "R8")),
        ("P10+P2", ("P2", "P10")),
        ("R1+P3+P11", ("P3", "P11", "R1")),
    ],
)
def test_parse_and_canonical_order(text, sources):
    move = Move.parse(text)
    assert move.sources == sources
    assert str(move) == "+".join(sources)


def test_canonical_order_is_numeric_not_alphabetic():
    # "P10" < "P2" as text; the canonical order puts P2 first, then reserve slots.
    assert Move(("P10", "P2")).sources == ("P2", "P10")
    assert Move(("R1", "P12", "P9")).sources == ("P9", "P12", "R1")


def test_equal_moves_whatever_the_order():
    assert Move.parse("P8+P5+P3") == Move.parse("P3 P5 P8") == Move(("p5", "P3", "p8"))
    assert hash(Move.parse("P1+P8")) == hash(Move.parse("P8+P1"))
    assert len({Move.parse("P1+P8"), Move.parse("p8 p1")}) == 1


def test_points_and_kind():
    pair = Move.parse("P1+R1")
    triplet = Move.parse("P1+P2+R1")
    assert not pair.is_triplet and pair.points == 10
    assert triplet.is_triplet and triplet.points == 15
    assert len(pair) == 2 and len(triplet) == 3
    assert list(triplet) == ["P1", "P2", "R1"]


def test_repr_round_trip():
    move = Move.parse("R2+P8+P5")
    assert repr(move) == "Move.parse('P5+P8+R2')"
    assert eval(repr(move)) == move


@pytest.mark.parametrize(
    "text, bad",
    [("P1+P13", "P13"), ("P0+P1", "P0"), ("R9+R1", "R9"), ("P1+X", "X"), ("P1+Q2", "Q2")],
)
def test_unknown_source(text, bad):
    with pytest.raises(IllegalMoveError) as info:
        Move.parse(text)
    assert repr(bad) in str(info.value)
    assert "unknown source" in str(info.value)


def test_source_named_twice():
    with pytest.raises(IllegalMoveError, match="P1\\+P1 names a source twice"):
        Move.parse("P1+p1")


@pytest.mark.parametrize("text", ["P1", "P1+P2+P3+P4", ""])
def test_wrong_number_of_cards(text):
    with pytest.raises(IllegalMoveError, match="two or three cards"):
        Move.parse(text)


def test_error_names_the_move():
    with pytest.raises(IllegalMoveError) as info:
        Move.parse("P1+P2+P3+R4")
    assert "P1+P2+P3+R4" in str(info.value)


def test_move_is_immutable():
    move = Move.parse("P1+P8")
    with pytest.raises(AttributeError):
        move.sources = ("P2", "P9")  # type: ignore[misc]


def test_move_error_is_value_error():
    with pytest.raises(ValueError):
        Move.parse("P1")
