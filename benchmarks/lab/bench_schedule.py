"""When the grouping search should join a deal, asked of per-deal data instead of re-solving.

    python benchmarks/lab/bench_schedule.py collect --random 100000 --seed 31337 --out FILE
                                                [--workers 2]
    python benchmarks/lab/bench_schedule.py simulate FILE [--joins 30000,100000] [--shares 60,120]

The depth-first searches of a deal take their turns in the same order whatever the grouping
search does between them (it shares no table with them), and the grouping search's turns do
not depend on theirs.  So what a schedule costs a deal follows from two runs of it, once:

- ``collect``: for every deal, the portfolio of depth-first searches alone (at most 2,000,000
  positions): verdict, positions and seconds; for each deal past ``--from`` positions (5,000)
  or left open, the grouping search alone, turn by turn (256 conflicts a turn, at most
  ``--conflicts``, 8,192): the model's seconds and the conflicts and seconds after each turn.
  One line of JSON a deal, appended to ``--out``; a run that is stopped goes on where it
  stopped.
- ``simulate``: the schedule of :func:`solver.portfolio.search.search_arrays` replayed on
  those figures (the depth-first searches' positions at their measured rate, the grouping
  search's turns at their measured seconds) for every join and share given, the current one
  first: seconds of the deals past 100,000 positions ("hard"), of those settled by the
  depth-first searches between 10,000 and 100,000 ("mid"), and of those between 5,000 and
  10,000.

The simulation leaves out what interleaving costs (the two searches evict each other's data
from the caches), so it flatters early joins by some per cent: a schedule it picks is to be
measured with ``benchmarks/bench_compare.py`` before it is kept; and a deal whose grouping
run needs more than the collected conflicts counts as settled by the depth-first searches
alone, so the late share (past a million positions) is not judged by it.  Figures:
docs/tuning-log.md (2026-12-04).

It measures the solver's insides, not its front door: ``solver.portfolio`` (the depth-first
searches of :func:`solver.portfolio.search.search_arrays` and the schedule's constants) and
``solver.grouping`` (the model and its turns, by counts), on the deal's arrays from
``solver.mirror``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from multiprocessing import Pool
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from halfmoon.game.codes import DEAL_COUNT, random_numbers  # noqa: E402
from halfmoon.game.deal import Deal  # noqa: E402

DFS_CAP = 2_000_000
TURN = 256
HARD, MID, LOW = 100_000, 10_000, 5_000


def _collect_one(args: tuple[int, int, int]) -> dict:
    number, after, conflicts = args
    import solver.portfolio.search as search
    from solver.grouping.model import LOSS, VIEW_COUNTS, WIN, grouping_model, grouping_run
    from solver.mirror.convert import deal_arrays
    from solver.mirror.position import MAX_PLY

    search.GROUPING_AFTER = 10**15  # the depth-first searches alone
    piles, reserve = deal_arrays(Deal.from_number(number))
    t = time.perf_counter()
    status, nodes, _, _, _ = search.search_arrays(piles, reserve, DFS_CAP)
    rec = {"n": number, "v": int(status), "dn": int(nodes), "ds": time.perf_counter() - t}
    if status == search.UNRESOLVED or nodes >= after:
        root, _, part, npart, _ = search.kernel_arrays(piles, reserve)
        t = time.perf_counter()
        g, model = grouping_model(piles, reserve, part, npart, root, VIEW_COUNTS)
        rec["ms"] = time.perf_counter() - t
        info = np.zeros(2, np.int64)
        line = np.zeros(MAX_PLY, np.uint64)
        curve, done, spent, verdict = [], 0, 0.0, -1
        while done < conflicts:
            t = time.perf_counter()
            g, model = grouping_run(model, TURN, line, info)
            spent += time.perf_counter() - t
            done += int(info[0])
            curve.append((done, round(spent, 6)))
            if g in (WIN, LOSS):
                verdict = 1 if g == WIN else 0
                break
        rec.update(g=verdict, gc=done, curve=curve)
    return rec


def _warm() -> None:
    from solver import warm_up

    warm_up()


def collect(numbers: list[int], out: Path, workers: int, after: int, conflicts: int) -> None:
    done = set()
    if out.exists():
        with out.open() as f:
            done = {json.loads(line)["n"] for line in f if line.strip()}
    todo = [n for n in numbers if n not in done]
    print(f"{len(done):,} deals already in {out.name}, {len(todo):,} to go", file=sys.stderr)
    with Pool(workers, initializer=_warm) as pool, out.open("a") as f:
        for rec in pool.imap_unordered(_collect_one, [(n, after, conflicts) for n in todo],
                                       chunksize=64):
            f.write(json.dumps(rec) + "\n")


def _gtime(rec: dict, conf: int) -> float:
    """The grouping search's seconds for its first ``conf`` conflicts (linear within a turn)."""
    prev_c, prev_t = 0, 0.0
    for c, t in rec["curve"]:
        if conf <= c:
            return t if c == prev_c else prev_t + (t - prev_t) * (conf - prev_c) / (c - prev_c)
        prev_c, prev_t = c, t
    return prev_t


