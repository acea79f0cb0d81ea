"""The move notation: one way to write a move, or a game's moves, and to read them back.

A move is its sources (``P1``–``P12``, ``R1``–``R8``) joined by ``+``, in canonical order
(piles by number, then reserve slots).  Where the position is at hand, each source comes
after the card it removes::

    5♠ P1 + 6♦ P8            a move as the command line and the board write it
    P1+P8                    the short form: no position at hand (results files)

A game's moves follow each other separated by spaces, commas, semicolons or new lines; a
move number such as ``12.`` before a move is skipped, so a winning line printed by
``halfmoon solve`` reads back as it is::

    P4+P7 P2+P3+R3           short
    1. 9♦ P4 + 2♥ P7  2. Q♠ P2 + K♣ P3 + J♦ R3

Reading accepts both forms and mixes of them, the sources in any order, any letter case,
and the cards as the deal-code spec reads them (``10h``, ``Th``, ``Q♠``, ``R♥``); a card
given is checked against the position (the card the source shows there), and a game's
moves are replayed through the reference engine, so a move that is not legal where it is
played is refused, naming it.  Writing gives the form with cards (suit symbols) when a
position is given, the short form otherwise.

Usage::

    format_move(move, game)          # '5♠ P1 + 6♦ P8'  (game: the position before it)
    format_move(move)                # 'P1+P8'
    parse_move("6d P8 + 5s P1", game)  # Move.parse('P1+P8'), the cards checked
    parse_moves("P4+P7 P2+P3+R3", deal)  # the moves, replayed from the deal
    format_line(moves)               # 'P4+P7 P2+P3+R3'
"""

from __future__ import annotations

import re
from typing import Iterable, Optional, Union

from .cards import Card, parse_card
from .deal import Deal
from .engine import Game
from .errors import HalfMoonError, IllegalMoveError
from .moves import Move

_TOKEN = re.compile(
    r"(?P<sep>[\s,;]+)"
    r"|(?P<number>\d+\.)"
    r"|(?P<plus>\+)"
    r"|(?P<source>[PR]\d{1,2})(?!\d)"
    r"|(?P<card>(?:10|[2-9ATJQKVDR])[CDHS♣♦♥♠♧♢♡♤]\ufe0f?)",
    re.IGNORECASE,
)

Item = tuple[Optional[Card], str]  # (the card named, or None; its source)


def format_move(move: Move, game: Optional[Game] = None) -> str:
    """``move`` written: ``5♠ P1 + 6♦ P8`` with the cards ``game``'s position shows (the
    position before the move), ``P1+P8`` without a game."""
    if game is None:
        return "+".join(move.sources)
    parts = []
    for s in move.sources:
        card = game.card_at(s)
        if card is None:
            raise IllegalMoveError(f"move {move}: {s} is empty")
        parts.append(f"{card.symbol()} {s}")
    return " + ".join(parts)


def format_line(moves: Iterable[Move], deal: Optional[Union[Deal, Game]] = None,
                sep: str = " ") -> str:
    """A game's moves written one after the other (``sep`` between them): with their cards
    when ``deal`` (a Deal, or a Game at the position they start from) is given, replayed
    through the reference engine; short otherwise."""
    if deal is None:
        return sep.join(format_move(m) for m in moves)
    return sep.join(format_moves(moves, deal))


def format_moves(moves: Iterable[Move], deal: Union[Deal, Game]) -> list[str]:
    """Each of a game's moves with its cards, played from ``deal`` (a Deal, or a Game whose
    position they start from; a Game given is left as it was)."""
    game = Game(deal.remaining_deal() if isinstance(deal, Game) else deal)
    out = []
    for k, move in enumerate(moves, start=1):
        out.append(format_move(move, game))
        _play(game, move, k)
    return out


def _play(game: Game, move: Move, k: int) -> None:
    try:
        game.play(move)
    except IllegalMoveError as exc:
        raise IllegalMoveError(f"move {k} ({move}): {exc}") from None


def _items(text: str) -> list[list[Item]]:
    """The moves of ``text`` as lists of (card or None, source), the syntax checked."""
    if not isinstance(text, str):
        raise HalfMoonError(f"moves must be text, got {text!r}")
    moves: list[list[Item]] = []
    card: Optional[Card] = None
    joined = False  # a "+" was read: the next source belongs to the current move
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            bad = re.split(r"[\s,;+]", text[pos:], maxsplit=1)[0] or text[pos]
            raise HalfMoonError(f"cannot read {bad!r} in moves {text.strip()!r}: expected "
                                "sources such as P4+R5, each after its card if given (9♦ P4)")
        kind, token, pos = m.lastgroup, m.group(), m.end()
        if kind == "sep":
            continue
        if kind == "number":
            if joined or card is not None:
                raise HalfMoonError(f"a move is cut off before {token!r} in {text.strip()!r}")
            continue
        if kind == "card":
            if card is not None:
                raise HalfMoonError(f"card {card.symbol()} is not followed by its source "
                                    f"in {text.strip()!r}")
            card = parse_card(token)
            continue
        if kind == "plus":
            if not moves or joined or card is not None:
                raise HalfMoonError(f"a '+' has no source before it in {text.strip()!r}")
            joined = True
            continue
        item = (card, token.upper())
        card = None
        if joined:
            moves[-1].append(item)
        else:
            moves.append([item])
        joined = False
    if joined or card is not None:
        raise HalfMoonError(f"moves {text.strip()!r} end in the middle of a move")
    return moves


def _move(items: list[Item], k: Optional[int]) -> Move:
    try:
        return Move(tuple(s for _, s in items))
    except IllegalMoveError as exc:
        where = f"move {k}: " if k is not None else ""
        hint = " (a move's sources are joined by +)" if len(items) == 1 else ""
        raise IllegalMoveError(f"{where}{exc}{hint}") from None


def _check_cards(items: list[Item], move: Move, game: Game, k: Optional[int]) -> None:
    for card, source in items:
        if card is None:
            continue
        shown = game.card_at(source)
        if shown != card:
            where = f"move {k} ({move}): " if k is not None else f"move {move}: "
            there = "is empty" if shown is None else f"shows {shown.symbol()}"
            raise IllegalMoveError(f"{where}{source} {there}, not {card.symbol()}")


def parse_move(text: str, game: Optional[Game] = None) -> Move:
    """One move read (either form); the cards named, if any, checked against ``game``'s
    position when it is given (the move is not played)."""
    moves = _items(text)
    if len(moves) != 1:
        raise HalfMoonError(f"expected one move, got {len(moves)} in {text.strip()!r}")
    move = _move(moves[0], None)
    if game is not None:
        _check_cards(moves[0], move, game, None)
    return move


def parse_moves(text: str, deal: Optional[Union[Deal, Game]] = None) -> tuple[Move, ...]:
    """A game's moves read (either form, or a mix); with ``deal`` (a Deal, or a Game at the
    position they start from, left as it was) they are replayed through the reference
    engine: each card named must be the one its source shows there, and each move legal.
    Raises :class:`~halfmoon.game.errors.HalfMoonError` naming the first move at fault."""
    items = _items(text)
    if deal is None:
        return tuple(_move(it, k) for k, it in enumerate(items, start=1))
    game = Game(deal.remaining_deal() if isinstance(deal, Game) else deal)
    out = []
    for k, it in enumerate(items, start=1):
        move = _move(it, k)
        _check_cards(it, move, game, k)
        _play(game, move, k)
        out.append(move)
    return tuple(out)
