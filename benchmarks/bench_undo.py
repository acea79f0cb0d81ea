"""Winning with the app's undo: how many moves a player needs under each kind of advice.

    python benchmarks/bench_undo.py run --seed S --deals 200 --out FILE.csv
        [--policies board,fair,share,greedy] [--samples 16] [--review 16] [--budget 20000]
        [--max-moves 2000] [--rollouts 0] [--workers 2]
    python benchmarks/bench_undo.py table FILE.csv

``run`` draws random deals from the whole code space with ``--seed`` (in order, from
:func:`halfmoon.game.codes.random_numbers`), keeps the first ``--deals`` the solver wins
(every card shown; the others are written as skipped), and plays each with the app's
player with undo (:func:`solver.undo_game`) under each policy: it sees only what the app
shows, remembers every card it has seen, follows the policy's move and at a dead end undoes
as the policy's review says.  One row a deal and policy is appended to ``--out`` as each
game ends, so a run stopped halfway goes on where it stopped when started again with the
same arguments.  ``table`` prints, for each policy: deals, won (within ``--max-moves``),
moves made including the undone ones (median, 90th percentile, largest; a game not won
counts its moves up to the cap), dead ends met, moves undone, solves and seconds a deal; then
each policy against the first, paired by deal (the deals where it needs fewer moves, as
many, more; the mean; the median of the difference; the mean of the difference with its
95 % interval from 10,000 bootstrap resamples of the deals, numpy ``default_rng(1)``).
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

COLUMNS = ["deal", "policy", "verdict", "won", "moves_made", "undos", "dead_ends", "solves",
           "seconds", "samples", "review", "budget", "max_moves", "rollouts"]


def _task(number: int, policy: str, samples: int, review: int, budget: int,
          max_moves: int, seed: int, rollouts: int) -> dict:
    import solver

    verdict = solver.solve(number).verdict
    row = {"deal": number, "policy": policy, "verdict": verdict, "samples": samples,
           "review": review, "budget": budget, "max_moves": max_moves, "rollouts": rollouts}
    if verdict != "win":
        return {**row, "won": "", "moves_made": "", "undos": "", "dead_ends": "", "solves": "",
                "seconds": ""}
    g = solver.undo_game(number, policy, samples=samples, review=review, budget=budget,
                         max_moves=max_moves, seed=(seed * 1_000_003 + number) % (1 << 64),
                         rollouts=rollouts)
    return {**row, "won": int(g.won), "moves_made": g.moves_made, "undos": g.undos,
            "dead_ends": g.dead_ends, "solves": g.solves, "seconds": round(g.seconds, 3)}


def _warm() -> None:
    import solver

    solver.warm_up(["players", "fair", *solver.SOLVING], out=None)


def run(args: argparse.Namespace) -> int:
    from halfmoon.game.codes import random_numbers

    policies = [p for p in args.policies.split(",") if p]
    out = Path(args.out)
    done: set[tuple[int, str]] = set()
    verdicts: dict[int, str] = {}
    if out.exists():
        with out.open() as f:
            for r in csv.DictReader(f):
                done.add((int(r["deal"]), r["policy"]))
                verdicts[int(r["deal"])] = r["verdict"]
    # the deals: the first --deals of the seed's sequence that the solver wins; a deal's
    # verdict is known from the file once any of its rows is in
    numbers = random_numbers(args.deals * 2 + 50, args.seed)
    tasks = [(n, p) for n in numbers for p in policies if (n, p) not in done]
    new = not out.exists()
    f = out.open("a", newline="")
    w = csv.DictWriter(f, COLUMNS)
    if new:
        w.writeheader()
        f.flush()
    t0 = time.time()

    def wins_so_far() -> int:
        return sum(1 for v in verdicts.values() if v == "win")

    pending = list(tasks)
    with ProcessPoolExecutor(args.workers, initializer=_warm) as pool:
        running = {}
        while pending or running:
            # keep the workers busy, deal by deal, until enough winnable deals are in
            while pending and len(running) < 2 * args.workers:
                n, p = pending[0]
                winnable_before = sum(1 for m in numbers[:numbers.index(n)]
                                      if verdicts.get(m) == "win")
                if winnable_before >= args.deals:
                    pending.clear()
                    break
                pending.pop(0)
                fut = pool.submit(_task, n, p, args.samples, args.review, args.budget,
                                  args.max_moves, args.seed, args.rollouts)
                running[fut] = (n, p)
            if not running:
                break
            fut = next(as_completed(running))
            n, p = running.pop(fut)
            row = fut.result()
            verdicts[n] = row["verdict"]
            w.writerow(row)
            f.flush()
            print(f"{time.time() - t0:7.0f} s  deal {n} {p}: {row['verdict']} won={row['won']} "
                  f"moves={row['moves_made']} dead_ends={row['dead_ends']} "
                  f"({wins_so_far()} winnable deals seen)", flush=True)
    f.close()
    return 0


def _pct(values: list[float], q: float) -> float:
    import numpy as np

    return float(np.percentile(values, q)) if values else float("nan")


def table(args: argparse.Namespace) -> int:
    import pandas as pd

    rows = pd.read_csv(args.file)
    rows = rows[rows["verdict"] == "win"]
    # only the deals every policy has finished, so the policies are compared on the same deals
    counts = rows.groupby("deal")["policy"].nunique()
    seen = list(dict.fromkeys(rows["policy"]))
    order = ("board", "board-tuned", "share", "fair", "greedy")  # the board's advice first
    policies = [p for p in order if p in seen] + [p for p in seen if p not in order]
    deals = set(counts[counts == len(policies)].index)
    rows = rows[rows["deal"].isin(deals)]
    print(f"{len(deals)} winnable deals, every policy on each; settings: "
          f"{rows['samples'].iloc[0]} layouts a decision, {rows['review'].iloc[0]} a review, "
          f"{rows['budget'].iloc[0]:,} positions a solve, at most "
          f"{rows['max_moves'].iloc[0]:,} moves a deal, the fair player's roll-outs on "
          f"{rows['rollouts'].iloc[0] or 256} layouts a decision")
    print()
    print("| policy | deals | won | moves made: median | p90 | max | dead ends: median | p90 "
          "| max | moves undone: median | solves a deal | seconds a deal |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for p in policies:
        g = rows[rows["policy"] == p]
        mv, de = list(g["moves_made"]), list(g["dead_ends"])
        print(f"| {p} | {len(g)} | {int(g['won'].sum())} ({100 * g['won'].mean():.1f} %) | "
              f"{_half(_pct(mv, 50))} | {_pct(mv, 90):.0f} | {max(mv):.0f} | "
              f"{_half(_pct(de, 50))} | {_pct(de, 90):.0f} | {max(de):.0f} | "
              f"{_half(_pct(list(g['undos']), 50))} | "
              f"{g['solves'].mean():,.0f} | {g['seconds'].mean():.1f} |")
    # paired by deal: the moves each policy needs against the first policy's
    first = policies[0]
    wide = rows.pivot(index="deal", columns="policy", values="moves_made")
    print()
    print(f"| policy | fewer moves than {first} (deals) | as many | more | mean moves | "
          f"median of the difference with {first} | mean of the difference (95 % bootstrap) |")
    print("|---|---|---|---|---|---|---|")
    for p in policies:
        d = wide[p] - wide[first]
        low, high = _bootstrap_mean(d.to_numpy(float))
        print(f"| {p} | {int((d < 0).sum())} | {int((d == 0).sum())} | {int((d > 0).sum())} | "
              f"{wide[p].mean():.1f} | {_half(d.median(), '+')} | {d.mean():+.1f} ({low:+.1f} to "
              f"{high:+.1f}) |")
    return 0


def _half(x: float, sign: str = "") -> str:
    """A median of whole numbers: whole, or halfway between two (``66.5``)."""
    return f"{x:{sign}.0f}" if x == int(x) else f"{x:{sign}.1f}"


def _bootstrap_mean(d, resamples: int = 10_000) -> tuple[float, float]:
    """The 95 % percentile interval of the mean of ``d`` over bootstrap resamples."""
    import numpy as np

    rng = np.random.default_rng(1)
    means = d[rng.integers(0, len(d), (resamples, len(d)))].mean(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--seed", type=int, required=True)
    r.add_argument("--deals", type=int, default=200)
    r.add_argument("--policies", default="board,fair,share,greedy")
    r.add_argument("--samples", type=int, default=16)
    r.add_argument("--review", type=int, default=16)
    r.add_argument("--budget", type=int, default=20_000)
    r.add_argument("--max-moves", type=int, default=2_000)
    r.add_argument("--rollouts", type=int, default=0,
                   help="the fair player's layouts a decision (0: its own, 256)")
    r.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1))
    r.add_argument("--out", required=True)
    t = sub.add_parser("table")
    t.add_argument("file")
    args = p.parse_args(argv)
    return run(args) if args.cmd == "run" else table(args)


if __name__ == "__main__":
    raise SystemExit(main())
