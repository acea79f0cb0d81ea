"""Where the solver's time goes on deals nobody tuned for: random deals from the whole code
space (or a range), one process per core, every deal timed.

    python benchmarks/bench_tail.py --random 100000 --seed 20261201     # the judging sample
    python benchmarks/bench_tail.py --range 0:10000                     # the second set
                                    [--workers 2] [--budget N] [--top 20] [--out DIR]
                                    [--model]

The deals are those of ``halfmoon batch --random N --seed S`` (or ``--range A:B``).  Each
of ``--workers`` processes takes every W-th deal and does what a batch worker does with
them: pieces of ``--piece`` deals (16 by default, as a local batch run) solved by
:func:`solver.solve_numbers` and turned into result rows.  Per deal it records the verdict,
positions, which search settled it, the time the compiled code and the solver spent on it,
and its whole time: that plus its share of the piece's remaining cost (calls, rows).

Printed and written to ``tail-<set>-v<version>.json`` and ``.md`` in ``--out`` (default
``benchmarks/results/new/``, not kept in git; ``--out benchmarks/results`` for a run to
commit): counts by verdict and the unresolved deals, deals per second per core over the
sample (deals over the sum of their whole times), time per deal at p50 / p99 / p99.9 / max,
the share of the time spent on the slowest 1 %, the slowest deals with their verdict and
settling search, which search settled how many deals, and the workers' peak memory.  The
JSON keeps the 200 slowest deals, for checking their verdicts by an independent method.  The
machine is watched as ``halfmoon bench`` watches it (``halfmoon.bench.machine``): a run beside
other work, or through a change of the machine's speed, says so in one line and is marked busy
(``machine_state``).

A run is resumable: the deals done so far are kept (one JSON line each) in
``benchmarks/results/tmp/tail-<set>-v<version>/``; running the same command again goes on
from there, so a cut run loses nothing.  ``--fresh`` drops those records and times every deal
again (to measure the same version anew, say on a quieter machine).  Compile the solver first
(any solve does): a worker that compiles it reports numba's memory as its peak.

``--model`` also refits the dry run's tail model (``halfmoon/batch/tail_model.json``) from
every deal's solve time and positions: the step a new solver version needs, on 100,000
random deals of a fresh seed with ``--out benchmarks/results`` (the model names the result
it was made from).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import resource
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


from halfmoon.bench.lanes import usable_cores  # noqa: E402
from halfmoon.bench.machine import Watch  # noqa: E402
from halfmoon.game.codes import number_to_code, random_numbers  # noqa: E402
from solver import DEFAULT_BUDGET, SOLVER_VERSION  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
KEEP = 200  # slowest deals kept in the JSON
PIECE = 16  # deals per call, as in a local batch run


def deal_numbers(args) -> tuple[str, list[int]]:
    if args.random is not None:
        return f"random-{args.random}-seed{args.seed}", random_numbers(args.random, args.seed)
    a, b = (int(x) for x in args.range.split(":"))
    return f"range-{a}-{b}", list(range(a, b))


def work(k: int, numbers: list[int], budget: int, piece: int, path: Path) -> None:
    """Worker ``k``: solve its deals not yet in its file, appending one line per deal."""
    from halfmoon.batch.results import piece_rows
    from solver import solve_numbers, warm_up

    done = set()
    if path.exists():
        with path.open() as f:
            for line in f:
                rec = json.loads(line)
                if "deal" in rec:
                    done.add(rec["deal"])
    todo = [n for n in numbers if n not in done]
    warm_up()
    with path.open("a") as f:
        for i in range(0, len(todo), piece):
            nums = todo[i : i + piece]
            t0 = time.perf_counter()
            p = solve_numbers(nums, budget)
            rows = piece_rows(p, budget)
            rest = (time.perf_counter() - t0 - float(p.seconds.sum())) / len(nums)
            for j, row in enumerate(rows):
                f.write(json.dumps({"deal": row["deal"], "verdict": row["verdict"],
                                    "nodes": row["nodes"],
                                    "solve": row["seconds"], "whole": row["seconds"] + rest,
                                    "by": p.settled_by[j]}) + "\n")
            if (i // piece) % 16 == 15:
                f.flush()
        f.write(json.dumps({"worker": k,
                            "maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                            "deals": len(todo)}) + "\n")


def load(paths: list[Path]) -> tuple[list[dict], list[dict]]:
    deals, workers = {}, []
    for p in paths:
        if not p.exists():
            continue
        with p.open() as f:
            for line in f:
                try:
                    rec = json.loads(line)
                except ValueError:  # a line cut by a killed run
                    continue
                if "deal" in rec:
                    deals[rec["deal"]] = rec
                else:
                    workers.append(rec)
    return list(deals.values()), workers


def summarize(name: str, recs: list[dict], workers: list[dict], args, reference: dict) -> dict:
    whole = np.array([r["whole"] for r in recs])
    solve = np.array([r["solve"] for r in recs])
    order = np.argsort(-whole)
    slow = max(1, len(recs) // 100)
    counts = Counter(r["verdict"] for r in recs)
    by = Counter((r["by"] or "unresolved") for r in recs)
    slowest = [dict(recs[i], code=number_to_code(recs[i]["deal"])) for i in order[:KEEP]]
    return {
        "set": name,
        "solver_version": SOLVER_VERSION,
        "budget": args.budget,
        "workers": args.workers,
        "deals": len(recs),
        "counts": {v: counts[v] for v in ("win", "loss", "unresolved")},
        "unresolved": sorted(r["deal"] for r in recs if r["verdict"] == "unresolved"),
        "deals_per_second_per_core": len(recs) / float(whole.sum()),
        "solver_deals_per_second_per_core": len(recs) / float(solve.sum()),
        "seconds": {"whole": float(whole.sum()), "solve": float(solve.sum())},
        "per_deal_seconds": {q: float(np.percentile(whole, p)) for q, p in
                             (("p50", 50), ("p99", 99), ("p99.9", 99.9))}
                            | {"max": float(whole.max())},
        "solve_p50_seconds": float(np.percentile(solve, 50)),
        "share_of_slowest_1pc": float(whole[order[:slow]].sum() / whole.sum()),
        "over_2s": int((whole > 2).sum()),
        "over_0.1s": int((whole > 0.1).sum()),
        "settled_by": dict(by.most_common()),
        "peak_rss_mib": max((w["maxrss_kib"] for w in workers), default=0) / 1024,
        "reference_ns": reference,
        "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
        "slowest": slowest,
    }


def markdown(s: dict, top: int) -> str:
    c, q = s["counts"], s["per_deal_seconds"]
    lines = [
        f"# The solver's tail: {s['set']} (solver version {s['solver_version']})",
        "",
        f"Command: `python benchmarks/bench_tail.py {s['command']}`",
        "",
        "| deals | win | loss | unresolved | deals/s per core | p50 | p99 | p99.9 | max "
        "| slowest 1 % | over 2 s | peak memory |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        f"| {s['deals']:,} | {c['win']:,} | {c['loss']:,} | {c['unresolved']} | "
        f"{s['deals_per_second_per_core']:,.0f} | {1e3 * q['p50']:.2f} ms "
        f"| {1e3 * q['p99']:.1f} ms | "
        f"{1e3 * q['p99.9']:.0f} ms | {q['max']:.2f} s "
        f"| {100 * s['share_of_slowest_1pc']:.0f} % of time | "
        f"{s['over_2s']} | {s['peak_rss_mib']:.0f} MiB |",
        "",
        f"The solver alone: {s['solver_deals_per_second_per_core']:,.0f} deals/s per core, "
        f"{1e3 * s['solve_p50_seconds']:.2f} ms at the median. Unresolved: "
        f"{', '.join(map(str, s['unresolved'])) or 'none'}.",
        "",
        "Settled by: " + ", ".join(f"{k} {v:,}" for k, v in s["settled_by"].items()) + ".",
        "",
        "Reference workload (solver.Reference): "
        f"{s['reference_ns']['before']:.0f} ns before, "
        f"{s['reference_ns']['after']:.0f} ns after."
        + (" **Busy machine: " + "; ".join(s["machine_state"]["busy_reasons"]) + ".**"
           if s.get("machine_state", {}).get("busy") else ""),
        "",
        f"## The {top} slowest deals",
        "",
        "| deal | code | verdict | seconds | positions | settled by |",
        "|---|---|---|---|---|---|",
    ]
    for r in s["slowest"][:top]:
        lines.append(f"| {r['deal']} | {r['code']} | {r['verdict']} | {r['whole']:.3f} "
                     f"| {r['nodes']:,} | {r['by'] or '—'} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--random", type=int, metavar="N")
    src.add_argument("--range", metavar="A:B")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    parser.add_argument("--top", type=int, default=20)
    parser.add_argument("--piece", type=int, default=PIECE, help="deals per call of compiled code")
    parser.add_argument("--fresh", action="store_true",
                        help="time every deal again instead of going on from the kept records")
    parser.add_argument("--out", type=Path, default=RESULTS / "new",
                        help="the folder the .json and .md are written to")
    parser.add_argument("--model", action="store_true",
                        help="also refit the dry run's tail model from these deals")
    args = parser.parse_args(argv)
    name, numbers = deal_numbers(args)
    tag = f"tail-{name}-v{SOLVER_VERSION}" + ("" if args.budget == DEFAULT_BUDGET
                                               else f"-b{args.budget}")
    tmp = RESULTS / "tmp" / tag
    tmp.mkdir(parents=True, exist_ok=True)
    paths = [tmp / f"worker-{k}-of-{args.workers}.jsonl" for k in range(args.workers)]
    if args.fresh:
        for path in paths:
            path.unlink(missing_ok=True)
    watch = Watch(workers=args.workers).start()  # the reference workload timed, the machine
    t0 = time.perf_counter()
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=work,
                         args=(k, numbers[k::args.workers], args.budget, args.piece, paths[k]))
             for k in range(args.workers)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    wall = time.perf_counter() - t0
    watch.stop()
    state = watch.as_dict(len(usable_cores()))
    recs, workers = load(paths)
    if any(p.exitcode for p in procs) or len(recs) != len(numbers):
        print(f"error: {len(recs)} of {len(numbers)} deals recorded; run again to go on",
              file=sys.stderr)
        return 1
    summary = summarize(name, recs, workers, args, state["reference_ns"])
    summary["machine_state"] = state
    summary["command"] = " ".join(argv if argv is not None else sys.argv[1:])
    summary["wall_seconds_this_run"] = wall
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / tag
    out.with_suffix(".json").write_text(json.dumps(summary, indent=1) + "\n")
    text = markdown(summary, args.top)
    out.with_suffix(".md").write_text(text)
    print(text)
    print(f"written: {out.with_suffix('.json')}, {out.with_suffix('.md')}")
    if state["busy"]:
        print("busy machine: " + "; ".join(state["busy_reasons"]) + ": the result is marked "
              "busy (machine_state); rerun on a quiet machine", file=sys.stderr)
    if args.model:
        from halfmoon.batch.estimate import MODEL_FILE, write_tail_model

        source = out.with_suffix(".json").resolve()
        made_from = (source.relative_to(ROOT).as_posix() if source.is_relative_to(ROOT)
                     else source.name)
        write_tail_model([r["solve"] for r in recs], made_from, summary["command"],
                         positions=[r["nodes"] for r in recs], budget=args.budget)
        print(f"written: {MODEL_FILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
