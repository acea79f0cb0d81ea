"""Moves: a set of two or three sources (``P1``–``P12``, ``R1``–``R8``) removed together."""

from __future__ import annotations

import itertools
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


# --- move numbers -------------------------------------------------------------------
# Every move as a number 0..1329, the same forever (results files store lines by them): the
# pairs of sources first, then the triplets, each in lexicographic order of the sources'
# places in SOURCES (P1..P12, R1..R8).  C(20, 2) + C(20, 3) = 190 + 1140 = 1330.
_BY_NUMBER: tuple[Move, ...] = tuple(
    Move(tuple(SOURCES[i] for i in combo))
    for size in (2, 3)
    for combo in itertools.combinations(range(len(SOURCES)), size)
)
MOVE_COUNT = len(_BY_NUMBER)
_NUMBERS = {m: k for k, m in enumerate(_BY_NUMBER)}


def move_number(move: Move) -> int:
    """The number (0..1329) of ``move``, as results files store it."""
    return _NUMBERS[move]


def move_from_number(number: int) -> Move:
    """The move numbered ``number`` by :func:`move_number`."""
    if not 0 <= number < MOVE_COUNT:
        raise IllegalMoveError(f"no move numbered {number}: expected 0 to {MOVE_COUNT - 1}")
    return _BY_NUMBER[number]
