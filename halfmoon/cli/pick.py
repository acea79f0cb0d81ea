"""``halfmoon pick``: deals chosen by verdict and difficulty level.

The deals of ``--random N --seed S``, ``--range A:B`` or ``--codes FILE`` are walked in their
order, a small piece at a time: each is solved exactly (the verdict comes first: a lost deal
"cannot be won"), and a deal that may be kept gets its difficulty predicted from cheap
signals (:mod:`halfmoon.batch.difficulty`).  The walk stops as soon as ``--count`` deals are
kept, so ``--random 100000`` solves only as many deals as it takes; the same command gives
the same list.
"""

from __future__ import annotations

import argparse
import sys

from .checks import UsageError as _UsageError
from .checks import seed
from .output import json_line

FIRST_PIECE, LAST_PIECE = 16, 256  # deals solved at once: growing while few are kept


def _source(args: argparse.Namespace):
    from halfmoon import batch

    if args.seed is not None and args.random is None:
        raise _UsageError("--seed goes with --random")
    if args.codes is not None:
        return batch.deals_from_codes(args.codes)
    if args.range is not None:
        text = args.range
        if ":" not in text and text.count("-") == 1:  # A-B as well as A:B
            text = text.replace("-", ":")
        return batch.parse_range(text)
    return batch.deals_from_random(args.random, 0 if args.seed is None else args.seed)


def _level(text: str) -> str:
    from halfmoon.batch.difficulty import LEVEL_NAMES, LOST

    name = text.strip().lower().replace("-", " ").replace("_", " ")
    if name not in (*LEVEL_NAMES, LOST):
        raise _UsageError(f"unknown --level {text!r} (expected one of "
                          f"{', '.join(n.replace(' ', '-') for n in (*LEVEL_NAMES, LOST))})")
    return name


def deal_level(number, verdict: str):
    """The difficulty of one deal (a deal number, None for a position) with its verdict,
    for ``halfmoon solve``: an :class:`~halfmoon.batch.difficulty.Estimate`, or None for a
    position; a model that cannot be used gives the level "unknown" and why."""
    from halfmoon.batch.difficulty import DifficultyModelError, Estimate, estimate_numbers

    if number is None:
        return None
    try:
        return estimate_numbers([number], [verdict])[0]
    except DifficultyModelError as exc:
        return Estimate(f"unknown ({exc})")


def pick(numbers, count: int, level=None, winnable: bool = False, budget=None):
    """Walk ``numbers`` in order; yield ``(number, verdict, estimate)`` for each deal kept
    (winnable if asked, of ``level`` if given) until ``count`` are; the deals walked are
    counted in the generator's return value."""
    from halfmoon.batch.difficulty import LOST, estimates, model, signals
    from solver import DEFAULT_BUDGET, VERDICT_NAMES, solve_numbers

    m = model()  # refused (a one-line error) before any solving if it cannot be used
    kept = walked = 0
    piece = FIRST_PIECE
    i = 0
    while i < len(numbers) and kept < count:
        chunk = [int(n) for n in numbers[i:i + piece]]
        i += len(chunk)
        solved = solve_numbers(chunk, DEFAULT_BUDGET if budget is None else budget)
        verdicts = [VERDICT_NAMES[int(v)] for v in solved.verdicts]
        wanted = [(n, v) for n, v in zip(chunk, verdicts)
                  if not (winnable and v != "win") and not (level == LOST and v != "loss")
                  and not (level not in (None, LOST) and v != "win")]
        ests = estimates([v for _, v in wanted], signals([n for n, _ in wanted]), m) \
            if wanted else []
        for k, ((n, v), e) in enumerate(zip(wanted, ests)):
            if level is not None and e.level != level:
                continue
            kept += 1
            yield n, v, e
            if kept >= count:
                walked += chunk.index(n) + 1
                return walked
        walked += len(chunk)
        piece = min(2 * piece, LAST_PIECE)
    return walked


