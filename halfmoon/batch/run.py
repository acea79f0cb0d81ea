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
and its deals solved again, :mod:`.resume`) and solves only the chunks that are missing.
Locally, work goes to the workers in pieces of a few deals, as columns from the solver to
the file, and a worker writes each chunk's file (:mod:`.local`); on a cluster each chunk is
a task whose worker writes the file itself (:mod:`.cluster`).  Chunks and
pieces are made from their index as they are sent, a bounded window at a time
(:mod:`.plan`), so a run of the whole code space starts at once in little memory.
"""

from __future__ import annotations

import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Callable, Optional, Union

from .backends import InProcess, Pool, default_workers, warm_up
from .directory import Directory
from .errors import BatchError
from .local import run_pieces
from .plan import (
    SAMPLE,
    DryRun,
    Plan,
    calibrate,
    choose_chunk_size,
    choose_piece_size,
)
from .progress import Progress
from .results import LINE_MODES, MAX_BUDGET, VERDICTS
from .resume import check_manifest, compare, identity, now, read_manifest, scan_chunks
from .sources import DealList


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
    connect_timeout: Optional[float] = None,
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
    a progress bar (True), nothing (False), or (None) a bar on a terminal and a line now and
    then in a log (:class:`~.progress.LogLines`); ``log``: where warnings go (``warnings.warn``
    by default); ``connect_timeout``: seconds to reach the ``scheduler`` (None: 10), a word
    on stderr while it waits unless ``progress`` is False.

    Raises :class:`BatchError` for bad parameters or a directory holding another run,
    :class:`BatchInterrupted` on Ctrl-C (finished chunks kept).
    """
    if scheduler is None and (default_workers() if workers is None else workers) > 1:
        Pool.start_early()  # the workers' loading of the solver overlaps this process's work
    from solver import SOLVER_VERSION

    log = _warn if log is None else log
    workers, budget = _check_args(deals, workers, budget, chunk_size, scheduler, lines)
    directory = Directory(out, log, lines=lines == "all")
    directory.check()
    # before anything is written: a bad address writes nothing
    cluster = _connect(scheduler, log, connect_timeout, progress is not False)
    try:
        directory.open()
        try:
            stored = read_manifest(directory)
            plan = _plan(deals, stored, chunk_size, piece_size, chunks, cluster, workers)
            manifest = check_manifest(directory, stored,
                                       identity(plan, budget, SOLVER_VERSION, lines), deals)
            done = scan_chunks(directory, plan, budget, SOLVER_VERSION)
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
                # against the chunks asked (--chunks), not the whole run
                asked = Counter()
                for i, counts in done.items():
                    if i in plan.chunks:
                        asked.update(counts)
                with Progress(plan.deals_in(plan.chunks), asked, enabled=progress) as bar:
                    _run(plan, todo, cluster, workers, budget, directory, SOLVER_VERSION, summary,
                         bar, t0)
            summary.seconds = time.perf_counter() - t0
            if summary.complete:
                directory.sweep()  # a worker killed mid-write may have left a temporary file
                if manifest.get("status") != "complete":
                    manifest.update(status="complete", finished=now(),
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
    connect_timeout: Optional[float] = None,
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
    cluster = _connect(scheduler, lambda message: None, connect_timeout, True)
    try:
        if cluster is not None:
            cores = cluster.cores if cores is None else cores
        stored = read_manifest(directory)
        priced = SimpleNamespace(cores=cores) if cores_only else cluster
        plan = _plan(deals, stored, chunk_size, piece_size, chunks, priced, workers)
        if stored is not None:
            compare(directory, stored, identity(plan, budget, SOLVER_VERSION, lines), deals)
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
    budget = DEFAULT_BUDGET if budget is None else budget
    if not 1 <= budget <= MAX_BUDGET:
        raise BatchError(f"bad budget {budget}: expected 1 to {MAX_BUDGET:,} positions per deal")
    if lines not in LINE_MODES:
        raise BatchError(f"bad lines {lines!r}: expected one of {', '.join(LINE_MODES)}")
    if chunk_size is not None and chunk_size < 1:
        raise BatchError(f"bad chunk size {chunk_size}: expected at least 1 deal per chunk")
    if workers < 1:
        raise BatchError(f"bad number of workers {workers}: expected at least 1")
    if scheduler is not None:
        from .cluster import check_address

        check_address(scheduler)  # a malformed address: one line, before any work
    if len(deals) == 0:
        raise BatchError("no deals to check")
    if not isinstance(deals.numbers, range) and len(set(deals.numbers)) != len(deals):
        raise BatchError("the deal list names a deal twice (see deals_from_numbers)")
    return workers, budget


def _connect(scheduler, log, timeout=None, say=True):
    if scheduler is None:
        return None
    import sys

    from .cluster import CONNECT_TIMEOUT, Cluster

    def to_stderr(text: str) -> None:
        print(f"halfmoon: {text}", file=sys.stderr, flush=True)

    cluster = Cluster(scheduler, CONNECT_TIMEOUT if timeout is None else timeout,
                      to_stderr if say else None)
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
        piece_size = choose_piece_size(chunk_size, cluster=on_cluster, count=len(deals),
                                       workers=workers or 1)
    return Plan(deals, chunk_size, piece_size, chunks)


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

        bar.compiling()  # no time left said while compiling: the rate counts the deals after
        if workers == 1:
            before = compile_seconds()
            backend = InProcess()
            warm_up()
            summary.compile_seconds = compile_seconds() - before
        else:
            n = sum(1 for _ in islice(plan.pieces(todo()), workers))
            # compiled once, here, by as many helpers as there are workers: the workers load it
            summary.compile_seconds = compile_in_parallel(processes=n)
            backend = Pool(n)
        bar.solving()
        run_pieces(backend, directory, plan, todo(), budget, solver_version, chunk_written, bar)
    except KeyboardInterrupt:
        summary.seconds = time.perf_counter() - t0
        raise BatchInterrupted(summary) from None


def _warn(message: str) -> None:
    warnings.warn(message, stacklevel=3)

