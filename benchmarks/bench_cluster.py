"""Benchmark of batch runs on a Dask LocalCluster: what the scheduler costs per task and per
deal, deals per second with 1 and 2 workers, and the time the whole code space would take on
100 cores at the measured rate.

- Scheduler overhead per task: empty tasks sent through the batch's cluster backend, a window
  at a time as a run sends its chunks (2 workers, wall time per task); and a run's own chunk
  tasks, one deal each against the same deals in chunks of 50 (the difference per task:
  scheduling, writing a Parquet file and renaming it, the summary back).  Per deal: the
  overhead per task over the deals of a task, at the benchmark's chunk size and at the
  census's (10^6 deals a file, one task each).
- Deals per second: ``run_batch`` on a cluster of 1 worker, then of 2 (one thread each),
  the workers writing the chunk files, timed from connecting to the last chunk written
  (workers started, the solver loaded and a first run done beforehand).  Both runs'
  results must agree.
- The projection: all 8,031,810,176 deals on ``--cores`` cores (100) at the rate of the
  1-worker run (a worker alone on its core, as on a cluster of one worker per core, with the
  client and the scheduler on the other core here), plus the scheduler's share; the figure
  at the 2-worker run's rate per core is printed beside it.

The deals are a uniform random sample of the code space (``--random N --seed S``, the
population of a census) unless ``--range A:B`` is given.  Prints everything and writes it
to ``--json`` (default ``benchmarks/results/new/cluster.json``, not kept in git).  On a
machine shared with other work the rates are understated: the load average before and after
is recorded.

    python benchmarks/bench_cluster.py                        # 2,000 random deals, default budget
    python benchmarks/bench_cluster.py --range 0:2000 --budget 200000 --cores 100
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import platform
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from halfmoon.batch import deals_from_random, parse_range, run_batch  # noqa: E402
from halfmoon.batch.plan import CLUSTER_MAX_CHUNK, duration  # noqa: E402
from halfmoon.batch.results import load_results  # noqa: E402
from halfmoon.game.codes import DEAL_COUNT  # noqa: E402
from solver import DEFAULT_BUDGET, SOLVER_VERSION  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def _noop(i: int) -> int:
    return i


def _warm() -> int:
    """On a worker: load the compiled solver and fault its tables in."""
    from halfmoon.batch.backends import solve_piece

    solve_piece([0], 1000)
    return os.getpid()


def local_cluster(workers: int):
    from distributed import LocalCluster

    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                        dashboard_address=":0", silence_logs=logging.ERROR)


def empty_task_overhead(address: str, tasks: int) -> float:
    """Wall seconds per empty task, sent a window at a time through the batch's backend."""
    from halfmoon.batch.cluster import Cluster

    cluster = Cluster(address)
    try:
        todo = iter(range(tasks))
        inflight = 0
        t0 = time.perf_counter()
        while True:
            for i in todo:
                cluster.submit(_noop, i, key=f"bench-noop-{i}")
                inflight += 1
                if inflight >= cluster.window:
                    break
            if not inflight:
                break
            for f in cluster.wait():
                f.result()
                inflight -= 1
        return (time.perf_counter() - t0) / tasks
    finally:
        cluster.close(cancel=False)


