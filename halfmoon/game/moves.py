"""Moves: a set of two or three sources (``P1``–``P12``, ``R1``–``R8``) removed together."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .deal import SOURCES
from .errors import IllegalMoveError

_ORDER = {s: i for i, s in enumerate(SOURCES)}
_SPLIT = re.compile(r"[\s,+]+")


@dataclass(frozen=True, order=True)
class Move:
    """A removal: its sources in canonical order (piles by number, then reserve slots)."""

    sources: tuple[str, ...]

    def __post_init__(self) -> None:
        srcs = tuple(s.strip().upper() for s in self.sources)
        for s in srcs:
            if s not in _ORDER:
                raise IllegalMoveError(f"unknown source {s!r} (expected P1-P12 or R1-R8)")
        if len(set(srcs)) != len(srcs):
            raise IllegalMoveError(f"move {'+'.join(srcs)} names a source twice")
        if len(srcs) not in (2, 3):
            raise IllegalMoveError(
                f"move {'+'.join(srcs) or '(empty)'} must remove two or three cards"
            )
        object.__setattr__(self, "sources", tuple(sorted(srcs, key=_ORDER.__getitem__)))

    @classmethod
    def parse(cls, text: str) -> "Move":
        """Read ``P1+P8``, ``P1 P8`` or ``p8, p5, p3``."""
        parts = [p for p in _SPLIT.split(text.strip()) if p]
        return cls(tuple(parts))

    @property
    def is_triplet(self) -> bool:
        return len(self.sources) == 3

    @property
    def points(self) -> int:
        return 15 if self.is_triplet else 10

    def __str__(self) -> str:
        return "+".join(self.sources)

    def __repr__(self) -> str:
        return f"Move.parse({str(self)!r})"

    def __iter__(self):
        return iter(self.sources)

    def __len__(self) -> int:
        return len(self.sources)
