"""Benchmark of a batch run's cost outside the search: the parent's, and the workers'.

1. **Pre-solved** (``--n`` deals, default 100,000, random): ``run_batch`` with 2 local
   workers whose solver answers at once with the columns of deals solved beforehand
   (:mod:`presolved`, loaded into the workers by the fork server), so the run does
   everything but the search.  The parent's CPU time a deal (user + system, all its
   threads) is the ceiling a run can never pass whatever its cores (target: at most
   10 µs a deal, 100,000 deals a second); the workers' CPU time a deal (sampled from /proc)
   is their time outside the search.  Runs on 2 cores.
2. **Solved** (``--real`` deals, default 2,000, random, another seed): ``run_batch`` with
   one worker (in this process) on real searches; the run's time outside the solver's
   searches (its wall time less the searches' own times, as the solver measures them,
   less compiling; the solver loaded beforehand) as a share of the run, and the mean search
   time a deal.  The workers'
   share outside the search (target: at most 3 %) is then the pre-solved workers' time a
   deal over itself plus the mean search.

Works on any version of halfmoon that has ``run_batch`` and ``solver.solve_numbers`` (it
measures what it imports: ``PYTHONPATH=OTHER_CHECKOUT python benchmarks/...`` measures
another), so the same command gives a before and an after.

    python benchmarks/bench_batch_overhead.py                     # 100,000 pre-solved deals
    python benchmarks/bench_batch_overhead.py --n 20000 --real 500
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import tempfile
import threading
import time
from pathlib import Path
from typing import Optional

import numpy as np

HERE = Path(__file__).resolve().parent
BUDGET = 200_000


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _processes() -> dict[int, tuple[int, float]]:
    """Every process's parent and CPU seconds so far (Linux /proc)."""
    tick = os.sysconf("SC_CLK_TCK")
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        out[int(stat.parent.name)] = (int(fields[1]), (int(fields[11]) + int(fields[12])) / tick)
    return out


class _Sampler(threading.Thread):
    """The most CPU time seen of each child of the processes ``parents`` (the fork
    server: its children are the workers), every ``every`` seconds."""

    def __init__(self, parents: set[int], every: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.parents, self.every, self.seen, self.stop = parents, every, {}, threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            for pid, (ppid, s) in _processes().items():
                if ppid in self.parents:
                    self.seen[pid] = max(self.seen.get(pid, 0.0), s)
            time.sleep(self.every)


def presolve(tmp: Path, seed: int, count: int = 256) -> Path:
    """Solve ``count`` random deals; their columns in an .npz file for :mod:`presolved`."""
    import solver
    from halfmoon.game.codes import random_numbers

    p = solver.solve_numbers(random_numbers(count, seed=seed), BUDGET)
    path = tmp / "presolved.npz"
    np.savez(path, verdicts=p.verdicts, nodes=p.nodes, seconds=p.seconds, lines=p.lines,
             nline=p.nline, features=p.features)
    return path


def start_presolved_server(tmp: Path, seed: int) -> set[int]:
    """Start the fork server with :mod:`presolved` preloaded; its pid (and any other child of
    this process's at this point)."""
    os.environ["HALFMOON_PRESOLVED"] = str(presolve(tmp, seed))
    # the fork server imports its preloaded modules before it takes this process's sys.path
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(HERE)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["halfmoon.batch.backends", "solver", "presolved"])
    from multiprocessing import forkserver

    forkserver.ensure_running()  # with this preload: the run's own finds it running
    return {pid for pid, (ppid, _) in _processes().items() if ppid == os.getpid()}


def presolved_run(n: int, seed: int, tmp: Path, server: set[int],
                  piece_size: Optional[int] = None) -> dict:
    """``run_batch`` with 2 workers on ``n`` pre-solved random deals: its wall time, and the
    CPU times of this process and of the workers."""
    from halfmoon.batch import deals_from_random, run_batch

    deals = deals_from_random(n, seed=seed)
    sampler = _Sampler(server)
    sampler.start()
    c0, t0 = _cpu(), time.perf_counter()
    summary = run_batch(deals, tmp / f"presolved-{n}", budget=BUDGET, workers=2,
                        piece_size=piece_size, progress=False)
    wall, parent = time.perf_counter() - t0, _cpu() - c0
    sampler.stop.set()
    sampler.join()
    assert summary.solved == n, summary
    return {"deals": n, "wall_s": wall, "parent_cpu_s": parent,
            "workers_cpu_s": sum(sampler.seen.values()), "workers": len(sampler.seen)}


