"""Runs on a Dask distributed cluster: the backend, the task its workers run, and the loop
that keeps a bounded window of tasks in flight.

On a cluster a task is one chunk: its worker solves the chunk's deals a piece at a time
(:func:`halfmoon.batch.backends.solve_arrays`: the solver's columns, no row made), streams each
piece as a row group into the
chunk's file under a temporary name, renames it when it is whole, and returns only a small
summary (the chunk's verdict counts).  A worker that dies mid-task leaves at most a
temporary file; the scheduler gives the task to another worker, which writes the chunk
again from the start, so each chunk is written once and whole.
"""

from __future__ import annotations

import asyncio
import errno
import os
import secrets
import selectors
import socket
import time
from collections import Counter
from typing import Callable, Optional, Sequence

from .backends import warm_up, worker_failed
from .columns import chunk_tables, verdict_counts
from .directory import Directory, chunk_name, write_tables
from .errors import BatchError
from .local import check_deals
from .plan import Plan, cut
from .results import VERDICTS, error_text

TASKS_IN_FLIGHT = 2  # chunks sent per core: one running, one waiting, whatever the run's length
RECOUNT = 30.0  # seconds between counts of the cluster's workers during a run
CONNECT_TIMEOUT = 10.0  # seconds to reach the scheduler (Dask's own default is 30)
# seconds a TCP connection to the scheduler may take before a word says the run is connecting:
# a refused one is said in one line, with no word before it
QUIET = 0.25
# the protocols of a scheduler's address that Dask speaks (tcp when none is named)
PROTOCOLS = ("tcp", "tls", "inproc", "ucx", "ws", "wss")
EXAMPLE = "HOST:PORT or tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786"


def check_address(address: str) -> None:
    """Refuse a scheduler's address that cannot be one, before any connection: one
    :class:`BatchError` naming what is wrong (no port, a trailing ``/``, an unknown
    protocol, a port that is not a number from 1 to 65535)."""
    def bad(why: str) -> BatchError:
        return BatchError(f"bad scheduler address {address!r}: {why} (expected {EXAMPLE})")

    protocol, sep, rest = address.strip().partition("://")
    if not sep:
        protocol, rest = "tcp", address.strip()
    if protocol not in PROTOCOLS:
        raise bad(f"unknown protocol {protocol!r}")
    if protocol == "inproc":  # an in-process scheduler's own address: its own form
        return
    if rest.endswith("/"):
        raise bad("a '/' after the port")
    host, colon, port = rest.rpartition(":")
    if not colon or not host:
        raise bad("no port")
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise bad(f"the port {port!r} is not a number from 1 to 65535")


def solve_chunk(where, index: int, numbers: Sequence[int], budget: int, piece_size: int,
                solver_version: str, lines: bool = True) -> dict:
    """Solve chunk ``index`` (deals ``numbers``) and write its file at ``where``; runs on a
    worker.  Returns ``{"chunk", "deals", "counts", "seconds", "worker"}``; raises
    :class:`BatchError` naming the deals of the piece that failed (the file is not written)."""
    from solver import SOLVER_VERSION

    # looked up when a chunk is solved, not when this module is loaded: a test replaces
    # it on the workers
    from .backends import solve_arrays

    if SOLVER_VERSION != solver_version:
        raise BatchError(f"workers run solver version {SOLVER_VERSION}, this run is version"
                         f" {solver_version}: install the same halfmoon on every worker")
    counts: Counter = Counter()
    t0 = time.perf_counter()

    def tables():
        for piece in cut(numbers, piece_size):
            try:
                part = solve_arrays(piece, budget, lines)
            except Exception as exc:
                raise worker_failed(exc, piece) from None
            check_deals(part.numbers, piece)
            counts.update(dict(zip(VERDICTS, verdict_counts(part))))
            yield from chunk_tables([part], budget, solver_version)

    try:
        where.write(chunk_name(index), lambda f: write_tables(f, tables()))
    except BatchError:
        raise
    except Exception as exc:  # the store refused: a one-line, picklable error for the client
        raise BatchError(f"a worker on {socket.gethostname()} cannot write {chunk_name(index)} to"
                         f" {where}: {type(exc).__name__}: {error_text(exc)}") from None
    return {"chunk": index, "deals": len(numbers), "counts": dict(counts),
            "seconds": time.perf_counter() - t0, "worker": f"{socket.gethostname()}:{os.getpid()}"}


def warm_up_worker(groups=None) -> dict:
    """On a worker: load the compiled solver, or compile it if nobody has; with a
    ``NUMBA_CACHE_DIR`` shared by the workers (a node's disk, or a filesystem every node
    mounts at the same path with the same install), one worker compiles each group of
    kernels and the others load it (:func:`solver.warm_up`).  ``groups``: names of
    :data:`solver.KERNEL_GROUPS` (None: what solving needs, as a run's worker loads it).
    Returns what happened to each group and the seconds this worker spent compiling."""
    from solver import compile_seconds
    from solver import warm_up as warm_up_groups

    before = compile_seconds()
    if groups is None:
        warm_up()
        done = {"solver": "ready"}
    else:
        done = warm_up_groups(groups, out=None)
    return {"groups": done, "compile_seconds": compile_seconds() - before,
            "worker": f"{socket.gethostname()}:{os.getpid()}"}


