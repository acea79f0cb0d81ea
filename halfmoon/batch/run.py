"""Batch checking: many deals solved on every core, or on a Dask cluster, into a resumable Parquet dataset.

A run takes a list of deal numbers (:class:`DealList`: a range, a codes file or a random
sample) and writes its results into a directory:

- ``part-NNNNNN.parquet``: chunk ``N`` holds the rows (:data:`halfmoon.batch.results.SCHEMA`) of
  deals ``N*chunk_size`` to ``(N+1)*chunk_size - 1`` of the list, in list order.  A chunk is
  written whole under a temporary name (``.part-NNNNNN.parquet.<pid>.tmp``), fsynced, and
  renamed: a file with the final name is always complete.
- ``_manifest.json``: the run's parameters.  A rerun with the same deals, budget, chunk size
  and solver version resumes the run; any other run is refused.
- ``.lock``: held (``flock``) while a run writes, so two runs never share a directory.

On start a run deletes temporary files left by a killed run, checks every chunk file
(readable, the right deals, this run's budget and solver version; a bad one is reported
and its deals solved again) and solves only the chunks that are missing.  Work goes to the
workers in pieces of a few deals; only this process writes files.
"""

from __future__ import annotations

import math
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, NamedTuple, Optional, Union

import pyarrow.compute as pc

from .backends import Dask, InProcess, Pool, default_workers, worker_failed
from .directory import Directory
from .errors import BatchError
from .progress import Progress
from .results import (
    FORMAT_VERSION,
    MANIFEST_NAME,
    VERDICTS,
    ResultsError,
    chunk_files,
    load_manifest,
    read_chunk,
)
from .sources import DealList, describe_source

CHUNK_SIZE = 250
PIECE_SIZE = 16  # deals per task sent to a worker: small, for balance and a lively progress bar


class BatchInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run: finished chunks are kept; ``summary`` says how far it got."""

    def __init__(self, summary: "BatchSummary") -> None:
        super().__init__(f"{summary.done} of {summary.total} deals done in {summary.out}")
        self.summary = summary


@dataclass
class BatchSummary:
    """How a run went: deals done before it (resumed) and by it, counts by verdict."""

    out: Path
    total: int
    resumed: int = 0
    solved: int = 0
    counts: Counter = field(default_factory=Counter)
    seconds: float = 0.0

    @property
    def done(self) -> int:
        return self.resumed + self.solved

    @property
    def complete(self) -> bool:
        return self.done == self.total

    @property
    def rate(self) -> float:
        return self.solved / self.seconds if self.seconds > 0 else 0.0


def run_batch(
    deals: DealList,
    out: Union[str, Path] = "results",
    *,
    budget: Optional[int] = None,
    workers: Optional[int] = None,
    scheduler: Optional[str] = None,
    chunk_size: int = CHUNK_SIZE,
    progress: Optional[bool] = None,
    log: Optional[Callable[[str], None]] = None,
) -> BatchSummary:
    """Solve ``deals`` into the results directory ``out``, resuming what is there.

    ``budget``: positions per deal (the solver's default if None); ``workers``: local
    processes (every core if None; 1 runs in this process); ``scheduler``: address of a
    Dask distributed scheduler to use instead; ``progress``: draw a progress bar (None:
    only on a terminal); ``log``: where warnings go (``warnings.warn`` by default).

    Raises :class:`BatchError` for bad parameters or a directory holding another run,
    :class:`BatchInterrupted` on Ctrl-C (finished chunks kept).
    """
    workers = default_workers() if workers is None else workers
    if scheduler is None and workers > 1:
        Pool.start_early()
    from solver import DEFAULT_BUDGET, SOLVER_VERSION

    if log is None:
        log = _warn
    budget = DEFAULT_BUDGET if budget is None else budget
    if budget < 1:
        raise BatchError(f"bad budget {budget}: expected at least 1 position per deal")
    if chunk_size < 1:
        raise BatchError(f"bad chunk size {chunk_size}: expected at least 1 deal per chunk")
    if workers < 1:
        raise BatchError(f"bad number of workers {workers}: expected at least 1")
    if len(deals) == 0:
        raise BatchError("no deals to check")
    if not isinstance(deals.numbers, range) and len(set(deals.numbers)) != len(deals):
        raise BatchError("the deal list names a deal twice (see deals_from_numbers)")
    numbers = deals.numbers
    identity = {
        "format": FORMAT_VERSION,
        "solver_version": SOLVER_VERSION,
        "budget": budget,
        "chunk_size": chunk_size,
        "deals": {"count": len(numbers), "sha256": deals.digest()},
    }
    directory = Directory(Path(out), log)
    directory.open()
    try:
        manifest = _check_manifest(directory, identity, deals)
        nchunks = math.ceil(len(numbers) / chunk_size)
        done = _scan_chunks(directory, numbers, chunk_size, nchunks, budget, SOLVER_VERSION)
        if deals.duplicates:
            log(f"{deals.duplicates} repeated deals in the input: each deal is solved once")
        summary = BatchSummary(directory.path, len(numbers))
        for counts in done.values():
            summary.resumed += sum(counts.values())
            summary.counts.update(counts)
        todo = [i for i in range(nchunks) if i not in done]
        t0 = time.perf_counter()
        if todo:
            pieces = _pieces(numbers, todo, chunk_size)
            if scheduler is not None:
                backend = Dask(scheduler, budget)
            elif workers == 1:
                backend = InProcess(budget)
            else:
                backend = Pool(min(workers, len(pieces)), budget)
            with Progress(len(numbers), summary.counts, enabled=progress) as bar:
                _run_chunks(backend, directory, pieces, SOLVER_VERSION, summary, bar, t0)
        summary.seconds = time.perf_counter() - t0
        if manifest.get("status") != "complete":
            manifest.update(
                status="complete",
                finished=_now(),
                counts={v: summary.counts[v] for v in VERDICTS},
            )
            directory.write_manifest(manifest)
        return summary
    finally:
        directory.close()


def _check_manifest(directory: Directory, identity: dict, deals: DealList) -> dict:
    """The directory's manifest if it is this run's, a new one if it has none; refuse another run's."""
    try:
        stored = load_manifest(directory.path)
    except ResultsError as exc:
        raise BatchError(f"{exc}; is {directory.path} a results directory?") from None
    if stored is None:
        if chunk_files(directory.path):
            raise BatchError(
                f"{directory.path} holds chunk files but no {MANIFEST_NAME}: choose another --out"
            )
        manifest = dict(identity, source=deals.source, created=_now(), status="running")
        directory.write_manifest(manifest)
        return manifest
    differs = [key for key in identity if stored.get(key) != identity[key]]
    if differs:
        names = {"deals": "deals", "budget": "budget", "chunk_size": "chunk size",
                 "solver_version": "solver version", "format": "results format"}
        other = (f"{describe_source(stored.get('source', {}))} --budget {stored.get('budget')}"
                 f" --chunk-size {stored.get('chunk_size')}, solver version {stored.get('solver_version')}")
        raise BatchError(
            f"{directory.path} holds another run's results ({other}); this run differs in "
            f"{', '.join(names[k] for k in differs)}: choose another --out, or delete {directory.path}"
        )
    return stored


def _scan_chunks(directory, numbers, chunk_size, nchunks, budget, solver_version) -> dict[int, Counter]:
    """Verdict counts of the sound chunk files by index; a bad one is reported and removed."""
    done = {}
    for index, path in chunk_files(directory.path).items():
        try:
            if index >= nchunks:
                raise ResultsError(f"{path}: not a chunk of this run")
            table = read_chunk(path)
            expected = list(numbers[index * chunk_size : (index + 1) * chunk_size])
            if table.column("deal").to_pylist() != expected:
                raise ResultsError(f"{path}: does not hold the deals of chunk {index} of this run")
            if not _all_equal(table, "budget", budget) or not _all_equal(table, "solver_version", solver_version):
                raise ResultsError(f"{path}: written with another budget or solver version")
            counts = Counter(table.column("verdict").to_pylist())
            if set(counts) - set(VERDICTS):
                raise ResultsError(f"{path}: unknown verdicts {sorted(set(counts) - set(VERDICTS))}")
        except ResultsError as exc:
            directory.log(f"{exc}; its deals will be solved again")
            path.unlink(missing_ok=True)
            continue
        done[index] = counts
    return done


def _all_equal(table, column: str, value) -> bool:
    col = table.column(column)
    return len(col) == 0 or bool(pc.all(pc.equal(col, value)).as_py())


class _Piece(NamedTuple):
    """Deals sent to a worker together: part ``k`` of ``count`` of chunk ``chunk``."""

    chunk: int
    k: int
    count: int
    numbers: list


def _pieces(numbers, todo, chunk_size) -> list[_Piece]:
    """The pieces of the chunks to do, in order, cut evenly into at most PIECE_SIZE deals."""
    out = []
    for index in todo:
        chunk = numbers[index * chunk_size : (index + 1) * chunk_size]
        count = math.ceil(len(chunk) / PIECE_SIZE)
        bounds = [round(k * len(chunk) / count) for k in range(count + 1)]
        out.extend(_Piece(index, k, count, list(chunk[bounds[k] : bounds[k + 1]])) for k in range(count))
    return out


def _run_chunks(backend, directory, pieces, solver_version, summary, bar, t0) -> None:
    """Send the pieces to the backend, a window at a time; write each chunk once it is whole."""
    pieces = iter(pieces)
    inflight: dict = {}
    parts: dict[int, list] = {}
    try:
        while True:
            for piece in pieces:
                try:
                    inflight[backend.submit(piece.numbers)] = piece
                except Exception as exc:  # e.g. a worker died since the last submit
                    raise worker_failed(exc, piece.numbers) from exc
                if len(inflight) >= backend.window:
                    break
            if not inflight:
                break
            for handle in backend.wait(list(inflight)):
                piece = inflight.pop(handle)
                try:
                    rows = backend.result(handle)
                except Exception as exc:
                    raise worker_failed(exc, piece.numbers) from exc
                _check_rows(rows, piece.numbers, solver_version)
                slots = parts.setdefault(piece.chunk, [None] * piece.count)
                slots[piece.k] = rows
                if all(s is not None for s in slots):
                    chunk_rows = [row for s in slots for row in s]
                    directory.write_chunk(piece.chunk, chunk_rows)
                    del parts[piece.chunk]
                    summary.solved += len(chunk_rows)
                    summary.counts.update(row["verdict"] for row in chunk_rows)
                bar.update(row["verdict"] for row in rows)
    except KeyboardInterrupt:
        backend.close(cancel=True)
        summary.seconds = time.perf_counter() - t0
        raise BatchInterrupted(summary) from None
    except BaseException:
        backend.close(cancel=True)
        raise
    backend.close(cancel=False)


def _check_rows(rows, numbers, solver_version) -> None:
    if [row["deal"] for row in rows] != list(numbers):
        raise BatchError(f"a worker returned rows for other deals than {numbers[0]}..{numbers[-1]}")
    versions = {row["solver_version"] for row in rows}
    if versions != {solver_version}:
        raise BatchError(
            f"workers run solver version {', '.join(sorted(versions))}, this run is version {solver_version}:"
            " install the same halfmoon on every worker"
        )


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _warn(message: str) -> None:
    warnings.warn(message, stacklevel=3)
