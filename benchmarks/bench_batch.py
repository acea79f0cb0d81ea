"""Benchmark of batch checking: the same deals with 1 worker and with 2 workers (or any).

Each run is a fresh ``python -m halfmoon batch`` into an empty directory, timed from
start to exit, so the figures include what a user waits for: starting Python and the
worker processes, loading the compiled solver (compiled beforehand, untimed).  Prints
deals per second for each run and the speed-up of the last over the first (target: 2
workers at least 1.9 times 1 worker; N workers at least 85 % of N times 1 worker), checks
that the runs found the same results, and writes everything to ``--json`` (default
``benchmarks/results/new/batch.json``, not kept in git).

The speed-up needs two free cores.  To tell a slow batch from a busy machine, each run
also records the CPU time of all its processes (sampled from /proc on Linux) and the
machine's load average: with 2 workers the CPU time should stay close to that of 1 worker.
``--control`` also measures what the machine itself allows: the bare solver
(``solver.solve_numbers``, no batch at all) on the same deals in one process, then the
deals split between N processes running at once.  On a machine whose cores slow each other
down (shared caches, a virtual machine's cores) the control's speed-up is the ceiling no
batch can pass.

    python benchmarks/bench_batch.py                   # deals 0-1,999, budget 200,000
    python benchmarks/bench_batch.py --deals 500 --budget 50000
    python benchmarks/bench_batch.py --random 100000 --seed 7 --chunk-size 0   # as a user runs
    python benchmarks/bench_batch.py --random 200000 --seed 7 --workers 1 16 --chunk-size 0
    python benchmarks/bench_batch.py --random 100000 --seed 7 --chunk-size 0 --control
    python benchmarks/bench_batch.py --random 30000 --seed 7 --chunk-size 0 --rounds 3

``--rounds R`` (R of at least 2) alternates the four runs (the batch with the first and the
last number of workers, the bare solver in as many processes) R times on the same deals,
the order turned round each round, so that the machine's swings fall on all four alike; it
prints each round's speed-ups and their medians.  With ``--base REV`` the other two runs
are the batch of git revision REV instead of the bare solver (its ``halfmoon/`` and
``solver/`` extracted into a temporary directory, compiled there first, untimed): the
working tree against a base, side by side.

    python benchmarks/bench_batch.py --random 30000 --seed 7 --chunk-size 0 --rounds 4 --base HEAD~1
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

from halfmoon.batch import default_workers
from halfmoon.batch.results import load_results
from solver import SOLVER_VERSION

HERE = Path(__file__).resolve().parent
TARGET = 0.95  # of the ideal speed-up: 1.9 times for 2 workers (85 % beyond, see main)


def group_cpu(pgid: int) -> dict[int, float]:
    """CPU seconds (user + system) so far of each process in a process group (Linux)."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[2]) == pgid:
            out[int(stat.parent.name)] = (int(fields[11]) + int(fields[12])) / tick
    return out


def run(workers: int, deals: int, budget: int, chunk_size: int, out: Path,
        seed: Optional[int] = None, home: Optional[Path] = None):
    """One run of ``halfmoon batch`` on deals 0 to ``deals``-1, or on ``deals`` random deals of
    ``seed``; ``chunk_size`` 0: the one the run chooses; ``home``: a directory holding another
    version's ``halfmoon/`` and ``solver/``, run instead of the installed ones."""
    what = ["--range", f"0:{deals}"] if seed is None else ["--random", str(deals), "--seed",
                                                          str(seed)]
    cmd = [sys.executable, "-m", "halfmoon", "batch", *what, "--out", str(out),
           "--budget", str(budget), "--workers", str(workers)]
    if chunk_size:
        cmd += ["--chunk-size", str(chunk_size)]
    cpu: dict[int, float] = {}
    t0 = time.perf_counter()
    env = None if home is None else dict(os.environ, PYTHONPATH=str(home))
    # python -m puts its working directory first on the path: the version's own, or this one's
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env=env, cwd=home)
    while proc.poll() is None:
        for pid, seconds in group_cpu(proc.pid).items():
            cpu[pid] = max(cpu.get(pid, 0.0), seconds)
        time.sleep(0.1)
    wall = time.perf_counter() - t0
    _, stderr = proc.communicate()
    if proc.returncode != 0:
        sys.exit(f"bench_batch: {' '.join(cmd)} failed:\n{stderr}")
    df = load_results(out)
    counts = df["verdict"].value_counts()
    solver = float(df["seconds"].sum())
    result = {
        "workers": workers,
        "seconds": round(wall, 3),
        "deals_per_s": round(deals / wall, 2),
        # CPU time of the run and its workers (sampled every 0.1 s).
        "cpu_seconds": round(sum(cpu.values()), 2),
        # of which the run's main process (with 1 worker it solves too)
        "main_cpu_seconds": round(cpu.get(proc.pid, 0.0), 2),
        # Time inside solve(), summed over deals: more than the CPU time when the
        # workers waited for a core.
        "solver_seconds": round(solver, 2),
        "win": int(counts.get("win", 0)),
        "loss": int(counts.get("loss", 0)),
        "unresolved": int(counts.get("unresolved", 0)),
    }
    return result, df.drop(columns="seconds")


