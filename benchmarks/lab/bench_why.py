"""What saying why a lost deal is lost costs: :func:`solver.why_lost`
(the bounded smallest deadlocked set that ``halfmoon solve``, ``analyse`` and the board give
for a loss) on random losses of the census.

    python benchmarks/lab/bench_why.py [--losses 200] [--seed 20261204] [--budget N] [--total N]
                                       [--out DIR]

The losses are drawn (seeded) from ``docs/findings/losses.parquet`` (the census's losses,
each with the deadlock the findings computed with a budget of 5,000,000 positions a
projection and no total).  Per loss it records the wall and CPU seconds of ``why_lost``, the
projections solved and their positions, and whether the answer is the census's set (or "not
known within the budget").  Printed and written to ``why-<losses>-seed<seed>.json`` in
``--out`` (default ``benchmarks/results/new/``, not kept in git): seconds per loss (mean,
p50, p90, p99, max, wall and CPU), how many were explained, and how many agree with the
census.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]


def main(argv=None) -> int:
    from solver import SOLVER_VERSION, WHY_BUDGET, WHY_TOTAL, solve, why_lost

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--losses", type=int, default=200)
    p.add_argument("--seed", type=int, default=20261204)
    p.add_argument("--budget", type=int, default=WHY_BUDGET)
    p.add_argument("--total", type=int, default=WHY_TOTAL)
    p.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "new",
                   help="the folder the JSON is written to")
    args = p.parse_args(argv)
    census = pd.read_parquet(ROOT / "docs" / "findings" / "losses.parquet",
                             columns=["deal", "deadlock"])
    rng = np.random.default_rng(args.seed)
    sample = census.iloc[np.sort(rng.choice(len(census), args.losses, replace=False))]
    solve(0)  # the solver loaded before any timing
    rows = []
    for deal, census_set in zip(sample["deal"].tolist(), sample["deadlock"].tolist()):
        w0, c0 = time.perf_counter(), time.process_time()
        d = why_lost(int(deal), args.budget, args.total)
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        rows.append({"deal": int(deal), "wall": wall, "cpu": cpu, "solves": d.solves,
                     "nodes": d.nodes, "explained": d.kind != "unresolved",
                     "same": set(d.classes) == set(census_set.split())})
    df = pd.DataFrame(rows)
    q = [0.5, 0.9, 0.99]
    summary = {
        "solver_version": SOLVER_VERSION, "losses": len(df), "seed": args.seed,
        "budget": args.budget, "total": args.total,
        "explained": int(df["explained"].sum()),
        "same_as_census": int(df["same"].sum()),
        "wall": {"mean": df["wall"].mean(), **{f"p{int(x * 100)}": df["wall"].quantile(x)
                                              for x in q}, "max": df["wall"].max()},
        "cpu": {"mean": df["cpu"].mean(), **{f"p{int(x * 100)}": df["cpu"].quantile(x)
                                            for x in q}, "max": df["cpu"].max()},
        "nodes_mean": float(df["nodes"].mean()), "solves_mean": float(df["solves"].mean()),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / f"why-{args.losses}-seed{args.seed}.json"
    out.write_text(json.dumps({"summary": summary, "losses": rows}, indent=1) + "\n")
    print(json.dumps(summary, indent=1))
    explained = df[df["explained"]]
    print(f"{len(explained)} of {len(df)} losses explained within {args.total:,} positions; "
          f"{int(explained['same'].sum())} of them give the census's set")
    print(f"seconds a loss: mean {df['wall'].mean():.3f} wall, {df['cpu'].mean():.3f} CPU; "
          f"p90 {df['wall'].quantile(0.9):.3f} wall; max {df['wall'].max():.3f} wall")
    print(f"written to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
