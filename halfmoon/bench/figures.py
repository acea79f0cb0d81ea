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
MIN_BLOCKS = 20  # blocks a part makes at least (smaller blocks for a small part)


def block_size(deals: int) -> int:
    """Deals a block for a part of ``deals``: :data:`BLOCK`, smaller for a small part so
    that it makes :data:`MIN_BLOCKS` blocks.  Two versions taking short blocks in turn meet
    the same phases of the machine, and a bootstrap needs blocks to draw from: the hard
    set's 500 deals in two blocks of 250 gave ratios whose intervals two runs in a row
    missed."""
    return max(1, min(BLOCK, -(-deals // MIN_BLOCKS)))


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


def ratio(base: Sequence[float], new: Sequence[float], block: Optional[int] = None,
          seed: int = 0) -> dict:
    """How many times as fast ``new`` is as ``base`` on the same deals (the sums of their
    times, deal by deal in the same order), with a 95 % interval from a bootstrap over
    blocks of ``block`` deals in a row (default :func:`block_size`: the blocks the two
    sides took in turn): a block holds the machine's phase that both sides met, so the
    interval holds the machine's drift as well as the deals' spread."""
    b = np.asarray(base, dtype=np.float64)
    w = np.asarray(new, dtype=np.float64)
    if b.size != w.size or b.size == 0:
        raise ValueError("a ratio needs the same deals on both sides")
    block = block or block_size(b.size)
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


def rate_interval(times: Sequence[float], block: Optional[int] = None, seed: int = 0
                  ) -> tuple[float, float]:
    """A 95 % interval of a part's rate (deals over their summed times) from a bootstrap over
    blocks of ``block`` deals in a row (default :func:`block_size`)."""
    t = np.asarray(times, dtype=np.float64)
    block = block or block_size(t.size)
    k = int(np.ceil(t.size / block))
    if k < 2:
        rate = t.size / float(t.sum()) if t.sum() else 0.0
        return rate, rate
    sums = np.array([t[i * block:(i + 1) * block].sum() for i in range(k)])
    counts = np.array([min(block, t.size - i * block) for i in range(k)])
    picks = np.random.default_rng(seed).integers(0, k, (BOOTSTRAP, k))
    rates = counts[picks].sum(axis=1) / sums[picks].sum(axis=1)
    low, high = np.percentile(rates, [2.5, 97.5])
    return _r(float(low), 4), _r(float(high), 4)


ROUNDS_SPREAD = 1.25  # the fastest round over the slowest that still counts as stable (as the
# reference workload's timings, halfmoon.bench.machine.SPREAD)


def rounds_figures(rounds: Sequence[Sequence[Row]], cpu_shares: Sequence[Optional[float]]
                   ) -> dict:
    """What the rounds of a part (the same deals, solved again) say together: each round's
    rate, its interval over blocks and the share of its workers' time they had a core; the
    median round's rate (the lower middle one of an even number), the rounds' spread
    (fastest over slowest), and whether they hold together.

    The rounds are *stable* when no round is told apart from the median one (each round's
    times against the median round's, deal by deal over blocks (:func:`ratio`), hold 1 in
    their interval) and the fastest is within :data:`ROUNDS_SPREAD` of the slowest.  Rounds
    further apart than that are the machine changing speed between them, not the deals
    (they are the same); a noisy machine can leave rounds far apart with intervals wide
    enough to hold 1, hence the second test."""
    rates = [float(len(r) / s) if (s := sum(x.whole for x in r)) else 0.0 for r in rounds]
    order = sorted(range(len(rates)), key=lambda i: rates[i])
    median_round = order[(len(order) - 1) // 2]  # the lower of the middle two when even
    apart = []
    for i, r in enumerate(rounds):
        if i == median_round:
            continue
        s = ratio([x.whole for x in rounds[median_round]], [x.whole for x in r])
        if s["verdict"] != "not told apart":
            apart.append({"round": i + 1, **s})
    median = rates[median_round] if rates else 0.0
    shares = [s for s in cpu_shares if s is not None]
    # a round's rate per second of CPU its workers had: what a core of their own would give,
    # as far as only sharing the core slowed them
    cpu = ([rate / share for rate, share in zip(rates, cpu_shares)]
           if len(shares) == len(rates) and all(shares) else [])
    cpu_out = ({"cpu_rates": [_r(x) for x in cpu],
                "cpu_median": _r(sorted(cpu)[(len(cpu) - 1) // 2]),
                "cpu_low": _r(min(cpu)), "cpu_high": _r(max(cpu))} if cpu else {})
    return {
        "rounds": len(rounds),
        "rates": [_r(x) for x in rates],
        "intervals": [list(rate_interval([x.whole for x in r])) for r in rounds],
        "cpu_shares": [None if s is None else round(s, 3) for s in cpu_shares],
        "median": _r(median),
        "median_round": median_round + 1,
        "low": _r(min(rates)) if rates else 0.0,
        "high": _r(max(rates)) if rates else 0.0,
        "spread": _r(max(rates) / min(rates), 4) if rates and min(rates) else None,
        "least_cpu_share": round(min(shares), 3) if shares else None,
        "stable": bool(not apart and (not rates or max(rates) <= ROUNDS_SPREAD * min(rates))),
        "told_apart": apart,
        **cpu_out,
    }


SHARED = 0.9  # a round whose workers had a core less of their time than this shared it


def stability_line(name: str, rounds: dict) -> str:
    """A part's rounds in one line: the median rate, the spread, and whether it is stable."""
    n = rounds["rounds"]
    head = (f"{name}: {rounds['median']:,.1f} deals a second per core, the median of {n} "
            f"round{'s' if n > 1 else ''}")
    if n < 2:
        low, high = rounds["intervals"][0]
        return (head + f" [{low:,.1f}, {high:,.1f}] over blocks; one round: the drift between "
                "rounds not measured (--rounds 3 measures it)")
    head += (f" ({rounds['low']:,.1f} to {rounds['high']:,.1f}, {rounds['spread']:.3f}x "
             "apart)")
    share = rounds.get("least_cpu_share")
    shared = (f"; the workers had their core {100 * share:.0f} % of the time at worst (per "
              f"second of the CPU they had: {rounds['cpu_median']:,.1f}, {rounds['cpu_low']:,.1f}"
              f" to {rounds['cpu_high']:,.1f})"
              if share is not None and share < SHARED and "cpu_median" in rounds else "")
    if rounds["stable"]:
        return head + f": stable, no round told apart from the median one{shared}"
    if rounds["told_apart"]:
        worst = max(rounds["told_apart"], key=lambda s: abs(np.log(s["ratio"])))
        why = (f"round {worst['round']} ran {worst['ratio']:.3f}x the median round's speed "
               f"[{worst['low']:.3f}, {worst['high']:.3f}] on the same deals")
    else:
        why = f"the rounds more than {ROUNDS_SPREAD}x apart on the same deals"
    return (head + f": UNSTABLE, {why}: the machine changed speed{shared}; rerun on a quiet "
            "machine, or with more --rounds")
