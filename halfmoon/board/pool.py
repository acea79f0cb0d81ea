"""Solver processes beside the board, each job bounded in time.

The solver's kernels hold the interpreter while they run, so they run in other
processes (started with ``spawn``: no copy of the server's threads) and a tap is never
kept waiting.  Each process has a thread here that hands it one job at a time and
waits at most ``seconds`` for the answer; a process that overruns is killed and a new
one started, and the job answers ``unresolved`` with the reason.

Callers say what they want as a whole list (:meth:`SolverPool.want`), which replaces
their earlier list: work for positions left behind is dropped before it starts.  The
caller that spoke last is served first.  A job whose key is already running is not
run twice: its caller is told when the running one ends.
"""

from __future__ import annotations

import logging
import multiprocessing
import multiprocessing.connection
import os
import signal
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Optional, Union

from .jobs import COLD, READY, worker_main

DEFAULT_SECONDS = 10.0
STARTUP_SECONDS = 300.0  # loading (or, on a new checkout, compiling) the solver
log = logging.getLogger(__name__)

Done = Callable[["Job", dict], None]


@dataclass(frozen=True)
class Job:
    """One job for a solver process: ``key`` names what it answers, ``work`` is the
    plain tuple of :mod:`halfmoon.board.jobs`, or a function that makes it (called only
    when the job is sent: a job dropped before costs nothing); ``context`` rides along
    for the caller."""

    key: Hashable
    work: Union[tuple, Callable[[], tuple]]
    context: Any = field(default=None, compare=False, hash=False)

    def message(self) -> tuple:
        return self.work() if callable(self.work) else self.work


class SolverPool:
    """``workers`` solver processes; ``seconds`` bounds each job."""

    def __init__(self, workers: int = 1, seconds: float = DEFAULT_SECONDS) -> None:
        if workers < 1:
            raise ValueError(f"a pool needs at least one worker, got {workers}")
        if not seconds > 0:
            raise ValueError(f"the time limit must be positive, got {seconds}")
        self.workers = workers
        self.seconds = seconds
        self._lock = threading.Condition()
        self._wants: OrderedDict[Hashable, tuple[list[Job], Done]] = OrderedDict()
        self._running: dict[Hashable, list[tuple[Job, Done]]] = {}
        self._procs: list[Optional[multiprocessing.Process]] = [None] * workers
        self._threads: list[threading.Thread] = []
        self._closed = False
        self.started_processes = 0
        self.timeouts = 0
        self._starting = 0  # processes started and not yet ready
        self._cold = False  # whether a process now starting has the solver to compile

    # --- the callers' side --------------------------------------------------------
    def start(self) -> "SolverPool":
        with self._lock:
            if self._threads:
                return self
            for slot in range(self.workers):
                t = threading.Thread(target=self._serve, args=(slot,), daemon=True,
                                     name=f"halfmoon-solver-{slot}")
                self._threads.append(t)
                t.start()
        return self

    def want(self, owner: Hashable, jobs: list[Job], done: Done) -> None:
        """Replace ``owner``'s waiting jobs by ``jobs`` (in order); ``done(job, answer)``
        is called from a pool thread as each ends."""
        with self._lock:
            if self._closed:
                return
            self._wants.pop(owner, None)
            if jobs:
                self._wants[owner] = (list(jobs), done)
            self._lock.notify_all()

    def forget(self, owner: Hashable) -> None:
        self.want(owner, [], lambda job, answer: None)

    @property
    def preparing(self) -> bool:
        """True while a solver process is compiling the solver (a cold cache's first run)."""
        with self._lock:
            return self._starting > 0 and self._cold

    def waiting(self) -> int:
        """Jobs waiting for a process (not counting those running)."""
        with self._lock:
            return sum(len(jobs) for jobs, _ in self._wants.values())

    def close(self) -> None:
        """Stop the processes and threads; jobs still waiting are dropped."""
        with self._lock:
            self._closed = True
            self._wants.clear()
            procs = [p for p in self._procs if p is not None]
            self._procs = [None] * self.workers
            self._lock.notify_all()
        for p in procs:
            _stop(p)
        for t in self._threads:
            t.join(timeout=10)

    def __enter__(self) -> "SolverPool":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()

    # --- the pool's side ----------------------------------------------------------
    def _next(self) -> Optional[tuple[Job, Done]]:
        """The next job to run (the last caller's first), or None once closed."""
        with self._lock:
            while True:
                if self._closed:
                    return None
                for owner in reversed(self._wants):
                    jobs, done = self._wants[owner]
                    while jobs:
                        job = jobs.pop(0)
                        if job.key in self._running:
                            self._running[job.key].append((job, done))
                            continue
                        self._running[job.key] = [(job, done)]
                        if not jobs:
                            del self._wants[owner]
                        return job, done
                    del self._wants[owner]
                    break
                else:
                    self._lock.wait()

    def _serve(self, slot: int) -> None:
        conn = None
        try:  # at once, not at the first job: the first game's light comes within seconds
            conn = self._spawn(slot)
        except _Closed:
            return
        except Exception as exc:  # tried again at the first job
            log.warning("solver process failed to start: %s", exc)
        while True:
            task = self._next()
            if task is None:
                break
            job, _ = task
            try:
                work = job.message()
            except Exception as exc:  # the caller's bug: its job fails, the process is fine
                log.exception("a job could not be made")
                work, answer = None, {"error": f"the job could not be made: {exc}"}
            if work is not None:
                try:
                    if conn is None:
                        conn = self._spawn(slot)
                    answer, conn = self._ask(slot, conn, work)
                except _Closed:
                    break
                except Exception as exc:  # a process that cannot start: answer, go on
                    log.warning("solver process failed: %s", exc)
                    answer = {"error": f"the solver process failed: {exc}"}
                    conn = self._kill(slot, conn)
            with self._lock:
                waiting = self._running.pop(job.key, [])
            for asked, done in waiting:
                try:
                    done(asked, answer)
                except Exception:  # the caller's bug must not stop the pool
                    log.exception("a solver answer's callback failed")
        self._kill(slot, conn)

    def _spawn(self, slot: int):
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=_watched, args=(worker_main, child), daemon=True,
                           name=f"halfmoon-solver-{slot}")
        with self._lock:
            if self._closed:
                raise _Closed
            _start_without_ctrl_c(proc)
            self._procs[slot] = proc
            self.started_processes += 1
            self._starting += 1
        child.close()
        try:  # the solver is loaded there, never here: this process stays light and quick to end
            ready = False
            while parent.poll(STARTUP_SECONDS):
                said = parent.recv()
                if said != COLD:
                    ready = said == READY
                    break
                with self._lock:
                    self._cold = True
        except (EOFError, OSError):
            ready = False
        finally:
            with self._lock:
                self._starting -= 1
                if not self._starting:
                    self._cold = False
        if not ready:
            self._kill(slot, parent)
            if self._closed:
                raise _Closed
            raise RuntimeError("the solver process did not start")
        return parent

    def _ask(self, slot: int, conn, work: tuple):
        """Send a job and wait for its answer, at most ``seconds``."""
        t0 = time.monotonic()
        try:
            conn.send(work)
            if conn.poll(self.seconds):
                return conn.recv(), conn
        except (EOFError, OSError):
            if self._closed:
                raise _Closed from None
            return {"error": "the solver process stopped"}, self._kill(slot, conn)
        if self._closed:
            raise _Closed
        self.timeouts += 1
        spent = time.monotonic() - t0
        return ({"verdict": "unresolved", "moves": None, "nodes": 0, "seconds": spent,
                 "reason": f"time limit of {self.seconds:g} s"}, self._kill(slot, conn))

    def _kill(self, slot: int, conn) -> None:
        with self._lock:
            proc, self._procs[slot] = self._procs[slot], None
        if proc is not None:
            _stop(proc)
        if conn is not None:
            conn.close()
        return None


