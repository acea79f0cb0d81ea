"""Benchmark of the search kernel alone: time per position expanded, one core.

    python benchmarks/bench_kernel.py [--deals 129,1570,38,390,876] [--positions 200000]
                                      [--repeats 5]

Runs the search kernel (``solver.dfs.search_kernel``: the plain search has a compiled
version of its own) from the start of each deal, with no portfolio around it, for a fixed
number of positions (none of these deals is settled sooner), in four set-ups:

- ``plain``: the free-card rule only (the benchmark's plain search);
- ``cheap``: every rule but the projections, the bounds test at the root only (the
  portfolio's cheap search);
- ``no projections``: the bounds test down to the solver's depth, no projections;
- ``every rule``: the search the solver runs in the urgency order.

Each of ``--repeats`` rounds runs every set-up once, so that the runs of each set-up are
spread over the whole benchmark rather than bunched together: this machine's speed drifts
by up to a half within minutes (other work on the host slows every instruction; it is
not the search's memory), and set-ups timed one after the other would each get a
different phase.  Prints, for each set-up, microseconds per position and positions per
second of the best run (the machine's noise only ever slows a run down) against the
target of 5 million positions a second, with the median run beside it, and writes
benchmarks/results/kernel.json.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from halfmoon.deal import Deal  # noqa: E402
from solver.dfs import new_stack, search_kernel  # noqa: E402
from solver.kernels import MAX_PLY  # noqa: E402
from solver.pruning import ALL_RULES, FREE_CARDS, GROUPING, PROJECTIONS  # noqa: E402
from solver.search import (BOUNDS_DEPTH, URGENCY_DEPTH, deal_arrays, default_tables,  # noqa: E402
                           kernel_arrays, warm_up)

RESULTS = ROOT / "benchmarks" / "results"
TARGET = 5_000_000
SETUPS = {
    "plain": (FREE_CARDS, 0),
    "cheap": (ALL_RULES & ~(PROJECTIONS | GROUPING), 1),
    "no projections": (ALL_RULES & ~(PROJECTIONS | GROUPING), BOUNDS_DEPTH),
    "every rule": (ALL_RULES & ~GROUPING, URGENCY_DEPTH),
}


class DealArrays:
    def __init__(self, number: int) -> None:
        self.number = number
        self.piles, self.reserve = deal_arrays(Deal.from_number(number))
        self.root, self.tops, self.part, self.npart, self.proj = kernel_arrays(self.piles, self.reserve)

    def run(self, flags: int, depth: int, positions: int) -> tuple[int, float]:
        """(positions expanded, seconds) of one search from the start."""
        tab, ptab = default_tables()
        gen = np.uint32(tab.next_generation())
        ptab_args = (ptab.slots, np.uint32(ptab.next_generation()), ptab.bits)
        line = np.zeros(MAX_PLY, np.uint64)
        stats = np.zeros(4, np.int64)
        stack = new_stack(np.uint64(0))
        search = search_kernel(flags)
        t = time.perf_counter()
        search(self.piles, self.reserve, self.tops, self.part, self.npart, self.root, positions,
               flags, tab.slots, gen, tab.bits, line, stats, stack, 0, self.proj, ptab_args, depth)
        return int(stats[0]), time.perf_counter() - t


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", default="129,1570,38,390,876", help="deal numbers, comma-separated")
    p.add_argument("--positions", type=int, default=200_000, help="positions per deal and run")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--out", type=Path, default=RESULTS)
    args = p.parse_args(argv)
    deals = [DealArrays(int(n)) for n in args.deals.split(",")]
    warm_up()
    report = {"deals": [d.number for d in deals], "positions_per_deal": args.positions,
              "repeats": args.repeats, "target_positions_per_second": TARGET,
              "machine": f"{platform.machine()}, Python {platform.python_version()}", "setups": {}}
    print(f"{'set-up':16s} {'us/position':>12s} {'positions/s':>13s} {'median run':>13s}"
          f"  target {TARGET:,}/s")
    runs: dict[str, list[tuple[float, int]]] = {name: [] for name in SETUPS}
    for _ in range(args.repeats):
        for name, (flags, depth) in SETUPS.items():
            n = t = 0
            for d in deals:
                dn, dt = d.run(flags, depth, args.positions)
                n += dn
                t += dt
            runs[name].append((t / n, n))
    for name, (flags, depth) in SETUPS.items():
        best, n = min(runs[name])
        median = statistics.median(r[0] for r in runs[name])
        report["setups"][name] = {"flags": flags, "bounds_depth": depth, "positions": n,
                                  "us_per_position": best * 1e6,
                                  "positions_per_second": 1 / best,
                                  "median_positions_per_second": 1 / median,
                                  "all_runs_us": [r[0] * 1e6 for r in runs[name]]}
        print(f"{name:16s} {best * 1e6:12.3f} {1 / best:13,.0f} {1 / median:13,.0f}"
              f"  {'met' if 1 / best >= TARGET else 'not met'}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "kernel.json").write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
