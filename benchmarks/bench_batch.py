"""Benchmark of batch checking: the same deals with 1 worker and with 2 workers.

Each run is a fresh ``python -m halfmoon batch`` into an empty directory, timed from
start to exit, so the figures include what a user waits for: starting Python and the
worker processes, loading the compiled solver (compiled beforehand, untimed).  Prints
deals per second for each run and the speed-up (target: 2 workers at least 1.8 times
1 worker), checks that both runs found the same results, and writes everything to
benchmarks/results/batch.json.

The speed-up needs two free cores.  To tell a slow batch from a busy machine, each run
also records the CPU time of all its processes (sampled from /proc on Linux) and the
machine's load average: with 2 workers the CPU time should stay close to that of 1 worker.

    python benchmarks/bench_batch.py                   # deals 0-1,999, budget 200,000
    python benchmarks/bench_batch.py --deals 500 --budget 50000
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

from halfmoon.batch import default_workers
from halfmoon.batch.results import load_results
from solver import SOLVER_VERSION

HERE = Path(__file__).resolve().parent
TARGET = 1.8


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


def run(workers: int, deals: int, budget: int, chunk_size: int, out: Path):
    cmd = [sys.executable, "-m", "halfmoon", "batch", "--range", f"0:{deals}", "--out", str(out),
           "--budget", str(budget), "--workers", str(workers), "--chunk-size", str(chunk_size)]
    cpu: dict[int, float] = {}
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
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
        # Time inside solve(), summed over deals: more than the CPU time when the
        # workers waited for a core.
        "solver_seconds": round(solver, 2),
        "win": int(counts.get("win", 0)),
        "loss": int(counts.get("loss", 0)),
        "unresolved": int(counts.get("unresolved", 0)),
    }
    return result, df.drop(columns="seconds")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000, help="deals 0 to N-1 (default: 2000)")
    ap.add_argument("--budget", type=int, default=200_000,
                    help="positions per deal (default: 200000)")
    ap.add_argument("--chunk-size", type=int, default=250)
    ap.add_argument("--json", type=Path, default=HERE / "results" / "batch.json")
    args = ap.parse_args()

    runs, frames, loads = [], [], [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="bench_batch_") as tmp:
        # Untimed: compile the solver's kernels into numba's cache if they are not there
        # yet, so that neither timed run pays for it.
        run(1, 2, 1000, args.chunk_size, Path(tmp) / "warm-up")
        for workers in (1, 2):
            result, frame = run(workers, args.deals, args.budget, args.chunk_size,
                                Path(tmp) / f"w{workers}")
            loads.append(os.getloadavg()[0])
            runs.append(result)
            frames.append(frame)
            print(f"{workers} worker{'s' if workers > 1 else ' '}: {args.deals} deals in "
                  f"{result['seconds']:7.2f} s"
                  f" = {result['deals_per_s']:7.2f} deals/s  (win {result['win']}, "
                  f"loss {result['loss']},"
                  f" unresolved {result['unresolved']}; CPU {result['cpu_seconds']:.1f} s,"
                  f" in solve() {result['solver_seconds']:.1f} s)")
    speedup = runs[1]["deals_per_s"] / runs[0]["deals_per_s"]
    identical = frames[0].equals(frames[1])
    cpu_ratio = runs[1]["cpu_seconds"] / runs[0]["cpu_seconds"]
    verdict = "meets" if speedup >= TARGET else "misses"
    print(f"speed-up 2 workers / 1 worker: {speedup:.2f}x ({verdict} the {TARGET}x target);"
          f" results identical: {identical}")
    print(f"CPU time 2 workers / 1 worker: {cpu_ratio:.2f}; load average {loads[0]:.1f} before,"
          f" {loads[-1]:.1f} after, on {os.cpu_count()} cores")
    if loads[0] > 0.5 * (os.cpu_count() or 1):
        # the load after the runs is the benchmark's own; only the load before tells
        print("note: the machine was already busy before the runs; the speed-up may be understated")
    report = {
        "benchmark": "batch",
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "deals": args.deals,
        "budget": args.budget,
        "chunk_size": args.chunk_size,
        "solver_version": SOLVER_VERSION,
        "cores": default_workers(),
        "load_average": [round(x, 2) for x in loads],  # before, after 1 worker, after 2 workers
        "python": platform.python_version(),
        "runs": runs,
        "speedup": round(speedup, 3),
        "target": TARGET,
        "meets_target": speedup >= TARGET,
        "cpu_ratio_2_to_1": round(cpu_ratio, 3),
        "results_identical": identical,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written {args.json}")


if __name__ == "__main__":
    main()
