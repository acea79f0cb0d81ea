"""The board's games on disk: every game kept in a SQLite file, written at each change, so
that a board started again answers the same ids with the same moves and cards.

A game is kept as what rebuilds it, never as objects: its deal (the layout's text) or the
20 cards entered from the app, its log (the moves, the cards told and corrected, in order:
:mod:`halfmoon.board.games`), its settings, selection and version.  Loading replays the
log on the engine (through :class:`~halfmoon.board.along.AlongGame` for a game from the
app), so every rule stays checked.  Each change is one transaction of a file in WAL mode:
a board killed at any moment loses at most the change in flight.

The file is bounded: beyond ``kept`` games (:data:`DEFAULT_KEPT`) the finished games go
first, then those played longest ago, and each id pruned is remembered (the latest
:data:`GONE_KEPT` times ``kept``) with why, so that a page asking for it is told; a game's
log holds at most :data:`MAX_LOG` entries.  A file that is not the board's (another
program's, another schema) or is damaged is refused with one line and left as it is.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Callable, Optional, Union

from halfmoon.game.engine import Game, Position, Settings
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.layouts import format_layout, parse_layout
from halfmoon.game.moves import Move

from .along import AlongGame, AlongLive, read_cards
from .errors import GameNotFound
from .games import LiveGame

APPLICATION_ID = 0x484D4253  # "HMBS" in the file's header: a store of the board's games
SCHEMA = 1  # the header's user_version: the layout of the tables below
DEFAULT_KEPT = 1000  # games kept in the file
GONE_KEPT = 4  # ids pruned remembered, in multiples of the games kept
MAX_LOG = 1000  # entries of a game's log: a whole game with its reveals needs under 300
MAX_TEXT = 100_000  # characters of a kept field
TABLES = """
CREATE TABLE games (id TEXT PRIMARY KEY, kind TEXT NOT NULL, start TEXT NOT NULL,
                    log TEXT NOT NULL, state TEXT NOT NULL, created REAL NOT NULL,
                    used REAL NOT NULL, over INTEGER NOT NULL);
