"""The difficulty suite's part: what a deal's predicted difficulty costs beside its solve.

Each deal of the part is taken alone, in this process, on one core: solved
(:func:`solver.solve_numbers`), then its cheap signals computed and the model applied
(:func:`halfmoon.batch.difficulty.signals` and :func:`~halfmoon.batch.difficulty.estimates`),
each timed.  A deal's row keeps the difficulty's time as its ``whole`` (the part's rates and
quantiles are of the difficulty alone) and the solve's as its ``solve``; the part's figures
add ``difficulty`` (milliseconds a deal: mean and quantiles, the solve's mean beside, the
levels counted).  A few deals are done first, not counted, so that no deal pays for loading
the players' kernels.
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Sequence

import numpy as np

from .figures import part_figures
from .lanes import Row

WARM = 20  # deals done first, not counted


def difficulty_part(numbers: Sequence[int], say=None) -> tuple[list[Row], dict]:
    """The rows (a deal each) and figures of the difficulty's cost on ``numbers``."""
    from halfmoon.batch.difficulty import estimates, model, signals
    from solver import VERDICT_NAMES, solve_numbers

    m = model()
    warm = [int(n) for n in numbers[:WARM]]
    estimates([VERDICT_NAMES[int(v)] for v in solve_numbers(warm).verdicts], signals(warm), m)
    rows, levels = [], Counter()
    t_start = time.perf_counter()
    for k, n in enumerate(numbers):
        t0 = time.perf_counter()
        piece = solve_numbers([int(n)])
        t1 = time.perf_counter()
        verdict = VERDICT_NAMES[int(piece.verdicts[0])]
        (est,) = estimates([verdict], signals([int(n)]), m)
        t2 = time.perf_counter()
        levels[est.level] += 1
        rows.append(Row(int(n), verdict, int(piece.nodes[0]), t1 - t0, t2 - t1,
                        piece.settled_by[0]))
        if say is not None and (k + 1) % 500 == 0:
            say(f"difficulty: {k + 1:,} of {len(numbers):,} deals")
    wall = time.perf_counter() - t_start
    fig = part_figures(rows, wall, 1)
    cost = np.array([r.whole for r in rows]) * 1e3
    solve = np.array([r.solve for r in rows]) * 1e3
    fig["difficulty"] = {
        "ms_a_deal": {"mean": round(float(cost.mean()), 3),
                      **{q: round(float(np.percentile(cost, p)), 3)
                         for q, p in (("p50", 50), ("p90", 90), ("p99", 99))},
                      "max": round(float(cost.max()), 3)},
        "solve_ms_a_deal": round(float(solve.mean()), 3),
        "levels": dict(sorted(levels.items())),
        "model": m.made_from.get("train"),
    }
    return rows, fig


def difficulty_line(fig: dict) -> str:
    """The part's figures in a line: the difficulty's cost a deal beside the solve's."""
    d = fig["difficulty"]
    q = d["ms_a_deal"]
    return (f"difficulty: {fig['deals']:,} deals, {q['mean']:.2f} ms a deal on one core "
            f"(p50 {q['p50']:.2f}, p90 {q['p90']:.2f}, p99 {q['p99']:.2f}, max "
            f"{q['max']:.2f} ms) beside a solve of {d['solve_ms_a_deal']:.2f} ms on average; "
            + ", ".join(f"{k} {v:,}" for k, v in d["levels"].items()))
