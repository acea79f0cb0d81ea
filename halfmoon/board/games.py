"""Live games of the board and their store, bounded: beyond the cap the game used least
recently is dropped.

A :class:`LiveGame` is a reference :class:`~halfmoon.game.engine.Game` with what the
board adds around it: an id for the page's address, a version that counts every change
(a tap from a tab that has not seen the latest change is refused, so two tabs on one
game keep it consistent), the message of the last tap and the position the player
asked to analyse.  Every rule stays the engine's.

Each game keeps its *log*: what rebuilds it on its deal (``["m", "P1+P8"]`` a move,
``["u"]`` an undo; a game from the app adds the cards told and corrected), a move undone
at once taken out of it, so that the log stays as short as the game
(:mod:`halfmoon.board.store` keeps it on disk).
"""

from __future__ import annotations

import hashlib
import secrets
from collections import OrderedDict
from typing import Callable, Iterator, Optional

from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game, Position, Settings
from halfmoon.game.layouts import format_layout
from halfmoon.game.moves import Move
from halfmoon.game.taps import TapOutcome

DEFAULT_CAPACITY = 64
ID_BYTES = 9  # 12 characters of URL-safe base 64: not guessable by another page


def deal_key(deal: Deal) -> str:
    """A short name for a deal's cards, the same for equal deals with or without a code."""
    return hashlib.sha1(format_layout(deal, code="").encode()).hexdigest()[:20]


class LiveGame:
    """A game being played on the board."""

    def __init__(self, game_id: str, game: Game) -> None:
        self.id = game_id
        self.game = game
        self.deal_key = deal_key(game.deal)
        self.version = 0
        self.message: Optional[str] = None
        self.removed: Optional[tuple[str, ...]] = None
        self.analysed: Optional[Position] = None
        self.fair_for: Optional[Position] = None
        self.log: list[list[str]] = []  # what rebuilds the game (the module's docstring)

    def tap(self, source: str) -> TapOutcome:
        """Tap a source (checked by the engine: an unknown source raises)."""
        outcome = self.game.tap(source)
        self.message = outcome.message
        self.removed = outcome.removed
        if outcome.removed is not None:
            self.log.append(["m", str(Move(outcome.removed))])
        self.version += 1
        return outcome

    def undo(self) -> Optional[Move]:
        move = self.game.undo()
        self._undone(move)
        self._changed()
        return move

    def _undone(self, move: Optional[Move]) -> None:
        """The log after an undo: a move undone at once leaves it."""
        if move is None:
            return
        if self.log and self.log[-1][0] == "m":
            self.log.pop()
        else:
            self.log.append(["u"])

    def _changed(self) -> None:
        """The table changed other than by a tap: no tap's message or removed cards left
        to show, and a new version."""
        self.message = None
        self.removed = None
        self.version += 1

    def set_settings(self, move_errors: Optional[bool] = None,
                     placement_assistance: Optional[bool] = None) -> None:
        now = self.game.settings
        self.game.settings = Settings(
            move_errors=now.move_errors if move_errors is None else move_errors,
            placement_assistance=(now.placement_assistance if placement_assistance is None
                                  else placement_assistance),
        )
        self.version += 1

    def ask_analysis(self) -> None:
        self.analysed = self.game.position
        self.version += 1

    @property
    def analysis_asked(self) -> bool:
        """Whether the analysis was asked for the position now on the board."""
        return self.analysed == self.game.position

    def ask_fair(self) -> None:
        self.fair_for = self.game.position
        self.version += 1

    @property
    def fair_asked(self) -> bool:
        """Whether the fair hint was asked for the position now on the board."""
        return self.fair_for == self.game.position


class GameStore:
    """At most ``capacity`` live games by id; the least recently used is dropped."""

    def __init__(self, capacity: int = DEFAULT_CAPACITY) -> None:
        if capacity < 1:
            raise ValueError(f"the store needs room for at least one game, got {capacity}")
        self.capacity = capacity
        self._games: OrderedDict[str, LiveGame] = OrderedDict()
        self.dropped = 0

    def add(self, game: Game, make: Callable[[str, object], LiveGame] = LiveGame) -> LiveGame:
        """A new live game on ``game``, made by ``make(id, game)`` (a :class:`LiveGame` by
        default)."""
        game_id = secrets.token_urlsafe(ID_BYTES)
        while game_id in self._games:  # pragma: no cover - 72 random bits
            game_id = secrets.token_urlsafe(ID_BYTES)
        live = make(game_id, game)
        self.keep(live)
        return live

    def keep(self, live: LiveGame) -> None:
        """Hold a game made elsewhere (loaded from the file of games), the most recent."""
        self._games[live.id] = live
        self._games.move_to_end(live.id)
        while len(self._games) > self.capacity:
            self._games.popitem(last=False)
            self.dropped += 1

    def discard(self, game_id: str) -> None:
        self._games.pop(game_id, None)

    def get(self, game_id: str) -> Optional[LiveGame]:
        """The game with this id (now the most recently used), or None."""
        live = self._games.get(game_id)
        if live is not None:
            self._games.move_to_end(game_id)
        return live

    def __len__(self) -> int:
        return len(self._games)

    def __contains__(self, game_id: object) -> bool:
        return game_id in self._games

    def recent(self) -> Iterator[LiveGame]:
        """The live games, the most recently used first."""
        return reversed(list(self._games.values()))


def played(deal: Deal, moves: tuple[Move, ...], settings: Settings) -> Game:
    """A game of ``deal`` with ``moves`` played (each checked by the engine)."""
    game = Game(deal, settings=settings)
    for move in moves:
        game.play(move)
    return game


class CardsLeft:
    """The cards left after some moves of a deal, worked out when first asked for (a solve
    job's cards: most jobs are dropped before they are sent)."""

    __slots__ = ("deal", "moves", "_left")

    def __init__(self, deal: Deal, moves: tuple[Move, ...]) -> None:
        self.deal, self.moves, self._left = deal, moves, None

    def __call__(self) -> Deal:
        if self._left is None:
            game = Game(self.deal)
            for move in self.moves:
                game.push(move)
            self._left = game.remaining_deal()
        return self._left


def fair_cards(left: Deal) -> Deal:
    """The cards left as a fair player knows them, the hidden ones sorted (a fair hint's
    job never knows them).  Made on a pool thread as the job is sent: the first one imports
    the research modules (half a second), which must not hold the board's lock."""
    from halfmoon.research.fairplay import view_deal

    return view_deal(left)