def _start_without_ctrl_c(proc: multiprocessing.Process) -> None:
    """Start a solver process with SIGINT blocked (the mask is kept across exec): a Ctrl-C
    reaches the whole process group, and one that comes while it loads would be a traceback
    there; :func:`~halfmoon.board.jobs.worker_main` ignores it from then on, the board stops
    its processes itself."""
    block = hasattr(signal, "pthread_sigmask")
    if block:  # started first: starting it unblocks SIGINT in the thread that does
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if block else None
    try:
        proc.start()
    finally:
        if block:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _watched(worker: Callable, conn) -> None:
    """A solver process that ends with the board: when the board's process dies, even
    killed (``kill -9`` runs no clean-up there), this one kills its process group, itself
    and the helpers compiling the kernels, instead of working on for nobody."""
    threading.Thread(target=_end_with_parent, daemon=True, name="halfmoon-parent-watch").start()
    worker(conn)


def _end_with_parent() -> None:
    # the parent holds the other end of this pipe (spawn's): it reads as closed once the
    # parent has died
    parent = multiprocessing.parent_process()
    if parent is None:
        return
    multiprocessing.connection.wait([parent.sentinel])
    if os.getpgid(0) == os.getpid():  # the worker leads its group (worker_main made it)
        os.killpg(0, signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)


def _stop(proc: multiprocessing.Process) -> None:
    """Kill a solver process and every process it started: the helpers compiling the
    kernels on a cold cache are in its process group (:func:`~halfmoon.board.jobs.worker_main`
    makes one), so none outlives the board."""
    proc.kill()  # first: it starts nothing more, and its group lasts until it is reaped
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):  # no group of its own yet: it started none
        pass
    proc.join(timeout=10)


class _Closed(Exception):
    pass
