"""Where a run's pieces of deals are solved: in this process or in local worker processes
(a Dask cluster is :mod:`.cluster`); and how a worker solves a piece, into rows or straight
into the columns of a results file."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
from concurrent import futures as cf
from typing import TYPE_CHECKING, Sequence

from .errors import BatchError
from .results import error_text, piece_rows

if TYPE_CHECKING:  # pragma: no cover
    import pyarrow as pa

    from .columns import Solved

# The solver's transposition tables are module-wide, so a process runs one search at a
# time (the kernels hold the GIL anyway: threads would not run searches side by side).
_solve_lock = threading.Lock()
_warm = False


def warm_up() -> None:
    """Load the compiled solver (compiling it on a cold cache, once for every process that
    shares the cache) and fault its tables in, so that no deal's time includes them."""
    from solver import warm_up as load

    global _warm
    with _solve_lock:
        if not _warm:
            load()
            _warm = True


def solve_piece(numbers: Sequence[int], budget: int) -> list[dict]:
    """Solve deals (by number) and return their result rows; runs in a worker.  The
    whole piece goes to compiled code (:func:`solver.solve_numbers`)."""
    from solver import solve_numbers

    warm_up()
    with _solve_lock:
        return piece_rows(solve_numbers(numbers, budget), budget)


def solve_arrays(numbers: Sequence[int], budget: int, lines: bool = True) -> "Solved":
    """Solve deals (by number) into the arrays a results file is made of
    (:class:`.columns.Solved`), without the winning lines if ``lines`` is false; runs in a
    worker.  The solver's own arrays, cut down: no row is made."""
    from solver import solve_numbers

    from .columns import solved

    warm_up()
    with _solve_lock:
        piece = solve_numbers(numbers, budget)
    return solved(piece, lines)


def solve_table(numbers: Sequence[int], budget: int, lines: bool = True) -> "pa.Table":
    """Solve deals (by number) into the table of :data:`.results.SCHEMA` that a chunk file
    stores, sorted by deal (:func:`solve_arrays`, then :func:`.columns.chunk_tables`)."""
    from solver import SOLVER_VERSION

    from .columns import chunk_tables

    return chunk_tables([solve_arrays(numbers, budget, lines)], budget, SOLVER_VERSION)[0]


def worker_failed(exc: Exception, numbers: Sequence[int]) -> BatchError:
    deals = f"deals {numbers[0]}..{numbers[-1]}" if len(numbers) > 1 else f"deal {numbers[0]}"
    if isinstance(exc, cf.BrokenExecutor):
        return BatchError(f"a worker process died (out of memory?) solving {deals}")
    return BatchError(f"solving {deals} failed: {type(exc).__name__}: {error_text(exc)}")


def _init_pool_worker(parent: int) -> None:
    # Ctrl-C reaches the whole process group: the parent stops the workers itself.  (A
    # worker of :func:`stoppable_pool` starts with it blocked: one that came meanwhile is
    # dropped here, ignored.)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    # A parent killed with kill -9 cannot stop them: each one leaves by itself (after
    # its current deal) instead of waiting for work forever.
    threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _exit_with(pid: int, every: float = 1.0) -> None:
    while alive(pid):
        time.sleep(every)
    os._exit(1)


def alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie does not)."""
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


def default_workers() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


@contextlib.contextmanager
def _ctrl_c_held():
    """SIGINT blocked in this thread within the block: a process started meanwhile begins
    with it blocked (the mask is kept across exec), and a Ctrl-C meanwhile comes when the
    block ends."""
    block = hasattr(signal, "pthread_sigmask")
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT}) if block else None
    try:
        yield
    finally:
        if block:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)


@contextlib.contextmanager
def _ctrl_c_after():
    """Ctrl-C within the block raises KeyboardInterrupt when the block ends (in the main
    thread; elsewhere no signal comes)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught = []
    before = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)
    if caught:
        raise KeyboardInterrupt


class _Call:
    """A call of ``fn(*args)`` put off until its result is asked for."""

    __slots__ = ("fn", "args")

    def __init__(self, fn, args) -> None:
        self.fn, self.args = fn, args


class InProcess:
    """Tasks run in this process, one by one, when they are waited for."""

    window = 1

    def submit(self, fn, *args):
        return _Call(fn, args)

    def wait(self, handles):
        return handles

    def result(self, handle):
        return handle.fn(*handle.args)

    def close(self, cancel: bool) -> None:
        pass


