"""Advice that holds still: how often the first recommendation a play-along page shows
differs from its final one, and how soon the first one is shown.

    python benchmarks/lab/bench_first_advice.py [--deals 3] [--seed 1] [--max-moves 80]
        [--workers 1] [--json FILE]
    python benchmarks/lab/bench_first_advice.py --again FILE

A player with the app's undo plays ``--deals`` random deals the solver wins (drawn with
``--seed`` as :func:`halfmoon.game.codes.random_numbers` draws them) along on the board's
own code: the 20 cards the app shows entered, each card that appears told, and at each
position the board's jobs run one after the other as its solver process runs them
(:func:`halfmoon.board.along_view.along_jobs`, the stages of
:data:`~halfmoon.board.along_view.ALONG_STAGES`).  The player plays the final
recommendation (a move it has not tried there yet: else the untried move of largest final
share); at a dead end it undoes as the review advises; it stops when the deal is won or
``--max-moves`` moves are made (the undone ones too).

For each position with two legal moves or more (each counted once): the recommendation of
every stage, and which stage the page shows as settled (:func:`halfmoon.board.opinion.fair_view`:
the last stage, or a leader clear of every other move by its paired interval).  Printed:
the positions where the recommendation changed between stages; **before**, the first
stage's recommendation shown at once (the page as it was), and **after**, the first one
shown settled: in how many positions it differs from the final one, and the median time to
it (the solver process's seconds for the stages up to it, as the board runs them: CPU
seconds, what a core of its own would take, and wall seconds, which other work on the
machine lengthens).
``--json`` writes every position's stages (each job's answer and seconds); ``--again``
reads such a file and prints its figures under today's rule, solving nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def _warm() -> None:
    import solver

    solver.warm_up(["players", "fair", *solver.SOLVING], out=None)


def _stages(live, answers: dict) -> list[dict]:
    """The board's jobs on the position now on the board, stage after stage: for each the
    layouts, the seconds of its job and its answer."""
    from halfmoon.board.along_view import along_jobs, keep_answer
    from halfmoon.board.jobs import run_job

    out = []
    while True:
        jobs = along_jobs(live, answers)
        if not jobs:
            return out
        job = jobs[0]
        t, c = time.perf_counter(), time.process_time()
        answer = run_job(job.work)
        seconds, cpu = time.perf_counter() - t, time.process_time() - c
        keep_answer(answers, job.key[0], answer)
        out.append({"samples": job.work[2], "seconds": seconds, "cpu": cpu, "answer": answer})


def shown(layout: str, stages: list[dict]) -> list[dict]:
    """What the page draws of each stage's answer (:func:`halfmoon.board.opinion.fair_view`
    as the play-along page calls it): its kind ("move" settled, "provisional"), the move it
    outlines (settled only) and the answer's recommendation."""
    from halfmoon.board.along_view import ALONG_STAGES
    from halfmoon.board.opinion import fair_view
    from halfmoon.game.engine import Game
    from halfmoon.game.layouts import parse_layout

    game = Game(parse_layout(layout, name="position"))
    out = []
    for s in stages:
        answer = s["answer"]
        fair = fair_view(game, answer if answer.get("moves") else None, ALONG_STAGES[-1])
        out.append({"samples": s["samples"], "seconds": s["seconds"], "cpu": s["cpu"],
                    "kind": fair["kind"],
                    "move": fair["move"] if fair["kind"] == "move" else None,
                    "recommended": answer.get("recommended"),
                    "shares": {m["move"]: m["keeps"] for m in fair["moves"]}})
    return out


def _review_undo(live, answers: dict) -> int:
    """Moves to undo at a dead end, as the board's review advises (one with no review)."""
    from halfmoon.board.along_view import along_jobs, keep_answer, review_key, review_view
    from halfmoon.board.jobs import run_job

    while True:
        jobs = along_jobs(live, answers)
        if not jobs:
            break
        keep_answer(answers, jobs[0].key[0], run_job(jobs[0].work))
    review = review_view(live, answers.get(review_key(live)))
    return review.get("undo") or 1


def play_deal(number: int, max_moves: int) -> dict:
    """One deal played along with the app's undo (see the module's docstring)."""
    from halfmoon.board.along import AlongGame, AlongLive
    from halfmoon.board.along_view import position_key
    from halfmoon.game.deal import Deal

    deal = Deal.from_number(number)
    along = AlongGame([p[-1] for p in deal.piles] + list(deal.reserve))
    live = AlongLive("bench", along)
    answers: dict = {}
    positions: dict = {}
    tried: dict = {}
    made = undos = dead_ends = 0
    t0 = time.perf_counter()

    def undo(k: int) -> None:
        nonlocal undos
        for _ in range(k):
            live.undo()
        undos += k

    while not along.game.is_won and made < max_moves:
        if along.game.is_dead_end:
            dead_ends += 1
            undo(min(_review_undo(live, answers), len(along.game.stack)))
            continue
        key = position_key(live)
        legal = [str(m) for m in along.game.legal_moves]
        if len(legal) == 1:
            final = None
        elif key not in positions:
            stages = _stages(live, answers)
            if stages:
                positions[key] = stages
            final = shown(key[1], stages)[-1] if stages else None
        else:
            final = shown(key[1], positions[key])[-1]
        done = tried.setdefault(key, set())
        left = [m for m in legal if m not in done]
        if not left:  # every move tried here: one more back
            if not along.game.stack:
                break
            undo(1)
            continue
        choice = left[0]
        if final is not None:
            shares = final["shares"]
            choice = (final["move"] if final["move"] in left
                      else max(left, key=lambda m: (shares.get(m, -1), -left.index(m))))
        done.add(choice)
        for source in choice.split("+"):
            along.tap(source)
        for pile in along.waiting:  # tell the card that appeared, as the app shows it
            i = int(pile[1:]) - 1
            along.reveal(pile, str(deal.piles[i][along.game.counts[i] - 1]))
        made += 1
    return {"deal": number, "won": along.game.is_won, "moves_made": made, "undos": undos,
            "dead_ends": dead_ends, "seconds": time.perf_counter() - t0,
            "positions": [{"layout": k[1], "known": k[2], "stages": s}
                          for k, s in positions.items()]}


