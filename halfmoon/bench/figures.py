"""A part's figures from its rows: the rates, the times' percentiles, the positions, which
search settled how much; and the ratio of two versions' times with its interval.

The rates follow the batch's meaning.  *Deals a second per core of solving* is the deals over
the sum of their whole times (each deal's solving plus its share of its piece's calls and
rows, the work a census pays a core for), whatever the number of workers; the *wall rate* is
the deals over the part's wall time with its workers.  Percentiles are of the whole times.
"""

from __future__ import annotations

from collections import Counter
from typing import Optional, Sequence

import numpy as np

from halfmoon.game.codes import number_to_code

from .lanes import Row

PERCENTILES = (("p50", 50), ("p90", 90), ("p99", 99), ("p99.9", 99.9))
SLOWEST = 10
BOOTSTRAP = 2000
BLOCK = 250  # deals a block: the unit of alternation and of the ratio's bootstrap


def _r(x: float, digits: int = 6) -> float:
    """A figure rounded to ``digits`` significant digits (times in JSON stay readable)."""
    return float(f"{x:.{digits}g}") if x else 0.0


def part_figures(rows: Sequence[Row], wall: float, workers: int) -> dict:
    whole = np.array([r.whole for r in rows], dtype=np.float64)
    solve = np.array([r.solve for r in rows], dtype=np.float64)
    nodes = np.array([r.nodes for r in rows], dtype=np.int64)
    n = len(rows)
    counts = Counter(r.verdict for r in rows)
    order = np.argsort(-whole, kind="stable")
    by: dict[str, list] = {}
    for r in rows:
        cell = by.setdefault(r.settled_by or "unresolved", [0, 0.0])
        cell[0] += 1
        cell[1] += r.whole
    total = float(whole.sum())
    top = max(1, n // 100)
    return {
        "deals": n,
        "workers": workers,
        "counts": {v: counts.get(v, 0) for v in ("win", "loss", "unresolved")},
        "unresolved": sorted(r.number for r in rows if r.verdict == "unresolved")[:100],
        "deals_per_second_per_core": _r(n / total) if total else None,
        "solver_deals_per_second_per_core": _r(n / float(solve.sum())) if solve.sum() else None,
        "wall_deals_per_second": _r(n / wall) if wall else None,
        "seconds": {"whole": _r(total), "solve": _r(float(solve.sum())), "wall": _r(wall)},
        "per_deal_seconds": ({q: _r(float(np.percentile(whole, p))) for q, p in PERCENTILES}
                             | {"mean": _r(total / n), "max": _r(float(whole.max()))})
        if n else {},
        "positions": int(nodes.sum()),
        "positions_per_second": _r(float(nodes.sum()) / float(solve.sum()))
        if solve.sum() else None,
        "share_of_time_in_slowest_1pc": _r(float(whole[order[:top]].sum()) / total)
        if total else None,
        "settled_by": {k: {"deals": c, "share_of_deals": _r(c / n, 4),
                           "seconds": _r(t), "share_of_time": _r(t / total, 4) if total else 0}
                       for k, (c, t) in sorted(by.items(), key=lambda kv: -kv[1][1])},
        "slowest": [{"deal": rows[i].number, "code": number_to_code(rows[i].number),
                     "verdict": rows[i].verdict, "seconds": _r(rows[i].whole, 4),
                     "positions": rows[i].nodes, "settled_by": rows[i].settled_by}
                    for i in order[:SLOWEST]],
    }


def ratio(base: Sequence[float], new: Sequence[float], block: int = BLOCK,
          seed: int = 0) -> dict:
    """How many times as fast ``new`` is as ``base`` on the same deals (the sums of their
    times, deal by deal in the same order), with a 95 % interval from a bootstrap over
    blocks of ``block`` deals in a row: a block holds the machine's phase that both sides
    met, so the interval holds the machine's drift as well as the deals' spread."""
    b = np.asarray(base, dtype=np.float64)
    w = np.asarray(new, dtype=np.float64)
    if b.size != w.size or b.size == 0:
        raise ValueError("a ratio needs the same deals on both sides")
    k = int(np.ceil(b.size / block))
    bs = np.array([b[i * block:(i + 1) * block].sum() for i in range(k)])
    ws = np.array([w[i * block:(i + 1) * block].sum() for i in range(k)])
    point = float(bs.sum() / ws.sum())
    if k > 1:
        rng = np.random.default_rng(seed)
        picks = rng.integers(0, k, (BOOTSTRAP, k))
        boot = bs[picks].sum(axis=1) / ws[picks].sum(axis=1)
        low, high = (float(x) for x in np.percentile(boot, [2.5, 97.5]))
    else:
        low = high = point
    if low > 1:
        says = "faster"
    elif high < 1:
        says = "slower"
    else:
        says = "not told apart"
    return {"ratio": _r(point, 4), "low": _r(low, 4), "high": _r(high, 4), "blocks": k,
            "verdict": says}


def differing(a: Sequence[Row], b: Sequence[Row]) -> list[int]:
    """The deals (in both) whose verdicts differ, unresolved on one side not counted."""
    other = {r.number: r.verdict for r in b}
    return [r.number for r in a if r.number in other and r.verdict != other[r.number]
            and "unresolved" not in (r.verdict, other[r.number])]


def settled_within(rows: Sequence[Row], limit: Optional[float] = None) -> np.ndarray:
    """The sorted whole times of the deals settled (within ``limit`` when given): a cactus
    line."""
    t = np.sort(np.array([r.whole for r in rows if r.verdict != "unresolved"]))
    return t[t <= limit] if limit is not None else t
