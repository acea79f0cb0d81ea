"""Benchmark the solver against honest baselines, on one core.

    python benchmarks/bench_solver.py [A:B] [--budget N] [--plain-budget N]
                                      [--cpsat-limit S] [--only solver|plain|cpsat ...]

For deals A to B−1 (default 0:1000), each engine solves every deal in turn, each engine in
a process of its own (started fresh, one after another), so that its peak memory is its own:

- ``solver``: the solver with every rule (``solver.solve``);
- ``plain``: a plain memoized search with only the free-card rule (same kernel, the
  other rules off), the baseline of the solver notes;
- ``cpsat``: the independent CP-SAT model (one worker).

The ``plain`` engine measures the solver's insides: the portfolio's search of
``solver.portfolio.search`` with only the free-card rule of ``solver.depth_first.pruning``.

Printed and written to ``--out`` (default ``benchmarks/results/new/``, not kept in git; a
run to commit with ``--out benchmarks/results``; the last committed one, of version 12, is
``benchmarks/results/history/solver-0-1000.*``): counts per verdict, deals per second,
positions per second, time per deal at p50/p99/max, peak memory, and ratios against the
solver; ``solver-A-B.json``, ``solver-A-B.md`` and a chart ``solver-A-B.png``.  The
machine's speed is not steady (benchmarks/reference.py), so the reference workload is timed
before and after each engine and reported with its figures.

Before it starts it prints how long it should take, from the committed run's wall times scaled
to the range (deals 0:1000: about 10 minutes, nearly all of it CP-SAT's; ``--only solver
plain`` takes under a minute).

Peak memory: each engine's process's peak resident size (``ru_maxrss``), and the part its
engine added to the process as it stood after its imports (Python, numpy, numba, OR-Tools:
the same for every engine).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from reference import Reference  # noqa: E402

from halfmoon.game.deal import Deal  # noqa: E402
from solver import DEFAULT_BUDGET, SOLVER_VERSION, solve, solve_cpsat, warm_up  # noqa: E402
from solver.depth_first.pruning import FREE_CARDS  # noqa: E402
from solver.portfolio import search  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
# the committed run (of this version, else the last one, in history/): what the expected time
# is from
COMMITTED = next((p for p in (RESULTS / "solver-0-1000.json",
                              RESULTS / "history" / "solver-0-1000.json") if p.exists()),
                 RESULTS / "solver-0-1000.json")
PLAIN_BUDGET = 2_000_000


def run_engine(name: str, numbers: list[int], args, reference: Reference) -> dict:
    if name == "solver":
        fn = lambda d: solve(d, budget=args.budget)  # noqa: E731
    elif name == "plain":
        fn = lambda d: search.solve(d, budget=args.plain_budget, rules=FREE_CARDS)  # noqa: E731
    else:
        fn = lambda d: solve_cpsat(d, time_limit=args.cpsat_limit)  # noqa: E731
    if name != "cpsat":
        warm_up()  # load every compiled kernel once: a per-process cost, not a per-deal one
    fn(Deal.from_number(numbers[0]))  # load compiled kernels / the model once
    counts = {"win": 0, "loss": 0, "unresolved": 0}
    times, nodes, per_deal = [], [], {}
    reference_before = reference.time()
    t_start = time.perf_counter()
    for n in numbers:
        r = fn(Deal.from_number(n))
        counts[r.verdict] += 1
        times.append(r.seconds)
        nodes.append(r.nodes)
        per_deal[n] = r.verdict
        if args.progress and len(times) % 100 == 0:
            print(f"  {name}: {len(times)}/{len(numbers)}", file=sys.stderr)
    wall = time.perf_counter() - t_start
    reference_after = reference.time()
    t = np.array(times)
    total_seconds = float(t.sum())
    return {
        "engine": name,
        "deals": len(numbers),
        "counts": counts,
        "wall_seconds": wall,
        "deals_per_second": len(numbers) / wall,
        "positions": int(np.sum(nodes)),
        "positions_per_second": float(np.sum(nodes) / total_seconds) if total_seconds else None,
        "p50_seconds": float(np.percentile(t, 50)),
        "p99_seconds": float(np.percentile(t, 99)),
        "max_seconds": float(t.max()),
        "slowest": [int(numbers[i]) for i in np.argsort(-t)[:10]],
        "over_half_second": int(np.sum(t > 0.5)),
        "reference_ns": [reference_before, reference_after],
        "unresolved_deals": [n for n, v in per_deal.items() if v == "unresolved"],
        "loss_deals": [n for n, v in per_deal.items() if v == "loss"],
        "verdicts": per_deal,
        "times": times,
    }


def speed_ratio(slower: float) -> str:
    """How an engine compares with the solver, given the solver's deals per second over its."""
    if slower >= 1.5:
        return f"{slower:.0f}× slower"
    if slower <= 1 / 1.5:
        return f"{1 / slower:.0f}× faster"
    return f"{slower:.2f}× the time"


