"""Running a suite: its parts on worker processes, the machine watched around them, the
figures of each part, and the result as one dictionary (what ``bench.json`` holds).
"""

from __future__ import annotations

import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional, Sequence, TextIO

from .errors import BenchError
from .figures import BLOCK, differing, part_figures, rounds_figures, stability_line
from .lanes import Lane, Row, can_pin, open_lanes, run_parallel, usable_cores
from .machine import Watch, describe
from .suites import (
    CPSAT_LIMIT,
    PLAIN_BUDGET,
    SUITES,
    Suite,
    part_about,
    part_numbers,
    scaling_steps,
    set_version,
    suite_seed,
    warmup_numbers,
)

SCHEMA = 2  # raised when a key of bench.json changes meaning or goes away (2: rounds)
ROOT = Path(__file__).resolve().parents[2]


class Progress:
    """One line per part on ``out`` and a bar while it runs (a terminal only)."""

    def __init__(self, out: Optional[TextIO]) -> None:
        self.out = out

    def say(self, text: str) -> None:
        if self.out is not None:
            print(f"halfmoon bench: {text}", file=self.out, flush=True)

    def bar(self, total: int, what: str):
        if self.out is None or not getattr(self.out, "isatty", lambda: False)():
            return None
        from tqdm import tqdm

        return tqdm(total=total, desc=what, unit="deal", file=self.out, leave=False,
                    smoothing=0.05)


def solve_part(lanes: Sequence[Lane], numbers: Sequence[int], progress: Progress, what: str,
               block: int = BLOCK, beside: Optional[dict] = None, usage: Optional[dict] = None,
               **how) -> tuple[list[Row], float]:
    bar = progress.bar(len(numbers), what)
    try:
        return run_parallel(lanes, numbers, block, beside=beside, usage=usage,
                            on_block=None if bar is None else bar.update, **how)
    finally:
        if bar is not None:
            bar.close()


def _baseline(name: str, rows: list[Row], wall: float, workers: int,
              solver_rows: dict[int, Row], limit: str) -> dict:
    """A baseline's figures beside the solver's on the same deals, solved right after each
    block on the same core (so both met the same machine); the speed-up a floor when the
    baseline left deals unresolved at its limit."""
    mine = [solver_rows[r.number] for r in rows]
    fig = part_figures(rows, wall, workers)
    solver_fig = part_figures(mine, sum(r.whole for r in mine) / max(workers, 1), workers)
    settled = [r for r in rows if r.verdict != "unresolved"]
    fig.update({
        "limit": limit,
        "settled": len(settled),
        "verdicts_differ": differing(rows, mine),
        "solver_on_the_same_deals": {k: solver_fig[k] for k in (
            "deals", "deals_per_second_per_core", "per_deal_seconds", "positions",
            "seconds")},
        "solver_speedup": (round(sum(r.whole for r in rows) / sum(r.whole for r in mine), 1)
                           if sum(r.whole for r in mine) else None),
        "solver_speedup_is_a_floor": len(settled) < len(rows),
    })
    return fig


def suite_workers(suite: str, workers: Optional[int]) -> tuple[Suite, int]:
    """The suite named and its number of workers (lanes, or pairs of them): one where a
    part runs pinned to one core, else ``workers``, by default every usable core."""
    if suite not in SUITES:
        raise BenchError(f"no suite {suite!r} (expected one of {', '.join(SUITES)})")
    spec = SUITES[suite]
    if any(part.pinned_one for part in spec.parts):
        return spec, 1
    n = len(usable_cores()) if workers is None else workers
    if n < 1:
        raise BenchError(f"--workers {n}: expected at least 1")
    return spec, n


def suite_rounds(suite: str, rounds: Optional[int]) -> int:
    """The rounds of a suite's solver parts: ``rounds``, by default the suite's own."""
    n = SUITES[suite].rounds if rounds is None else rounds
    if n < 1:
        raise BenchError(f"--rounds {n}: expected at least 1")
    return n


