"""Batch checking: many deals solved on every core, or on a Dask cluster, into a resumable
Parquet dataset.

A run takes a list of deal numbers (:class:`DealList`: a range, a codes file or a random
sample) and writes its results into a directory, local or at an fsspec URL:

- ``part-NNNNNN.parquet``: chunk ``N`` holds the rows (:data:`halfmoon.batch.results.SCHEMA`) of
  deals ``N*chunk_size`` to ``(N+1)*chunk_size - 1`` of the list, in list order.  A chunk is
  written whole under a temporary name (``.part-NNNNNN.parquet.<token>.tmp``), fsynced on a
  local disk, and renamed: a file with the final name is always complete.
- ``_manifest.json``: the run's parameters.  A rerun with the same deals, budget, chunk size
  and solver version resumes the run; any other run is refused.
- ``.lock`` (on a local disk): held (``flock``) while a run writes, so two runs never share a
  directory.

On start a run deletes temporary files left by a killed run, checks every chunk file
(readable, the right deals, this run's budget and solver version; a bad one is reported
and its deals solved again) and solves only the chunks that are missing.  Locally, work goes
to the workers in pieces of a few deals and this process writes the files; on a cluster
each chunk is a task whose worker writes the file itself (:mod:`.cluster`).  Chunks and
pieces are made from their index as they are sent, a bounded window at a time
(:mod:`.plan`), so a run of the whole code space starts at once in little memory.
"""

from __future__ import annotations

import time
import warnings
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import islice
from pathlib import Path
from typing import Callable, Optional, Union

import numpy as np
import pyarrow.compute as pc

from .backends import InProcess, Pool, default_workers, warm_up, worker_failed
from .directory import Directory
from .errors import BatchError
from .plan import (
    SAMPLE,
    DryRun,
    Plan,
    calibrate,
    choose_chunk_size,
    choose_piece_size,
)
from .progress import Progress
from .results import (
    FORMAT_VERSION,
    LINE_MODES,
    MANIFEST_NAME,
    MAX_BUDGET,
    VERDICTS,
    ResultsError,
    check_rows,
    rows_to_table,
)
from .sources import DealList, describe_source

# chunk files checked at once on resume (reading them waits on the disk or the store)
SCAN_THREADS = 8
LEGACY_DIGEST_LIMIT = 10**8  # ranges up to this long may resume a run named by its numbers' digest


class BatchInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run: finished chunks are kept; ``summary`` says how far it got."""

    def __init__(self, summary: "BatchSummary") -> None:
        super().__init__(f"{summary.done} of {summary.total} deals done in {summary.out}")
        self.summary = summary


@dataclass
class BatchSummary:
    """How a run went: deals done before it (resumed) and by it, counts by verdict."""

    out: Union[Path, str]
    total: int
    resumed: int = 0
    solved: int = 0
    counts: Counter = field(default_factory=Counter)
    seconds: float = 0.0  # wall time of the run, compiling included
    # of which compiling the solver's kernels (a cold cache's first run)
    compile_seconds: float = 0.0

    @property
    def done(self) -> int:
        return self.resumed + self.solved

    @property
    def complete(self) -> bool:
        return self.done == self.total

    @property
    def rate(self) -> float:
        """Deals a second of solving (compiling not counted)."""
        solving = self.seconds - self.compile_seconds
        return self.solved / solving if solving > 0 else 0.0

    @property
    def wall_rate(self) -> float:
        """Deals a second of the whole run, compiling included."""
        return self.solved / self.seconds if self.seconds > 0 else 0.0


def run_batch(
    deals: DealList,
    out: Union[str, Path] = "results",
    *,
    budget: Optional[int] = None,
    workers: Optional[int] = None,
    scheduler: Optional[str] = None,
    chunk_size: Optional[int] = None,
    piece_size: Optional[int] = None,
    chunks: Optional[range] = None,
    lines: str = "all",
    progress: Optional[bool] = None,
    log: Optional[Callable[[str], None]] = None,
) -> BatchSummary:
    """Solve ``deals`` into the results directory ``out`` (a path or an fsspec URL), resuming
    what is there.

    ``budget``: positions per deal (the solver's default if None); ``workers``: local
    processes (every core if None; 1 runs in this process); ``scheduler``: address of a Dask
    distributed scheduler to use instead, whose workers write the chunk files;
    ``chunk_size``: deals per file (None: the stored run's, or one chosen for the range and
    the backend, see :func:`~.plan.choose_chunk_size`); ``piece_size``: deals solved
    together (None: chosen for the backend); ``chunks``: only these chunk indices (None:
    all); ``lines``: ``"all"`` keeps each win's line, ``"none"`` the verdicts only (a line
    can be found again by solving the deal: the solver is deterministic); ``progress``: draw
    a progress bar (None: only on a terminal); ``log``: where warnings go (``warnings.warn``
    by default).

    Raises :class:`BatchError` for bad parameters or a directory holding another run,
    :class:`BatchInterrupted` on Ctrl-C (finished chunks kept).
    """
    from solver import SOLVER_VERSION

    log = _warn if log is None else log
    workers, budget = _check_args(deals, workers, budget, chunk_size, scheduler, lines)
    directory = Directory(out, log, lines=lines == "all")
    directory.check()
    cluster = _connect(scheduler, log)  # before anything is written: a bad address writes nothing
    try:
        directory.open()
        try:
            stored = _read_manifest(directory)
            plan = _plan(deals, stored, chunk_size, piece_size, chunks, cluster, workers)
            manifest = _check_manifest(directory, stored,
                                       _identity(plan, budget, SOLVER_VERSION, lines), deals)
            done = _scan_chunks(directory, plan, budget, SOLVER_VERSION)
            if deals.duplicates:
                log(f"{deals.duplicates} repeated deals in the input: each deal is solved once")
            summary = BatchSummary(directory.path, len(deals))
            for counts in done.values():
                summary.resumed += sum(counts.values())
                summary.counts.update(counts)

            def todo():
                return (i for i in plan.chunks if i not in done)

            t0 = time.perf_counter()
            if next(todo(), None) is not None:
                with Progress(len(deals), summary.counts, enabled=progress) as bar:
                    _run(plan, todo, cluster, workers, budget, directory, SOLVER_VERSION, summary,
                         bar, t0)
            summary.seconds = time.perf_counter() - t0
            if summary.complete:
                directory.sweep()  # a worker killed mid-write may have left a temporary file
                if manifest.get("status") != "complete":
                    manifest.update(status="complete", finished=_now(),
                                    counts={v: summary.counts[v] for v in VERDICTS})
                    directory.write_manifest(manifest)
            return summary
        finally:
            directory.close()
    finally:
        if cluster is not None:
            cluster.close(cancel=True)


def plan_batch(
    deals: DealList,
    out: Union[str, Path] = "results",
    *,
    budget: Optional[int] = None,
    workers: Optional[int] = None,
    scheduler: Optional[str] = None,
    chunk_size: Optional[int] = None,
    piece_size: Optional[int] = None,
    chunks: Optional[range] = None,
    lines: str = "all",
    cores: Optional[int] = None,
    sample: Optional[int] = None,
    sample_seed: Optional[int] = None,
) -> DryRun:
    """What :func:`run_batch` with these arguments would do, and how long it would take on
    ``cores`` cores (default: the workers or the cluster's), from ``sample`` deals solved
    here (spread over the run, or drawn with ``sample_seed``).  ``cores`` without a
    ``scheduler`` or ``workers`` prices a cluster of that many cores (a chunk a task), with
    no cluster to ask.  Writes nothing; refuses what the run would refuse."""
    from types import SimpleNamespace

    from solver import SOLVER_VERSION

    cores_only = cores is not None and scheduler is None and workers is None
    workers, budget = _check_args(deals, workers, budget, chunk_size, scheduler, lines)
    if cores is not None and cores < 1:
        raise BatchError(f"bad number of cores {cores}: expected at least 1")
    sample = SAMPLE if sample is None else sample
    if sample < 1:
        raise BatchError(f"bad sample {sample}: expected at least 1 deal")
    directory = Directory(out, _warn)
    directory.check()
    cluster = _connect(scheduler, lambda message: None)
    try:
        if cluster is not None:
            cores = cluster.cores if cores is None else cores
        stored = _read_manifest(directory)
        priced = SimpleNamespace(cores=cores) if cores_only else cluster
        plan = _plan(deals, stored, chunk_size, piece_size, chunks, priced, workers)
        if stored is not None:
            _compare(directory, stored, _identity(plan, budget, SOLVER_VERSION, lines), deals)
    finally:
        if cluster is not None:
            cluster.close(cancel=False)
    present = [i for i in directory.chunks() if i in plan.chunks]
    todo = plan.deals_in(plan.chunks) - sum(plan.chunk_len(i) for i in present)
    return DryRun(plan=plan, out=str(directory.path), budget=budget,
                  cluster=cluster is not None or cores_only, cores_only=cores_only,
                  cores=workers if cores is None else cores, workers=workers,
                  resumed=stored is not None, present=len(present), todo_deals=todo,
                  todo_pieces=(plan.pieces_in(plan.chunks)
                               - sum(plan.npieces(i) for i in present)),
                  calibration=calibrate(deals, budget, sample, lines,
                                        plan.chunk(plan.chunks.start), sample_seed),
                  lines_mode=lines)


def _check_args(deals, workers, budget, chunk_size, scheduler, lines="all"):
    from solver import DEFAULT_BUDGET

    workers = default_workers() if workers is None else workers
    if scheduler is None and workers > 1:
        Pool.start_early()
    budget = DEFAULT_BUDGET if budget is None else budget
    if not 1 <= budget <= MAX_BUDGET:
        raise BatchError(f"bad budget {budget}: expected 1 to {MAX_BUDGET:,} positions per deal")
    if lines not in LINE_MODES:
        raise BatchError(f"bad lines {lines!r}: expected one of {', '.join(LINE_MODES)}")
    if chunk_size is not None and chunk_size < 1:
        raise BatchError(f"bad chunk size {chunk_size}: expected at least 1 deal per chunk")
    if workers < 1:
        raise BatchError(f"bad number of workers {workers}: expected at least 1")
    if len(deals) == 0:
        raise BatchError("no deals to check")
    if not isinstance(deals.numbers, range) and len(set(deals.numbers)) != len(deals):
        raise BatchError("the deal list names a deal twice (see deals_from_numbers)")
    return workers, budget


def _connect(scheduler, log):
    if scheduler is None:
        return None
    from .cluster import Cluster

    cluster = Cluster(scheduler)
    if cluster.warning:
        log(cluster.warning)
    return cluster


def _plan(deals, stored, chunk_size, piece_size, chunks, cluster, workers) -> Plan:
    on_cluster = cluster is not None
    if chunk_size is None and stored is not None and isinstance(stored.get("chunk_size"), int):
        chunk_size = stored["chunk_size"]  # a rerun goes on with the run's own chunks
    if chunk_size is None:
        cores = cluster.cores if on_cluster else workers
        chunk_size = choose_chunk_size(len(deals), cluster=on_cluster, cores=cores)
    if piece_size is None:
        piece_size = choose_piece_size(chunk_size, cluster=on_cluster)
    return Plan(deals, chunk_size, piece_size, chunks)


def _identity(plan: Plan, budget: int, solver_version: str, lines: str = "all") -> dict:
    return {
        "format": FORMAT_VERSION,
        "lines": lines,
        "solver_version": solver_version,
        "budget": budget,
        "chunk_size": plan.chunk_size,
        "deals": {"count": len(plan.deals), "sha256": plan.deals.digest()},
    }


def _read_manifest(directory: Directory) -> Optional[dict]:
    try:
        return directory.read_manifest()
    except ResultsError as exc:
        raise BatchError(f"{exc}; is {directory.path} a results directory?") from None


def _check_manifest(directory: Directory, stored: Optional[dict], identity: dict,
                    deals: DealList) -> dict:
    """The directory's manifest if it is this run's, a new one if it has none; refuse another
    run's."""
    if stored is None:
        if directory.chunks():
            raise BatchError(
                f"{directory.path} holds chunk files but no {MANIFEST_NAME}: choose another --out"
            )
        manifest = dict(identity, source=deals.source, created=_now(), status="running")
        directory.write_manifest(manifest)
        return manifest
    if _compare(directory, stored, identity, deals):  # named by the numbers' digest, as before
        stored["deals"] = identity["deals"]
        directory.write_manifest(stored)
    return stored


def _compare(directory: Directory, stored: dict, identity: dict, deals: DealList) -> bool:
    """Refuse another run's manifest; True if it is this run's but names a range by the
    digest of its numbers."""
    if stored.get("format", 1) != identity["format"]:
        raise BatchError(
            f"{directory.path} holds results of format {stored.get('format', 1)}, written by"
            f" another version of halfmoon; this one writes format {identity['format']} and does"
            " not mix two in one dataset: choose another --out (the old results still read)")
    differs = [key for key in identity if stored.get(key) != identity[key]]
    legacy = differs == ["deals"] and _legacy_digest_matches(stored.get("deals"), deals)
    if differs and not legacy:
        names = {"deals": "deals", "budget": "budget", "chunk_size": "chunk size",
                 "solver_version": "solver version", "format": "results format",
                 "lines": "--lines"}
        other = (f"{describe_source(stored.get('source', {}))} --budget {stored.get('budget')}"
                 f" --chunk-size {stored.get('chunk_size')} --lines {stored.get('lines')},"
                 f" solver version {stored.get('solver_version')}")
        raise BatchError(
            f"{directory.path} holds another run's results ({other}); this run differs in "
            f"{', '.join(names[k] for k in differs)}: choose another --out, or delete"
            f" {directory.path}"
        )
    return legacy


def _legacy_digest_matches(stored_deals, deals: DealList) -> bool:
    return (isinstance(deals.numbers, range) and isinstance(stored_deals, dict)
            and stored_deals.get("count") == len(deals) <= LEGACY_DIGEST_LIMIT
            and stored_deals.get("sha256") == deals.numbers_digest())


def _scan_chunks(directory: Directory, plan: Plan, budget: int,
                 solver_version: str) -> dict[int, Counter]:
    """Verdict counts of the sound chunk files by index; a bad one is reported and removed.
    Files are read a few at a time (only four small columns of each): a census has
    thousands."""

    def check(item):
        index, name = item
        try:
            return index, name, _check_chunk(directory, plan, index, name, budget, solver_version)
        except ResultsError as exc:
            return index, name, exc

    done = {}
    with ThreadPoolExecutor(SCAN_THREADS) as pool:
        for index, name, counts in pool.map(check, directory.chunks().items()):
            if isinstance(counts, ResultsError):
                directory.log(f"{counts}; its deals will be solved again")
                directory.remove(name)
            else:
                done[index] = counts
    return done


def _check_chunk(directory, plan, index, name, budget, solver_version) -> Counter:
    label = directory.where.label(name)
    if index >= plan.nchunks:
        raise ResultsError(f"{label}: not a chunk of this run")
    version = directory.chunk_format(name)
    if version != FORMAT_VERSION:
        raise BatchError(f"{label} is a file of results format {version}, this run writes format"
                         f" {FORMAT_VERSION}: a dataset holds one format; choose another --out")
    table = directory.read_chunk(name, columns=["deal", "verdict", "budget", "solver_version"])
    if not np.array_equal(np.sort(table.column("deal").to_numpy()),
                          np.sort(_array(plan.chunk(index)))):
        raise ResultsError(f"{label}: does not hold the deals of chunk {index} of this run")
    if (not _all_equal(table, "budget", budget)
            or not _all_equal(table, "solver_version", solver_version)):
        raise ResultsError(f"{label}: written with another budget or solver version")
    counts = Counter({d["values"]: d["counts"]
                      for d in pc.value_counts(table.column("verdict")).to_pylist()})
    if set(counts) - set(VERDICTS):
        raise ResultsError(f"{label}: unknown verdicts {sorted(set(counts) - set(VERDICTS))}")
    return counts


def _array(numbers) -> np.ndarray:
    if isinstance(numbers, range):
        return np.arange(numbers.start, numbers.stop, numbers.step, dtype=np.int64)
    return np.asarray(numbers, dtype=np.int64)


def _all_equal(table, column: str, value) -> bool:
    col = table.column(column)
    return len(col) == 0 or bool(pc.all(pc.equal(col, value)).as_py())


def _run(plan, todo, cluster, workers, budget, directory, solver_version, summary, bar, t0) -> None:
    """Solve the chunks ``todo()`` on the cluster, or here and in local workers."""

    def chunk_written(index, counts):
        summary.solved += sum(counts.values())
        summary.counts.update(counts)

    try:
        if cluster is not None:
            from .cluster import run_on_cluster

            def on_chunk(index, counts):
                chunk_written(index, counts)
                bar.add(counts)

            run_on_cluster(cluster, directory, plan, todo(), budget, solver_version, on_chunk)
            return
        from solver import compile_in_parallel, compile_seconds

        if workers == 1:
            before = compile_seconds()
            backend = InProcess(budget)
            warm_up()
            summary.compile_seconds = compile_seconds() - before
        else:
            n = sum(1 for _ in islice(plan.pieces(todo()), workers))
            # compiled once, here, by as many helpers as there are workers: the workers load it
            summary.compile_seconds = compile_in_parallel(processes=n)
            backend = Pool(n, budget)
        _run_pieces(backend, directory, plan, todo(), solver_version, chunk_written, bar)
    except KeyboardInterrupt:
        summary.seconds = time.perf_counter() - t0
        raise BatchInterrupted(summary) from None


def _run_pieces(backend, directory, plan, todo, solver_version, chunk_written, bar) -> None:
    """Send the pieces of the chunks ``todo`` to the backend, a window at a time; write each
    chunk once it is whole."""
    pieces = plan.pieces(todo)
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
                check_rows(rows, piece.numbers, solver_version)
                slots = parts.setdefault(piece.chunk, [None] * piece.count)
                # far smaller than the rows, until the chunk is whole
                slots[piece.k] = rows_to_table(rows, directory.lines)
                if all(s is not None for s in slots):
                    directory.write_chunk(piece.chunk, slots)
                    del parts[piece.chunk]
                    chunk_written(piece.chunk, Counter(v for s in slots
                                                       for v in s.column("verdict").to_pylist()))
                bar.update(row["verdict"] for row in rows)
    except BaseException:
        backend.close(cancel=True)
        raise
    backend.close(cancel=False)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _warn(message: str) -> None:
    warnings.warn(message, stacklevel=3)

