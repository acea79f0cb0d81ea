"""Two saved results compared without running anything: ``halfmoon bench compare A B``.

Two results were measured at different times, perhaps on different machines, so the ratio of
their rates holds the machine's change as well as the solver's.  Its interval is made of what
was measured, not of a model:

- each side's rounds (the same deals solved again in one run): B's slowest round over A's
  fastest to B's fastest over A's slowest; a side of one round gives its rate's interval
  over blocks of deals instead (its drift between rounds was not measured, and says so);
- the machine between the two runs: how far apart the reference workload ran (the median of
  each run's timings) and how far apart the share of their time the workers had a core;
  the interval is widened by the larger of the two factors.

Beside it, the same per second of the CPU the workers had (each round's rate over its
workers' share of a core): on a shared machine, where other processes take part of the
workers' cores, that rate moves far less than the wall's; its interval is the rounds' and
the reference workload's.

Where the interval holds 1 the two are "not told apart".  To measure a change, run both
revisions in one run instead (``--against REV``): the same machine, in turn on each block.
"""

from __future__ import annotations

from statistics import median
from typing import Optional

from .errors import BenchError
from .figures import _r, differing, rate_interval
from .suites import STANDARD_SEED


def sides_of(result: dict, rows: Optional[dict], part: str) -> Optional[dict]:
    """A part's rates as a comparison reads them: the rounds' rates, the median one, the
    interval they span (one round: its interval over blocks, from the result or its rows),
    and the workers' share of a core in the median round."""
    fig = result["parts"].get(part) or {}
    rate = fig.get("deals_per_second_per_core")
    if not rate:
        return None
    rounds = fig.get("rounds")
    shares = (rounds or {}).get("cpu_shares") or []
    cpu: dict = {}
    if rounds and shares and all(shares):  # each round's rate per second of CPU
        per = sorted(rate / share for rate, share in zip(rounds["rates"], shares))
        cpu = {"cpu_rate": _r(per[(len(per) - 1) // 2]), "cpu_low": _r(per[0]),
               "cpu_high": _r(per[-1])}
    if rounds and rounds["rounds"] > 1:
        share = rounds["cpu_shares"][rounds["median_round"] - 1]
        return {"rate": rounds["median"], "rates": rounds["rates"], "low": rounds["low"],
                "high": rounds["high"], "rounds": rounds["rounds"], "cpu_share": share, **cpu}
    if rounds:
        low, high = rounds["intervals"][0]
        share = rounds["cpu_shares"][0]
        if cpu:  # one round: its interval over blocks, per second of CPU
            cpu.update(cpu_low=_r(low / share), cpu_high=_r(high / share))
    elif rows and rows.get(part):
        low, high = rate_interval([r.whole for r in rows[part]])
        share = None
    else:
        low = high = rate
        share = None
    return {"rate": rate, "rates": [rate], "low": low, "high": high, "rounds": 1,
            "cpu_share": share, **cpu}


def _reference(result: dict) -> Optional[float]:
    ns = [float(x) for x in (result.get("reference_ns") or {}).values()]
    return median(ns) if ns else None


def _apart(a: Optional[float], b: Optional[float]) -> Optional[float]:
    if not a or not b:
        return None
    return max(a / b, b / a)


def compare_results(a: dict, b: dict, a_rows: Optional[dict] = None,
                    b_rows: Optional[dict] = None, names: tuple[str, str] = ("A", "B")) -> dict:
    """B against A, part by part: B's rate over A's, its 95 % interval with the drift
    between the runs in it (see the module's text), the verdict ("faster", "slower", "not
    told apart") and, when both hold their deals' rows, the deals whose verdicts differ."""
    for r, name in ((a, names[0]), (b, names[1])):
        if r.get("against"):
            raise BenchError(f"compare: {name} is a side-by-side run (--against "
                             f"{r['against'].get('revision')}): its own ratio is in it")
    if a.get("suite") != b.get("suite"):
        raise BenchError(f"compare: {names[0]} is of suite {a.get('suite')}, {names[1]} of "
                         f"suite {b.get('suite')}: a comparison needs the same suite")
    ref_a, ref_b = _reference(a), _reference(b)
    reference = _apart(ref_a, ref_b)
    notes = []
    if a.get("budget") != b.get("budget"):
        notes.append(f"budgets differ ({a.get('budget'):,} and {b.get('budget'):,} positions "
                     "a deal)")
    seeds = [_seed(r) for r in (a, b)]
    if seeds[0] != seeds[1]:
        notes.append(f"the random deals differ (seeds {seeds[0]} and {seeds[1]}): the ratio "
                     "holds the deals' difference as well as the solvers'")
    ma, mb = a.get("machine", {}), b.get("machine", {})
    if (ma.get("cpu"), ma.get("cores")) != (mb.get("cpu"), mb.get("cores")):
        notes.append(f"measured on different machines ({ma.get('cpu')}, {ma.get('cores')} "
                     f"cores; {mb.get('cpu')}, {mb.get('cores')} cores): the ratio holds the "
                     "machines' difference as well as the solvers'")
    for r, name in ((a, names[0]), (b, names[1])):
        if r.get("busy"):
            notes.append(f"{name} is marked busy ({'; '.join(r.get('busy_reasons', []))})")
    parts = {}
    for part in a["parts"]:
        sa, sb = sides_of(a, a_rows, part), sides_of(b, b_rows, part)
        if sa is None or sb is None:
            continue
        shares = _apart(sa["cpu_share"], sb["cpu_share"])
        widen = max(reference or 1.0, shares or 1.0)
        point = sb["rate"] / sa["rate"]
        low = sb["low"] / sa["high"] / widen
        high = sb["high"] / sa["low"] * widen
        says = "faster" if low > 1 else "slower" if high < 1 else "not told apart"
        cell = {"a": sa, "b": sb, "ratio": _r(point, 4), "low": _r(low, 4),
                "high": _r(high, 4), "verdict": says,
                "reference_apart": None if reference is None else _r(reference, 4),
                "cpu_shares_apart": None if shares is None else _r(shares, 4),
                "widened_by": _r(widen, 4)}
        if "cpu_rate" in sa and "cpu_rate" in sb:
            # per second of the CPU the workers had: sharing a core taken out, the reference
            # workload's drift left in
            w = reference or 1.0
            lo, hi = sb["cpu_low"] / sa["cpu_high"] / w, sb["cpu_high"] / sa["cpu_low"] * w
            cell["cpu"] = {"ratio": _r(sb["cpu_rate"] / sa["cpu_rate"], 4), "low": _r(lo, 4),
                           "high": _r(hi, 4), "verdict": "faster" if lo > 1 else "slower"
                           if hi < 1 else "not told apart"}
        mine, theirs = (b_rows or {}).get(part), (a_rows or {}).get(part)
        if mine and theirs:
            same = [r.number for r in mine] == [r.number for r in theirs]
            cell["same_deals"] = same
            cell["verdicts_differ"] = differing(mine, theirs)
            if not same:  # the verdicts compared on the deals both solved, said with them
                cell["deals_in_both"] = len({r.number for r in mine}
                                            & {r.number for r in theirs})
        parts[part] = cell
    if not parts:
        raise BenchError(f"compare: {names[0]} and {names[1]} have no part with a rate in "
                         "common")
    return {"a": _about(a, names[0]), "b": _about(b, names[1]),
            "reference_ns": [None if ref_a is None else _r(ref_a, 4),
                             None if ref_b is None else _r(ref_b, 4)],
            "notes": notes, "parts": parts}


def _about(r: dict, name: str) -> dict:
    return {"name": name, "suite": r.get("suite"), "solver_version": r.get("solver_version"),
            "commit": r.get("commit"), "dirty": r.get("dirty"), "created": r.get("created"),
            "cpu": r.get("machine", {}).get("cpu"), "busy": r.get("busy"),
            "solver_digest": r.get("machine", {}).get("solver_digest")}


def compare_lines(c: dict) -> list[str]:
    """The comparison as lines of text (the terminal's and bench.md's)."""
    lines = []
    for key in ("a", "b"):
        s = c[key]
        commit = (s["commit"] or "unknown")[:12] + (" with changes not committed"
                                                     if s["dirty"] else "")
        lines.append(f"{key.upper()}: {s['name']}: solver version {s['solver_version']}, "
                     f"commit {commit}, made {s['created']} on {s['cpu']}"
                     + (" (marked busy)" if s["busy"] else ""))
    da, db = c["a"]["solver_digest"], c["b"]["solver_digest"]
    if da and db:
        lines.append(f"solver source: the same ({da})" if da == db else
                     f"solver source: different ({da}; {db})")
    lines.append("")
    for part, cell in c["parts"].items():
        a, b = cell["a"], cell["b"]
        lines.append(f"{part}: B {cell['ratio']:.3f}x A's speed [{cell['low']:.3f}, "
                     f"{cell['high']:.3f}] (95 %): {cell['verdict']}; "
                     f"{b['rate']:,.1f} against {a['rate']:,.1f} deals a second per core"
                     + _verdicts(cell))
        lines.append(f"  the interval: {_span(b)} over {_span(a)}, widened by "
                     f"{cell['widened_by']:.3f}x for the machine between the runs ("
                     + _drift(cell, c["reference_ns"]) + ")")
        if "cpu" in cell:
            u = cell["cpu"]
            lines.append(f"  per second of the CPU the workers had (sharing a core taken out): "
                         f"B {u['ratio']:.3f}x A's [{u['low']:.3f}, {u['high']:.3f}]: "
                         f"{u['verdict']}; {b['cpu_rate']:,.1f} against {a['cpu_rate']:,.1f}")
    lines += [f"note: {n}" for n in c["notes"]]
    return lines


def _verdicts(cell: dict) -> str:
    if "verdicts_differ" not in cell:
        return ""
    k = len(cell["verdicts_differ"])
    if "deals_in_both" in cell:
        return (f"; other deals: verdicts differ on {k} of the {cell['deals_in_both']:,} "
                "deals in both")
    return f"; verdicts differ on {k} deals"


def _seed(r: dict) -> Optional[int]:
    """The seed of a result's random deals (a standard result saved before it was recorded
    is of the default seed)."""
    if r.get("suite") != "standard":
        return None
    return r.get("seed", STANDARD_SEED)


def _span(s: dict) -> str:
    if s["rounds"] > 1:
        return (f"{s['rounds']} rounds {s['low']:,.1f} to {s['high']:,.1f}")
    return (f"one round, {s['low']:,.1f} to {s['high']:,.1f} over blocks (drift between "
            "rounds not measured)")


def _drift(cell: dict, ref: list) -> str:
    out = []
    if cell["reference_apart"] is not None:
        out.append(f"the reference workload {ref[0]:.1f} and {ref[1]:.1f} ns, "
                   f"{cell['reference_apart']:.3f}x apart")
    else:
        out.append("the reference workload not timed in both")
    a, b = cell["a"]["cpu_share"], cell["b"]["cpu_share"]
    if a is not None and b is not None:
        out.append(f"the workers had their core {100 * a:.0f} % and {100 * b:.0f} % of the "
                   "time")
    else:
        out.append("the workers' share of a core not recorded in both")
    return "; ".join(out)
