"""Benchmark of the search kernel alone: time per position expanded, one core.

    python benchmarks/bench_kernel.py [--deals 129,1570,38,390,876] [--positions 200000]
                                      [--repeats 5] [--out DIR]

Runs the search kernel (``solver.depth_first.dfs.search_kernel``: the plain search has a
compiled version of its own) from the start of each deal, with no portfolio around it, for a
fixed number of positions (none of these deals is settled sooner), in four set-ups:

- ``plain``: the free-card rule only (the benchmark's plain search);
- ``cheap``: every rule but the projections, the bounds test at the root only (the
  portfolio's cheap search);
- ``no projections``: the bounds test down to the solver's depth, no projections;
- ``every rule``: the search the solver runs in the urgency order.

Each of ``--repeats`` rounds runs every set-up on every deal once, so that the runs of
each set-up are spread over the whole benchmark rather than bunched together.  This
machine's speed is not steady: for stretches of a fraction of a second to a few seconds
it runs every instruction about half as fast (other work on the host shares the core), so
each deal's run is timed between two timings of a fixed reference workload
(benchmarks/reference.py: move generation on positions held in the first-level cache),
which tell how fast the machine was running around it.

Prints the reference's best, median and slowest timing, then, for each set-up:
microseconds a position and positions a second of the best round (the five deals of a
round together; the machine's noise only ever slows a run down), the median round, the
positions a second of the runs the machine ran at full speed around (the reference before
and after within 1.3 times its best: a slow stretch inside such a run still counts
against it) and how many runs those were, and a position's time in units of the
reference of its own run (median over the runs), which changes with the code and hardly
with the machine's phases; and the target of 5 million positions a second, judged on the
runs at full speed (on the best round if there were none).  Writes ``kernel.json`` into
``--out`` (default ``benchmarks/results/new/``, not kept in git) with every run and its
reference timings.

The kernel is one of the solver's insides, ``solver.depth_first``; it is given what the
portfolio would give it: the deal's arrays from ``solver.mirror``, and the kernel's arrays,
tables and search depths of ``solver.portfolio`` (:mod:`solver.portfolio.search`).
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

from reference import Reference  # noqa: E402

from halfmoon.game.deal import Deal  # noqa: E402
from solver import warm_up  # noqa: E402
from solver.depth_first.dfs import new_stack, search_kernel  # noqa: E402
from solver.depth_first.pruning import ALL_RULES, FREE_CARDS, GROUPING, PROJECTIONS  # noqa: E402
from solver.mirror.convert import deal_arrays  # noqa: E402
from solver.mirror.position import MAX_PLY  # noqa: E402
from solver.portfolio.search import (  # noqa: E402
    BOUNDS_DEPTH,
    URGENCY_DEPTH,
    default_tables,
    kernel_arrays,
)

RESULTS = ROOT / "benchmarks" / "results"
TARGET = 5_000_000
# a run counts as at full speed when the reference before and after it is this close to its best
FULL_SPEED = 1.3
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
        self.root, self.tops, self.part, self.npart, self.proj = kernel_arrays(self.piles,
                                                                               self.reserve)

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


def verdict(best: float, full_rate) -> str:
    """The target judged on the runs at the machine's full speed (on the best round when
    no run was)."""
    rate, basis = (full_rate, "at full speed") if full_rate else (1 / best, "best round")
    return f"{'met' if rate >= TARGET else 'not met'} ({basis})"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--deals", default="129,1570,38,390,876", help="deal numbers, comma-separated")
    p.add_argument("--positions", type=int, default=200_000, help="positions per deal and run")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--out", type=Path, default=RESULTS / "new")
    args = p.parse_args(argv)
    deals = [DealArrays(int(n)) for n in args.deals.split(",")]
    warm_up()
    for flags, depth in SETUPS.values():  # load every compiled search (plain_dfs is apart)
        deals[0].run(flags, depth, 1000)
    ref = Reference()
    report = {"deals": [d.number for d in deals], "positions_per_deal": args.positions,
              "repeats": args.repeats, "target_positions_per_second": TARGET,
              "machine": f"{platform.machine()}, Python {platform.python_version()}", "setups": {}}
    # runs[name]: (round, deal, positions, seconds, reference before, reference after)
    runs: dict[str, list[tuple[int, int, int, float, float, float]]] = {name: [] for name in SETUPS}
    for k in range(args.repeats):
        for name, (flags, depth) in SETUPS.items():
            for d in deals:
                before = ref.time(2)
                n, t = d.run(flags, depth, args.positions)
                runs[name].append((k, d.number, n, t, before, ref.time(2)))
    refs = [r[i] for rs in runs.values() for r in rs for i in (4, 5)]
    fastest = min(refs)
    report["reference_ns"] = {"best": fastest, "median": statistics.median(refs),
                              "slowest": max(refs)}
    print(f"machine reference (move generation in the first-level cache, {len(refs)} timings): "
          f"best {fastest:.1f} ns, median {statistics.median(refs):.1f} ns, "
          f"slowest {max(refs):.1f} ns")
    print(f"{'set-up':16s} {'us/position':>12s} {'positions/s':>13s} {'median round':>13s}"
          f" {'full speed':>13s} {'runs':>5s} {'x reference':>12s}  target {TARGET:,}/s")
    for name, (flags, depth) in SETUPS.items():
        rounds = [(sum(r[3] for r in runs[name] if r[0] == k)
                   / sum(r[2] for r in runs[name] if r[0] == k))
                  for k in range(args.repeats)]
        best = min(rounds)
        median = statistics.median(rounds)
        full = [r for r in runs[name] if max(r[4], r[5]) <= FULL_SPEED * fastest]
        full_rate = sum(r[2] for r in full) / sum(r[3] for r in full) if full else None
        units = statistics.median(r[3] / r[2] * 1e9 / ((r[4] + r[5]) / 2) for r in runs[name])
        report["setups"][name] = {"flags": flags, "bounds_depth": depth,
                                  "positions": sum(r[2] for r in runs[name] if r[0] == 0),
                                  "us_per_position": best * 1e6,
                                  "positions_per_second": 1 / best,
                                  "median_positions_per_second": 1 / median,
                                  "full_speed_positions_per_second": full_rate,
                                  "full_speed_runs": len(full),
                                  "reference_units_per_position": units,
                                  "all_runs_us": [r * 1e6 for r in rounds],
                                  "deal_runs": [{"round": r[0], "deal": r[1], "positions": r[2],
                                                 "seconds": r[3], "reference_ns_before": r[4],
                                                 "reference_ns_after": r[5]} for r in runs[name]]}
        full_text = f"{full_rate:13,.0f}" if full_rate else f"{'-':>13s}"
        print(f"{name:16s} {best * 1e6:12.3f} {1 / best:13,.0f} {1 / median:13,.0f} {full_text}"
              f" {len(full):5d} {units:12.2f}  {verdict(best, full_rate)}", flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "kernel.json").write_text(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
