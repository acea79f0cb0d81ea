"""The reference game engine: the meaning of every rule of the app.

A :class:`Game` holds a deal and the current position: how many cards each pile
still holds and which reserve slots are still full.  ``push``/``pop`` are the cheap,
unchecked primitives (like python-chess); ``play``, ``undo`` and ``tap`` are the
checked entry points a player uses.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from itertools import combinations
from typing import Callable, Iterator, Optional, Union

from .cards import JACK, KING, QUEEN, Card
from .codes import is_code
from .deal import PILE_SOURCES, PILES, RESERVE_SOURCES, SOURCES, Deal
from .errors import IllegalMoveError
from .moves import Move
from .taps import TapOutcome, resolve_tap

UNDO_LIMIT = 100
PAIR_POINTS = 10
TRIPLET_POINTS = 15
WIN_MOVES = 48
WIN_SCORE = 520


@dataclass(frozen=True)
class Settings:
    """The app's settings; both are off by default."""

    move_errors: bool = False
    placement_assistance: bool = False


@dataclass(frozen=True)
class Position:
    """A position of a deal: cards left in each pile and the full reserve slots."""

    counts: tuple[int, ...]
    reserve: tuple[bool, ...]

    @property
    def cards_left(self) -> int:
        return sum(self.counts) + sum(self.reserve)


class LegalMoves:
    """The legal moves of a position: iterable, sized, truthy, supports ``in``."""

    def __init__(self, game: "Game") -> None:
        self._moves = game._generate_moves()

    def __iter__(self) -> Iterator[Move]:
        return iter(self._moves)

    def __len__(self) -> int:
        return len(self._moves)

    def count(self) -> int:
        return len(self._moves)

    def __bool__(self) -> bool:
        return bool(self._moves)

    def __contains__(self, move: object) -> bool:
        return move in self._moves

    def __repr__(self) -> str:
        return f"<LegalMoves ({', '.join(map(str, self._moves))})>"