def cmd_pick(args: argparse.Namespace) -> int:
    from halfmoon.game.codes import number_to_code

    if args.count < 1:
        raise _UsageError(f"--count must be at least 1, got {args.count}")
    if args.budget is not None and args.budget < 1:
        raise _UsageError(f"--budget must be a positive number of positions, got {args.budget}")
    level = None if args.level is None else _level(args.level)
    if args.winnable and level is not None and level.startswith("cannot"):
        raise _UsageError("--winnable and --level cannot-be-won pick no deal")
    deals = _source(args)
    numbers = deals.numbers
    gen = pick(numbers, args.count, level, args.winnable, args.budget)
    kept = 0
    while True:
        try:
            n, v, e = next(gen)
        except StopIteration as stop:
            walked = stop.value or 0
            break
        kept += 1
        code = number_to_code(n)
        if args.json:
            print(json_line({"code": code, "number": n, "verdict": v, **e.as_dict()}))
        else:
            print(f"{code}  {n:>10}  {v:<4}  {e.words()}")
        sys.stdout.flush()
    what = " ".join(x for x in ("winnable" if args.winnable else "",
                                f"'{level}'" if level else "") if x) or "any"
    stop = "stopped there" if kept >= args.count else "all of them walked"
    print(f"halfmoon: {kept} {what} deals of {args.count} asked, among the first {walked:,} of "
          f"{len(numbers):,} ({stop})", file=sys.stderr)
    return 0


def add_pick(p: argparse.ArgumentParser):
    src = p.add_mutually_exclusive_group(required=True)  # as a run's deals (cli.runs)
    src.add_argument("--codes", metavar="FILE",
                     help="one deal code or deal number per line (# comments)")
    src.add_argument("--range", metavar="A:B", help="deal numbers A to B-1 (or A-B)")
    src.add_argument("--random", metavar="N", type=int,
                     help="N distinct random deals (see --seed), walked in their order")
    p.add_argument("--seed", type=seed, metavar="S", help="seed of --random (default: 0)")
    p.add_argument("--winnable", action="store_true",
                   help="only deals the solver wins (an unresolved deal is not kept)")
    p.add_argument("--level", metavar="LEVEL",
                   help="only deals of this level: easy, medium, hard, very-hard (deals the "
                   "solver wins), or cannot-be-won (deals it proves lost)")
    p.add_argument("--count", type=int, default=10, metavar="N",
                   help="stop once N deals are kept (default: 10)")
    p.add_argument("--budget", type=int, metavar="N",
                   help="positions searched per deal (default: the solver's)")
    p.add_argument("--json", action="store_true", help="one JSON object per deal")
    return cmd_pick


def run_difficulty(out: str, quiet: bool = False) -> str:
    """``batch --difficulty``: each deal's level written beside the run's chunk files; the
    line that says what was written."""
    from halfmoon.batch.difficulty import RUN_FILE, write_run_difficulty

    def log(text):
        if not quiet:
            print(f"halfmoon: {text}", file=sys.stderr, flush=True)

    done = write_run_difficulty(out, log=log)
    counts = done["levels"]
    total = sum(counts.values())
    return (f"{out}/{RUN_FILE}: {total:,} deals' difficulty ({done['computed']:,} computed now): "
            + ", ".join(f"{k} {v:,}" for k, v in counts.items()))


def level_shares(dirs, z: float):
    """``stats``: the share of each level (with its Wilson interval at ``z``) in one results
    directory that ``batch --difficulty`` gave a difficulty file; None otherwise (several
    directories, a URL, no file)."""
    from halfmoon.batch.difficulty import run_levels
    from halfmoon.research.stats import wilson_interval

    if len(dirs) != 1 or "://" in dirs[0]:
        return None
    counts = run_levels(dirs[0])
    if not counts:
        return None
    n = sum(counts.values())
    shares = {}
    for name, k in counts.items():
        lo, hi = wilson_interval(k, n, z)
        shares[name] = {"deals": k, "share": k / n, "low": lo, "high": hi}
    line = "difficulty (the fair player's chance, predicted): " + ", ".join(
        f"{name} {100 * s['share']:.1f} % ({s['deals']:,}; {100 * s['low']:.1f}-"
        f"{100 * s['high']:.1f} %)" for name, s in shares.items())
    return {"deals": n, "levels": shares, "line": line}
