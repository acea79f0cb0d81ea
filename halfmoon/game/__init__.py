"""The core game: cards, deal codes and the generator, deals and layout files, moves, the
reference engine and its taps, the text diagram.  Pure Python; knows nothing of solvers."""

from .cards import UNKNOWN, Card, is_unknown, parse_card
from .codes import canonical_code, code_to_number, number_to_code, parse_code, random_codes
from .deal import Deal
from .engine import Game, LegalMoves, Position, Settings
from .errors import (
    HalfMoonError,
    IllegalMoveError,
    InconsistentCardError,
    InvalidCardError,
    InvalidCodeError,
    InvalidLayoutError,
)
from .inputs import load_deal
from .layouts import format_layout, parse_layout, read_layout, write_layout
from .moves import Move

__all__ = [
    "Card", "UNKNOWN", "is_unknown", "parse_card", "canonical_code", "code_to_number",
    "number_to_code", "parse_code", "random_codes", "Deal", "Game", "LegalMoves", "Position",
    "Settings", "HalfMoonError", "IllegalMoveError", "InconsistentCardError", "InvalidCardError",
    "InvalidCodeError", "InvalidLayoutError", "load_deal", "format_layout", "parse_layout",
    "read_layout", "write_layout", "Move",
]
