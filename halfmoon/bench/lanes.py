"""Worker processes of a benchmark, each pinned to a core where the system allows: a
*lane* solves the blocks it is sent, one at a time, in a process of its own
(:mod:`halfmoon.bench.worker`), so that another revision of the toolkit can run in a lane of
its own beside this one.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from .errors import BenchError

WORKER = Path(__file__).with_name("worker.py")


@dataclass(frozen=True)
class Row:
    """One deal's result in a benchmark."""

    number: int
    verdict: str
    nodes: int
    solve: float  # the solver's own time
    whole: float  # with its share of its piece's calls and rows
    settled_by: Optional[str]


def usable_cores() -> list[int]:
    """The cores this process may run on (all of them where affinity is unknown)."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return list(range(os.cpu_count() or 1))


def can_pin() -> bool:
    return hasattr(os, "sched_setaffinity")


class Lane:
    """A worker process (of this toolkit, or of the one at ``home`` when given, its numba
    cache in ``cache``) on core ``core`` (None: wherever the system puts it)."""

    def __init__(self, core: Optional[int] = None, home: Optional[Path] = None,
                 cache: Optional[Path] = None) -> None:
        env = dict(os.environ)
        if cache is not None:
            env["NUMBA_CACHE_DIR"] = str(cache)
        if home is not None:
            env["PYTHONPATH"] = os.pathsep.join([str(home)] + [p for p in env.get(
                "PYTHONPATH", "").split(os.pathsep) if p])
        self.core, self.home = core, home
        self.beside: list[Row] = []
        self.cpu: Optional[float] = None  # the CPU seconds of the block received last
        pin = core if core is not None and can_pin() else None
        # SIGINT blocked while it starts (the mask is kept across exec): a Ctrl-C reaches
        # the whole process group, and the worker, which ignores it once loaded, must not
        # take one as a traceback while it loads; its parent stops it
        block = hasattr(signal, "pthread_sigmask")
        before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if block else None
        try:
            self.proc = subprocess.Popen(
                [sys.executable, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                text=True, env=env, cwd=str(home) if home else None,
                preexec_fn=(lambda: os.sched_setaffinity(0, {pin})) if pin is not None else None)
        finally:
            if block:
                signal.pthread_sigmask(signal.SIG_SETMASK, before)
        try:
            hello = self._read()
        except BaseException:  # a Ctrl-C while it loads: it must not outlive its parent
            self.close(kill=True)
            raise
        self.solver_version = str(hello["solver_version"])
        self.setup = float(hello["setup"])

    def _read(self) -> dict:
        try:
            line = self.proc.stdout.readline()
        except (OSError, ValueError):
            line = ""
        if not line:
            code = self.proc.wait()
            where = f" of {self.home}" if self.home else ""
            raise BenchError(f"a benchmark worker{where} stopped (exit status {code})")
        return json.loads(line)

    def send(self, numbers: Sequence[int], engine: str = "solver", budget: int = 0,
             piece: int = 16, limit: Optional[float] = None, beside: bool = False) -> None:
        """Start a block (the answer is read by :meth:`receive`)."""
        try:
            self.proc.stdin.write(json.dumps({"engine": engine, "budget": budget,
                                              "numbers": [int(n) for n in numbers],
                                              "piece": piece, "limit": limit,
                                              "beside": beside}) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            self._read()  # says how it stopped

    def receive(self) -> tuple[list[Row], float]:
        """The rows of the block sent last, and its wall time in the worker (the solver's
        rows on the same deals, when asked for ``beside`` a baseline, in :attr:`beside`)."""
        answer = self._read()
        self.beside = [Row(*r) for r in answer.get("beside", ())]
        self.cpu = answer.get("cpu")
        return [Row(*r) for r in answer["rows"]], float(answer["wall"])

    def run(self, numbers: Sequence[int], **how) -> tuple[list[Row], float]:
        self.send(numbers, **how)
        return self.receive()

    def close(self, kill: bool = False) -> None:
        """End the worker: at once with ``kill`` (a block may be under way), else once it
        has read its last request."""
        if self.proc.poll() is None and kill:
            self.proc.kill()
            self.proc.wait()
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write("\n")
                self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass

    def __enter__(self) -> "Lane":
        return self

    def __exit__(self, kind, *exc) -> None:
        self.close(kill=kind is not None)


def open_lanes(count: int, home: Optional[Path] = None, first_core: int = 0,
               cache: Optional[Path] = None) -> list[Lane]:
    """``count`` lanes, the k-th on the k-th usable core (cycling when there are fewer)."""
    cores = usable_cores()
    lanes: list[Lane] = []
    try:
        for k in range(count):
            lanes.append(Lane(cores[(first_core + k) % len(cores)], home, cache))
    except BaseException:
        for lane in lanes:
            lane.close()
        raise
    return lanes


def run_parallel(lanes: Sequence[Lane], numbers: Sequence[int], block: int,
                 on_block=None, beside: Optional[dict] = None, usage: Optional[dict] = None,
                 **how) -> tuple[list[Row], float]:
    """Every deal of ``numbers`` solved on the lanes, each taking the next block of
    ``block`` deals as it finishes one: the rows in the order of ``numbers``, and the
    wall time.  ``on_block(deals)`` is called as each block comes back; with a dict
    ``beside``, a baseline's blocks are solved by the solver too, its rows put there by
    deal; with a dict ``usage``, the workers' wall and CPU seconds over their blocks are
    added to its ``"wall"`` and ``"cpu"``."""
    import selectors
    import time

    todo = [list(numbers[i:i + block]) for i in range(0, len(numbers), block)]
    rows: dict[int, Row] = {}
    sel = selectors.DefaultSelector()
    t0 = time.perf_counter()
    busy = 0
    if beside is not None:
        how["beside"] = True
    for lane in lanes:
        if todo:
            lane.send(todo.pop(0), **how)
            sel.register(lane.proc.stdout, selectors.EVENT_READ, lane)
            busy += 1
    while busy:
        for key, _ in sel.select():
            lane = key.data
            got, spent = lane.receive()
            if usage is not None and lane.cpu is not None:
                usage["wall"] = usage.get("wall", 0.0) + spent
                usage["cpu"] = usage.get("cpu", 0.0) + lane.cpu
            rows.update((r.number, r) for r in got)
            if beside is not None:
                beside.update((r.number, r) for r in lane.beside)
            if on_block is not None:
                on_block(len(got))
            if todo:
                lane.send(todo.pop(0), **how)
            else:
                sel.unregister(key.fileobj)
                busy -= 1
    wall = time.perf_counter() - t0
    sel.close()
    return [rows[int(n)] for n in numbers], wall