def warm_up_workers(client, groups=None) -> dict:
    """Warm every worker of ``client``'s cluster up at once (see :func:`warm_up_worker`):
    ``{worker address: its report}``."""
    return client.run(warm_up_worker, groups)


class Cluster:
    """An existing Dask distributed cluster, reached through its scheduler within
    ``timeout`` seconds; ``say(text)``, if given, hears that it is being reached."""

    def __init__(self, address: str, timeout: float = CONNECT_TIMEOUT,
                 say: Optional[Callable[[str], None]] = None) -> None:
        if not timeout > 0:
            raise BatchError(f"bad connect timeout {timeout}: expected a positive number of"
                             " seconds")
        check_address(address)
        try:
            from distributed import as_completed
        except ImportError:
            raise BatchError(
                "--scheduler needs dask.distributed: pip install 'halfmoon[cluster]'"
            ) from None
        self.client = connect(address, timeout, say)
        threads = list(self.client.nthreads().values())
        # The solver runs one search at a time in a process (its tables are the module's),
        # so a worker process is one core, whatever its threads.
        self.cores = max(1, len(threads))
        self.warning = None
        if not threads:
            self.warning = ("the scheduler has no workers yet: the run is sized for one core"
                            " (--chunk-size to choose)")
        elif any(n > 1 for n in threads):
            self.warning = (f"the cluster's workers have {max(threads)} threads each, but a worker"
                            " solves one deal at a time: start one worker per core (dask worker"
                            " --nthreads 1 --nworkers N)")
        self.window = TASKS_IN_FLIGHT * self.cores
        self._counted = time.monotonic()
        self.finished = as_completed(loop=self.client.loop)
        self.pending: set = set()
        self.token = secrets.token_hex(4)
        self.closed = False

    def submit(self, fn, *args, key: str):
        f = self.client.submit(fn, *args, key=f"{key}-{self.token}", pure=False)
        self.pending.add(f)
        self.finished.add(f)
        return f

    def wait(self):
        done = [next(self.finished)] + self.finished.next_batch(block=False)
        self.pending.difference_update(done)
        if time.monotonic() - self._counted > RECOUNT:  # workers come and go: so does the window
            self._counted = time.monotonic()
            self.window = TASKS_IN_FLIGHT * max(1, len(self.client.nthreads()))
        return done

    def close(self, cancel: bool) -> None:
        if self.closed:
            return
        self.closed = True
        try:
            if cancel and self.pending:
                # running tasks finish their chunks; those not started are dropped
                self.client.cancel(list(self.pending))
        finally:
            self.client.close()


def connect(address: str, timeout: float = CONNECT_TIMEOUT,
            say: Optional[Callable[[str], None]] = None):
    """A Dask client of the scheduler at ``address`` (checked by :func:`check_address`),
    reached within ``timeout`` seconds all told, or one :class:`BatchError`: "connection
    refused" at once where nothing listens at a ``tcp://`` address, "no answer within
    ``timeout`` s" only when that long has passed (an address that drops the connection's
    packets, or a server there that never answers Dask's handshake), else what went wrong.
    ``say(text)``, if given, hears that the scheduler is being reached, unless the answer came
    within :data:`QUIET` seconds without a connection (a refusal, an unknown host)."""
    deadline = time.monotonic() + timeout
    said = False

    def word() -> None:
        nonlocal said
        if say is not None and not said:
            said = True
            say(f"connecting to the Dask scheduler at {address} (at most {timeout:g} s)...")

    def unreachable(why: str) -> BatchError:
        return BatchError(f"cannot reach the Dask scheduler at {address}: {why}")

    target = _tcp_target(address)
    if target is not None:
        # Dask's connect retries a refused connection until its timeout, then says it timed
        # out: a plain connection first tells a refusal at once
        failed = _knock(*target, timeout, deadline, word)
        if failed is not None:
            raise unreachable(failed)
    word()
    try:
        return _client(address, timeout, deadline)
    except Exception as exc:
        # Dask says "Timed out ... after T s" of the time it was given: say the time stated,
        # and only once it has passed
        if isinstance(exc, (TimeoutError, asyncio.TimeoutError)) or time.monotonic() >= deadline:
            why = f"no answer within {timeout:g} s"
        elif isinstance(exc, (OSError, ValueError)):
            why = error_text(exc)
        else:  # a server there that does not speak Dask's protocol
            why = f"no Dask scheduler answered ({type(exc).__name__}: {error_text(exc)})"
        raise unreachable(why) from None