CREATE INDEX games_by_use ON games (over, used);
CREATE TABLE gone (id TEXT PRIMARY KEY, why TEXT NOT NULL, at REAL NOT NULL);
"""
# the board that holds the file, for another one to name (a table a file of layout 1 may
# lack: made when a board first holds it)
HOLDER = "CREATE TABLE IF NOT EXISTS holder (pid INTEGER, address TEXT, since REAL)"
REFUSED = "refused and left as it is (move it away, or give another file with --store)"


class StoreError(HalfMoonError):
    """The file of games cannot be used (not the board's, damaged, not writable): one line
    naming the file and why."""


def default_path() -> Path:
    """Where the board keeps its games: ``$XDG_DATA_HOME/halfmoon/board.sqlite3``, else
    ``~/.local/share/halfmoon/board.sqlite3``."""
    base = os.environ.get("XDG_DATA_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".local" / "share"
    return root / "halfmoon" / "board.sqlite3"


class SavedGames:
    """The games of the board in the SQLite file at ``path`` (made when missing), at most
    ``kept`` of them; :class:`StoreError` when the file cannot be used.

    With ``board`` (the board's address), the file is held for that board alone, as a
    PostgreSQL data folder is by its one server: another board given the same file is
    refused, the refusal naming the first (its address and pid), so that no change
    answered to a page is overwritten by another board's; and a file that cannot be
    written is refused at once, not at the first move.  The hold is a lock of the system
    on the file (``flock``, where there is one): it goes with the process, however it
    ends.  ``new``: ``"missing"`` when the file is made here, ``"empty"`` when it had no
    bytes (taken as a new one), else None."""

    def __init__(self, path: Union[str, Path], *, kept: int = DEFAULT_KEPT,
                 clock: Callable[[], float] = time.time, board: Optional[str] = None) -> None:
        if kept < 1:
            raise ValueError(f"the file needs room for at least one game, got {kept}")
        self.path = Path(path)
        self.kept = kept
        self._clock = clock
        self._lock = threading.Lock()
        self.new = _is_new(self.path)
        self._held = None if board is None else _hold(self.path)
        try:
            self._db = _open(self.path)
            if board is not None:
                self._claim(board)
        except BaseException:
            if getattr(self, "_db", None) is not None:
                self._db.close()
            self._release()
            raise

    def close(self) -> None:
        with self._lock:
            if self._held is not None:
                with contextlib.suppress(sqlite3.Error):  # the next board writes its own
                    self._db.execute("DELETE FROM holder")
            self._db.close()
            self._release()

    def _claim(self, board: str) -> None:
        """Name this board in the file: its first write, so a file that cannot be written
        is refused here."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(HOLDER)
                self._db.execute("DELETE FROM holder")
                self._db.execute("INSERT INTO holder VALUES (?, ?, ?)",
                                 (os.getpid(), board, self._clock()))
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            raise StoreError(f"{self.path} cannot be written ({exc}): the board keeps every "
                             "change of a game there; make it writable, or give another file"
                             " with --store") from None

    def _release(self) -> None:
        if self._held is not None:
            os.close(self._held)  # the lock goes with it
            self._held = None

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT count(*) FROM games").fetchone()[0]

    def save(self, live: LiveGame) -> list[str]:
        """Write the game as it is now (one transaction); a new game may push the oldest
        out: returns the ids pruned."""
        kind, start = _start(live)
        log, state = json.dumps(live.log), json.dumps(_state(live))
        over = int(bool(live.along.is_over if isinstance(live, AlongLive) else live.game.is_over))
        now = self._clock()
        with self._write() as db:
            changed = db.execute("UPDATE games SET log = ?, state = ?, used = ?, over = ? "
                                 "WHERE id = ?", (log, state, now, over, live.id)).rowcount
            if changed:
                return []
            db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (live.id, kind, start, log, state, now, now, over))
            return self._prune(db)

    def _prune(self, db: sqlite3.Connection) -> list[str]:
        excess = db.execute("SELECT count(*) FROM games").fetchone()[0] - self.kept
        if excess <= 0:
            return []
        rows = db.execute("SELECT id, over, used FROM games ORDER BY over DESC, used LIMIT ?",
                          (excess,)).fetchall()
        now = self._clock()
        for game_id, over, used in rows:
            when = time.strftime("%Y-%m-%d %H:%M", time.localtime(used))
            what = "finished game" if over else "game"
            why = (f"it was pruned as the oldest {what} of the {self.kept} the board keeps "
                   f"(last played {when})")
            db.execute("DELETE FROM games WHERE id = ?", (game_id,))
            db.execute("INSERT OR REPLACE INTO gone VALUES (?, ?, ?)", (game_id, why, now))
        db.execute("DELETE FROM gone WHERE id IN (SELECT id FROM gone ORDER BY at DESC "
                   "LIMIT -1 OFFSET ?)", (GONE_KEPT * self.kept,))
        return [game_id for game_id, _, _ in rows]

    def load(self, game_id: str) -> Optional[LiveGame]:
        """The game kept under this id, rebuilt by replaying its log, or None;
        :class:`~halfmoon.board.errors.GameNotFound` when its row cannot be rebuilt."""
        with self._lock:
            row = self._db.execute("SELECT kind, start, log, state, created FROM games "
                                   "WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            return None
        try:
            return rebuild(game_id, *row, now=self._clock())
        except (HalfMoonError, ValueError, KeyError, TypeError, IndexError) as exc:
            raise GameNotFound(f"game {game_id!r} is in the board's file but cannot be "
                               f"rebuilt: {exc}") from None

    def why_gone(self, game_id: str) -> str:
        """Why there is no game by this id: pruned (when, and which rule), or never kept."""
        with self._lock:
            row = self._db.execute("SELECT why FROM gone WHERE id = ?", (game_id,)).fetchone()
        if row is not None:
            return f"no game {game_id!r}: {row[0]}"
        return f"no game {game_id!r}: there never was one by this id in the board's file"

    @contextlib.contextmanager
    def _write(self):
        """One transaction, taken at once (another board on the file waits for it)."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    yield self._db
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path} could not be written ({exc})") from None

    def keep_clocks(self, lives) -> None:
        """At the board's stop: each game's clock as it stands (its state), so that the
        time the board is down does not count; when it was last played is left as it is."""
        with self._write() as db:
            for live in lives:
                db.execute("UPDATE games SET state = ? WHERE id = ?",
                           (json.dumps(_state(live)), live.id))


def _is_new(path: Path) -> Optional[str]:
    """``"missing"`` or ``"empty"`` (a file of no bytes: taken as a new one), else None."""
    try:
        info = path.stat()
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        raise StoreError(f"cannot open {path}: {exc.strerror or exc}") from None
    return "empty" if info.st_size == 0 and not path.is_dir() else None


def _hold(path: Path) -> Optional[int]:
    """The file held for this process alone (an open descriptor with its lock), or None
    where the system has no ``flock``; :class:`StoreError` naming the board that holds it.

    The lock is taken before SQLite opens the file and dropped after it has closed it:
    closing another descriptor of the file while SQLite's own locks are held would drop
    them (POSIX locks are the process's, per file)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return None
    if path.is_dir():
        raise StoreError(f"{path} is a folder: the board's games need a file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)
    except OSError as exc:
        raise StoreError(f"cannot open {path}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        raise StoreError(f"{path} is in use by {_holder(path)}: one board at a time on a file "
                         "of games (stop that one, or give this one another file with --store)"
                         ) from None
    return fd


def _holder(path: Path) -> str:
    """The board that holds the file, as it named itself there."""
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=2)
        try:
            row = db.execute("SELECT pid, address FROM holder").fetchone()
        finally:
            db.close()
    except (sqlite3.Error, OSError, ValueError):
        row = None
    if row is None:
        return "another board (still starting)"
    return f"the board at {row[1]} (pid {row[0]})"


def _open(path: Path) -> sqlite3.Connection:
    """The connection to the file, checked (a new or empty file is set up); nothing is
    written to a file refused."""
    if path.is_dir():
        raise StoreError(f"{path} is a folder: the board's games need a file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False,
                             timeout=10)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot open {path}: {getattr(exc, 'strerror', None) or exc}") \
            from None
    try:
        new = _check(db, path)
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = NORMAL")  # WAL: a killed process loses nothing
        if new:
            db.executescript(f"BEGIN IMMEDIATE; {TABLES} PRAGMA application_id = {APPLICATION_ID}; "
                             f"PRAGMA user_version = {SCHEMA}; COMMIT;")
    except sqlite3.Error as exc:
        db.close()
        if _unwritable(exc):
            raise StoreError(f"{path} cannot be written ({exc}): the board keeps every change"
                             " of a game there; make it and its folder writable, or give "
                             "another file with --store") from None
        raise StoreError(f"{path} is not a file of the board's games or is damaged ({exc}): "
                         f"{REFUSED}") from None
    except StoreError:
        db.close()
        raise
    return db


def _unwritable(exc: sqlite3.Error) -> bool:
    """Whether SQLite's error says the file (or its folder, where the write-ahead log
    goes) cannot be written, rather than that it is not a database."""
    text = str(exc).lower()
    return any(w in text for w in ("readonly", "read-only", "unable to open", "disk i/o",
                                   "database or disk is full"))


def _check(db: sqlite3.Connection, path: Path) -> bool:
    """Whether the file is new (empty); :class:`StoreError` when it is not the board's."""
    app = db.execute("PRAGMA application_id").fetchone()[0]
    schema = db.execute("PRAGMA user_version").fetchone()[0]
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if app == 0 and schema == 0 and not tables:
        return True
    if app != APPLICATION_ID:
        raise StoreError(f"{path} is not a file of the board's games (another program's "
                         f"database): {REFUSED}")
    if schema != SCHEMA:
        raise StoreError(f"{path} holds the board's games in layout {schema}, this halfmoon "
                         f"reads layout {SCHEMA}: {REFUSED}")
    verdict = db.execute("PRAGMA quick_check").fetchone()[0]
    if verdict != "ok" or not {"games", "gone"} <= tables:
        raise StoreError(f"{path} is damaged ({verdict if verdict != 'ok' else 'tables missing'})"
                         f": {REFUSED}")
    return False


# --- a game as rows, and back -----------------------------------------------------------
def _start(live: LiveGame) -> tuple[str, str]:
    """(kind, start): a known deal's layout, or the 20 cards first entered from the app."""
    if isinstance(live, AlongLive):
        return "along", " ".join(str(c) for c in live.along.entered)
    return "deal", format_layout(live.game.deal)


def _state(live: LiveGame) -> dict:
    settings = live.game.settings
    return {"version": live.version, "selection": list(live.game.selection),
            "settings": {"move_errors": settings.move_errors,
                         "placement_assistance": settings.placement_assistance},
            "analysed": _position_out(live.analysed), "fair_for": _position_out(live.fair_for),
            "elapsed": round(live.game.elapsed(), 3), **_along_out(live)}


def _along_out(live: LiveGame) -> dict:
    """What a game from the app has learnt of the positions along its moves now: the
    share shown of each (where a dead end offers to undo to) and the times its stopped
    stages were asked again, each by its number of moves (the positions off the current
    moves, undone, are not kept: a bounded row)."""
    if not isinstance(live, AlongLive):
        return {}
    moves = tuple(str(m) for m in live.game.stack)
    fixes = len(live.along.corrections)
    return {"shown": [[len(k), c, share, told] for (k, c), (share, told) in live.shown.items()
                      if c == fixes and moves[:len(k)] == k],
            "again": [[len(k), c, n] for (k, c), n in live.again.items()
                      if c == fixes and moves[:len(k)] == k]}


def _along_in(live: AlongLive, kept: dict) -> None:
    moves = tuple(str(m) for m in live.game.stack)
    for n, c, share, told in kept.get("shown", []):
        if 0 <= int(n) <= len(moves):
            live.shown[(moves[:int(n)], int(c))] = (float(share), int(told))
    for n, c, times in kept.get("again", []):
        if 0 <= int(n) <= len(moves):
            live.again[(moves[:int(n)], int(c))] = int(times)


def _position_out(position: Optional[Position]) -> Optional[list]:
    return None if position is None else [list(position.counts), list(position.reserve)]


def _position_in(kept: Optional[list]) -> Optional[Position]:
    return None if kept is None else Position(tuple(kept[0]), tuple(kept[1]))


def rebuild(game_id: str, kind: str, start: str, log: str, state: str, created: float,
            *, now: Optional[float] = None) -> LiveGame:
    """The live game of a kept row: its deal or cards, its log replayed, its selection,
    settings and version as they were; the engine's error when a step cannot be."""
    if max(len(start), len(log), len(state)) > MAX_TEXT:
        raise ValueError(f"a field is over {MAX_TEXT:,} characters")
    entries, kept = json.loads(log), json.loads(state)
    if not isinstance(entries, list) or len(entries) > MAX_LOG:
        raise ValueError(f"its log is not a list of at most {MAX_LOG} entries")
    settings = Settings(**{k: bool(v) for k, v in kept["settings"].items()})
    if kind == "deal":
        live = LiveGame(game_id, Game(parse_layout(start), settings=settings))
    elif kind == "along":
        live = AlongLive(game_id, AlongGame(read_cards(start), settings))
    else:
        raise ValueError(f"unknown kind of game {str(kind)[:20]!r}")
    for entry in entries:
        _replay(live, entry)
    for source in kept["selection"]:
        live.game.tap(source)
    live.version = int(kept["version"])
    live.analysed, live.fair_for = _position_in(kept["analysed"]), _position_in(kept["fair_for"])
    if isinstance(live, AlongLive):
        _along_in(live, kept)
    if "elapsed" in kept:  # the clock goes on from where it stood, the board's stop not counted
        live.game._started = live.game.clock() - max(0.0, float(kept["elapsed"]))
    elif now is not None:  # a file written before clocks were kept: from the game's start
        live.game._started = live.game.clock() - max(0.0, now - created)
    return live


def _replay(live: LiveGame, entry: list) -> None:
    what, *args = entry
    if what == "m":
        if isinstance(live, AlongLive):
            live.along.check_playable()
        move = live.game.play(Move.parse(args[0]))
        live.log.append(["m", str(move)])
    elif what == "u":
        if live.undo() is None:
            raise ValueError("an undo with no move to undo")
    elif what in ("r", "c") and isinstance(live, AlongLive):
        (live.reveal if what == "r" else live.correct)(args[0], args[1])
    else:
        raise ValueError(f"unknown entry {str(entry)[:40]} of the log")