def presolved(n: int, seed: int, tmp: Path, piece_size: Optional[int] = None) -> dict:
    """The costs a deal of a pre-solved run: the differences between a run of ``n`` deals
    and one of a tenth as many, so that what a run pays once (starting the workers, loading
    the solver in each, scanning the directory) is left out."""
    server = start_presolved_server(tmp, seed + 1)
    small = presolved_run(max(1, n // 10), seed + 3, tmp, server, piece_size)
    big = presolved_run(n, seed, tmp, server, piece_size)
    extra = big["deals"] - small["deals"]
    return {"deals": n, "small_deals": small["deals"], "wall_s": round(big["wall_s"], 3),
            "deals_per_s": round(n / big["wall_s"]),
            "parent_cpu_s": round(big["parent_cpu_s"], 3),
            "workers_cpu_s": round(big["workers_cpu_s"], 3), "workers": big["workers"],
            "parent_us_per_deal": round(
                (big["parent_cpu_s"] - small["parent_cpu_s"]) / extra * 1e6, 2),
            "workers_us_per_deal": round(
                (big["workers_cpu_s"] - small["workers_cpu_s"]) / extra * 1e6, 2),
            "parent_us_per_deal_whole_run": round(big["parent_cpu_s"] / n * 1e6, 2),
            "workers_us_per_deal_whole_run": round(big["workers_cpu_s"] / n * 1e6, 2)}


def solved_run(n: int, seed: int, tmp: Path) -> dict:
    """One worker (this process) on real searches: the time outside them."""
    import solver
    from halfmoon.batch import deals_from_random, run_batch
    from halfmoon.batch.backends import warm_up

    warm_up()  # loading the compiled solver is paid once a process: not a deal's cost
    searched = [0.0]
    real = solver.solve_numbers

    def counting(numbers, budget):
        piece = real(numbers, budget)
        searched[0] += float(np.sum(piece.seconds))
        return piece

    solver.solve_numbers = counting
    try:
        summary = run_batch(deals_from_random(n, seed=seed), tmp / "solved", budget=BUDGET,
                            workers=1, progress=False)
    finally:
        solver.solve_numbers = real
    run = summary.seconds - summary.compile_seconds
    outside = run - searched[0]
    return {"deals": n, "run_s": round(run, 3), "search_s": round(searched[0], 3),
            "outside_s": round(outside, 3), "outside_share": round(outside / run, 4),
            "search_us_per_deal": round(searched[0] / n * 1e6, 1),
            "outside_us_per_deal": round(outside / n * 1e6, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000, help="pre-solved deals (default 100000)")
    ap.add_argument("--real", type=int, default=2000, help="deals really solved (default 2000)")
    ap.add_argument("--seed", type=int, default=20261204)
    ap.add_argument("--piece-size", type=int, default=None,
                    help="deals a task (default: as a run chooses)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args()
    import halfmoon

    with tempfile.TemporaryDirectory(prefix="bench_overhead_") as tmp:
        pre = presolved(args.n, args.seed, Path(tmp), args.piece_size) if args.n else None
        real = solved_run(args.real, args.seed + 2, Path(tmp)) if args.real else None
    report = {"halfmoon": str(Path(halfmoon.__file__).parent), "load": os.getloadavg()[0],
              "cores": os.cpu_count(), "presolved": pre, "solved": real}
    if pre:
        print(f"pre-solved, 2 workers, {pre['deals']:,} random deals: {pre['deals_per_s']:,}"
              f" deals/s; parent {pre['parent_us_per_deal']:.1f} µs CPU a deal (target <= 10;"
              f" {pre['parent_us_per_deal_whole_run']:.1f} over the whole run), workers"
              f" {pre['workers_us_per_deal']:.1f} µs CPU a deal outside the search"
              f" ({pre['workers_us_per_deal_whole_run']:.1f} over the whole run)")
    if real:
        print(f"solved, 1 worker, {real['deals']:,} random deals: {real['search_us_per_deal']:,.0f}"
              f" µs a deal in the search, {real['outside_us_per_deal']:.0f} µs outside it"
              f" ({100 * real['outside_share']:.2f} % of the run, parent's share included)")
    if pre and real:
        share = pre["workers_us_per_deal"] / (pre["workers_us_per_deal"]
                                              + real["search_us_per_deal"])
        report["workers_outside_share"] = round(share, 4)
        print(f"workers' time outside the search: {100 * share:.2f} % (target <= 3 %)")
    print(f"load average {report['load']:.1f} on {report['cores']} cores")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")


if __name__ == "__main__":
    main()