def markdown(report: dict) -> str:
    rows = report["engines"]
    base = rows.get("solver")
    lines = [
        f"# Solver benchmark, deals {report['range']} "
        f"(solver version {report.get('solver_version', '?')})",
        "",
        "One core; each engine in a fresh process of its own, one after another (its peak"
        " memory is its process's; in brackets, what the engine added to the process after its"
        " imports). "
        f"Budget {report['budget']:,} positions; "
        f"plain search budget {report['plain_budget']:,}; CP-SAT limit {report['cpsat_limit']} s. "
        f"Machine: {report['machine']}. The solver's positions include the conflicts of its "
        "grouping search (one each), as its budget does.",
        "",
        "| engine | win | loss | unresolved | deals/s | positions/s | p50 | p99 | max | > 0.5 s "
        "| peak memory (engine's part) | speed vs solver |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, r in rows.items():
        c = r["counts"]
        ratio = "1×" if name == "solver" or base is None else \
            speed_ratio(base["deals_per_second"] / r["deals_per_second"])
        pps = "—" if name == "cpsat" or r["positions_per_second"] is None else \
            f"{r['positions_per_second']:,.0f}"
        lines.append(
            f"| {name} | {c['win']} | {c['loss']} | {c['unresolved']} "
            f"| {r['deals_per_second']:,.1f} | {pps} | "
            f"{r['p50_seconds'] * 1000:.2f} ms | {r['p99_seconds'] * 1000:.1f} ms "
            f"| {r['max_seconds']:.2f} s | "
            f"{r['over_half_second']} | {r['peak_rss_mib']:.0f} MiB"
            f" ({_own(r)}) | {ratio} |"
        )
    lines += ["", "Machine reference (`benchmarks/reference.py`, move generation in the "
              "first-level cache; this machine runs at full speed at about 37–50 ns and at about "
              "half speed when the host shares its core), before and after each engine: "
              + "; ".join(f"{name} {r['reference_ns'][0]:.0f} / {r['reference_ns'][1]:.0f} ns"
                          for name, r in rows.items() if "reference_ns" in r) + "."]
    if "disagreements" in report:
        lines += ["", "Verdicts where both settled and disagree: "
                      f"{report['disagreements'] or 'none'}."]
    return "\n".join(lines) + "\n"


def chart(report: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7, 4))
    ax = fig.add_subplot()
    for name, r in report["engines"].items():
        t = np.sort(np.array(r["times"]))
        ax.plot(t, np.arange(1, len(t) + 1) / len(t), label=name)
    ax.set_xscale("log")
    ax.set_xlabel("seconds per deal (log)")
    ax.set_ylabel("share of deals settled or given up")
    ax.set_title(f"Time per deal, deals {report['range']}")
    ax.legend()
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def _own(r: dict) -> str:
    own = r.get("engine_rss_mib")
    return "—" if own is None else f"{own:.0f} MiB"