class Game:
    """A game of Half Moon on a deal (from a code, a deal number or a :class:`Deal`)."""

    def __init__(
        self,
        deal: Union[Deal, str, int],
        *,
        settings: Settings = Settings(),
        clock: Callable[[], float] = time.monotonic,
        undo_limit: int = UNDO_LIMIT,
    ) -> None:
        if isinstance(deal, int):
            deal = Deal.from_number(deal)
        elif isinstance(deal, str):
            deal = Deal(deal)
        self.deal = deal
        self.settings = settings
        self.clock = clock
        self.undo_limit = undo_limit
        self.counts = [len(p) for p in deal.piles]
        self.reserve_full = [c is not None for c in deal.reserve]
        self.stack: list[Move] = []
        self.score = 0
        self.pairs = 0
        self.triplets = 0
        self.move_count = 0
        self._undoable = 0
        self._selection: list[str] = []
        self._started = clock()

    # --- the position --------------------------------------------------------------
    @property
    def position(self) -> Position:
        return Position(tuple(self.counts), tuple(self.reserve_full))

    def card_at(self, source: str) -> Optional[Card]:
        """The playable card at a source, or None if the pile or slot is empty."""
        idx = _SOURCE_INDEX.get(source.strip().upper())
        if idx is None:
            raise IllegalMoveError(f"unknown source {source!r} (expected P1-P12 or R1-R8)")
        if idx < PILES:
            n = self.counts[idx]
            return self.deal.piles[idx][n - 1] if n else None
        r = idx - PILES
        return self.deal.reserve[r] if self.reserve_full[r] else None

    def playable(self) -> dict[str, Card]:
        """Every playable card by source: pile tops, then reserve cards."""
        out = {}
        for i, n in enumerate(self.counts):
            if n:
                out[PILE_SOURCES[i]] = self.deal.piles[i][n - 1]
        for r, full in enumerate(self.reserve_full):
            if full:
                out[RESERVE_SOURCES[r]] = self.deal.reserve[r]
        return out

    def cards_left(self) -> int:
        return sum(self.counts) + sum(self.reserve_full)

    def remaining_deal(self) -> Deal:
        """The current position as a Deal (for layouts and diagrams)."""
        piles = [p[:n] for p, n in zip(self.deal.piles, self.counts)]
        reserve = [c if f else None for c, f in zip(self.deal.reserve, self.reserve_full)]
        d = Deal(piles=piles, reserve=reserve)
        d.code = self.deal.code
        return d

    # --- moves ---------------------------------------------------------------------
    @property
    def legal_moves(self) -> LegalMoves:
        return LegalMoves(self)

    def _generate_moves(self) -> list[Move]:
        cards = list(self.playable().items())
        moves = []
        for (s1, c1), (s2, c2) in combinations(cards, 2):
            if not c1.is_face and not c2.is_face and c1.rank + c2.rank == 11:
                moves.append(Move((s1, s2)))
        faces = [(s, c) for s, c in cards if c.is_face]
        for trio in combinations(faces, 3):
            if {c.rank for _, c in trio} == {JACK, QUEEN, KING}:
                moves.append(Move(tuple(s for s, _ in trio)))
        moves.sort(key=_move_key)
        return moves

    def is_legal(self, move: Move) -> bool:
        cards = [self.card_at(s) for s in move.sources]
        if any(c is None for c in cards):
            return False
        if len(cards) == 2:
            return (not cards[0].is_face and not cards[1].is_face
                    and cards[0].rank + cards[1].rank == 11)
        return sorted(c.rank for c in cards) == [JACK, QUEEN, KING]

    def push(self, move: Move) -> None:
        """Apply a move without checking it (see :meth:`play`)."""
        for s in move.sources:
            i = _SOURCE_INDEX[s]
            if i < PILES:
                self.counts[i] -= 1
            else:
                self.reserve_full[i - PILES] = False
        self.stack.append(move)
        if move.is_triplet:
            self.triplets += 1
        else:
            self.pairs += 1
        self.score += move.points
        self.move_count += 1
        self._undoable = min(self._undoable + 1, self.undo_limit)
        self._selection = []

    def pop(self) -> Move:
        """Take back the last move, however old; IndexError if there is none."""
        move = self.stack.pop()
        for s in move.sources:
            i = _SOURCE_INDEX[s]
            if i < PILES:
                self.counts[i] += 1
            else:
                self.reserve_full[i - PILES] = True
        if move.is_triplet:
            self.triplets -= 1
        else:
            self.pairs -= 1
        self.score = max(0, self.score - move.points)
        self.move_count -= 1
        self._undoable = max(0, self._undoable - 1)
        self._selection = []
        return move

    def play(self, move: Union[Move, str]) -> Move:
        """Check and apply a move (a :class:`Move` or text such as ``'P1+P8'``)."""
        if isinstance(move, str):
            move = Move.parse(move)
        if not self.is_legal(move):
            raise IllegalMoveError(f"illegal move {move}: {self._why_illegal(move)}")
        self.push(move)
        return move

    def _why_illegal(self, move: Move) -> str:
        cards = [self.card_at(s) for s in move.sources]
        empty = [s for s, c in zip(move.sources, cards) if c is None]
        if empty:
            return f"{', '.join(empty)} {'is' if len(empty) == 1 else 'are'} empty"
        shown = " + ".join(f"{c.symbol()} {s}" for c, s in zip(cards, move.sources))
        if len(cards) == 2:
            return f"{shown} is not a pair adding up to 11"
        return f"{shown} is not a Jack, a Queen and a King"

    def can_undo(self) -> bool:
        return self._undoable > 0

    def undo(self) -> Optional[Move]:
        """Undo the last move as the app does: at most the last 100 moves.

        Returns the move undone, or None when nothing (more) can be undone; the game
        goes on either way.
        """
        if not self.can_undo():
            return None
        return self.pop()

    # --- state of the game ---------------------------------------------------------
    @property
    def is_won(self) -> bool:
        return self.cards_left() == 0

    @property
    def is_dead_end(self) -> bool:
        return not self.is_won and not self.legal_moves

    @property
    def is_over(self) -> bool:
        return self.is_won or self.is_dead_end

    def elapsed(self) -> float:
        return self.clock() - self._started

    def status_line(self) -> str:
        """Time, score, moves and deal code, as in the app's status bar."""
        secs = int(self.elapsed())
        minutes, seconds = divmod(max(secs, 0), 60)
        code = self.deal.code or "no code"
        return f"Time {minutes}:{seconds:02d}  Score {self.score}  Moves {self.move_count}  {code}"

    # --- taps ----------------------------------------------------------------------
    @property
    def selection(self) -> tuple[str, ...]:
        return tuple(self._selection)

    def tap(self, source: str) -> TapOutcome:
        """Tap a card as in the app; returns what happened.

        Tapping an empty pile or slot does nothing.  ``message`` is set only with the
        "Move errors" setting on.
        """
        src = source.strip().upper()
        card = self.card_at(src)
        if card is None:
            return TapOutcome(self.selection)
        current = tuple((s, self.card_at(s)) for s in self._selection)
        outcome = resolve_tap(current, src, card)
        if outcome.removed is not None:
            self.push(Move(outcome.removed))
        self._selection = list(outcome.selection)
        if not self.settings.move_errors and outcome.message is not None:
            outcome = TapOutcome(outcome.selection, outcome.removed, None)
        return outcome

    def dimmed(self) -> set[str]:
        """With "Placement assistance" on: the playable cards that cannot join the
        current selection in any legal move.  Empty with nothing selected."""
        if not self.settings.placement_assistance or not self._selection:
            return set()
        chosen = set(self._selection)
        lit = set(chosen)
        for move in self.legal_moves:
            if chosen <= set(move.sources):
                lit.update(move.sources)
        return set(self.playable()) - lit

    # --- display -------------------------------------------------------------------
    def __str__(self) -> str:
        from .diagram import render

        return render(self.remaining_deal())

    def __repr__(self) -> str:
        what = repr(self.deal.code) if self.deal.code and is_code(self.deal.code) else "…"
        return f"<Game {what} score={self.score} moves={self.move_count} left={self.cards_left()}>"


_SOURCE_INDEX = {s: i for i, s in enumerate(SOURCES)}
_MOVE_ORDER = {s: i for i, s in enumerate(SOURCES)}


def _move_key(move: Move) -> tuple[int, ...]:
    return tuple(_MOVE_ORDER[s] for s in move.sources)

