"""The solver processes: answers, the time limit, what is dropped, and a clean stop."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from board_helpers import EXAMPLE, shared_pool

from halfmoon.board.pool import Job, SolverPool
from halfmoon.game.deal import Deal
from halfmoon.game.layouts import format_layout


class Answers:
    """Collects (key, answer) from a pool thread; ``wait`` blocks for the n-th."""

    def __init__(self) -> None:
        self.got: list[tuple] = []
        self._cond = threading.Condition()

    def __call__(self, job: Job, answer: dict) -> None:
        with self._cond:
            self.got.append((job.key, answer))
            self._cond.notify_all()

    def wait(self, n: int, timeout: float = 120) -> list[tuple]:
        with self._cond:
            assert self._cond.wait_for(lambda: len(self.got) >= n, timeout), self.got
            return list(self.got)


def solve_work(deal: Deal, budget: int = 100_000) -> tuple:
    return ("solve", format_layout(deal), budget)


def test_a_job_is_answered_by_a_solver_process():
    answers = Answers()
    shared_pool().want("test-answer", [Job("example", solve_work(EXAMPLE))], answers)
    [(key, answer)] = answers.wait(1)
    assert key == "example" and answer["verdict"] == "win" and len(answer["moves"]) == 3


def test_a_job_over_the_time_limit_is_stopped_and_the_pool_goes_on():
    # Deal 3658319909, a loss the grouping search proves after over a million positions and
    # conflicts (seconds), is far over the 0.05 s allowed here.
    with SolverPool(seconds=0.05) as pool:
        answers = Answers()
        pool.want("me", [Job("slow", solve_work(Deal.from_number(3658319909), 5_000_000)),
                         Job("quick", ("pick", "nothing", 0, 1, 1))], answers)
        got = dict(answers.wait(2))
        assert got["slow"]["verdict"] == "unresolved"
        assert got["slow"]["reason"] == "time limit of 0.05 s"
        assert got["quick"]["error"].startswith("unknown kind of deal")  # a new process answered
        assert pool.timeouts == 1 and pool.started_processes == 2


def test_a_new_list_replaces_the_waiting_one_and_the_last_caller_goes_first():
    pool = SolverPool()  # not started: only its order is looked at
    noop = lambda job, answer: None  # noqa: E731
    pool.want("a", [Job(1, ()), Job(2, ())], noop)
    pool.want("b", [Job(3, ())], noop)
    pool.want("a", [Job(4, ()), Job(5, ())], noop)  # jobs 1 and 2 are dropped
    assert pool.waiting() == 3
    assert [pool._next()[0].key for _ in range(3)] == [4, 5, 3]


def test_a_job_already_running_is_not_run_twice():
    pool = SolverPool()
    first, second = Answers(), Answers()
    pool.want("a", [Job("k", ())], first)
    job, done = pool._next()
    pool.want("b", [Job("k", ()), Job("other", ())], second)
    assert pool._next()[0].key == "other"  # "k" is running: b waits for it instead
    assert [d for _, d in pool._running["k"]] == [first, second]


def test_close_stops_the_processes():
    pool = SolverPool().start()
    answers = Answers()
    pool.want("me", [Job("x", solve_work(EXAMPLE))], answers)
    answers.wait(1)
    procs = [p for p in pool._procs if p is not None]
    assert procs and all(p.is_alive() for p in procs)
    pool.close()
    assert not any(p.is_alive() for p in procs)
    pool.want("me", [Job("y", solve_work(EXAMPLE))], answers)  # ignored once closed
    assert pool.waiting() == 0


def test_bad_pools_are_refused():
    with pytest.raises(ValueError, match="at least one worker"):
        SolverPool(workers=0)
    with pytest.raises(ValueError, match="time limit must be positive"):
        SolverPool(seconds=0)


def test_a_started_pool_starts_its_process_before_any_job(monkeypatch):
    """The solver process is started (and its kernels loaded) with the pool, not at the
    first job; while it starts on a cold cache the pool says it is preparing."""
    import time

    from board_helpers import cold_worker

    import halfmoon.board.pool as pool_module

    monkeypatch.setattr(pool_module, "worker_main", cold_worker)  # as on a cold cache
    pool = SolverPool().start()
    try:
        seen = []
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            seen.append(pool.preparing)
            if pool.started_processes == 1 and not pool.preparing and seen[-2:-1] == [True]:
                break
            time.sleep(0.01)
        assert True in seen and seen[-1] is False  # preparing while it started, not after
        assert pool.waiting() == 0 and pool.started_processes == 1
        assert pool._procs[0] is not None and pool._procs[0].is_alive()
    finally:
        pool.close()


def test_the_server_process_never_loads_the_solver():
    """The solver is loaded in the solver processes only: the board's own process stays
    light (numba alone makes a process's exit take seconds)."""
    import subprocess
    import sys
    from pathlib import Path

    code = f"""
import sys, threading
from halfmoon.board.pool import Job, SolverPool
answered = threading.Event()
with SolverPool() as pool:
    pool.want("me", [Job("x", {solve_work(EXAMPLE)!r})], lambda job, answer: answered.set())
    answered.wait(240)
print(answered.is_set(), "numba" in sys.modules)
"""
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, cwd=root)
    assert out.stdout.split() == ["True", "False"], out.stderr


