"""The error of a batch run."""

from __future__ import annotations

from halfmoon.game.errors import HalfMoonError


class BatchError(HalfMoonError):
    """A batch run cannot start or go on (bad input, a foreign results directory, a failed
    worker)."""
