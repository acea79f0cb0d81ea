"""Batch checking: many deals solved on every core, or on a Dask cluster, into a resumable Parquet dataset.

A run takes a list of deal numbers (:class:`DealList`: a range, a codes file or a random
sample) and writes its results into a directory:

- ``part-NNNNNN.parquet``: chunk ``N`` holds the rows (:data:`halfmoon.results.SCHEMA`) of
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

import hashlib
import json
import math
import multiprocessing
import os
import re
import signal
import threading
import time
import warnings
from collections import Counter
from concurrent import futures as cf
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, Iterable, NamedTuple, Optional, Sequence, Union

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .codes import DEAL_COUNT, MAX_NUMBER, parse_code
from .deal import Deal
from .errors import HalfMoonError
from .progress import Progress
from .results import (
    FORMAT_VERSION,
    MANIFEST_NAME,
    VERDICTS,
    ResultsError,
    chunk_files,
    error_text,
    load_manifest,
    read_chunk,
    result_row,
    rows_to_table,
)

CHUNK_SIZE = 250
PIECE_SIZE = 16  # deals per task sent to a worker: small, for balance and a lively progress bar
SHOWN_BAD_LINES = 5
LOCK_NAME = ".lock"
TMP_SUFFIX = ".tmp"  # temporary files: ".<final name>.<pid>.tmp"
_TMP_RE = re.compile(r"^\.(part-\d+\.parquet|" + re.escape(MANIFEST_NAME) + r")\.\d+\.tmp$")


class BatchError(HalfMoonError):
    """A batch run cannot start or go on (bad input, a foreign results directory, a failed worker)."""


class BatchInterrupted(KeyboardInterrupt):
    """Ctrl-C during a run: finished chunks are kept; ``summary`` says how far it got."""

    def __init__(self, summary: "BatchSummary") -> None:
        super().__init__(f"{summary.done} of {summary.total} deals done in {summary.out}")
        self.summary = summary


# --- the deals of a run -----------------------------------------------------------------


@dataclass(frozen=True)
class DealList:
    """The deal numbers of a run, in order and without repeats, and how they were named."""

    numbers: Sequence[int]
    # how they were named: {"kind": "range", "start", "stop"}, {"kind": "codes", "file"},
    # {"kind": "random", "count", "seed"} or {"kind": "numbers", "count"}
    source: dict
    duplicates: int = 0  # entries of the input naming a deal already listed (dropped)

    def __len__(self) -> int:
        return len(self.numbers)

    def digest(self) -> str:
        """SHA-256 of the deal numbers (int64, little-endian): the identity of the list."""
        return hashlib.sha256(np.asarray(self.numbers, dtype="<i8").tobytes()).hexdigest()


def describe_source(source: dict) -> str:
    kind = source.get("kind")
    if kind == "range":
        return f"--range {source.get('start')}:{source.get('stop')}"
    if kind == "random":
        return f"--random {source.get('count')} --seed {source.get('seed')}"
    if kind == "codes":
        return f"--codes {source.get('file')}"
    if kind == "numbers":
        return f"{source.get('count')} deal numbers"
    return str(source)


def deals_from_range(start: int, stop: int) -> DealList:
    """Deal numbers ``start`` to ``stop - 1``."""
    if not 0 <= start < stop <= DEAL_COUNT:
        raise BatchError(
            f"bad range {start}:{stop}: expected A:B with 0 <= A < B <= {DEAL_COUNT} (deals A to B-1)"
        )
    return DealList(range(start, stop), {"kind": "range", "start": start, "stop": stop})


def parse_range(text: str) -> DealList:
    """``"A:B"``: deal numbers A to B−1."""
    parts = text.strip().split(":")
    if len(parts) != 2 or not all(p.strip().isascii() and p.strip().isdigit() for p in parts):
        raise BatchError(f"bad range {text!r}: expected A:B with whole numbers, e.g. 0:2000")
    return deals_from_range(int(parts[0]), int(parts[1]))


def deals_from_random(count: int, seed: int) -> DealList:
    """``count`` distinct deal numbers drawn uniformly, reproducibly from ``seed``."""
    from .codes import random_numbers

    if not 1 <= count <= DEAL_COUNT:
        raise BatchError(f"bad --random {count}: expected 1 to {DEAL_COUNT} deals")
    return DealList(random_numbers(count, seed), {"kind": "random", "count": count, "seed": seed})


def deals_from_numbers(numbers: Iterable[int], source: Optional[dict] = None) -> DealList:
    """Deal numbers given by a program: checked, and kept once each, at their first place."""
    numbers = list(numbers)
    unique = list(dict.fromkeys(numbers))
    for n in unique:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 0 <= n <= MAX_NUMBER:
            raise BatchError(f"bad deal number {n!r}: expected a whole number 0..{MAX_NUMBER}")
    unique = [int(n) for n in unique]
    if source is None:
        source = {"kind": "numbers", "count": len(unique)}
    return DealList(unique, source, duplicates=len(numbers) - len(unique))


def deals_from_codes(path: Union[str, Path]) -> DealList:
    """The deals of a codes file: one code or deal number per line.

    Text after ``#`` and blank lines are ignored.  If any line is malformed, raise
    :class:`BatchError` naming the first bad lines with their numbers (nothing is run).
    A deal listed twice is kept once, at its first place.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise BatchError(f"codes file {str(path)!r} is a directory") from None
    except OSError as exc:
        raise BatchError(f"cannot read codes file {str(path)!r}: {exc.strerror or exc}") from None
    numbers: list[int] = []
    bad: list[str] = []
    nbad = 0
    for lineno, raw in enumerate(data.decode("utf-8", errors="replace").split("\n"), start=1):
        text = raw.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            numbers.append(_parse_entry(text))
        except HalfMoonError as exc:
            nbad += 1
            if len(bad) < SHOWN_BAD_LINES:
                bad.append(f"  line {lineno}: {exc}")
    if nbad:
        more = f"\n  ... and {nbad - len(bad)} more" if nbad > len(bad) else ""
        plural = "s" if nbad > 1 else ""
        raise BatchError(
            f"{path}: {nbad} malformed line{plural}, nothing was run:\n" + "\n".join(bad) + more
        )
    if not numbers:
        raise BatchError(f"{path}: no deal codes or numbers in the file")
    return deals_from_numbers(numbers, {"kind": "codes", "file": str(path.resolve())})


