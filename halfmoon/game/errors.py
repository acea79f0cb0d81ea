"""Typed errors of the toolkit.

Every error raised for bad input subclasses :class:`HalfMoonError`, itself a
``ValueError``, and its message names the input that failed.  The CLI turns
them into one line on stderr and exit status 2.
"""


class HalfMoonError(ValueError):
    """Base class of every input error of the toolkit."""


class InvalidCardError(HalfMoonError):
    """A card could not be read."""


class InvalidCodeError(HalfMoonError):
    """A deal code could not be read."""


class InvalidLayoutError(HalfMoonError):
    """A layout file is malformed or describes an impossible position."""


class IllegalMoveError(HalfMoonError):
    """A move or tap names something that cannot be played."""


class InconsistentCardError(HalfMoonError):
    """A card entered in a partial deal cannot be there (e.g. a third copy of a card)."""
