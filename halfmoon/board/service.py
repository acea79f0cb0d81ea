"""The board's games, the solver's answers and the solver processes, joined.

:class:`Board` is what the HTTP handlers call.  Every change to a game bumps its
version, tells the solver processes what is now worth solving (the position on the
board first; see :mod:`halfmoon.board.opinion`) and wakes the pages waiting for news.
Answers come back on a pool thread, are kept in the verdicts and wake the pages again.
A tap never waits for the solver: it only takes the board's lock, which is held for
bookkeeping, never while solving.

With a file of games (:class:`~halfmoon.board.store.SavedGames`), every game is written
there at each change and a game not in memory is loaded from it: the memory holds the
games used most recently, the file all the others.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
import threading
import zlib
from collections import OrderedDict
from typing import Callable, Optional, TypeVar

from halfmoon.game.codes import DEAL_COUNT
from halfmoon.game.deal import PILE_DEPTH, PILES, RESERVE_SLOTS, Deal
from halfmoon.game.engine import Game, Position, Settings
from halfmoon.game.errors import IllegalMoveError
from halfmoon.game.layouts import format_layout
from halfmoon.game.moves import Move

from .along import AlongGame, AlongLive, read_cards
from .along_view import along_jobs, along_opinion, along_state, keep_answer
from .errors import BadRequest, Busy, GameNotFound, NotKept, StaleVersion
from .games import DEFAULT_CAPACITY, CardsLeft, GameStore, LiveGame, deal_key, fair_cards, played
from .jobs import PICK_KINDS
from .levels import Levels, level_number
from .opinion import Verdicts, fair_view, opinion_view, read_game
from .pool import Job, SolverPool
from .sampled import Sample
from .store import MAX_LOG, StoreError
from .view import state_view

DEFAULT_BUDGET = 2_000_000  # positions per solve: most take well under a millisecond
FAIR_STAGES = (16, 64, 256)  # sampled layouts of the fair hint's answers, the first one fast
FAIR_BUDGET = 20_000  # positions per solve of a sampled layout's child
FAIR_KEPT = 256  # fair hints kept (positions)
MAX_JOBS = 256  # solves waiting at once, over all games
SAMPLES_KEPT = 4  # games from the app whose sampled layouts are kept (halfmoon.board.sampled)
BOARD_WORKERS = 2  # solver processes: a game from the app's layouts solved on two cores
PICK_TRIES = 200  # random deals looked at for one pick (about 3 in 4 are hard, 39 in 40 winnable)
T = TypeVar("T")
# a whole deal's position before any move
START = Position((PILE_DEPTH,) * PILES, (True,) * RESERVE_SLOTS)

# what the light says while a solver process compiles the kernels (a cold cache)
PREPARING = "Preparing the solver (compiling it, first run only)…"


class Board:
    """Live games on one solver pool; ``start_deal`` is the deal of a new game when the
    page names none (a random deal without it), with ``start_moves`` played (checked here:
    each must be legal where it is played)."""

    def __init__(self, pool: SolverPool, *, start_deal: Optional[Deal] = None,
                 start_moves: tuple[Move, ...] = (), budget: int = DEFAULT_BUDGET,
                 capacity: int = DEFAULT_CAPACITY,
                 rng: Optional[random.Random] = None, saved=None) -> None:
        if budget < 1:
            raise ValueError(f"the budget must be at least 1 position, got {budget}")
        self.pool = pool
        self.start_deal = start_deal
        self.start_moves = tuple(start_moves)
        if self.start_moves:
            if start_deal is None:
                raise ValueError("moves to start with need the deal to play them from")
            played(start_deal, self.start_moves, Settings())  # a bad move: refused now
        self.budget = budget
        self.store = GameStore(capacity)
        self.saved = saved  # the file of games (halfmoon.board.store.SavedGames), or None
        self.verdicts = Verdicts()
        self.levels = Levels()  # deal number -> its level in words (a solver's answer)
        # (deal key, position) -> the fair hint with most samples
        self.fair: OrderedDict = OrderedDict()
        # the answers on games played along with the app (halfmoon.board.along_view)
        self.along: OrderedDict = OrderedDict()
        # game id -> the layouts kept across its moves (a game from the app)
        self.samples: OrderedDict[str, Sample] = OrderedDict()
        self._rng = rng if rng is not None else random.SystemRandom()
        self._lock = threading.RLock()
        self._plans: dict[str, list[Job]] = {}
        self._wants: dict[str, tuple] = {}  # what each plan was made for
        self._stale: set[str] = set()
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._events: dict[str, asyncio.Event] = {}  # the loop's only

    # --- the event loop of the server -------------------------------------------
    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        """Wake waiters on ``loop`` (the server's) when something changes."""
        self._loop = loop

    def detach(self) -> None:
        self.pool.forget(self)
        self._loop = None

    def changed(self, game_id: str) -> asyncio.Event:
        """Set at the game's next change (a tap, a setting, a solver's answer about it);
        to be called in the server's loop."""
        event = self._events.get(game_id)
        if event is None:
            event = self._events[game_id] = asyncio.Event()
        return event

    def _wake(self, game_ids) -> None:
        loop = self._loop
        if loop is not None:
            try:
                loop.call_soon_threadsafe(self._set_changed, tuple(game_ids))
            except RuntimeError:  # the server's loop has closed: nobody is waiting
                pass

    def _set_changed(self, game_ids: tuple[str, ...]) -> None:
        for game_id in game_ids:
            event = self._events.pop(game_id, None)
            if event is not None:
                event.set()
        if len(self._events) > 2 * self.store.capacity:  # waiters of dropped games
            with self._lock:
                for game_id in [g for g in self._events if g not in self.store]:
                    self._events.pop(game_id).set()

    # --- games ---------------------------------------------------------------------
    def new_game(self, deal: Optional[Deal] = None, settings: Settings = Settings()) -> LiveGame:
        with self._lock:
            if deal is None and self.start_deal is not None:
                game = played(self.start_deal, self.start_moves, settings)
            else:
                game = Game(deal or Deal.from_number(self._rng.randrange(DEAL_COUNT)),
                            settings=settings)
            live = self.store.add(game)
            live.log = [["m", str(move)] for move in game.stack]  # the moves it starts with
            self._save(live)
            self._changed_game(live)
            return live

    def new_along(self, cards: str, settings: Settings = Settings()) -> LiveGame:
        """A game played along with the app, from the 20 cards it shows (typed as text:
        the pile tops P1-P12, then the reserve R1-R8)."""
        along = AlongGame(read_cards(cards), settings)
        with self._lock:
            live = self.store.add(along.game, lambda game_id, game: AlongLive(game_id, along))
            self._save(live)
            self._changed_game(live)
            return live

    def reveal(self, game_id: str, pile: str, card: str, version: Optional[int] = None) -> dict:
        """Tell the card that appeared on a waiting pile of a game from the app."""
        return self._change(game_id, version, lambda live: _along(live, "tell").reveal(pile, card))

    def correct(self, game_id: str, place: str, card: str,
                version: Optional[int] = None) -> dict:
        """Correct a card entered or told of a game from the app, still on the table."""
        return self._change(game_id, version,
                            lambda live: _along(live, "correct").correct(place, card))

    def game(self, game_id: str) -> LiveGame:
        with self._lock:
            live = self.store.get(game_id)
            if live is None and self.saved is not None:
                live = self.saved.load(game_id)
                if live is not None:  # back from the file: in memory, and planned
                    self.store.keep(live)
                    self._changed_game(live)
        if live is None:
            if self.saved is not None:
                raise GameNotFound(self.saved.why_gone(game_id))
            raise GameNotFound(
                f"no game {game_id!r}: it may have been dropped (the board keeps the "
                f"{self.store.capacity} games used most recently)")
        return live

    def _save(self, live: LiveGame) -> None:
        """Write the game to the file of games (if any); the games pruned there to make
        room leave the memory too.  A change the file cannot keep is not made: the game
        goes back to what the file holds (a new game is dropped), and :class:`NotKept`
        says why, with the game as it is."""
        if self.saved is None:
            return
        try:
            pruned = self.saved.save(live)
        except StoreError as exc:
            self.store.discard(live.id)
            try:
                back = self.saved.load(live.id)
            except (GameNotFound, StoreError):
                back = None
            if back is not None:
                self.store.keep(back)
                self._changed_game(back)
            raise NotKept(f"nothing was done: the board's file of games could not keep the "
                          f"change ({exc}); the game is as it was",
                          extra={"state": self._view(back)} if back is not None else None) from None
        for game_id in pruned:
            self.store.discard(game_id)

    def keep_clocks(self) -> None:
        """At the stop: the clock of each game in memory written to the file of games,
        so that the time the board is down does not count (best effort: a file that cannot
        be written then loses only that)."""
        if self.saved is None:
            return
        with self._lock:
            lives = list(self.store.recent())
        with contextlib.suppress(StoreError):
            self.saved.keep_clocks(lives)

    def _view(self, live: LiveGame) -> dict:
        """The state the page draws: a game from the app hides what the app does not show."""
        return along_state(live) if isinstance(live, AlongLive) else state_view(
            live, self.levels.of(live))

    def state(self, game_id: str) -> dict:
        with self._lock:
            return self._view(self.game(game_id))

    def tap(self, game_id: str, source: str, version: Optional[int] = None) -> dict:
        def tap(live: LiveGame) -> None:
            try:
                live.tap(source)
            except IllegalMoveError as exc:
                raise BadRequest(str(exc)) from None
        return self._change(game_id, version, tap)

    def undo(self, game_id: str, version: Optional[int] = None) -> dict:
        return self._change(game_id, version, lambda live: live.undo())

    def set_settings(self, game_id: str, move_errors: Optional[bool] = None,
                     placement_assistance: Optional[bool] = None) -> dict:
        return self._change(game_id, None,
                            lambda live: live.set_settings(move_errors, placement_assistance))

    def ask_analysis(self, game_id: str) -> dict:
        return self._change(game_id, None, LiveGame.ask_analysis)

    def ask_fair(self, game_id: str) -> dict:
        return self._change(game_id, None, lambda live: live.ask_fair())  # along: try again

    def _change(self, game_id: str, version: Optional[int],
                change: Callable[[LiveGame], T]) -> dict:
        with self._lock:
            live = self.game(game_id)
            if version is not None and version != live.version:
                raise StaleVersion(
                    f"the game has changed (version {live.version}, the page showed {version}): "
                    "it was played in another tab", extra={"state": self._view(live)})
            if self.saved is not None and len(live.log) >= MAX_LOG:
                raise BadRequest(f"this game has {len(live.log)} changes kept, the most a game "
                                 "keeps: start a new game")
            change(live)
            self._save(live)
            self._changed_game(live)
            return self._view(live)

    def _changed_game(self, live: LiveGame) -> None:
        # What a game wants solved depends on its moves and the analysis (a game from the app:
        # what was told too), not on the selection: a tap that only selects leaves the plan.
        wants = (tuple(live.game.stack), live.analysis_asked, live.fair_asked,
                 (len(live.along.reveals), len(live.along.corrections),
                  live.again.get(live.here(), 0))
                 if isinstance(live, AlongLive) else None)
        if self._wants.get(live.id) != wants or live.id not in self._plans:
            self._wants[live.id] = wants
            self._stale.add(live.id)
            self._replan()
        self._wake([live.id])

    # --- the solver's opinion -----------------------------------------------------
    def opinion(self, game_id: str, *, hint: bool = False, line: bool = False) -> dict:
        with self._lock:
            live = self.game(game_id)
            if isinstance(live, AlongLive):
                return {**along_opinion(live, self.along), "version": live.version,
                        "solver": "preparing" if self.pool.preparing else "ready"}
            reading = read_game(live.game, live.deal_key, self.verdicts)
            out = opinion_view(reading, self.verdicts, hint=hint, line=line,
                               analysis=live.analysis_asked, budget=self.budget)
            if live.fair_asked:
                answer = self.fair.get((live.deal_key, live.game.position))
                out["fair"] = fair_view(live.game, answer, FAIR_STAGES[-1])
                out["busy"] = out["busy"] or out["fair"]["more"]
            out["version"] = live.version
            out["level"] = self.levels.of(live)  # answered after the state was drawn
        out["solver"] = "preparing" if self.pool.preparing else "ready"
        if out["solver"] == "preparing" and out["light"] == "pending":
            out["says"] = PREPARING
        return out

    def _plan(self, live: LiveGame) -> list[Job]:
        """The solves this game wants, the most useful first."""
        if isinstance(live, AlongLive):  # its deal is not known: no solve of it
            return self._along_plan(live)
        reading = read_game(live.game, live.deal_key, self.verdicts)
        stack = tuple(live.game.stack)
        jobs = [self._job(live, stack[:ply], reading.positions[ply], True)
                for ply in reading.wanted()]
        if live.fair_asked:
            jobs[:0] = self._fair_jobs(live)  # asked for now: before the rest
        if live.analysis_asked:
            jobs.extend(self._job(live, stack + (move,), position, False)
                        for move, _, verdict, position in reading.children(self.verdicts)
                        if verdict is None)
        return jobs

    def _along_plan(self, live: AlongLive) -> list[Job]:
        """A game from the app's jobs: its kept layouts' (the position on the board, then
        on the player's time the positions after the likely moves), or at the end its
        review's."""
        if live.along.is_over:
            return along_jobs(live, self.along)
        sample = self.samples.get(live.id)
        if sample is None:
            sample = self.samples[live.id] = Sample(live)
            while len(self.samples) > SAMPLES_KEPT:
                self.samples.popitem(last=False)
        self.samples.move_to_end(live.id)
        with sample.lock:
            return sample.jobs(live, self.along, live.id)

    def _sample_answered(self, job: Job, answer: dict) -> None:
        _, game_id, at, what, *epoch = job.context
        with self._lock:
            sample, live = self.samples.get(game_id), self.store.get(game_id)
            if sample is None or not isinstance(live, AlongLive):
                return
            with sample.lock:  # the pool's list is replaced only when the plan changes
                again = sample.answered(live, self.along, at, what, answer, *epoch)
            self._stale.add(game_id)
            if again or not self.pool.waiting():
                self._replan()
        self._wake([game_id])

    def _fair_jobs(self, live: LiveGame) -> list[Job]:
        """The fair hint's next answer for the position on the board: the first stage of
        :data:`FAIR_STAGES` with more samples than the answer kept."""
        position = live.game.position
        have = self.fair.get((live.deal_key, position))
        done = have["samples"] if have else 0
        todo = [k for k in FAIR_STAGES if k > done]
        if not todo or live.game.is_over or (have and have.get("stop")):
            return []
        samples, left = todo[0], live.game.remaining_deal()
        seed = zlib.crc32(f"{live.deal_key} {position}".encode())
        key = (live.deal_key, position, "fair", samples)
        return [Job(key, lambda: ("fair", format_layout(fair_cards(left)), samples, seed,
                                  FAIR_BUDGET), ("fair", live.deal_key, position))]

    def _job(self, live: LiveGame, moves: tuple[Move, ...], position: Position,
             on_line: bool) -> Job:
        """A solve of the position after ``moves`` (``on_line``: one of the game's own,
        whose answer may change what else is wanted); its cards are worked out only if
        the job is sent (most plans are replaced before)."""
        cards, budget = CardsLeft(live.game.deal, moves), self.budget
        why = on_line and not moves  # a deal lost from the start says why
        return Job((live.deal_key, position),
                   lambda: ("solve", format_layout(cards()), budget, why),
                   (live.deal_key, cards, on_line))

    def _replan(self) -> None:
        """Tell the pool the solves wanted now: the games used last first."""
        wanted, levels = [], []
        live_ids = set()
        for live in self.store.recent():
            live_ids.add(live.id)
            if live.id in self._stale or live.id not in self._plans:
                self._plans[live.id] = self._plan(live)
            wanted += self._plans[live.id]
            levels += self.levels.jobs(live, lambda: self._deal_verdict(live), self.budget)
        jobs, seen = [], set()
        for job in wanted + levels:  # the levels after every position: a label, not advice
            if job.key not in seen and len(jobs) < MAX_JOBS:
                seen.add(job.key)
                jobs.append(job)
        self._stale.clear()
        for gone in set(self._plans) - live_ids:
            del self._plans[gone]
            self._wants.pop(gone, None)
        self.pool.want(self, jobs, self._answered)

    def _deal_verdict(self, live: LiveGame) -> Optional[str]:
        """The verdict of the game's whole deal, if the board has it (win or loss)."""
        found = self.verdicts.get((live.deal_key, START))
        return found.verdict if found is not None and found.verdict != "unresolved" else None

    def _answered(self, job: Job, answer: dict) -> None:
        """A solver's answer (on a pool thread)."""
        if job.context[0] == "fair":
            self._fair_answered(job.context[1], job.context[2], answer)
            return
        if job.context[0] == "sample":
            self._sample_answered(job, answer)
            return
        if job.context[0] == "level":
            with self._lock:
                self.levels.record(job.context[1], answer)
                touched = [live.id for live in self.store.recent()
                           if level_number(live) == job.context[1]]
                if not self.pool.waiting():
                    self._replan()
            self._wake(touched)
            return
        if job.context[0] == "along":
            with self._lock:
                keep_answer(self.along, job.context[1], answer)
                self.along.move_to_end(job.context[1])
                while len(self.along) > FAIR_KEPT:
                    self.along.popitem(last=False)
                touched = [live.id for live in self.store.recent() if isinstance(live, AlongLive)]
                self._stale.update(touched)
                self._replan()
            self._wake(touched)
            return
        key, cards, on_line = job.context
        deal = cards()
        with self._lock:
            self.verdicts.record(key, deal, answer)
            touched = [live.id for live in self.store.recent() if live.deal_key == key]
            self._stale.update(touched)
            # An analysed move's answer changes nothing else wanted: the rest is queued,
            # unless the queue has run dry (solves left out by MAX_JOBS come next).
            if on_line or not self.pool.waiting():
                self._replan()
        self._wake(touched)

    def _fair_answered(self, deal_key: str, position, answer: dict) -> None:
        with self._lock:
            if "samples" in answer:
                kept = self.fair.get((deal_key, position))
                if kept is None or answer["samples"] > kept["samples"]:
                    self.fair[(deal_key, position)] = answer
                self.fair.move_to_end((deal_key, position))
                while len(self.fair) > FAIR_KEPT:
                    self.fair.popitem(last=False)
            else:  # an error or a time-out: no more samples asked for this position
                kept = self.fair.setdefault((deal_key, position),
                                            {"samples": 0, "moves": [], "move": None})
                kept["stop"] = answer.get("reason") or answer.get("error") or "no answer"
            touched = [live.id for live in self.store.recent() if live.deal_key == deal_key]
            self._stale.update(touched)
            self._replan()
        self._wake(touched)

    # --- picking a deal -------------------------------------------------------------
    async def pick(self, kind: str, settings: Settings = Settings(), *,
                   timeout: Optional[float] = None) -> LiveGame:
        """A new game on a random deal (``"random"``), a random winnable one
        (``"winnable"``) or a hard one (``"hard"``: winnable, but lost by the greedy
        player); the last two are found by a solver process."""
        if kind == "random":
            return self.new_game(Deal.from_number(self._rng.randrange(DEAL_COUNT)), settings)
        if kind not in PICK_KINDS:
            raise BadRequest(f"unknown pick {kind!r} (expected random, winnable or hard)")
        loop = asyncio.get_running_loop()
        answered: asyncio.Future = loop.create_future()

        def done(job: Job, answer: dict) -> None:
            loop.call_soon_threadsafe(lambda: answered.done() or answered.set_result(answer))

        owner = ("pick", secrets.token_hex(8))
        seed = self._rng.getrandbits(64)
        self.pool.want(owner, [Job(owner, ("pick", kind, seed, self.budget, PICK_TRIES))], done)
        limit = timeout if timeout is not None else self.pool.seconds + 30
        try:
            answer = await asyncio.wait_for(answered, limit)
        except asyncio.TimeoutError:
            self.pool.forget(owner)
            raise Busy(f"the solver found no {kind} deal within {limit:g} s; try again") from None
        if "number" not in answer:
            reason = answer.get("error") or answer.get("reason") or "no answer"
            raise Busy(f"no {kind} deal found: {reason}")
        deal = Deal.from_number(answer["number"])
        with self._lock:
            self.verdicts.record(deal_key(deal), deal, answer)
        return self.new_game(deal, settings)


def _along(live: LiveGame, what: str) -> AlongLive:
    """``live`` if it is a game from the app, else the 400 saying which cards it has none to
    ``what`` (tell, correct)."""
    if not isinstance(live, AlongLive):
        raise BadRequest(f"only a game from the app has cards to {what}: this game's deal is "
                         "known")
    return live