def _engine_process(name: str, numbers: list[int], args, queue) -> None:
    """One engine in this process (a fresh one): its figures and its peak memory."""
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # after the imports
    r = run_engine(name, numbers, args, Reference())
    r["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    r["engine_rss_mib"] = r["peak_rss_mib"] - base
    queue.put(r)


def run_alone(name: str, numbers: list[int], args) -> dict:
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_engine_process, args=(name, numbers, args, queue))
    proc.start()
    r = queue.get()  # before join: a large answer would block the pipe
    proc.join()
    return r


def expected_seconds(engines, count: int) -> dict:
    """Each engine's expected wall time on ``count`` deals, from the committed run (None:
    not measured there)."""
    try:
        done = json.loads(COMMITTED.read_text())
        deals = int(done["range"].split(":")[1]) - int(done["range"].split(":")[0])
        walls = {k: v["wall_seconds"] for k, v in done["engines"].items()}
    except (OSError, ValueError, KeyError):
        return {name: None for name in engines}
    return {name: None if name not in walls else walls[name] * count / deals for name in engines}


def say_expected(engines, count: int) -> None:
    guess = expected_seconds(engines, count)
    parts = [f"{name} {_minutes(s)}" for name, s in guess.items() if s is not None]
    known = [s for s in guess.values() if s is not None]
    total = f"about {_minutes(sum(known))}" if known else "unknown"
    print(f"expected: {total} for {count:,} deals ({', '.join(parts) or 'no earlier run'};"
          f" from {COMMITTED.relative_to(ROOT)}, scaled to the range; a shared machine is"
          " slower)", flush=True)


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.1f} min"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("range", nargs="?", default="0:1000", help="deal numbers A:B (default 0:1000)")
    p.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    p.add_argument("--plain-budget", type=int, default=PLAIN_BUDGET)
    p.add_argument("--cpsat-limit", type=float, default=120.0)
    p.add_argument("--only", nargs="+", choices=("solver", "plain", "cpsat"),
                   default=["solver", "plain", "cpsat"])
    p.add_argument("--progress", action="store_true")
    p.add_argument("--out", type=Path, default=RESULTS / "new",
                   help="where to write (default: benchmarks/results/new, not kept in git;"
                   " benchmarks/results replaces the committed figures)")
    args = p.parse_args(argv)
    a, b = (int(x) for x in args.range.split(":"))
    numbers = list(range(a, b))
    report = {
        "range": f"{a}:{b}",
        "solver_version": SOLVER_VERSION,
        "budget": args.budget,
        "plain_budget": args.plain_budget,
        "cpsat_limit": args.cpsat_limit,
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "engines": {},
    }
    say_expected(args.only, len(numbers))
    for name in args.only:
        r = run_alone(name, numbers, args)
        report["engines"][name] = r
        print(f"{name}: {r['counts']} {r['deals_per_second']:.1f} deals/s, "
              f"p50 {r['p50_seconds']*1000:.2f} ms, "
              f"p99 {r['p99_seconds']*1000:.1f} ms, max {r['max_seconds']:.2f} s, "
              f"peak {r['peak_rss_mib']:.0f} MiB ({r['engine_rss_mib']:.0f} MiB its own)",
              flush=True)
    engines = report["engines"]
    if "solver" in engines and len(engines) > 1:
        dis = []
        for name, r in engines.items():
            for n, v in r["verdicts"].items():
                s = engines["solver"]["verdicts"][n]
                if "unresolved" not in (v, s) and v != s:
                    dis.append((name, n, s, v))
        report["disagreements"] = dis
    args.out.mkdir(parents=True, exist_ok=True)
    stem = f"solver-{a}-{b}"
    chart(report, args.out / f"{stem}.png")
    (args.out / f"{stem}.md").write_text(markdown(report))
    print(markdown(report))
    # per-deal times and verdicts feed the chart and the comparison; the JSON keeps totals
    json_report = {**report, "engines": {k: {kk: vv for kk, vv in v.items()
                                             if kk not in ("times", "verdicts")}
                                         for k, v in engines.items()}}
    (args.out / f"{stem}.json").write_text(json.dumps(json_report, indent=2))
    print(f"written to {args.out}/{stem}.json, .md, .png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