def run_suite(suite: str, *, workers: Optional[int] = None, budget: int,
              progress: Optional[TextIO] = sys.stderr, command: str = "",
              rounds: Optional[int] = None,
              revision: Optional[tuple[str, str, Path, Path]] = None,
              seed: Optional[int] = None) -> tuple[dict, dict]:
    """Run suite ``suite`` on ``workers`` worker processes (default: every usable core; the
    quick suite one, pinned), each first warmed up on deals not counted, the solver's parts
    ``rounds`` times over (default: the suite's): the result (a dict, as bench.json) and each
    part's rows (of its median round; every round's under ``"rounds"``).

    With ``revision`` (its name, commit, exported folder and numba cache: see
    :func:`halfmoon.bench.against.checkout`), the workers run that revision's solver, and the
    result is of it: its solver version, commit and digest.  ``seed`` draws the standard
    suite's random deals (:func:`halfmoon.bench.suites.suite_seed`)."""
    spec, n = suite_workers(suite, workers)
    n_rounds = suite_rounds(suite, rounds)
    seed = suite_seed(suite, seed)
    p = Progress(progress)
    cores = usable_cores()
    machine = describe(ROOT)
    if revision is not None:  # read before its workers start, from what they import
        from .machine import solver_digest

        revision_digest = solver_digest(revision[2] / "solver")
    watch = Watch(workers=n)
    p.say(f"suite {suite} ({spec.about}; {spec.minutes} on two cores), solver "
          + (f"of {revision[0]} ({revision[1][:12]})" if revision is not None
             else f"version {machine['solver_version']}") + f", {n} worker{'s' if n > 1 else ''}"
          + ((" pinned to a core each" if n > 1 else " pinned to a core") if can_pin() else "")
          + f", {n_rounds} round{'s' if n_rounds > 1 else ''} …")
    t_setup = time.perf_counter()
    lanes = (open_lanes(n, revision[2], cache=revision[3]) if revision is not None
             else open_lanes(n))
    setup = time.perf_counter() - t_setup
    parts: dict[str, dict] = {}
    rows_of: dict[str, list[Row]] = {}
    all_rounds: dict[str, list[list[Row]]] = {}
    try:
        warm = warmup_numbers()
        t_warm = time.perf_counter()
        for lane in lanes:  # each its own: every worker pays its first solves here
            lane.run(warm, engine="solver", budget=budget)
        warmup = {"deals": len(warm), "seconds": round(time.perf_counter() - t_warm, 3)}
        watch.start()
        for part in spec.parts:
            numbers = part_numbers(part.name, suite, seed)
            p.say(f"{part.name}: {part_about(part, seed)} …")
            if part.name == "workers":
                parts[part.name] = _scaling(lanes, numbers, budget, p)
            elif part.engine == "difficulty":
                from .difficulty import difficulty_part

                rows_of[part.name], parts[part.name] = difficulty_part(numbers, p.say)
            else:
                how = {"engine": part.engine, "budget": budget}
                block = BLOCK
                if part.engine == "plain":
                    how["budget"], block = PLAIN_BUDGET, 20
                elif part.engine == "cpsat":
                    how["limit"], block = CPSAT_LIMIT, 2
                if part.engine == "solver":
                    rows_of[part.name], parts[part.name], all_rounds[part.name] = _rounds(
                        lanes, numbers, p, part.name, n_rounds, watch, how)
                else:
                    solver_rows: dict = {}
                    rows, wall = solve_part(lanes, numbers, p, part.name, block=block,
                                            beside=solver_rows, **how)
                    rows_of[part.name] = rows
                    rows_of[f"solver on {part.name}'s deals"] = [solver_rows[r.number]
                                                                  for r in rows]
                    limit = (f"{PLAIN_BUDGET:,} positions" if part.engine == "plain"
                             else f"{CPSAT_LIMIT:.0f} s")
                    parts[part.name] = _baseline(part.name, rows, wall, len(lanes),
                                                 solver_rows, limit)
            parts[part.name].update({"about": part_about(part, seed), "engine": part.engine})
            if part.name not in all_rounds or n_rounds == 1:
                watch.mark(part.name)
            p.say(_line(part.name, parts[part.name]))
            if "rounds" in parts[part.name]:
                p.say(stability_line(part.name, parts[part.name]["rounds"]))
    except BaseException:
        for lane in lanes:
            lane.close(kill=True)
        raise
    for lane in lanes:
        lane.close()
    watch.stop()
    if revision is not None:
        machine.update(solver_version=lanes[0].solver_version, commit=revision[1], dirty=False,
                       solver_digest=revision_digest)
    result = {
        "schema": SCHEMA,
        "suite": suite,
        "about": spec.about,
        "command": command,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "solver_version": machine["solver_version"],
        "commit": machine["commit"],
        "dirty": machine["dirty"],
        "budget": budget,
        "workers": n,
        "pinned": can_pin(),
        "setup_seconds": round(setup, 2),
        "rounds": n_rounds,
        "warmup": warmup,
        "machine": machine,
        "sets": {name: set_version(name) for name in ("quick", "hard")},
        **watch.as_dict(len(cores)),
        "parts": parts,
    }
    if seed is not None:
        result["seed"] = seed
    if revision is not None:
        result["revision"] = revision[0]
    if all_rounds:
        rows_of["rounds"] = all_rounds
    return result, rows_of


