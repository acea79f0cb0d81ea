"""A run on this machine: pieces of deals to the workers, and each chunk written by a worker.

The workers do all the work on the deals, as a cluster's do: a worker solves a piece into the
columns of a results file (:func:`.backends.solve_table`) and sends them back as one Arrow
buffer with the piece's verdict counts (:func:`piece_task`); once every piece of a chunk is
back, a worker writes the chunk's file (:func:`chunk_task`: a temporary name, then a rename,
so a chunk file is whole or absent).  This process only plans, keeps the buffers of
unfinished chunks unopened, counts, draws the progress and sends the writes: a few
microseconds a piece, whatever the cores.  With one worker the same tasks run here, in turn.
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np
import pyarrow as pa

from .backends import alive, worker_failed
from .directory import chunk_name, write_tables
from .errors import BatchError
from .results import VERDICTS, error_text


def verdict_counts(table: pa.Table) -> tuple[int, ...]:
    """Deals of each verdict (in the order of :data:`.results.VERDICTS`) of a results table."""
    counts = dict.fromkeys(VERDICTS, 0)
    for chunk in table.column("verdict").chunks:
        names = chunk.dictionary.to_pylist()
        found = np.bincount(np.asarray(chunk.indices), minlength=len(names))
        for name, k in zip(names, found.tolist()):
            if name not in counts:
                raise BatchError(f"the solver gave an unknown verdict {name!r}")
            counts[name] += k
    return tuple(counts.values())


def check_deals(table: pa.Table, numbers: Sequence[int], what: str = "rows") -> None:
    """Refuse a table that does not hold exactly the deals ``numbers``."""
    got = np.sort(table.column("deal").to_numpy())
    if not np.array_equal(got, np.sort(np.asarray(numbers, np.int64))):
        raise BatchError(f"a worker returned {what} for other deals than"
                         f" {numbers[0]}..{numbers[-1]}")


def piece_task(numbers: Sequence[int], budget: int, solver_version: str,
               lines: bool) -> tuple[tuple[int, ...], bytes]:
    """In a worker: solve a piece; its verdict counts and its table (:func:`to_buffer`)."""
    from solver import SOLVER_VERSION

    if SOLVER_VERSION != solver_version:
        raise BatchError(f"workers run solver version {SOLVER_VERSION}, this run is version"
                         f" {solver_version}: install the same halfmoon on every worker")
    # looked up when a piece is solved, not when this module is loaded: a test replaces it
    from . import backends

    table = backends.solve_table(numbers, budget, lines)
    check_deals(table, numbers)
    return verdict_counts(table), to_buffer(table)


def chunk_task(where, index: int, buffers: list, numbers: Sequence[int],
               guard: Optional[tuple]) -> int:
    """In a worker: write chunk ``index`` (deals ``numbers``) at ``where`` from its pieces'
    ``buffers``; the rows written.  ``guard``: (the run's pid, its lock file, the lock's
    inode), to refuse writing for a run that is gone or into a directory replaced since."""
    tables = [from_buffer(b) for b in buffers]
    check_deals(pa.concat_tables(tables), numbers, "a chunk")
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


def to_buffer(table: pa.Table) -> bytes:
    """A table as the bytes of one Arrow IPC stream (what a worker sends back)."""
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def from_buffer(data: bytes) -> pa.Table:
    """The table of :func:`to_buffer`'s bytes."""
    return pa.ipc.open_stream(data).read_all()


@dataclass
class _Job:
    numbers: Sequence[int]
    chunk: int
    k: int = -1  # the piece's place in its chunk; -1: the chunk's write


def run_pieces(backend, directory, plan, todo, budget: int, solver_version: str,
               chunk_written, bar) -> None:
    """Send the pieces of the chunks ``todo`` to the backend, a window at a time, and each
    chunk's write once its pieces are back; ``chunk_written(index, counts)`` for each chunk
    written, ``bar.add(counts)`` for each piece.  On an error or Ctrl-C the workers are
    stopped and any temporary file they left is removed."""
    pieces = plan.pieces(todo)
    inflight: dict = {}
    parts: dict[int, list] = {}
    counts: dict[int, Counter] = {}
    guard = directory.guard()
    try:
        while True:
            for piece in pieces:
                _submit(backend, inflight, _Job(piece.numbers, piece.chunk, piece.k), piece_task,
                        piece.numbers, budget, solver_version, directory.lines)
                parts.setdefault(piece.chunk, [None] * piece.count)
                if len(inflight) >= backend.window:
                    break
            if not inflight:
                break
            for handle in backend.wait(list(inflight)):
                job = inflight.pop(handle)
                result = _result(backend, handle, job)
                if job.k < 0:
                    chunk_written(job.chunk, counts.pop(job.chunk))
                    continue
                got = Counter(dict(zip(VERDICTS, result[0])))
                if sum(got.values()) != len(job.numbers):
                    raise BatchError(f"a worker returned rows for other deals than"
                                     f" {job.numbers[0]}..{job.numbers[-1]}")
                bar.add(got)
                counts.setdefault(job.chunk, Counter()).update(got)
                slots = parts[job.chunk]
                slots[job.k] = result[1]
                if all(s is not None for s in slots):
                    del parts[job.chunk]
                    numbers = plan.chunk(job.chunk)
                    _submit(backend, inflight, _Job(numbers, job.chunk), chunk_task,
                            directory.where, job.chunk, slots, numbers, guard)
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