CONTROL = """
import sys, time
from halfmoon.game.codes import random_numbers
from solver import solve_numbers
deals, seed, budget, part, parts = map(int, sys.argv[1:])
numbers = random_numbers(deals, seed)[part::parts] if seed >= 0 else list(range(part, deals, parts))
solve_numbers(numbers[:2], budget)  # load the compiled solver before the clock starts
print("ready", flush=True)
sys.stdin.readline()
t0 = time.perf_counter()
for i in range(0, len(numbers), 1000):
    solve_numbers(numbers[i:i + 1000], budget)
print(time.perf_counter() - t0, flush=True)
"""


def control(processes: int, deals: int, budget: int, seed: Optional[int]) -> float:
    """Wall seconds for ``processes`` bare solver processes, started together, to solve the
    deals between them (each loads the solver first, untimed)."""
    procs = [subprocess.Popen([sys.executable, "-c", CONTROL, str(deals),
                               str(-1 if seed is None else seed), str(budget), str(k),
                               str(processes)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for k in range(processes)]
    for p in procs:
        assert p.stdout.readline().strip() == "ready"
    t0 = time.perf_counter()
    for p in procs:
        p.stdin.write("go\n")
        p.stdin.flush()
    for p in procs:
        p.stdout.read()
        if p.wait() != 0:
            sys.exit("bench_batch: a control process failed")
    return time.perf_counter() - t0


def extract(rev: str, into: Path) -> str:
    """Revision ``rev``'s ``halfmoon/`` and ``solver/`` written under ``into``; its commit."""
    import io
    import tarfile

    root = HERE.parent
    try:
        commit = subprocess.run(["git", "-C", str(root), "rev-parse", "--verify",
                                 f"{rev}^{{commit}}"],
                                capture_output=True, text=True, check=True).stdout.strip()
        archive = subprocess.run(["git", "-C", str(root), "archive", commit, "halfmoon",
                                  "solver"], capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        sys.exit(f"bench_batch: no halfmoon/ and solver/ at revision {rev!r} of this repository")
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return commit


def versus(args, deals: int, seed: Optional[int]) -> None:
    """--base with --rounds: the working tree's batch and the base's, with the first and the
    last number of workers, alternated; each round's speed-ups and the medians."""
    import statistics

    first, last = args.workers[0], args.workers[-1]
    table = []
    with tempfile.TemporaryDirectory(prefix="bench_batch_") as tmp:
        home = Path(tmp) / "base"
        commit = extract(args.base, home)
        homes = {"work": None, "base": home}
        for name, where in homes.items():  # compiled into each version's cache, untimed
            run(1, 2, 1000, args.chunk_size, Path(tmp) / f"warm-up-{name}", home=where)
        for r in range(args.rounds):
            order = [(v, n) for v in homes for n in (first, last)]
            walls = {}
            for v, n in order if r % 2 == 0 else order[::-1]:
                result, _ = run(n, deals, args.budget, args.chunk_size,
                                Path(tmp) / f"r{r}{v}{n}", seed, homes[v])
                walls[v, n] = result["seconds"]
            row = {"round": r + 1, **{f"{v}_{n}": round(w, 3) for (v, n), w in walls.items()},
                   **{f"{v}_speedup": round(walls[v, first] / walls[v, last], 3) for v in homes}}
            table.append(row)
            print(f"round {r + 1}: working tree {walls['work', first]:.2f} /"
                  f" {walls['work', last]:.2f} s = {row['work_speedup']:.2f}x; base"
                  f" {commit[:8]} {walls['base', first]:.2f} / {walls['base', last]:.2f} s ="
                  f" {row['base_speedup']:.2f}x", flush=True)
    med = {k: statistics.median(t[k] for t in table) for k in table[0] if k != "round"}
    print(f"medians: working tree {med[f'work_{first}']:.2f} / {med[f'work_{last}']:.2f} s,"
          f" speed-up {med['work_speedup']:.2f}x; base {med[f'base_{first}']:.2f} /"
          f" {med[f'base_{last}']:.2f} s, speed-up {med['base_speedup']:.2f}x")
    report = {"benchmark": "batch-versus", "date": datetime.now(timezone.utc).isoformat(
              timespec="seconds"), "deals": deals, "random_seed": seed, "budget": args.budget,
              "workers": [first, last], "base": commit, "python": platform.python_version(),
              "rounds": table, "medians": {k: round(v, 3) for k, v in med.items()}}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written {args.json}")


def rounds(args, deals: int, seed: Optional[int]) -> None:
    """--rounds: the batch and the bare solver with the first and last worker counts, in
    alternating order, ``args.rounds`` times; each round's speed-ups and their medians."""
    import statistics

    first, last = args.workers[0], args.workers[-1]
    table = []
    with tempfile.TemporaryDirectory(prefix="bench_batch_") as tmp:
        run(1, 2, 1000, args.chunk_size, Path(tmp) / "warm-up")
        for r in range(args.rounds):
            order = ["batch", "bare"] if r % 2 == 0 else ["bare", "batch"]
            walls: dict[tuple[str, int], float] = {}
            main_cpu: dict[int, float] = {}
            for kind in order:
                for n in (first, last) if r % 2 == 0 else (last, first):
                    if kind == "batch":
                        result, _ = run(n, deals, args.budget, args.chunk_size,
                                        Path(tmp) / f"r{r}w{n}", seed)
                        walls[kind, n] = result["seconds"]
                        main_cpu[n] = result["main_cpu_seconds"]
                    else:
                        walls[kind, n] = control(n, deals, args.budget, seed)
            row = {"round": r + 1, **{f"{k}_{n}": round(v, 3) for (k, n), v in walls.items()},
                   "batch_speedup": round(walls["batch", first] / walls["batch", last], 3),
                   "bare_speedup": round(walls["bare", first] / walls["bare", last], 3),
                   **{f"main_cpu_{n}": v for n, v in main_cpu.items()}}
            table.append(row)
            print(f"round {r + 1}: batch {walls['batch', first]:.2f} / {walls['batch', last]:.2f} s"
                  f" = {row['batch_speedup']:.2f}x; bare solver {walls['bare', first]:.2f} /"
                  f" {walls['bare', last]:.2f} s = {row['bare_speedup']:.2f}x; the batch's main"
                  f" process {main_cpu[last]:.1f} s of CPU with {last} workers", flush=True)
    batch = statistics.median(t["batch_speedup"] for t in table)
    bare = statistics.median(t["bare_speedup"] for t in table)
    print(f"median speed-up {last} / {first}: batch {batch:.2f}x, bare solver {bare:.2f}x"
          f" (the machine's ceiling); the batch reaches {batch / bare:.0%} of it")
    report = {"benchmark": "batch-rounds", "date": datetime.now(timezone.utc).isoformat(
              timespec="seconds"), "deals": deals, "random_seed": seed, "budget": args.budget,
              "workers": [first, last], "solver_version": SOLVER_VERSION,
              "python": platform.python_version(), "rounds": table,
              "median_batch_speedup": round(batch, 3), "median_bare_speedup": round(bare, 3)}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written {args.json}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000, help="deals 0 to N-1 (default: 2000)")
    ap.add_argument("--budget", type=int, default=200_000,
                    help="positions per deal (default: 200000)")
    ap.add_argument("--chunk-size", type=int, default=250, help="0: as the run chooses")
    ap.add_argument("--random", type=int, default=None, metavar="N",
                    help="N random deals (of --seed) instead of deals 0 to --deals - 1")
    ap.add_argument("--seed", type=int, default=20261204)
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2],
                    help="worker counts to run, the first the baseline (default: 1 2)")
    ap.add_argument("--json", type=Path, default=HERE / "results" / "new" / "batch.json")
    ap.add_argument("--control", action="store_true",
                    help="also time the bare solver in 1 and N processes (the machine's ceiling)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="at least 2: the batch and the bare solver alternated this many times")
    ap.add_argument("--base", metavar="REV",
                    help="with --rounds: alternate with the batch of this git revision instead"
                    " of the bare solver")
    args = ap.parse_args()
    if args.base is not None and args.rounds < 2:
        ap.error("--base goes with --rounds (at least 2)")
    if args.base is not None:
        versus(args, args.deals if args.random is None else args.random,
               None if args.random is None else args.seed)
        return
    if args.rounds > 1:
        rounds(args, args.deals if args.random is None else args.random,
               None if args.random is None else args.seed)
        return

    runs, frames, loads = [], [], [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="bench_batch_") as tmp:
        # Untimed: compile the solver's kernels into numba's cache if they are not there
        # yet, so that neither timed run pays for it.
        run(1, 2, 1000, args.chunk_size, Path(tmp) / "warm-up")
        deals = args.deals if args.random is None else args.random
        seed = None if args.random is None else args.seed
        for workers in args.workers:
            result, frame = run(workers, deals, args.budget, args.chunk_size,
                                Path(tmp) / f"w{workers}", seed)
            loads.append(os.getloadavg()[0])
            runs.append(result)
            frames.append(frame)
            print(f"{workers} worker{'s' if workers > 1 else ' '}: {deals} deals in "
                  f"{result['seconds']:7.2f} s"
                  f" = {result['deals_per_s']:7.2f} deals/s  (win {result['win']}, "
                  f"loss {result['loss']},"
                  f" unresolved {result['unresolved']}; CPU {result['cpu_seconds']:.1f} s"
                  f" (main process {result['main_cpu_seconds']:.1f} s),"
                  f" in solve() {result['solver_seconds']:.1f} s)")
    speedup = runs[-1]["deals_per_s"] / runs[0]["deals_per_s"]
    ideal = args.workers[-1] / args.workers[0]
    target = (TARGET if args.workers[-1] <= 2 else 0.85) * ideal
    identical = all(frames[0].equals(f) for f in frames[1:])
    cpu_ratio = runs[-1]["cpu_seconds"] / runs[0]["cpu_seconds"]
    verdict = "meets" if speedup >= target else "misses"
    names = f"{args.workers[-1]} workers / {args.workers[0]}"
    print(f"speed-up {names}: {speedup:.2f}x ({verdict} the {target:.2f}x target);"
          f" results identical: {identical}")
    print(f"CPU time {names}: {cpu_ratio:.2f}; load average {loads[0]:.1f} before,"
          f" {loads[-1]:.1f} after, on {os.cpu_count()} cores")
    controls = None
    if args.control:
        first, last = args.workers[0], args.workers[-1]
        walls = {n: control(n, deals, args.budget, seed) for n in (first, last)}
        ceiling = walls[first] / walls[last]
        controls = {"processes": [first, last],
                    "seconds": [round(walls[first], 3), round(walls[last], 3)],
                    "speedup": round(ceiling, 3),
                    "batch_of_ceiling": round(speedup / ceiling, 3)}
        print(f"control, the bare solver on the same deals: {first} process {walls[first]:.2f} s,"
              f" {last} processes at once {walls[last]:.2f} s = {ceiling:.2f}x, the machine's"
              f" ceiling; the batch reaches {speedup / ceiling:.0%} of it")
    if loads[0] > 0.5 * (os.cpu_count() or 1):
        # the load after the runs is the benchmark's own; only the load before tells
        print("note: the machine was already busy before the runs; the speed-up may be understated")
    report = {
        "benchmark": "batch",
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "deals": deals,
        "random_seed": seed,
        "budget": args.budget,
        "chunk_size": args.chunk_size,
        "solver_version": SOLVER_VERSION,
        "cores": default_workers(),
        "load_average": [round(x, 2) for x in loads],  # before, after 1 worker, after 2 workers
        "python": platform.python_version(),
        "runs": runs,
        "speedup": round(speedup, 3),
        "target": round(target, 3),
        "meets_target": speedup >= target,
        "cpu_ratio_last_to_first": round(cpu_ratio, 3),
        "results_identical": identical,
        "control": controls,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written {args.json}")


if __name__ == "__main__":
    main()