class Pool:
    """Local worker processes (forkserver where there is one: no inherited lock or threads)."""

    def __init__(self, workers: int) -> None:
        self.window = 4 * workers
        self.start_early()  # if not started yet, with Ctrl-C kept from it (below)
        self.executor = cf.ProcessPoolExecutor(
            workers, mp_context=self.context(), initializer=_init_pool_worker,
            initargs=(os.getpid(),)
        )

    @staticmethod
    def context():
        if "forkserver" not in multiprocessing.get_all_start_methods():  # pragma: no cover
            return multiprocessing.get_context("spawn")
        ctx = multiprocessing.get_context("forkserver")
        # Import numba and load the kernels once, in the server, not in every worker.
        ctx.set_forkserver_preload([__name__, f"{__package__}.local", f"{__package__}.preload"])
        return ctx

    @classmethod
    def start_early(cls) -> None:
        """Start the fork server now, so that its loading of the solver overlaps this
        process's work: the workers forked from it start solving at once."""
        if cls.context().get_start_method() == "forkserver":
            from multiprocessing import forkserver, resource_tracker

            # The server ignores Ctrl-C only once it has loaded its modules: started with
            # SIGINT blocked (a mask is kept across exec), it never prints a traceback of its
            # loading; the run stops it, and its workers, itself.  Blocked here meanwhile, a
            # Ctrl-C waits and is raised when this ends (ignored, it would be lost).  The
            # resource tracker first: starting, it unblocks SIGINT behind it.
            resource_tracker.ensure_running()
            with _ctrl_c_held():
                forkserver.ensure_running()

    def submit(self, fn, *args):
        # a submit may start a worker: Ctrl-C amid it would leave one starting that the run
        # does not know of, to fail with a traceback once the run is gone
        with _ctrl_c_after():
            return self.executor.submit(fn, *args)

    def wait(self, handles):
        return cf.wait(handles, return_when=cf.FIRST_COMPLETED).done

    def result(self, handle):
        return handle.result()

    def close(self, cancel: bool) -> None:
        if cancel:
            stop_workers(self.executor)
        else:
            self.executor.shutdown(wait=True)


def stop_workers(executor: cf.ProcessPoolExecutor) -> None:
    """Stop ``executor``'s workers now, amid their tasks, and cancel the tasks left."""
    procs = list((getattr(executor, "_processes", None) or {}).values())
    # shutdown(wait=False) forgets the executor's manager thread, so a later
    # shutdown(wait=True) no longer joins it; joined here instead, or it may still
    # be closing its wake-up pipe while the interpreter's exit hook writes to it
    # ("Bad file descriptor" at exit, seen about once in ten interrupted runs)
    manager = getattr(executor, "_executor_manager_thread", None)
    results = getattr(executor, "_result_queue", None)
    executor.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        p.terminate()
    for p in procs:
        p.join()
    # A worker stopped amid sending a result leaves the manager thread waiting for the
    # rest for ever (and the interpreter's exit joins it): with the workers gone, this
    # was the pipe's last writer, and closing it ends the wait.
    if results is not None:
        results._writer.close()
    if manager is not None:
        manager.join(timeout=30)


class _Stoppable:
    """A process pool's ``submit``, with Ctrl-C held back while it may start a worker."""

    def __init__(self, executor: cf.ProcessPoolExecutor) -> None:
        self.executor = executor

    def submit(self, fn, *args, **kwargs) -> cf.Future:
        # a worker started now begins with Ctrl-C held back: none prints a traceback of
        # its start
        with _ctrl_c_held():
            return self.executor.submit(fn, *args, **kwargs)


@contextlib.contextmanager
def stoppable_pool(workers: int):
    """``workers`` spawned processes whose ``submit`` is the executor's; leaving the block
    by an exception (Ctrl-C among them) stops the workers at once instead of letting them
    finish every task submitted.  The workers ignore Ctrl-C: the parent stops them."""
    executor = cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                      initializer=_init_pool_worker, initargs=(os.getpid(),))
    try:
        yield _Stoppable(executor)
    except BaseException:
        stop_workers(executor)
        raise
    executor.shutdown(wait=True)
