"""The benchmark's errors: bad input or a failed worker, said in one line."""

from halfmoon.game.errors import HalfMoonError


class BenchError(HalfMoonError):
    """A benchmark that cannot run as asked: the message says why, in one line."""
