"""The grouping search in its views (by counts through the propagator, by counts as totalizer
clauses, by pairs), side by side in one process.

    python benchmarks/lab/bench_grouping.py [DEALS] [--budget 400000] [--solve]
                                        [--only counts|counters|pairs] [--json PATH]

DEALS is a list of deal numbers and ranges (``1413,2502,0:100``); by default the hard deals
the view by counts was judged on (four losses of the whole code space, the costliest
losses of 0-9,999 and a hard win).  For each deal, the views take turns, their order
reversed from deal to deal, so that all see the machine in the same phases:

- the grouping search alone (:func:`solver.grouping.model.grouping_model` and one run of
  :func:`solver.grouping.clause_learning.grouping_run` of at most ``--budget`` conflicts):
  verdict, conflicts and seconds (the model's writing included), every win's line checked by
  ``line_wins``;
- with ``--solve``, :func:`solver.portfolio.search.solve` with every rule (the grouping search
  in that view) and with ``COUNTING`` off (by pairs): verdict, nodes, seconds and the search
  that settled it, every win replayed through the reference engine.

It measures the solver's insides, not its front door: ``solver.grouping`` (the model and
its run, in each view), ``solver.portfolio`` (the portfolio's ``solve``, its view by counts
set for each run), with the deal's arrays and first position from ``solver.mirror`` and the
partner table and rules of ``solver.depth_first``.

Conflicts and nodes do not depend on the machine's speed; seconds do, and this machine is
shared and switches speed, so the seconds are only compared within one run.  Verdicts that
differ between the views are listed (there should be none).  The figures of each run worth
keeping go to docs/tuning-log.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import solver.portfolio.search as search  # noqa: E402
from halfmoon import Game  # noqa: E402
from halfmoon.game.deal import Deal  # noqa: E402
from solver import warm_up  # noqa: E402
from solver.depth_first.bounds import partner_table  # noqa: E402
from solver.depth_first.pruning import ALL_RULES, COUNTING  # noqa: E402
from solver.grouping.model import (  # noqa: E402
    LOSS,
    VIEW_COUNTERS,
    VIEW_COUNTS,
    VIEW_PAIRS,
    WIN,
    grouping_model,
    grouping_run,
    line_wins,
)
from solver.mirror.convert import deal_arrays  # noqa: E402
from solver.mirror.position import MAX_PLY, initial_position  # noqa: E402
from solver.portfolio.search import solve  # noqa: E402

HARD = "1413,5282,2502,6218469143,6382767906,4469536381,8776,1033553841"
VIEWS = {"counts": VIEW_COUNTS, "counters": VIEW_COUNTERS, "pairs": VIEW_PAIRS}
STATUS = {WIN: "win", LOSS: "loss"}


def deal_list(text: str) -> list[int]:
    out = []
    for part in text.split(","):
        if ":" in part:
            a, b = (int(x) for x in part.split(":"))
            out.extend(range(a, b))
        elif part:
            out.append(int(part))
    return out


def grouping_alone(number: int, view: int, budget: int) -> dict:
    piles, reserve = deal_arrays(Deal.from_number(number))
    part, npart = partner_table(piles, reserve)
    root = initial_position(piles, reserve)
    line = np.zeros(MAX_PLY, np.uint64)
    info = np.zeros(2, np.int64)
    t0 = time.perf_counter()
    status, model = grouping_model(piles, reserve, part, npart, root, view)
    status, model = grouping_run(model, budget, line, info)
    seconds = time.perf_counter() - t0
    if status == WIN and not line_wins(piles, reserve, root, line, int(info[1])):
        raise RuntimeError(f"deal {number}: the grouping search's line does not win")
    return {"verdict": STATUS.get(status, "unresolved"), "conflicts": int(info[0]),
            "seconds": seconds}


def solved(number: int, view: int) -> dict:
    rules = ALL_RULES if view != VIEW_PAIRS else ALL_RULES & ~COUNTING
    default = search.VIEW_COUNTS
    # the view solve() writes by counts
    search.VIEW_COUNTS = view if view != VIEW_PAIRS else default
    try:
        r = solve(number, rules=rules)
    finally:
        search.VIEW_COUNTS = default
    if r.verdict == "win":
        game = Game(number)
        for move in r.moves:
            game.play(move)
        if not game.is_won:
            raise RuntimeError(f"deal {number}: the solver's line does not win")
    return {"verdict": r.verdict, "nodes": r.nodes, "seconds": r.seconds, "by": r.settled_by}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("deals", nargs="?", default=HARD)
    ap.add_argument("--budget", type=int, default=400_000, help="conflicts of the search alone")
    ap.add_argument("--solve", action="store_true", help="also solve() with COUNTING on and off")
    ap.add_argument("--only", choices=sorted(VIEWS), help="one view only")
    ap.add_argument("--json", type=Path, help="write the figures here")
    args = ap.parse_args(argv)
    views = [args.only] if args.only else list(VIEWS)
    warm_up()
    rows = {}
    print("| deal | view | alone: verdict | conflicts | s |" + (" solve: verdict | nodes | s | by |"
                                                               if args.solve else ""))
    print("|---|---|---|---|---|" + ("---|---|---|---|" if args.solve else ""))
    for i, number in enumerate(deal_list(args.deals)):
        order = views if i % 2 == 0 else views[::-1]
        row = {}
        for view in order:
            row[view] = {"alone": grouping_alone(number, VIEWS[view], args.budget)}
            if args.solve:
                row[view]["solve"] = solved(number, VIEWS[view])
        for view in views:
            a = row[view]["alone"]
            line = (f"| {number} | {view} | {a['verdict']} | {a['conflicts']:,} "
                    f"| {a['seconds']:.2f} |")
            if args.solve:
                s = row[view]["solve"]
                line += f" {s['verdict']} | {s['nodes']:,} | {s['seconds']:.2f} | {s['by']} |"
            print(line, flush=True)
        rows[number] = row
    print()
    for view in views:
        alone = [r[view]["alone"] for r in rows.values()]
        text = (f"{view}: alone {sum(a['conflicts'] for a in alone):,} conflicts, "
                f"{sum(a['seconds'] for a in alone):.2f} s, "
                f"{sum(a['verdict'] == 'unresolved' for a in alone)} unresolved")
        if args.solve:
            s = [r[view]["solve"] for r in rows.values()]
            text += (f"; solve {sum(x['nodes'] for x in s):,} nodes, "
                     f"{sum(x['seconds'] for x in s):.2f} s, "
                     f"{sum(x['verdict'] == 'unresolved' for x in s)} unresolved")
        print(text)
    differ = []
    for number, r in rows.items():
        verdicts = {r[v][k]["verdict"] for v in views for k in r[v]} - {"unresolved"}
        if len(verdicts) > 1:
            differ.append(number)
    print(f"verdicts that differ: {differ or 'none'}")
    if args.json:
        args.json.write_text(json.dumps({"budget": args.budget, "deals": rows}, indent=1))
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