def _tcp_target(address: str) -> Optional[tuple[str, int]]:
    """``(host, port)`` of a ``tcp://`` scheduler's address (or one with no protocol), None
    for any other protocol; ``address`` passed :func:`check_address`."""
    protocol, sep, rest = address.strip().partition("://")
    if not sep:
        protocol, rest = "tcp", address.strip()
    if protocol != "tcp":
        return None
    host, _, port = rest.rpartition(":")
    return host.strip("[]"), int(port)


def _knock(host: str, port: int, timeout: float, deadline: float,
           word: Callable[[], None]) -> Optional[str]:
    """Open a TCP connection to ``host:port`` and close it, giving up at ``deadline`` (a
    :func:`time.monotonic` time, ``timeout`` seconds after the connecting began); ``word()``
    once the answer has taken :data:`QUIET` seconds, or once connected.  None if it
    connected, else why not, in words."""
    quiet = time.monotonic() + QUIET
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        return f"unknown host {host!r} ({error_text(exc)})"
    errors = []
    for family, kind, proto, _, where in infos:
        with socket.socket(family, kind, proto) as s, selectors.DefaultSelector() as sel:
            s.setblocking(False)
            err = s.connect_ex(where)
            sel.register(s, selectors.EVENT_WRITE)
            while err in (errno.EINPROGRESS, errno.EWOULDBLOCK, errno.EALREADY):
                now = time.monotonic()
                if now >= deadline:
                    return f"no answer within {timeout:g} s"
                if now >= quiet:
                    word()
                if sel.select((deadline if now >= quiet else min(quiet, deadline)) - now):
                    err = s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
        if err == 0:
            word()
            return None
        errors.append(err)
    if errors and all(e == errno.ECONNREFUSED for e in errors):
        return "connection refused"
    return (os.strerror(errors[0]).lower() if errors else
            f"unknown host {host!r} (no address)")


def _client(address: str, timeout: float, deadline: float):
    """A Dask client of the scheduler at ``address``, connected by ``deadline`` (a
    :func:`time.monotonic` time) or a :class:`TimeoutError`: Dask's own timeout bounds each
    attempt to connect, not its handshake, which waits for ever on a server that accepts the
    connection and never answers.  ``timeout`` stays the client's timeout of later calls.

    One that could not connect is left closed: Dask's own would try to close it again when
    collected, and stall there (twice the timeout) before printing an "Exception ignored"
    traceback."""
    from distributed import Client

    class QuietClient(Client):
        def __init__(self, *args, **kwargs):
            try:
                super().__init__(*args, **kwargs)
            except BaseException:
                self.status = "closed"  # nothing to close when it is collected
                try:
                    self._loop_runner.stop()
                except Exception:  # pragma: no cover - Dask's internals: best effort
                    pass
                raise

        def start(self, **kwargs):
            # the time left, for the connection and the handshake and all that follows,
            # whatever the time each is given
            left = max(deadline - time.monotonic(), 0.001)
            return super().start(**{**kwargs, "timeout": left, "callback_timeout": left})

    return QuietClient(address, timeout=timeout, set_as_default=False)


def run_on_cluster(cluster: Cluster, directory: Directory, plan: Plan, todo, budget: int,
                   solver_version: str, on_chunk) -> None:
    """Send the chunks ``todo`` (an iterable of indices) to the cluster's workers, a window at a
    time; ``on_chunk(index, counts)`` for each chunk written.  Closes ``cluster``."""
    todo = iter(todo)
    inflight: dict = {}
    try:
        while True:
            for index in todo:
                numbers = plan.chunk(index)
                f = cluster.submit(solve_chunk, directory.where, index, numbers, budget,
                                   plan.piece_size, solver_version, directory.lines,
                                   key=f"halfmoon-chunk-{index:06d}")
                inflight[f] = index
                if len(inflight) >= cluster.window:
                    break
            if not inflight:
                break
            for f in cluster.wait():
                index = inflight.pop(f)
                try:
                    summary = f.result()
                except BatchError:
                    raise
                except Exception as exc:
                    raise _task_failed(exc, plan.chunk(index)) from None
                if not directory.has_chunk(index):
                    raise BatchError(
                        f"a worker ({summary['worker']}) wrote {chunk_name(index)} where this"
                        f" process cannot see it: --out {directory.path} must be a shared"
                        " filesystem or a URL that every worker and this process reach")
                on_chunk(index, Counter(summary["counts"]))
    except BaseException:
        cluster.close(cancel=True)
        raise
    cluster.close(cancel=False)


def _task_failed(exc: BaseException, numbers: Sequence[int]) -> BatchError:
    deals = f"deals {numbers[0]}..{numbers[-1]}" if len(numbers) > 1 else f"deal {numbers[0]}"
    if type(exc).__name__ == "KilledWorker":
        return BatchError(f"workers died (out of memory?) each time they solved {deals}")
    return worker_failed(exc, numbers)