def timed_run(deals, out: Path, address: str, budget: int, chunk_size=None):
    t0 = time.perf_counter()
    summary = run_batch(deals, out, budget=budget, scheduler=address, chunk_size=chunk_size,
                        progress=False, log=lambda message: print(f"warning: {message}"))
    wall = time.perf_counter() - t0
    assert summary.complete and summary.solved == len(deals), summary
    return wall, summary


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--random", type=int, default=2000, metavar="N",
                    help="N random deals (default: 2000)")
    ap.add_argument("--seed", type=int, default=1, help="seed of --random (default: 1)")
    ap.add_argument("--range", metavar="A:B", help="deals A to B-1 instead of a random sample")
    ap.add_argument("--budget", type=int, default=DEFAULT_BUDGET,
                    help="positions per deal (default: the solver's)")
    ap.add_argument("--tasks", type=int, default=2000, help="empty tasks timed (default: 2000)")
    ap.add_argument("--overhead-deals", type=int, default=400,
                    help="deals run in chunks of 1 and of 50 to time a chunk task (default: 400)")
    ap.add_argument("--cores", type=int, default=100, help="cores of the projection (default: 100)")
    ap.add_argument("--json", type=Path, default=RESULTS / "new" / "cluster.json")
    args = ap.parse_args()

    deals = parse_range(args.range) if args.range else deals_from_random(args.random, args.seed)
    label = f"--range {args.range}" if args.range else f"--random {args.random} --seed {args.seed}"
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="bench_cluster_") as tmp:
        tmp = Path(tmp)
        runs, frames = [], []
        for workers in (1, 2):
            with local_cluster(workers) as cluster:
                from distributed import Client

                with Client(cluster.scheduler_address, set_as_default=False) as client:
                    client.run(_warm)
                    small = parse_range(f"0:{args.overhead_deals}")
                    timed_run(small, tmp / f"warm-{workers}", cluster.scheduler_address,
                              args.budget, 50)
                    if workers == 2:
                        per_task = empty_task_overhead(cluster.scheduler_address, args.tasks)
                        one, _ = timed_run(small, tmp / "chunks-of-1", cluster.scheduler_address,
                                           args.budget, 1)
                        fifty, _ = timed_run(small, tmp / "chunks-of-50",
                                             cluster.scheduler_address, args.budget, 50)
                        ntasks = (args.overhead_deals, -(-args.overhead_deals // 50))
                        per_chunk_task = max(0.0, (one - fifty) * workers
                                             / (ntasks[0] - ntasks[1]))
                wall, summary = timed_run(deals, tmp / f"w{workers}", cluster.scheduler_address,
                                          args.budget)
            loads.append(os.getloadavg()[0])
            df = load_results(tmp / f"w{workers}")
            counts = df["verdict"].value_counts()
            chunk_size = json.loads(
                (tmp / f"w{workers}" / "_manifest.json").read_text())["chunk_size"]
            runs.append({
                "workers": workers, "seconds": round(wall, 3),
                "deals_per_s": round(len(deals) / wall, 2),
                "chunk_size": chunk_size, "tasks": -(-len(deals) // chunk_size),
                "solver_seconds": round(float(df["seconds"].sum()), 2),
                "win": int(counts.get("win", 0)), "loss": int(counts.get("loss", 0)),
                "unresolved": int(counts.get("unresolved", 0)),
            })
            frames.append(df.drop(columns="seconds"))
            print(f"{workers} worker{'s' if workers > 1 else ' '}: {len(deals)} deals in "
                  f"{wall:7.2f} s ="
                  f" {len(deals) / wall:7.1f} deals/s ({runs[-1]['tasks']} tasks of "
                  f"{chunk_size} deals;"
                  f" win {runs[-1]['win']}, loss {runs[-1]['loss']}, "
                  f"unresolved {runs[-1]['unresolved']})")
    identical = frames[0].equals(frames[1])
    speedup = runs[1]["deals_per_s"] / runs[0]["deals_per_s"]
    per_core = runs[0]["deals_per_s"]
    per_core_2 = runs[1]["deals_per_s"] / 2
    census_tasks = -(-DEAL_COUNT // CLUSTER_MAX_CHUNK)
    solving = DEAL_COUNT / (per_core * args.cores)
    solving_2 = DEAL_COUNT / (per_core_2 * args.cores)
    scheduling = census_tasks * per_chunk_task / args.cores
    print(f"scheduler overhead: {per_task * 1e3:.2f} ms per empty task "
          "(2 workers, window of 4);"
          f" {per_chunk_task * 1e3:.1f} ms per chunk task (its file written and renamed)")
    print(f"  per deal: {per_chunk_task / runs[1]['chunk_size'] * 1e6:.1f} us in tasks of"
          f" {runs[1]['chunk_size']} deals, "
          f"{per_chunk_task / CLUSTER_MAX_CHUNK * 1e9:.1f} ns in the"
          f" census's tasks of {CLUSTER_MAX_CHUNK:,}")
    print(f"speed-up 2 workers / 1 worker: {speedup:.2f}x; results identical: {identical};"
          f" load average {loads[0]:.1f} before, {loads[-1]:.1f} after, "
          f"on {os.cpu_count()} cores")
    print(f"projection: the whole code space ({DEAL_COUNT:,} deals, {census_tasks:,} tasks) "
          f"on {args.cores}"
          f" cores at {per_core:.1f} deals/s per core: {duration(solving + scheduling)}"
          f" ({duration(scheduling)} of it scheduling); at the 2-worker run's "
          f"{per_core_2:.1f} deals/s"
          f" per core: {duration(solving_2 + scheduling)}")
    report = {
        "benchmark": "cluster",
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "deals": label,
        "budget": args.budget,
        "solver_version": SOLVER_VERSION,
        "python": platform.python_version(),
        "cores_here": os.cpu_count(),
        "load_average": [round(x, 2) for x in loads],  # before, after 1 worker, after 2 workers
        "overhead": {
            "empty_task_ms": round(per_task * 1e3, 3),
            "empty_tasks": args.tasks,
            "chunk_task_ms": round(per_chunk_task * 1e3, 2),
            "chunk_task_us_per_deal": round(per_chunk_task / runs[1]["chunk_size"] * 1e6, 2),
            "census_chunk_task_ns_per_deal": round(per_chunk_task / CLUSTER_MAX_CHUNK * 1e9, 3),
        },
        "runs": runs,
        "speedup": round(speedup, 3),
        "results_identical": identical,
        "projection": {
            "deals": DEAL_COUNT, "cores": args.cores, "tasks": census_tasks,
            "deals_per_s_per_core": round(per_core, 2),
            "seconds": round(solving + scheduling), "scheduling_seconds": round(scheduling),
            "text": duration(solving + scheduling),
            "deals_per_s_per_core_2_workers": round(per_core_2, 2),
            "seconds_at_2_workers_rate": round(solving_2 + scheduling),
        },
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2) + "\n")
    print(f"written {args.json.relative_to(ROOT) if args.json.is_relative_to(ROOT) else args.json}")


if __name__ == "__main__":
    main()
