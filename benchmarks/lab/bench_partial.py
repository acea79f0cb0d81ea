"""How soon the analysis of a partial position (playing along with the app) answers, and how
close its shares are after a while.

    python benchmarks/lab/bench_partial.py [--deals 6] [--seed 1] [--plies 0,12,24] [--seconds 10]
                                       [--player fair] [--fair-batch 1]

For each of ``--deals`` random deals and each ply of ``--plies`` (positions along the greedy
player's game, seen as the app shows them: the tops and the reserve, every card under a top
unknown), runs :func:`halfmoon.research.partial.partial_analyses` for ``--seconds`` and
prints: the seconds to the first answer (16 layouts), the layouts solved and the fair
player's games by the end, and the widest half interval (95 %) of a move's share then.  The
CPU time of the process is printed beside the wall time (the machine may be shared).
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


def app_view(deal):
    """What the app shows of a position: the tops and the reserve, the rest unknown."""
    from collections import Counter

    from halfmoon.game.cards import DOUBLE_DECK, UNKNOWN
    from halfmoon.game.deal import Deal

    piles = [[UNKNOWN] * (len(p) - 1) + [p[-1]] if p else [] for p in deal.piles]
    removed = Counter(DOUBLE_DECK) - Counter(deal.cards())
    return Deal(piles=piles, reserve=deal.reserve, removed=list(removed.elements()))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=6)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--plies", default="0,12,24")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--player", default="fair")
    ap.add_argument("--fair-batch", type=int, default=1,
                    help="the fair player's games a batch (0: none, the shares alone)")
    args = ap.parse_args(argv)

    import solver
    from halfmoon.game.engine import Game
    from halfmoon.research.partial import partial_analyses
    from halfmoon.research.strategies import play

    solver.warm_up(list(solver.KERNEL_GROUPS), out=None)
    rng = random.Random(args.seed)
    firsts, widths = [], []
    print(f"{'deal':>10} {'ply':>4} {'moves':>5} {'first s':>8} {'cpu s':>6} "
          f"{'layouts':>7} {'games':>5} {'widest ±':>8} {'winnable':>8}")
    for _ in range(args.deals):
        number = rng.randrange(8_031_810_176)
        line = play(number, "greedy").moves
        for ply in (int(p) for p in args.plies.split(",")):
            if ply > len(line):
                continue
            game = Game(number)
            for move in line[:ply]:
                game.play(move)
            if not game.legal_moves:
                continue
            position = app_view(game.remaining_deal())
            t0, c0 = time.perf_counter(), time.process_time()
            first = None
            for a in partial_analyses(position, seed=args.seed, player=args.player,
                                      fair_batch=args.fair_batch):
                if first is None:
                    first = time.perf_counter() - t0
                if time.perf_counter() - t0 >= args.seconds:
                    break
            cpu = time.process_time() - c0
            widest = max((m.share.interval[1] - m.share.interval[0]) / 2 for m in a.moves)
            firsts.append(first)
            widths.append(widest)
            print(f"{number:>10} {ply:>4} {len(a.moves):>5} {first:8.2f} {cpu:6.1f} "
                  f"{a.winnable.samples:>7} {a.fair.samples:>5} {100 * widest:7.1f}  "
                  f"{100 * a.winnable.value:7.1f}", flush=True)
    print(f"first answer: median {statistics.median(firsts):.2f} s, max {max(firsts):.2f} s; "
          f"widest ± after {args.seconds:g} s: median {100 * statistics.median(widths):.1f}, "
          f"max {100 * max(widths):.1f} points ({len(firsts)} positions)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
