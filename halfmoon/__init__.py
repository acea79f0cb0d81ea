"""Half Moon: deals, a reference engine, an exact solver and batch statistics."""

from .cards import Card, parse_card
from .codes import canonical_code, code_to_number, number_to_code, parse_code, random_codes
from .deal import Deal
from .engine import Game, LegalMoves, Position, Settings
from .errors import (
    HalfMoonError,
    IllegalMoveError,
    InvalidCardError,
    InvalidCodeError,
    InvalidLayoutError,
)
from .inputs import load_deal
from .layouts import format_layout, parse_layout, read_layout, write_layout
from .moves import Move

__version__ = "0.1.0"

__all__ = [
    "Card", "parse_card", "canonical_code", "code_to_number", "number_to_code", "parse_code",
    "random_codes", "Deal", "Game", "LegalMoves", "Position", "Settings", "HalfMoonError",
    "IllegalMoveError", "InvalidCardError", "InvalidCodeError", "InvalidLayoutError",
    "load_deal", "format_layout", "parse_layout", "read_layout", "write_layout", "Move",
]
