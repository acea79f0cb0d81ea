"""How the published deal sets of ``halfmoon bench`` were made, and a way to make them again.

    python benchmarks/make_sets.py solve      # the verdicts and positions (solver, 2 workers)
    python benchmarks/make_sets.py cpsat [--limit 60] [--max-deals 100000]   # resumable
    python benchmarks/make_sets.py write      # halfmoon/bench/sets/{quick,hard}.csv

- **quick**: the 10,000 deals of ``random_numbers(10000, 57001)``, a uniform sample of the
  whole code space (the suite ``quick`` solves them all).
- **hard**: the 500 deals of ``random_numbers(100000, 61206)`` on which solver version 15
  spent the most positions (ties broken by deal number): past 42,000 positions each, about
  half of that sample's solving time in 0.5 % of its deals.  Chosen by one version's
  positions, so a later version that differs from it tends to look better here than on
  random deals (regression to the mean): judge a change on random deals first.

Each set's CSV lists every deal's number, code, verdict and positions under the solver version
that made it, and ``cpsat``: ``confirmed`` when the independent CP-SAT model (by counts, at
most ``--limit`` seconds a deal) gave the same verdict, ``timed out`` when it gave none in its
limit, ``not run`` when it was not tried.  A differing verdict stops the script: it is a bug.
The working files lie under benchmarks/results/new/sets/ (ignored by git).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from halfmoon.bench.lanes import open_lanes, run_parallel  # noqa: E402
from halfmoon.game.codes import number_to_code, random_numbers  # noqa: E402
from solver import DEFAULT_BUDGET, SOLVER_VERSION  # noqa: E402

WORK = ROOT / "benchmarks" / "results" / "new" / "sets"
OUT = ROOT / "halfmoon" / "bench" / "sets"
QUICK = (10_000, 57001)
HARD_FROM = (100_000, 61206)
HARD = 500


def solve_step(workers: int) -> None:
    WORK.mkdir(parents=True, exist_ok=True)
    lanes = open_lanes(workers)
    try:
        for name, (count, seed) in (("quick", QUICK), ("hard-sample", HARD_FROM)):
            numbers = random_numbers(count, seed)
            rows, wall = run_parallel(lanes, numbers, 250, engine="solver",
                                      budget=DEFAULT_BUDGET)
            with (WORK / f"{name}.jsonl").open("w") as f:
                for r in rows:
                    f.write(json.dumps({"deal": r.number, "verdict": r.verdict,
                                        "nodes": r.nodes}) + "\n")
            print(f"{name}: {len(rows):,} deals in {wall:.0f} s", file=sys.stderr)
    finally:
        for lane in lanes:
            lane.close()


def _load(name: str) -> list[dict]:
    with (WORK / f"{name}.jsonl").open() as f:
        return [json.loads(line) for line in f]


def chosen() -> dict[str, list[dict]]:
    quick = _load("quick")
    sample = _load("hard-sample")
    hard = sorted(sample, key=lambda r: (-r["nodes"], r["deal"]))[:HARD]
    return {"quick": quick, "hard": hard}


def _cpsat_records() -> dict[int, dict]:
    """CP-SAT's answers so far, by deal (a line cut by a stopped run left out)."""
    path = WORK / "cpsat.jsonl"
    done = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue
            done[rec["deal"]] = rec
    return done


def cpsat_step(limit: float, max_deals: int) -> None:
    from solver import solve_cpsat

    path = WORK / "cpsat.jsonl"
    done = _cpsat_records()
    sets = chosen()
    # the first 1,000 of the quick set (under a second each), then the hard set (tens of
    # seconds each), then the rest of the quick set
    order = sets["quick"][:1000] + sets["hard"] + sets["quick"][1000:]
    todo = [r for r in order if r["deal"] not in done][:max_deals]
    with path.open("a") as f:
        for k, r in enumerate(todo):
            got = solve_cpsat(r["deal"], time_limit=limit, counting=True)
            if got.verdict != "unresolved" and got.verdict != r["verdict"]:
                raise SystemExit(f"deal {r['deal']}: the solver says {r['verdict']}, CP-SAT "
                                 f"{got.verdict}")
            f.write(json.dumps({"deal": r["deal"], "cpsat": got.verdict,
                                "seconds": round(got.seconds, 3)}) + "\n")
            f.flush()
            if k % 20 == 19:
                print(f"cpsat: {k + 1} of {len(todo)}", file=sys.stderr)


def write_step() -> None:
    checked = {deal: "timed out" if rec["cpsat"] == "unresolved" else "confirmed"
               for deal, rec in _cpsat_records().items()}
    OUT.mkdir(parents=True, exist_ok=True)
    for name, recs in chosen().items():
        with (OUT / f"{name}.csv").open("w", newline="") as f:
            f.write(f"# the {name} set of halfmoon bench (benchmarks/make_sets.py); verdicts "
                    f"and positions of solver version {SOLVER_VERSION}\n")
            w = csv.writer(f, lineterminator="\n")  # LF, as every text file here
            w.writerow(["number", "code", "verdict", "positions", "cpsat"])
            for r in recs:
                w.writerow([r["deal"], number_to_code(r["deal"]), r["verdict"], r["nodes"],
                            checked.get(r["deal"], "not run")])
        print(f"written: {OUT.relative_to(ROOT) / (name + '.csv')} ({len(recs):,} deals)")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("step", choices=["solve", "cpsat", "write"])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--limit", type=float, default=60.0, help="CP-SAT's seconds a deal")
    p.add_argument("--max-deals", type=int, default=100_000,
                   help="at most this many deals put to CP-SAT in this run")
    args = p.parse_args(argv)
    if args.step == "solve":
        solve_step(args.workers)
    elif args.step == "cpsat":
        cpsat_step(args.limit, args.max_deals)
    else:
        write_step()
    return 0


if __name__ == "__main__":
    sys.exit(main())