def _parse_entry(text: str) -> int:
    if text.isascii() and text.isdigit():
        number = int(text)
        if number > MAX_NUMBER:
            raise BatchError(f"deal number {number} is outside 0..{MAX_NUMBER}")
        return number
    if not text.upper().startswith("HM"):
        raise BatchError(f"{text!r} is neither a deal code nor a deal number")
    return parse_code(text)[1]


# --- the workers' side ------------------------------------------------------------------

# The solver's transposition tables are module-wide, so a process runs one search at a
# time (the kernels hold the GIL anyway: threads would not run searches side by side).
_solve_lock = threading.Lock()
_warm = False


def solve_piece(numbers: Sequence[int], budget: int) -> list[dict]:
    """Solve deals (by number) and return their result rows; runs in a worker."""
    from solver import solve
    from solver.search import warm_up

    global _warm
    with _solve_lock:
        if not _warm:
            # Load the compiled kernels and fault the tables in now, so that no
            # deal's time includes them.
            warm_up()
            _warm = True
        rows = []
        for number in numbers:
            deal = Deal.from_number(number)
            rows.append(result_row(number, solve(deal, budget), budget, deal))
    return rows


def _worker_failed(exc: Exception, numbers: Sequence[int]) -> BatchError:
    deals = f"deals {numbers[0]}..{numbers[-1]}" if len(numbers) > 1 else f"deal {numbers[0]}"
    if isinstance(exc, cf.BrokenExecutor):
        return BatchError(f"a worker process died (out of memory?) solving {deals}")
    return BatchError(f"solving {deals} failed: {type(exc).__name__}: {error_text(exc)}")


def _init_pool_worker(parent: int) -> None:
    # Ctrl-C reaches the whole process group: the parent stops the workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # A parent killed with kill -9 cannot stop them: each one leaves by itself (after
    # its current deal) instead of waiting for work forever.
    threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _exit_with(pid: int, every: float = 1.0) -> None:
    while _alive(pid):
        time.sleep(every)
    os._exit(1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # pragma: no cover - someone else's process took the number
        return True
    try:  # a killed parent stays a zombie until its own parent reaps it
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):  # pragma: no cover - no /proc
        return True


# --- where pieces run -------------------------------------------------------------------


class _InProcess:
    """Pieces solved in this process, one by one, when they are waited for."""

    window = 1

    def __init__(self, budget: int) -> None:
        self.budget = budget

    def submit(self, numbers):
        return tuple(numbers)  # pieces never share a deal: a unique key

    def wait(self, handles):
        return handles

    def result(self, handle):
        return solve_piece(handle, self.budget)

    def close(self, cancel: bool) -> None:
        pass


class _Pool:
    """Local worker processes (forkserver where there is one: no inherited lock or threads)."""

    def __init__(self, workers: int, budget: int) -> None:
        self.budget = budget
        self.window = 4 * workers
        self.executor = cf.ProcessPoolExecutor(
            workers, mp_context=self.context(), initializer=_init_pool_worker, initargs=(os.getpid(),)
        )

    @staticmethod
    def context():
        if "forkserver" not in multiprocessing.get_all_start_methods():  # pragma: no cover
            return multiprocessing.get_context("spawn")
        ctx = multiprocessing.get_context("forkserver")
        # Import numba and the kernels once, in the server, not in every worker.
        ctx.set_forkserver_preload([__name__, "solver"])
        return ctx

    @classmethod
    def start_early(cls) -> None:
        """Start the fork server now, so that its imports overlap this process's."""
        if cls.context().get_start_method() == "forkserver":
            from multiprocessing import forkserver

            forkserver.ensure_running()

    def submit(self, numbers):
        return self.executor.submit(solve_piece, list(numbers), self.budget)

    def wait(self, handles):
        return cf.wait(handles, return_when=cf.FIRST_COMPLETED).done

    def result(self, handle):
        return handle.result()

    def close(self, cancel: bool) -> None:
        if cancel and hasattr(self.executor, "terminate_workers"):  # Python 3.14
            self.executor.terminate_workers()
        elif cancel:
            procs = list((getattr(self.executor, "_processes", None) or {}).values())
            # shutdown(wait=False) forgets the executor's manager thread, so a later
            # shutdown(wait=True) no longer joins it; joined here instead, or it may still
            # be closing its wake-up pipe while the interpreter's exit hook writes to it
            # ("Bad file descriptor" at exit, seen about once in ten interrupted runs)
            manager = getattr(self.executor, "_executor_manager_thread", None)
            self.executor.shutdown(wait=False, cancel_futures=True)
            for p in procs:
                p.terminate()
            for p in procs:
                p.join()
            if manager is not None:
                manager.join(timeout=30)
        self.executor.shutdown(wait=True, cancel_futures=cancel)


