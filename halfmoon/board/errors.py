"""Errors of the board: each is an answer to a request, with its HTTP status and a reason."""

from __future__ import annotations

from typing import Optional

from halfmoon.game.errors import HalfMoonError


class BoardError(HalfMoonError):
    """A request the board cannot do; ``status`` is the HTTP status of the answer."""

    status = 400

    def __init__(self, message: str, *, extra: Optional[dict] = None) -> None:
        super().__init__(message)
        self.extra = extra or {}


class BadRequest(BoardError):
    status = 400


class GameNotFound(BoardError):
    status = 404


class StaleVersion(BoardError):
    """The tap was meant for a state the game has left (another tab changed it)."""

    status = 409


class Busy(BoardError):
    """The solver did not answer in time (a pick of a deal): try again."""

    status = 503


class NotKept(BoardError):
    """A change the file of games could not keep (a full disk, a file made read-only):
    not made, the game as it was (``extra["state"]``, when there is one)."""

    status = 503