def simulate_deal(rec: dict, join: int, share: int, share_late: int, late: int = 1_000_000,
                  slice_: int = 2_000, cap: int = 5_000_000) -> float:
    """Seconds the schedule (join, share, late share) would spend on one collected deal."""
    if "g" not in rec or (rec["v"] != -1 and rec["dn"] < join):
        return rec["ds"]
    per = rec["ds"] / max(rec["dn"], 1)
    dfs_done = rec["v"] != -1
    settles = rec["g"] in (0, 1)
    nodes = dfs = conf = 0
    t = 0.0
    at = join
    while nodes < cap:
        if nodes >= at:
            if conf == 0:
                t += rec["ms"]
            if settles and conf + TURN >= rec["gc"]:
                return t + _gtime(rec, rec["gc"]) - _gtime(rec, conf)
            if not settles and conf + TURN > rec["gc"]:
                at = cap  # past the collected conflicts: the depth-first searches alone
                continue
            t += _gtime(rec, conf + TURN) - _gtime(rec, conf)
            conf += TURN
            nodes += TURN
            at = nodes + (share if nodes < late else share_late) * TURN
            continue
        if dfs_done and dfs + slice_ >= rec["dn"]:
            return t + (rec["dn"] - dfs) * per
        dfs += slice_
        nodes += slice_
        t += slice_ * per
    return t


def simulate(path: Path, joins: list[int], shares: list[int], share_late: int) -> None:
    import solver.portfolio.search as search

    with path.open() as f:
        recs = [json.loads(line) for line in f if line.strip()]
    groups = {
        "hard": [r for r in recs if r["v"] == -1 or r["dn"] >= HARD],
        "mid": [r for r in recs if r["v"] != -1 and MID <= r["dn"] < HARD],
        "5,000-10,000": [r for r in recs if r["v"] != -1 and LOW <= r["dn"] < MID],
    }
    print(f"{len(recs):,} deals: " + ", ".join(f"{k} {len(v):,}" for k, v in groups.items()))
    now = (search.GROUPING_AFTER, search.GROUPING_SHARE, search.GROUPING_SHARE_LATE)
    configs = [now] + [(j, s, share_late) for j in joins for s in shares
                       if (j, s, share_late) != now]
    for i, (j, s, sl) in enumerate(configs):
        cost = {k: sum(simulate_deal(r, j, s, sl) for r in v) for k, v in groups.items()}
        label = f"join {j:>7,}  share {s:>3}  late {sl:>3}" + ("  (now)" if i == 0 else "")
        print(f"{label:40s} " + "  ".join(f"{k} {c:7.1f} s" for k, c in cost.items())
              + f"  in all {sum(cost.values()):7.1f} s")


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x]


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="the per-deal runs")
    c.add_argument("--random", type=int, required=True, metavar="N")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--workers", type=int, default=2)
    c.add_argument("--from", dest="after", type=int, default=LOW,
                   help="grouping runs past this many positions")
    c.add_argument("--conflicts", type=int, default=8192,
                   help="at most this many conflicts a grouping run")
    s = sub.add_parser("simulate", help="schedules replayed on the collected runs")
    s.add_argument("file", type=Path)
    s.add_argument("--joins", type=_ints, default=[10_000, 30_000, 50_000, 100_000])
    s.add_argument("--shares", type=_ints, default=[60, 120, 240])
    s.add_argument("--late", type=int, default=60, help="the late share (positions a conflict)")
    args = p.parse_args(argv)
    if args.cmd == "collect":
        if not 1 <= args.random <= DEAL_COUNT:
            p.error(f"--random {args.random}: expected 1 to {DEAL_COUNT} deals")
        if args.workers < 1:
            p.error(f"--workers {args.workers}: expected at least 1")
        collect(random_numbers(args.random, args.seed), args.out, args.workers, args.after,
                args.conflicts)
    else:
        if not args.file.is_file():
            p.error(f"{args.file}: no such file (make it with the collect command)")
        simulate(args.file, args.joins, args.shares, args.late)
    return 0


if __name__ == "__main__":
    sys.exit(main())
