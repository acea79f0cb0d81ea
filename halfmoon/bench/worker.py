"""A benchmark's worker process: solves the blocks of deals it is sent, one at a time, and
answers with each deal's verdict, positions, settling search and times.

It is started as a script (``python worker.py``), not imported, so that a revision of the
toolkit checked out elsewhere runs its own ``solver`` and ``halfmoon`` in it (their folder
first on ``PYTHONPATH``): the worker uses only what every revision's front door has
(``solve_numbers``, ``solve``, ``solve_cpsat``, ``warm_up``, ``SOLVER_VERSION``), and the
standard library's ``json`` on its pipes.

The protocol, a JSON object a line each way:

- it first writes ``{"ready": true, "solver_version": …, "setup": seconds}`` (the kernels
  loaded or compiled before any deal is timed);
- then for each request ``{"engine": "solver" | "plain" | "cpsat", "numbers": [...],
  "budget": n, "piece": k, "limit": seconds}`` it writes ``{"rows": [[number, verdict,
  positions, solve seconds, whole seconds, settled by], ...], "wall": seconds}``; a deal's
  whole time is its solve time plus its share of what its piece cost besides (the calls,
  the rows), as a batch worker pays it; with ``"beside": true`` a baseline's block is solved
  by the solver too, at once on the same core, its rows under ``"beside"``;
- an empty line or the end of its input ends it.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time


def _solver_rows(solver, numbers, budget, piece):
    names = solver.VERDICT_NAMES
    rows = []
    for at in range(0, len(numbers), piece):
        part = numbers[at:at + piece]
        t0 = time.perf_counter()
        p = solver.solve_numbers(part, budget)
        verdicts = [names.get(int(v), "unresolved") for v in p.verdicts]
        wall = time.perf_counter() - t0
        rest = max(0.0, wall - float(p.seconds.sum())) / len(part)
        for j, n in enumerate(part):
            s = float(p.seconds[j])
            rows.append([int(n), verdicts[j], int(p.nodes[j]), s, s + rest, p.settled_by[j]])
    return rows


def _one_by_one(solve, numbers):
    rows = []
    for n in numbers:
        t0 = time.perf_counter()
        r = solve(int(n))
        whole = time.perf_counter() - t0
        rows.append([int(n), r.verdict, int(r.nodes), float(r.seconds), whole, r.settled_by])
    return rows


def serve(inp, out) -> int:
    t0 = time.perf_counter()
    # Ctrl-C is the parent's to handle: it stops its workers itself
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    import solver

    solver.warm_up()  # says on stderr when it compiles
    print(json.dumps({"ready": True, "solver_version": str(solver.SOLVER_VERSION),
                      "setup": time.perf_counter() - t0}), file=out, flush=True)
    for line in inp:
        if not line.strip():
            break
        req = json.loads(line)
        numbers = [int(n) for n in req["numbers"]]
        budget = int(req.get("budget") or solver.DEFAULT_BUDGET)
        engine = req.get("engine", "solver")
        t, c = time.perf_counter(), time.process_time()
        if engine == "solver":
            rows = _solver_rows(solver, numbers, budget, int(req.get("piece", 16)))
        elif engine == "plain":
            rows = _one_by_one(lambda n: solver.solve_plain(n, budget), numbers)
        elif engine == "cpsat":
            limit = req.get("limit")
            rows = _one_by_one(lambda n: solver.solve_cpsat(n, time_limit=limit), numbers)
        else:
            raise ValueError(f"unknown engine {engine!r}")
        answer = {"rows": rows, "wall": time.perf_counter() - t, "cpu": time.process_time() - c}
        if req.get("beside") and engine != "solver":  # the solver on the same deals, now
            answer["beside"] = _solver_rows(solver, numbers, solver.DEFAULT_BUDGET, 16)
        print(json.dumps(answer), file=out, flush=True)
    return 0


def _die_with_parent() -> None:
    """Where the system allows (Linux), this process is killed when its parent dies, even
    by ``kill -9``, though a block is under way (the solver's kernels hold the interpreter:
    no thread of this process could notice meanwhile)."""
    parent = os.getppid()
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: the end of its input ends it
        return
    if os.getppid() != parent:  # the parent died before the request took hold
        os._exit(1)


def main() -> int:
    _die_with_parent()
    try:
        return serve(sys.stdin, sys.stdout)
    except BrokenPipeError:  # the parent is gone (stopped, or killed): leave quietly
        try:
            sys.stdout = open(os.devnull, "w")  # nothing more to flush at exit
        except OSError:
            pass
        return 1


if __name__ == "__main__":
    sys.exit(main())