class _Dask:
    """An existing Dask distributed cluster, reached through its scheduler."""

    def __init__(self, address: str, budget: int) -> None:
        try:
            from distributed import Client, as_completed
        except ImportError:
            raise BatchError(
                "--scheduler needs dask.distributed: pip install 'halfmoon[cluster]'"
            ) from None
        try:
            self.client = Client(address, set_as_default=False)
        except (OSError, ValueError) as exc:
            raise BatchError(f"cannot reach the Dask scheduler at {address}: {error_text(exc)}") from None
        self.budget = budget
        self.window = 4 * max(1, sum(self.client.nthreads().values()))
        self.finished = as_completed(loop=self.client.loop)
        self.pending: set = set()

    def submit(self, numbers):
        f = self.client.submit(solve_piece, list(numbers), self.budget, pure=False)
        self.pending.add(f)
        self.finished.add(f)
        return f

    def wait(self, handles):
        done = [next(self.finished)] + self.finished.next_batch(block=False)
        self.pending.difference_update(done)
        return done

    def result(self, handle):
        return handle.result()

    def close(self, cancel: bool) -> None:
        try:
            if cancel and self.pending:
                self.client.cancel(list(self.pending))
        finally:
            self.client.close()


# --- the results directory ----------------------------------------------------------------


class _Directory:
    """The run's output directory: lock, manifest, chunk files."""

    def __init__(self, path: Path, log: Callable[[str], None]) -> None:
        self.path = path
        self.log = log
        self._lock_file = None

    def open(self) -> None:
        if self.path.exists() and not self.path.is_dir():
            raise BatchError(f"--out {str(self.path)!r} is not a directory")
        self.path.mkdir(parents=True, exist_ok=True)
        self._lock()
        for entry in self.path.iterdir():  # left by a run killed while writing
            if _TMP_RE.match(entry.name):
                entry.unlink()

    def _lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock
            return
        f = open(self.path / LOCK_NAME, "a+")
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            raise BatchError(f"another batch run is writing into {self.path}") from None
        self._lock_file = f

    def close(self) -> None:
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    def write_manifest(self, manifest: dict) -> None:
        data = (json.dumps(manifest, indent=2) + "\n").encode("utf-8")
        self._write_atomic(MANIFEST_NAME, lambda f: f.write(data))

    def chunk_name(self, index: int) -> str:
        return f"part-{index:06d}.parquet"

    def write_chunk(self, index: int, rows: list[dict]) -> None:
        table = rows_to_table(rows)
        self._write_atomic(self.chunk_name(index), lambda f: pq.write_table(table, f, compression="zstd"))

    def _still_ours(self) -> None:
        """Refuse to write if the directory was deleted or replaced under the run."""
        if self._lock_file is None:  # pragma: no cover - not POSIX
            return
        try:
            same = os.stat(self.path / LOCK_NAME).st_ino == os.fstat(self._lock_file.fileno()).st_ino
        except OSError:
            same = False
        if not same:
            raise BatchError(f"{self.path} was deleted or replaced during the run")

    def _write_atomic(self, name: str, write: Callable) -> None:
        self._still_ours()
        final = self.path / name
        tmp = self.path / f".{name}.{os.getpid()}{TMP_SUFFIX}"
        try:
            with open(tmp, "wb") as f:
                write(f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, final)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _fsync_dir(self.path)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse
        pass
    finally:
        os.close(fd)


# --- the run ------------------------------------------------------------------------------


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


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


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
        _Pool.start_early()
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
    directory = _Directory(Path(out), log)
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
                backend = _Dask(scheduler, budget)
            elif workers == 1:
                backend = _InProcess(budget)
            else:
                backend = _Pool(min(workers, len(pieces)), budget)
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


def _check_manifest(directory: _Directory, identity: dict, deals: DealList) -> dict:
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
                    raise _worker_failed(exc, piece.numbers) from exc
                if len(inflight) >= backend.window:
                    break
            if not inflight:
                break
            for handle in backend.wait(list(inflight)):
                piece = inflight.pop(handle)
                try:
                    rows = backend.result(handle)
                except Exception as exc:
                    raise _worker_failed(exc, piece.numbers) from exc
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
