"""The reference game engine: the meaning of every rule of the app.

A :class:`Game` holds a deal and the current position: how many cards each pile
still holds and which reserve slots are still full.  ``push``/``pop`` are the cheap,
unchecked primitives (like python-chess); ``play``, ``undo`` and ``tap`` are the
checked entry points a player uses.

**Playing along with the app** (a partial deal, :attr:`Deal.is_partial`): the game plays
only known cards.  A move that uncovers an unknown card leaves its pile *waiting*
(:attr:`Game.waiting`); while a pile waits there is no legal move, until the card that
appeared is told with :meth:`Game.reveal` (``game.reveal("P5", "9h")``).  A reveal belongs to
the move that uncovered the card: undoing that move takes the reveal back (the place is
unknown again).  A reveal is checked: the pile must be waiting, and the card must be one not
seen yet (no third copy of a card); the error names the card, and the game is kept as it
was.  The cards still unseen then always fit the unknown places: the start is checked by its
layout (:mod:`halfmoon.game.partial`), a reveal takes one unseen card for one unknown place,
and moves remove whole pairs and triplets.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Callable, Iterator, Optional, Union

from .cards import JACK, KING, QUEEN, UNKNOWN, Card, is_unknown, parse_card
from .codes import is_code
from .deal import PILE_SOURCES, PILES, RESERVE_SOURCES, SOURCES, Deal
from .errors import IllegalMoveError, InconsistentCardError
from .moves import Move
from .partial import third_copy_message, unseen_cards, where_seen
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
        """The cards still on the board: in the piles and the reserve."""
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
        # the piles' cards as known now: a partial deal's reveals are written in
        self.known: list[list[Card]] = [list(p) for p in deal.piles]
        self._reveals: list[tuple[int, int]] = []  # (moves on the stack, pile index)
        self._partial = deal.is_partial
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
        """The current position: the cards left in each pile and the full reserve slots (a
        :class:`Position`, hashable: equal positions compare equal)."""
        return Position(tuple(self.counts), tuple(self.reserve_full))

    def card_at(self, source: str) -> Optional[Card]:
        """The playable card at a source, or None if the pile or slot is empty;
        :data:`~halfmoon.game.cards.UNKNOWN` on a pile waiting for its card."""
        idx = _SOURCE_INDEX.get(source.strip().upper())
        if idx is None:
            raise IllegalMoveError(f"unknown source {source!r} (expected P1-P12 or R1-R8)")
        if idx < PILES:
            n = self.counts[idx]
            return self.known[idx][n - 1] if n else None
        r = idx - PILES
        return self.deal.reserve[r] if self.reserve_full[r] else None

    def playable(self) -> dict[str, Card]:
        """Every playable card by source: pile tops, then reserve cards (a pile waiting for
        its card has none)."""
        out = {}
        for i, n in enumerate(self.counts):
            if n and not is_unknown(self.known[i][n - 1]):
                out[PILE_SOURCES[i]] = self.known[i][n - 1]
        for r, full in enumerate(self.reserve_full):
            if full:
                out[RESERVE_SOURCES[r]] = self.deal.reserve[r]
        return out

    def cards_left(self) -> int:
        """The cards still on the board (0 when the game is won)."""
        return sum(self.counts) + sum(self.reserve_full)

    def remaining_deal(self) -> Deal:
        """The current position as a Deal (for layouts and diagrams); in a game on a partial
        deal, a partial Deal listing the cards removed (so that its unknown cards are the
        ones not seen yet)."""
        piles = [p[:n] for p, n in zip(self.known, self.counts)]
        reserve = [c if f else None for c, f in zip(self.deal.reserve, self.reserve_full)]
        removed: tuple[Card, ...] = ()
        if self._partial:
            removed = self.deal.removed + tuple(c for p, n in zip(self.known, self.counts)
                                                for c in p[n:])
            removed += tuple(c for c, f in zip(self.deal.reserve, self.reserve_full)
                             if c is not None and not f)
        d = Deal(piles=piles, reserve=reserve, removed=removed)
        d.code = self.deal.code
        return d

    # --- playing along with the app (a partial deal) -------------------------------
    @property
    def waiting(self) -> tuple[str, ...]:
        """The piles whose top card is not known yet (a move uncovered it, or the layout
        left it unknown): each waits for :meth:`reveal`; no move is legal meanwhile."""
        if not self._partial:
            return ()
        return tuple(PILE_SOURCES[i] for i, n in enumerate(self.counts)
                     if n and is_unknown(self.known[i][n - 1]))

    def unknown(self) -> Counter:
        """The cards not seen yet, as a multiset (a ``Counter`` of cards): those the unknown
        places hold, and so the cards a reveal may name (empty on a full deal)."""
        if not self._partial:
            return Counter()
        return unseen_cards(self.known, self.deal.reserve, self.deal.removed)

    def known_deal(self) -> Deal:
        """The deal as known now: the start with every card revealed so far in its place
        (with the moves played, it replays this game)."""
        return Deal(piles=self.known, reserve=self.deal.reserve, removed=self.deal.removed)

    def reveal(self, pile: str, card: Union[Card, str]) -> Card:
        """Tell the card that appeared on a waiting pile (``game.reveal("P5", "9h")``).

        Raises :class:`~halfmoon.game.errors.IllegalMoveError` when the pile is not waiting,
        :class:`~halfmoon.game.errors.InconsistentCardError` when the card cannot be there
        (both copies already seen); the game is unchanged then.  Undoing the move that
        uncovered the card takes the reveal back."""
        idx = _SOURCE_INDEX.get(pile.strip().upper()) if isinstance(pile, str) else None
        if idx is None or idx >= PILES:
            raise IllegalMoveError(f"cannot reveal a card on {pile!r}: only a pile (P1-P12) "
                                   "waits for a card")
        source = PILE_SOURCES[idx]
        if isinstance(card, str):
            card = parse_card(card)
        if not isinstance(card, Card) or is_unknown(card):
            raise IllegalMoveError(f"{source}: expected a card to reveal, got {card!r}")
        n = self.counts[idx]
        if not n or not is_unknown(self.known[idx][n - 1]):
            top = "it is empty" if not n else f"its top is {self.known[idx][n - 1]}"
            raise IllegalMoveError(f"{source} is not waiting for a card ({top}): cannot reveal "
                                   f"{card} there")
        if self.unknown()[card] == 0:
            now = self.remaining_deal()
            places = where_seen(card, now.piles, now.reserve, now.removed)
            raise InconsistentCardError(f"{source}: {third_copy_message(card, places)}")
        self.known[idx][n - 1] = card
        self._reveals.append((len(self.stack), idx))
        return card

    # --- moves ---------------------------------------------------------------------
    @property
    def legal_moves(self) -> LegalMoves:
        """Every legal move of the current position, in the engine's order (a
        :class:`LegalMoves`: iterable, sized, truthy, supports ``in``); none while a pile
        waits for its card in a game played along with the app."""
        return LegalMoves(self)

    def _generate_moves(self) -> tuple[Move, ...]:
        if self.waiting:
            return ()
        return _moves_of(tuple(self.playable().items()))

    def is_legal(self, move: Move) -> bool:
        """Whether ``move`` can be played now: its sources hold known cards that make eleven
        (two number cards) or a Jack, a Queen and a King, and no pile waits for its card."""
        cards = [self.card_at(s) for s in move.sources]
        if any(c is None or is_unknown(c) for c in cards) or self.waiting:
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
        while self._reveals and self._reveals[-1][0] > len(self.stack):
            _, i = self._reveals.pop()  # the move took back uncovers its card no more
            self.known[i][self.counts[i] - 1] = UNKNOWN
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
        waiting = self.waiting
        if waiting:
            if len(waiting) == 1:
                return f"{waiting[0]} waits for the card it uncovered: reveal it first"
            return (f"{', '.join(waiting)} wait for the cards they uncovered: reveal them "
                    "first")
        cards = [self.card_at(s) for s in move.sources]
        empty = [s for s, c in zip(move.sources, cards) if c is None]
        if empty:
            return f"{', '.join(empty)} {'is' if len(empty) == 1 else 'are'} empty"
        shown = " + ".join(f"{c.symbol()} {s}" for c, s in zip(cards, move.sources))
        if len(cards) == 2:
            return f"{shown} is not a pair adding up to 11"
        return f"{shown} is not a Jack, a Queen and a King"

    def can_undo(self) -> bool:
        """Whether :meth:`undo` would take a move back (within the undo limit)."""
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
        """Every card removed."""
        return self.cards_left() == 0

    @property
    def is_dead_end(self) -> bool:
        """Cards left and no legal move (not while a pile waits for its card)."""
        return not self.is_won and not self.waiting and not self.legal_moves

    @property
    def is_over(self) -> bool:
        """Won or at a dead end: nothing more can be played."""
        return self.is_won or self.is_dead_end

    def elapsed(self) -> float:
        """Seconds since the game started, by the game's clock (the status line's time)."""
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
        """The sources selected by taps so far (:meth:`tap`), in the order tapped."""
        return tuple(self._selection)

    def tap(self, source: str) -> TapOutcome:
        """Tap a card as in the app; returns what happened.

        Tapping an empty pile or slot does nothing.  ``message`` is set only with the
        "Move errors" setting on.
        """
        src = source.strip().upper()
        card = self.card_at(src)
        if card is None or is_unknown(card) or self.waiting:
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


@lru_cache(maxsize=4096)
def _moves_of(cards: tuple[tuple[str, Card], ...]) -> tuple[Move, ...]:
    """The legal moves of the playable ``cards`` (source, card), in the engine's order: the
    same tops make the same moves, so they are made once (a board asks for them often)."""
    moves = []
    for (s1, c1), (s2, c2) in combinations(cards, 2):
        if not c1.is_face and not c2.is_face and c1.rank + c2.rank == 11:
            moves.append(Move((s1, s2)))
    faces = [(s, c) for s, c in cards if c.is_face]
    for trio in combinations(faces, 3):
        if {c.rank for _, c in trio} == {JACK, QUEEN, KING}:
            moves.append(Move(tuple(s for s, _ in trio)))
    moves.sort(key=_move_key)
    return tuple(moves)


def _move_key(move: Move) -> tuple[int, ...]:
    return tuple(_MOVE_ORDER[s] for s in move.sources)