def test_a_board_killed_outright_leaves_none_of_its_solver_processes(tmp_path):
    """``kill -9`` of the board's process runs none of its clean-up: its solver process
    sees it gone and ends with what it started (on a cold cache, the helpers compiling
    the kernels, which would compile on for a minute), within moments."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    from process_groups import members, wait_for_no_live_members

    code = """
import time
from halfmoon.board.pool import SolverPool
pool = SolverPool().start()
print("serving", flush=True)
time.sleep(600)
"""
    # an empty cache: the kernels are compiled, in two helpers of the solver process
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=root, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            start_new_session=True)

    def others() -> list[int]:
        return [pid for pid in members(proc.pid, session=True) if pid != proc.pid]

    def compiling() -> bool:
        for pid in others():
            try:
                if b"solver.build.warmup" in Path(f"/proc/{pid}/cmdline").read_bytes():
                    return True
            except OSError:
                pass
        return False

    try:
        assert proc.stdout.readline().strip() == "serving"
        deadline = time.monotonic() + 60
        while not compiling() and time.monotonic() < deadline:
            time.sleep(0.1)
        started = others()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        left = wait_for_no_live_members(proc.pid, 15, session=True)
    assert len(started) >= 3  # the solver process and its two helpers
    assert left == []


# a fresh process's first solver process, started as the pool starts it (from a thread of
# the pool): its SIGINT at its start, before it sets its own handling
FIRST_START = """
import multiprocessing, sys, threading
from halfmoon.board.pool import _start_without_ctrl_c

def report(conn):
    status = open("/proc/self/status").read()
    conn.send(int(status.split("SigBlk:")[1].split()[0], 16))

if __name__ == "__main__":
    ctx = multiprocessing.get_context("spawn")
    here, there = ctx.Pipe()
    proc = ctx.Process(target=report, args=(there,))
    thread = threading.Thread(target=_start_without_ctrl_c, args=(proc,))
    thread.start()
    thread.join()
    print(here.recv())
    proc.join()
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_solver_process_starts_with_ctrl_c_blocked_even_the_first(tmp_path):
    """A Ctrl-C reaches the whole process group: one that came while a solver process loads
    was a traceback there and "solver process failed to start".  The first process of all
    starts multiprocessing's resource tracker, which unblocks SIGINT in the thread that starts
    it: the block must come after."""
    script = tmp_path / "first_start.py"
    script.write_text(FIRST_START)
    out = subprocess.run([sys.executable, str(script)], cwd=Path(__file__).resolve().parents[2],
                         capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert int(out.stdout) & (1 << (signal.SIGINT - 1)), out.stdout
