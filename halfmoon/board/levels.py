"""The level of a known deal, shown beside its verdict (the difficulty model of
:mod:`halfmoon.batch.difficulty`: the level and the fair player's chance).

The model loads compiled kernels and needs the whole deal's verdict: a second or two the
first time, more for a hard deal to solve.  So it runs in a solver process, as one more
job of the game's plan (after the solves of its position), never in the server's thread,
where it would hold up every page while the board's lock is taken.  The job carries the
deal's verdict when the board has it (a new game's first solve is its deal's), else the
process solves the deal within the board's budget.  Until the answer comes a game
shows no level; the answer wakes the pages of the games on that deal.  A game from the
app, or a position that is not a whole deal, has no level.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Optional

from .games import LiveGame
from .pool import Job

LEVELS_KEPT = 1024  # deals whose level is kept (a few dozen bytes each)


def level_number(live: LiveGame) -> Optional[int]:
    """The deal number whose level a game shows; None for a game played along with the
    app (what it does not show stays unseen), a layout that is not a whole deal, or a whole
    deal laid out by hand (a layout file without a code: no number, and the model's signals
    are those of a deal number)."""
    deal = live.game.deal
    if getattr(live, "kind", "") == "along" or not deal.is_full or deal.is_partial \
            or deal.number is None:
        return None
    return int(deal.number)


class Levels:
    """The levels answered, at most ``capacity`` deals (the least recently used dropped).
    A level the model cannot give (an error of the job included) is kept as None: the
    game shows none, as before the answer, and it is not asked again."""

    def __init__(self, capacity: int = LEVELS_KEPT) -> None:
        if capacity < 1:
            raise ValueError(f"the levels kept must be at least 1, got {capacity}")
        self.capacity = capacity
        self._known: OrderedDict[int, Optional[str]] = OrderedDict()

    def of(self, live: LiveGame) -> Optional[str]:
        """The level the game shows now (None: none, or not known yet)."""
        number = level_number(live)
        if number is None or number not in self._known:
            return None
        self._known.move_to_end(number)
        return self._known[number]

    def jobs(self, live: LiveGame, verdict: Callable[[], Optional[str]], budget: int
             ) -> list[Job]:
        """The job that answers the game's level, if it has one not answered yet;
        ``verdict()``: the deal's verdict, if known (win or loss), else None."""
        number = level_number(live)
        if number is None or number in self._known:
            return []
        key = ("level", number)
        return [Job(key, ("level", number, budget, verdict()), key)]

    def record(self, number: int, answer: dict) -> None:
        level = answer.get("level")
        self._known[int(number)] = level if isinstance(level, str) else None
        self._known.move_to_end(int(number))
        while len(self._known) > self.capacity:
            self._known.popitem(last=False)

    def __contains__(self, number: int) -> bool:
        return number in self._known

    def __len__(self) -> int:
        return len(self._known)
