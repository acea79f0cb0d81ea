"""The move notation: written with cards or short, read back in either form, checked."""

from __future__ import annotations

import re

import pytest
from conftest import make_game

from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.errors import HalfMoonError, IllegalMoveError
from halfmoon.game.moves import Move
from halfmoon.game.notation import format_line, format_move, format_moves, parse_move, parse_moves


def a_game(number: int, moves: int) -> tuple[Deal, list[Move]]:
    """Deal ``number`` and its first ``moves`` legal moves, each the engine's first."""
    deal = Deal.from_number(number)
    game = Game(deal)
    played = []
    for _ in range(moves):
        move = next(iter(game.legal_moves))
        game.play(move)
        played.append(move)
    return deal, played


def test_a_move_written_with_its_cards_and_short():
    game = make_game({1: "5s", 8: "Jc 6d"}, "Qh Kh")
    move = Move.parse("P8+P1")
    assert format_move(move, game) == "5♠ P1 + 6♦ P8"
    assert format_move(move) == "P1+P8"
    assert format_move(Move.parse("R1+R2+P8"), make_game({8: "Jc"}, "Qh Kh")) == \
        "J♣ P8 + Q♥ R1 + K♥ R2"
    with pytest.raises(IllegalMoveError, match="P2 is empty"):
        format_move(Move.parse("P1+P2"), game)


@pytest.mark.parametrize("text", [
    "P1+P8", "p8 + p1", "5♠ P1 + 6♦ P8", "6d P8 + 5s P1", "5sP1+6dP8", "5S p1+P8",
    " 1.  5♠ P1 + 6♦ P8 ",
])
def test_either_form_reads_back(text):
    game = make_game({1: "5s", 8: "Jc 6d"}, "Qh Kh")
    assert parse_move(text, game) == Move.parse("P1+P8")


def test_a_card_is_checked_against_the_position():
    game = make_game({1: "5s", 8: "Jc 6d"}, "Qh Kh")
    with pytest.raises(IllegalMoveError, match=r"P8 shows 6♦, not 6♥"):
        parse_move("5s P1 + 6h P8", game)
    with pytest.raises(IllegalMoveError, match=r"R3 is empty, not K♥"):
        parse_move("Kh R3 + Qh R1 + Jc P8", game)
    # the French letters of the spec: R (roi) is a King, R1 a reserve slot
    assert parse_move("R♥ R2 + D♥ R1 + V♣ P8", make_game({8: "Jc"}, "Qh Kh")) == \
        Move.parse("P8+R1+R2")


def test_a_game_reads_back_as_written():
    deal, moves = a_game(3, 12)
    written = format_moves(moves, deal)
    assert len(written) == 12 and all(" + " in w for w in written)
    assert parse_moves(" ".join(written), deal) == tuple(moves)
    numbered = "\n".join(f"{k:2d}. {w}" for k, w in enumerate(written, start=1))
    assert parse_moves(numbered, deal) == tuple(moves)  # as `halfmoon solve` prints a line
    short = format_line(moves)
    assert short == " ".join(str(m) for m in moves)
    assert parse_moves(short) == tuple(moves) == parse_moves(short, deal)
    assert format_line(moves, deal, sep=", ") == ", ".join(written)
    mixed = f"{written[0]}; {moves[1]}, {written[2]}"
    assert parse_moves(mixed, deal) == tuple(moves[:3])


def test_a_game_from_a_position_leaves_the_game_as_it_was():
    deal, moves = a_game(5, 4)
    game = Game(deal)
    game.play(moves[0])
    assert parse_moves(format_line(moves[1:], game), game) == tuple(moves[1:])
    assert game.stack == [moves[0]]


@pytest.mark.parametrize("text, fragment", [
    ("P1", "must remove two or three cards (a move's sources are joined by +)"),
    ("P1 P8", "move 1: move P1 must remove two or three cards"),
    ("P1+", "end in the middle of a move"),
    ("+P1+P8", "a '+' has no source before it"),
    ("5s", "end in the middle of a move"),
    ("5s 6d P8", "card 5♠ is not followed by its source"),
    ("P1+P1", "names a source twice"),
    ("P1+P2+P3+P4", "must remove two or three cards"),
    ("P1+P13", "unknown source 'P13'"),
    ("P1+xyz", "cannot read 'xyz'"),
    ("P1+ 2. P8", "a move is cut off before '2.'"),
])
def test_bad_moves_are_named(text, fragment):
    with pytest.raises(HalfMoonError) as info:
        parse_moves(text)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_a_move_that_is_not_legal_where_it_is_played_is_named():
    deal, moves = a_game(3, 3)
    text = f"{moves[0]} {moves[1]} {moves[1]}"  # the second move again: its cards are gone
    with pytest.raises(IllegalMoveError, match="^" + re.escape(f"move 3 ({moves[1]}): illegal")):
        parse_moves(text, deal)
    with pytest.raises(HalfMoonError, match="expected one move, got 2"):
        parse_move("P1+P8 P2+P3")
    with pytest.raises(HalfMoonError, match="moves must be text"):
        parse_moves(None)
