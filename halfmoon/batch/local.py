"""A run on this machine: pieces of deals to the workers, and each chunk written by a worker.

The workers do all the work on the deals, as a cluster's do: a worker solves a piece into a
few arrays (:func:`.backends.solve_arrays`: the solver's own columns, no row made) and
sends them back as one string of bytes with the piece's verdict counts (:func:`piece_task`);
once every piece of a chunk is back, a worker makes the chunk's columns from them in one go
and writes its file (:func:`chunk_task`: a temporary name, then a rename, so a chunk file is
whole or absent).  This process only plans, holds the bytes of unfinished chunks unopened,
counts, draws the progress and sends the writes: a few microseconds a deal, whatever the
cores.  With one worker the same tasks run here, in turn.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from .backends import alive, worker_failed
from .columns import Solved, chunk_tables, verdict_counts
from .directory import chunk_name, write_tables
from .errors import BatchError
from .results import VERDICTS, error_text


def check_deals(got: np.ndarray, numbers: Sequence[int], what: str = "rows") -> None:
    """Refuse deal numbers ``got`` that are not exactly the deals ``numbers``."""
    if not np.array_equal(np.sort(got), np.sort(np.asarray(numbers, np.int64))):
        raise BatchError(f"a worker returned {what} for other deals than"
                         f" {numbers[0]}..{numbers[-1]}")


def piece_task(numbers: Sequence[int], budget: int, solver_version: str,
               lines: bool) -> tuple[tuple[int, ...], bytes]:
    """In a worker: solve a piece; its verdict counts and its arrays, as one string of bytes
    (:meth:`.columns.Solved.to_bytes`: this process holds them unopened)."""
    from solver import SOLVER_VERSION

    if SOLVER_VERSION != solver_version:
        raise BatchError(f"workers run solver version {SOLVER_VERSION}, this run is version"
                         f" {solver_version}: install the same halfmoon on every worker")
    # looked up when a piece is solved, not when this module is loaded: a test replaces it
    from .backends import solve_arrays

    part = solve_arrays(numbers, budget, lines)
    check_deals(part.numbers, numbers)
    return verdict_counts(part), part.to_bytes()


def chunk_task(where, index: int, pieces: Sequence[bytes], numbers: Sequence[int],
               budget: int, solver_version: str, guard: Optional[tuple]) -> int:
    """In a worker: write chunk ``index`` (deals ``numbers``) at ``where`` from its solved
    pieces (:func:`piece_task`'s bytes), in order; the rows written.  ``guard``: (the run's
    pid, its lock file, the lock's inode), to refuse writing for a run that is gone or into a
    directory replaced since."""
    parts = [Solved.from_bytes(b) for b in pieces]
    check_deals(np.concatenate([p.numbers for p in parts]) if parts else np.zeros(0, np.int64),
                numbers, "a chunk")
    tables = chunk_tables(parts, budget, solver_version)
    name = chunk_name(index)
    _check_guard(guard, where)
    try:
        where.write(name, lambda f: write_tables(f, tables))
    except BatchError:
        raise
    except Exception as exc:
        raise BatchError(f"cannot write {where.label(name)}: {type(exc).__name__}:"
                         f" {error_text(exc)}") from None
    return sum(t.num_rows for t in tables)


def _check_guard(guard: Optional[tuple], where) -> None:
    if guard is None:
        return
    pid, lock, inode = guard
    if not alive(pid):
        raise BatchError("the run that sent this chunk has ended")
    if lock is not None:
        try:
            same = os.stat(lock).st_ino == inode
        except OSError:
            same = False
        if not same:
            raise BatchError(f"{where} was deleted or replaced during the run")


@dataclass
class _Job:
    numbers: Sequence[int]
    chunk: int
    k: int = -1  # the piece's place in its chunk; -1: the chunk's write


@dataclass
class _Chunk:
    """A chunk whose pieces are on their way: their arrays so far, and its counts."""

    parts: list
    left: int
    counts: Counter


def run_pieces(backend, directory, plan, todo, budget: int, solver_version: str,
               chunk_written, bar) -> None:
    """Send the pieces of the chunks ``todo`` to the backend, a window at a time, and each
    chunk's write once its pieces are back; ``chunk_written(index, counts)`` and
    ``bar.add(counts)`` for each chunk written (the progress counts the deals kept, not
    those solved and still to be written).  On an error or Ctrl-C the workers are stopped
    and any temporary file they left is removed."""
    pieces = plan.pieces(todo)
    inflight: dict = {}
    chunks: dict[int, _Chunk] = {}
    guard = directory.guard()
    try:
        while True:
            for piece in pieces:
                _submit(backend, inflight, _Job(piece.numbers, piece.chunk, piece.k), piece_task,
                        piece.numbers, budget, solver_version, directory.lines)
                if piece.chunk not in chunks:
                    chunks[piece.chunk] = _Chunk([None] * piece.count, piece.count, Counter())
                if len(inflight) >= backend.window:
                    break
            if not inflight:
                break
            for handle in backend.wait(list(inflight)):
                job = inflight.pop(handle)
                result = _result(backend, handle, job)
                if job.k < 0:
                    counts = chunks.pop(job.chunk).counts
                    chunk_written(job.chunk, counts)
                    bar.add(counts)
                    continue
                got = Counter(dict(zip(VERDICTS, result[0])))
                if sum(got.values()) != len(job.numbers):
                    raise BatchError(f"a worker returned rows for other deals than"
                                     f" {job.numbers[0]}..{job.numbers[-1]}")
                chunk = chunks[job.chunk]
                chunk.counts.update(got)
                chunk.parts[job.k] = result[1]
                chunk.left -= 1
                if chunk.left == 0:
                    numbers = plan.chunk(job.chunk)
                    parts, chunk.parts = chunk.parts, []
                    _submit(backend, inflight, _Job(numbers, job.chunk), chunk_task,
                            directory.where, job.chunk, parts, numbers, budget, solver_version,
                            guard)
    except BaseException:
        backend.close(cancel=True)
        directory.sweep_quietly()  # a worker stopped mid-write leaves a temporary file
        raise
    backend.close(cancel=False)


def _submit(backend, inflight: dict, job: _Job, fn, *args) -> None:
    try:
        inflight[backend.submit(fn, *args)] = job
    except Exception as exc:  # e.g. a worker died since the last submit
        raise worker_failed(exc, job.numbers) from exc


def _result(backend, handle, job: _Job):
    try:
        return backend.result(handle)
    except BatchError:
        raise
    except Exception as exc:
        raise worker_failed(exc, job.numbers) from exc
