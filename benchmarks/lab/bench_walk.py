"""What a play-along board's walk of one layout costs, ply by ply: how much of it is the
compiled search and how much the setup around each search, and what the layouts a walk
leaves unsettled cost (``solver.walk_games`` wrapped to see them).

    python benchmarks/lab/bench_walk.py [--deals 6] [--layouts 48] [--seed 99] [--every 5]
    python benchmarks/lab/bench_walk.py --against REV [--rounds 2] ...

``--deals`` random deals of ``--seed`` that the solver wins; along each one's winning line,
a position every ``--every`` moves (up to move 45) with its cards under the tops dealt again
``--layouts`` times (as the board's sampled layouts are); each layout's children settled as
the board's walk job settles them (:func:`halfmoon.board.along_jobs.children_verdicts`, the
board's budget), one process.  A timer wraps every call of the search kernels
(``solver.portfolio.search``'s ``search_kernel`` and ``grouping_run``, reached behind the
front door to time them), so a ply's line gives the milliseconds a layout, the kernels'
share, their calls a layout and the microseconds a call spent outside them (the setup of
each solve, in Python); then the layouts whose position the walk left unsettled: their
share of the layouts and of the time.  Nothing is written.  With ``--against REV`` the
same measure runs on the revision's export (as ``halfmoon bench --against`` makes it, with
its kept cache of kernels) and on this tree, in turn, ``--rounds`` times each, each in a
process of its own.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=6)
    ap.add_argument("--layouts", type=int, default=48)
    ap.add_argument("--seed", type=int, default=99)
    ap.add_argument("--every", type=int, default=5)
    ap.add_argument("--against", metavar="REV")
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    if args.against:
        return against(args)

    import solver
    import solver.portfolio.search as search
    from halfmoon.board.along_jobs import WALK_GROUPS, children_verdicts, hidden_places, shuffled
    from halfmoon.board.along_view import ALONG_BUDGET
    from halfmoon.game.codes import random_numbers
    from halfmoon.game.deal import Deal
    from halfmoon.game.engine import Game
    from solver import warm_up

    warm_up(WALK_GROUPS, out=None)
    inside = [0.0, 0]  # seconds in the kernels, their calls
    kernel_of, grouping = search.search_kernel, search.grouping_run

    def timed(fn, calls: int):
        """``fn`` with its seconds added to ``inside`` (and ``calls`` to its count)."""
        def run(*a):
            t = time.perf_counter()
            try:
                return fn(*a)
            finally:
                inside[0] += time.perf_counter() - t
                inside[1] += calls
        return run

    search.search_kernel = lambda flags: timed(kernel_of(flags), 1)
    search.grouping_run = timed(grouping, 0)
    again = [0]  # the walk left the layout's position unsettled
    walk_of = solver.walk_games

    def noted_walk(*a, **kw):
        out = walk_of(*a, **kw)
        again[0] |= out[0].start == "unresolved"
        return out
    solver.walk_games = noted_walk  # as the walk job finds it

    rng = random.Random(args.seed)
    plies: dict = defaultdict(lambda: [0.0, 0.0, 0, 0, 0, 0.0])  # s, kernel s, calls, n, u, u s
    for number in random_numbers(args.deals, args.seed):
        deal = Deal.from_number(number)
        line = solver.solve(deal).moves
        if line is None:
            continue
        for ply in range(0, min(len(line), 45), args.every):
            game = Game(deal)
            for move in line[:ply]:
                game.push(move)
            position, legal = game.remaining_deal(), list(game.legal_moves)
            if len(legal) < 2:
                continue
            places = hidden_places(position)
            for _ in range(args.layouts):
                layout = shuffled(position, places, rng)
                inside[:] = [0.0, 0]
                t = time.perf_counter()
                children_verdicts(layout, legal, ALONG_BUDGET)
                spent = time.perf_counter() - t
                row = plies[ply]
                row[0] += spent
                row[1] += inside[0]
                row[2] += inside[1]
                row[3] += 1
                if again[0]:  # the walk left it unsettled
                    row[4] += 1
                    row[5] += spent
                    again[0] = 0
    total = sum(r[0] for r in plies.values())
    print(f"bench_walk: {args.deals} deals (seed {args.seed}), {args.layouts} layouts a "
          f"position, every {args.every} moves, budget {ALONG_BUDGET:,}")
    print("ply  ms/layout  kernels  calls/layout  us outside/call  unsettled  their time")
    for ply in sorted(plies):
        s, k, calls, n, u, us = plies[ply]
        print(f"{ply:3d}  {s / n * 1e3:9.2f}  {k / s:7.0%}  {calls / n:12.1f}  "
              f"{(s - k) / max(calls, 1) * 1e6:15.0f}  {u:4d} of {n:<4d} {us / s:6.0%}")
    n = sum(r[3] for r in plies.values())
    u = sum(r[4] for r in plies.values())
    print(f"all: {n} layouts, {total:.2f} s, {total / n * 1e3:.2f} ms a layout, kernels "
          f"{sum(r[1] for r in plies.values()) / total:.0%}; unsettled walks {u} "
          f"({u / n:.1%}), {sum(r[5] for r in plies.values()) / total:.0%} of the time")
    return 0


def against(args) -> int:
    """This measure on ``args.against``'s export and on this tree, in turn."""
    import os
    import shutil
    import subprocess

    from halfmoon.bench.against import checkout

    here = Path(__file__).resolve()
    mine = [f"--{k}={getattr(args, k)}" for k in ("deals", "layouts", "seed", "every")]
    with checkout(args.against) as (commit, source, cache):
        (source / "benchmarks" / "lab").mkdir(parents=True, exist_ok=True)
        shutil.copy(here, source / "benchmarks" / "lab" / here.name)  # this script there
        runs = [(f"{args.against} ({commit[:12]})", source / "benchmarks" / "lab" / here.name,
                 {"NUMBA_CACHE_DIR": str(cache)}), ("this tree", here, {})]
        for k in range(args.rounds):
            for name, script, env in runs:
                print(f"=== {name}, round {k + 1}", flush=True)
                done = subprocess.run([sys.executable, str(script), *mine],
                                      env={**os.environ, **env})
                if done.returncode:
                    return done.returncode
    return 0


if __name__ == "__main__":
    sys.exit(main())
