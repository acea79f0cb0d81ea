"""How soon the board answers a game played along with the app: the solver process's time
for each stage of the winnable share and the fair hint, and for the end-of-game review.

    python benchmarks/lab/bench_along.py [--deals 6] [--seed 1] [--plies 0,10,20] [--before]

For each of ``--deals`` random deals the greedy player's game is played along (the 20 cards
the app shows entered, each card that appears told), and at each ply of ``--plies`` the
jobs of :data:`halfmoon.board.along_view.ALONG_STAGES` are timed one after the other as the
board runs them (the answer of a stage is on the page when it and the stages before it are
done); the game's end is then reviewed (:data:`~halfmoon.board.along_view.REVIEW_STAGES`).
Prints wall and CPU seconds (the process's own), cumulated over the stages. ``--before``
also times, alternating with today's job, the job as it was before the position's share
came from its moves' layouts (the position solved on layouts of its own), built from the
solver's insides (``solver.mirror``, ``solver.players``: the fair player's decision and the
unpaired children's solves).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def _timed(fn, *args):
    t, c = time.perf_counter(), time.process_time()
    out = fn(*args)
    return out, time.perf_counter() - t, time.process_time() - c


def _before_job(layout: str, samples: int, seed: int, budget: int) -> dict:
    """The job as it was before the position's share came from its moves' layouts: the
    position solved on layouts of its own, then the fair player's move and each move's child
    on other layouts (unpaired), for ``--before``."""
    import numpy as np

    from halfmoon.board.along_jobs import hidden_places, shuffled
    from halfmoon.game.layouts import parse_layout
    from solver import solve
    from solver.mirror.convert import deal_arrays
    from solver.mirror.position import MAX_MOVES, all_moves, initial_position
    from solver.players.fair import decide, new_tree, view_layout
    from solver.players.pimc import child_solves
    from solver.players.roster import FAIR, PLAYERS, TABLE_BITS

    position = parse_layout(layout, name="position")
    rng = random.Random(seed)
    places = hidden_places(position)
    wins = sum(solve(shuffled(position, places, rng), budget=budget).verdict == "win"
               for _ in range(samples))
    piles, reserve = deal_arrays(position)
    pos = np.uint64(initial_position(piles, reserve))
    moves = np.empty(MAX_MOVES, np.uint64)
    m = int(all_moves(piles, reserve, pos, moves))
    state = np.array([seed], np.uint64)
    view = np.zeros_like(piles)
    view_layout(piles, pos, view)
    p = PLAYERS[FAIR]
    decide(piles, reserve, pos, moves, m, p.code, p.base, p.params(), state,
           *new_tree(TABLE_BITS), np.zeros(1, np.int64), np.zeros_like(piles))
    child_solves(view, reserve, pos, moves, m, samples, state, budget)
    return {"samples": samples, "wins": wins}


def main(argv=None) -> None:
    from halfmoon.board.along import AlongGame, AlongLive
    from halfmoon.board.along_jobs import along_job, review_job
    from halfmoon.board.along_view import (
        ALONG_BUDGET,
        ALONG_STAGES,
        REVIEW_BUDGET,
        REVIEW_STAGES,
        position_key,
        review_key,
    )
    from halfmoon.game.codes import DEAL_COUNT
    from halfmoon.game.deal import Deal
    from halfmoon.research.strategies import play
    from solver import warm_up

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plies", default="0,10,20")
    ap.add_argument("--before", action="store_true",
                    help="also time the job as it was before the paired shares (the position on "
                    "layouts of its own), alternating with today's, 384 layouts, CPU seconds")
    args = ap.parse_args(argv)
    plies = [int(p) for p in args.plies.split(",")]
    warm_up(["players", "fair"], out=None)
    rng = random.Random(args.seed)
    stage_wall = {k: [] for k in ALONG_STAGES}
    stage_cpu = {k: [] for k in ALONG_STAGES}
    reviews = []
    before, after = [], []
    for _ in range(args.deals):
        number = rng.randrange(DEAL_COUNT)
        deal = Deal.from_number(number)
        moves = play(deal, "greedy").moves
        along = AlongGame([p[-1] for p in deal.piles] + list(deal.reserve))
        live = AlongLive("bench", along)
        for ply in range(len(moves) + 1):
            if ply in plies and position_key(live):
                key = position_key(live)
                wall = cpu = 0.0
                for k in ALONG_STAGES:
                    out, w, c = _timed(along_job, key[1], k, 1, ALONG_BUDGET)
                    wall, cpu = wall + w, cpu + c
                    stage_wall[k].append(wall)
                    stage_cpu[k].append(cpu)
                print(f"deal {number} ply {ply}: share {out['wins']}/{out['samples']}, "
                      f"{wall:.2f} s wall, {cpu:.2f} s CPU to the last stage", flush=True)
                if args.before:
                    k = ALONG_STAGES[-1]
                    _, _, old = _timed(_before_job, key[1], k, 1, ALONG_BUDGET)
                    _, _, new = _timed(along_job, key[1], k, 1, ALONG_BUDGET)
                    before.append(old)
                    after.append(new)
                    print(f"  {k} layouts side by side: before {old:.2f} s CPU, now {new:.2f} s "
                          f"CPU ({new / old:.2f}x)", flush=True)
            if ply == len(moves):
                break
            for source in moves[ply].sources:
                along.tap(source)
            for pile in along.waiting:
                i = int(pile[1:]) - 1
                along.reveal(pile, str(deal.piles[i][along.game.counts[i] - 1]))
        key = review_key(live)
        wall = cpu = 0.0
        for k in REVIEW_STAGES:
            out, w, c = _timed(review_job, key[1], [list(p) for p in along.unknown_places()],
                               list(key[2]), k, 1, REVIEW_BUDGET)
            wall, cpu = wall + w, cpu + c
        reviews.append((wall, cpu))
        print(f"deal {number}: review of {len(moves)} moves, {wall:.2f} s wall, {cpu:.2f} s CPU "
              f"({'won' if along.game.is_won else 'dead end'})", flush=True)
    for k in ALONG_STAGES:
        print(f"stage {k:4d} layouts: median {statistics.median(stage_wall[k]):.2f} s wall "
              f"(max {max(stage_wall[k]):.2f}), median {statistics.median(stage_cpu[k]):.2f} s CPU "
              f"(max {max(stage_cpu[k]):.2f}) over {len(stage_wall[k])} positions")
    print(f"review: median {statistics.median(w for w, _ in reviews):.2f} s wall "
          f"(max {max(w for w, _ in reviews):.2f}), median "
          f"{statistics.median(c for _, c in reviews):.2f} s CPU over {len(reviews)} games")
    if before:
        print(f"side by side, {ALONG_STAGES[-1]} layouts: before median "
              f"{statistics.median(before):.2f} s CPU (max {max(before):.2f}), now median "
              f"{statistics.median(after):.2f} s CPU (max {max(after):.2f}); now/before median "
              f"{statistics.median(a / b for a, b in zip(after, before)):.2f}x over "
              f"{len(before)} positions")


if __name__ == "__main__":
    main()
