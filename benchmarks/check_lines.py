"""Every winning line of a random sample replayed through the reference engine.

    python benchmarks/check_lines.py --random N --seed S [--piece 256]

Solves the deals as a batch does (:func:`solver.solve_numbers`, in pieces) and plays each
win's line move by move through ``halfmoon.Game.play``, which refuses a move the rules do not
allow; a line that is refused, or that does not clear the deal, is a failure. Prints the
counts of wins, losses and unresolved deals, the lines replayed and the failures (exit status
1 if there is any).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from halfmoon import Deal, Game  # noqa: E402
from halfmoon.game.codes import random_numbers  # noqa: E402
from halfmoon.game.errors import HalfMoonError  # noqa: E402
from solver import DEFAULT_BUDGET, SOLVER_VERSION, line_moves, solve_numbers  # noqa: E402


def replays(number: int, line) -> bool:
    game = Game(Deal.from_number(number))
    try:
        for move in line_moves(line):
            game.play(move)
    except HalfMoonError:
        return False
    return game.is_won


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--random", type=int, required=True, metavar="N", help="random deals to draw")
    p.add_argument("--seed", type=int, required=True, help="the seed of the draw")
    p.add_argument("--piece", type=int, default=256, help="deals per call of solve_numbers")
    args = p.parse_args(argv)
    if args.random < 1 or args.piece < 1:
        p.error("--random and --piece take a positive number")
    numbers = random_numbers(args.random, args.seed)
    counts = {"win": 0, "loss": 0, "unresolved": 0}
    replayed = 0
    failures = []
    for at in range(0, len(numbers), args.piece):
        piece = solve_numbers(numbers[at:at + args.piece], DEFAULT_BUDGET)
        for j, number in enumerate(piece.numbers.tolist()):
            verdict = {1: "win", 0: "loss"}.get(int(piece.verdicts[j]), "unresolved")
            counts[verdict] += 1
            if verdict == "win":
                replayed += 1
                if not replays(number, piece.lines[j, : piece.nline[j]]):
                    failures.append(number)
    print(f"solver version {SOLVER_VERSION}, {len(numbers):,} random deals (seed {args.seed}): "
          f"{counts['win']:,} wins, {counts['loss']:,} losses, {counts['unresolved']:,} unresolved;"
          f" {replayed:,} winning lines replayed through the engine, {len(failures)} refused"
          f"{': ' + ', '.join(map(str, failures[:20])) if failures else ''}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