def _rounds(lanes: Sequence[Lane], numbers: Sequence[int], p: Progress, name: str,
            rounds: int, watch: Watch, how: dict) -> tuple[list[Row], dict, list[list[Row]]]:
    """A solver part solved ``rounds`` times over (the reference workload timed after each
    round when there are several): the median round's rows, its figures with the rounds'
    under ``"rounds"``, and every round's rows."""
    got, walls, shares = [], [], []
    for k in range(rounds):
        usage: dict = {}
        what = name if rounds == 1 else f"{name}, round {k + 1} of {rounds}"
        rows, wall = solve_part(lanes, numbers, p, what, usage=usage, **how)
        got.append(rows)
        walls.append(wall)
        shares.append(usage["cpu"] / usage["wall"] if usage.get("wall") else None)
        if rounds > 1:
            watch.mark(f"{name} {k + 1}")
    together = rounds_figures(got, shares)
    m = together["median_round"] - 1
    fig = part_figures(got[m], walls[m], len(lanes))
    fig["rounds"] = together
    return got[m], fig, got


def _scaling(lanes: Sequence[Lane], numbers: Sequence[int], budget: int, p: Progress) -> dict:
    steps = []
    for w in scaling_steps(len(lanes)):
        rows, wall = solve_part(lanes[:w], numbers, p, f"{w} worker{'s' if w > 1 else ''}",
                                engine="solver", budget=budget)
        fig = part_figures(rows, wall, w)
        steps.append({"workers": w, "deals": fig["deals"],
                      "wall_deals_per_second": fig["wall_deals_per_second"],
                      "deals_per_second_per_core": fig["deals_per_second_per_core"],
                      "wall_seconds": fig["seconds"]["wall"]})
    one = steps[0]["wall_deals_per_second"] or 0
    for s in steps:
        s["efficiency"] = round(s["wall_deals_per_second"] / (one * s["workers"]), 3) \
            if one else None
    return {"deals": len(numbers), "steps": steps}


def _line(name: str, fig: dict) -> str:
    if "difficulty" in fig:
        from .difficulty import difficulty_line

        return difficulty_line(fig)
    if name == "workers":
        return "workers: " + ", ".join(f"{s['workers']}: {s['wall_deals_per_second']:,.0f}/s"
                                       f" ({100 * s['efficiency']:.0f} %)"
                                       for s in fig["steps"])
    q = fig["per_deal_seconds"]
    c = fig["counts"]
    return (f"{name}: {fig['deals']:,} deals ({c['win']:,} won, {c['loss']:,} lost, "
            f"{c['unresolved']:,} unresolved), {fig['deals_per_second_per_core']:,.1f} a "
            f"second per core, p99 {_time(q['p99'])}, max {_time(q['max'])}")


def _time(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"