def figures(deals: list[dict]) -> dict:
    """The figures of the module's docstring from :func:`play_deal`'s records."""
    from halfmoon.research.stats import wilson_interval

    rows = [shown(p["layout"], p["stages"]) for d in deals for p in d["positions"]]
    n = len(rows)
    changed = sum(len({s["recommended"] for s in st}) > 1 for st in rows)
    out = {"positions": n, "changed_between_stages": changed}
    for name, first in (("before", lambda st: 0),
                        ("after", lambda st: next((k for k, s in enumerate(st)
                                                   if s["kind"] == "move"), len(st) - 1))):
        differs, times, cpu, at = 0, [], [], {}
        for st in rows:
            k = first(st)
            final = st[-1]["move"] or st[-1]["recommended"]
            differs += st[k]["recommended"] != final
            times.append(sum(s["seconds"] for s in st[:k + 1]))
            cpu.append(sum(s["cpu"] for s in st[:k + 1]))
            at[st[k]["samples"]] = at.get(st[k]["samples"], 0) + 1
        low, high = wilson_interval(differs, n) if n else (0.0, 1.0)
        out[name] = {"differs": differs, "share": differs / n if n else 0.0, "low": low,
                     "high": high, "median_seconds": statistics.median(times) if times else 0.0,
                     "max_seconds": max(times, default=0.0),
                     "median_cpu": statistics.median(cpu) if cpu else 0.0,
                     "max_cpu": max(cpu, default=0.0),
                     "shown_at": dict(sorted(at.items()))}
    return out


def _run(args: argparse.Namespace) -> list[dict]:
    import solver
    from halfmoon.game.codes import random_numbers

    numbers = [n for n in random_numbers(args.deals * 4 + 20, args.seed)
               if solver.solve(n).verdict == "win"][:args.deals]
    deals = []
    with ProcessPoolExecutor(args.workers, initializer=_warm) as pool:
        for d in pool.map(play_deal, numbers, [args.max_moves] * len(numbers)):
            deals.append(d)
            print(f"deal {d['deal']}: {'won' if d['won'] else 'not won'} in {d['moves_made']} "
                  f"moves ({d['undos']} undone, {d['dead_ends']} dead ends), "
                  f"{len(d['positions'])} positions with a choice, {d['seconds']:.0f} s",
                  flush=True)
            if args.json:  # each deal kept as it ends
                _write(args, deals, None)
    return deals


def _write(args: argparse.Namespace, deals: list[dict], figures: dict | None) -> None:
    settings = {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}
    args.json.write_text(json.dumps({"args": settings, "figures": figures, "deals": deals},
                                    indent=1) + "\n")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-moves", type=int, default=80)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", type=Path, help="write every position's stages here")
    ap.add_argument("--again", type=Path, help="the figures of a file --json wrote")
    args = ap.parse_args(argv)
    for name in ("deals", "max_moves", "workers"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    load = os.getloadavg()[0]
    started = time.perf_counter()
    if args.again:
        try:
            deals = json.loads(args.again.read_text())["deals"]
            f = figures(deals)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            ap.exit(2, f"{ap.prog}: error: {args.again}: not a file --json wrote "
                       f"({type(exc).__name__}: {exc})\n")
    else:
        deals = _run(args)
        f = figures(deals)
    n = f["positions"]
    print(f"{n} positions with two legal moves or more over {len(deals)} deals; the "
          f"recommendation changed between the stages in {f['changed_between_stages']} "
          f"({f['changed_between_stages'] / n:.0%})" if n else "no position with a choice")
    for name, says in (("before", "the first stage's recommendation shown at once"),
                       ("after", "the first recommendation shown settled")):
        r = f[name]
        at = ", ".join(f"{k} layouts: {v}" for k, v in r["shown_at"].items())
        print(f"{name} ({says}): differs from the final one in {r['differs']} of {n} "
              f"({100 * r['share']:.1f} %, 95 %: {100 * r['low']:.1f}–{100 * r['high']:.1f} %); "
              f"time to it median {r['median_cpu']:.2f} s, max {r['max_cpu']:.2f} s of CPU "
              f"(wall: median {r['median_seconds']:.2f} s, max {r['max_seconds']:.2f} s); "
              f"shown at {at}")
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, "
          f"{os.cpu_count()} cores, load average {load:.1f} at the start, "
          f"{os.getloadavg()[0]:.1f} at the end; {time.perf_counter() - started:.0f} s in all")
    if args.json and not args.again:
        _write(args, deals, f)
        print(f"written to {args.json}")


if __name__ == "__main__":
    main()
