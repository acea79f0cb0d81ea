"""Check the slowest deals of a tail benchmark by other means than the search that settled them.

    python benchmarks/check_tail.py benchmarks/results/new/tail-<set>-v<version>.json
                                    [--limit 120] [--deals 200] [--model matching|counting]
                                    [--out DIR]

For each of the slowest ``--deals`` deals kept by bench_tail.py: a win is solved again and its
winning line replayed move by move through the reference engine (``halfmoon.Game.play``, which
refuses an illegal move); a loss (or an unresolved deal) goes to the independent CP-SAT model of
``solver.check.cpsat`` (``--model``: its pair-matching view, or the counting view), which shares
no code with the search, with ``--limit`` seconds.  Prints the counts — wins replayed, losses
confirmed, losses the model did not settle within its limit, disagreements — and writes them
with each deal's figures to ``<input>-check.json`` in ``--out`` (default
``benchmarks/results/new/``, not kept in git).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from halfmoon import Deal, Game  # noqa: E402
from solver import DEFAULT_BUDGET, solve  # noqa: E402


def replays(number: int, budget: int) -> tuple[bool, float]:
    t0 = time.perf_counter()
    r = solve(number, budget)
    if r.verdict != "win":
        return False, time.perf_counter() - t0
    game = Game(Deal.from_number(number))
    for move in r.moves:
        game.play(move)  # IllegalMoveError on a move the rules do not allow
    return game.is_won, time.perf_counter() - t0


def cpsat(number: int, limit: float, counting: bool) -> tuple[str, float]:
    from solver.check.cpsat import solve_cpsat

    deal = Deal.from_number(number)
    kwargs = {"counting": True} if counting else {}
    r = solve_cpsat([[c.rank for c in pile] for pile in deal.piles],
                    [None if c is None else c.rank for c in deal.reserve], time_limit=limit,
                    **kwargs)
    return r.verdict, float(r.seconds)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tail", type=Path, help="a JSON file written by bench_tail.py")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--limit", type=float, default=120.0, help="CP-SAT seconds per loss")
    parser.add_argument("--model", choices=("matching", "counting"), default="matching")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "new",
                        help="the folder <input>-check.json is written to")
    args = parser.parse_args(argv)
    try:
        tail = json.loads(args.tail.read_text())
    except (OSError, ValueError) as exc:
        print(f"error: cannot read {args.tail}: {exc}", file=sys.stderr)
        return 2
    budget = tail.get("budget", DEFAULT_BUDGET)
    checked, counts = [], {"wins replayed": 0, "wins not replayed": 0, "losses confirmed": 0,
                           "losses not settled by the model": 0, "disagreements": 0}
    for rec in tail["slowest"][: args.deals]:
        n, verdict = rec["deal"], rec["verdict"]
        if verdict == "win":
            ok, seconds = replays(n, budget)
            counts["wins replayed" if ok else "wins not replayed"] += 1
            checked.append({"deal": n, "verdict": verdict,
                            "check": "replayed" if ok else "NOT REPLAYED", "seconds": seconds})
        else:
            model, seconds = cpsat(n, args.limit, args.model == "counting")
            if model == "unresolved":
                counts["losses not settled by the model"] += 1
            elif model == verdict or (verdict == "unresolved" and model == "loss"):
                counts["losses confirmed"] += 1
            else:
                counts["disagreements"] += 1
            checked.append({"deal": n, "verdict": verdict, "check": f"cpsat {model}",
                            "seconds": seconds})
        print(f"{n}: {verdict}, {checked[-1]['check']} ({checked[-1]['seconds']:.1f} s)",
              flush=True)
    args.out.mkdir(parents=True, exist_ok=True)
    out = args.out / (args.tail.stem + "-check.json")
    out.write_text(json.dumps({"tail": args.tail.name, "model": args.model, "limit": args.limit,
                               "counts": counts, "deals": checked}, indent=1) + "\n")
    print(json.dumps(counts))
    print(f"written: {out}")
    return 0 if counts["disagreements"] == 0 and counts["wins not replayed"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
