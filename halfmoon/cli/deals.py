"""The commands on one deal: show it, solve it, analyse a position's moves."""

from __future__ import annotations

import argparse
import dataclasses
import sys

from halfmoon.game.diagram import render
from halfmoon.game.inputs import load_deal
from halfmoon.game.layouts import format_layout

from .checks import UsageError as _UsageError
from .checks import check_output_file, seed
from .output import json_line


def deal_to_json(deal) -> dict:
    out = {
        "code": deal.code,
        "piles": [[str(c) for c in pile] for pile in deal.piles],
        "reserve": [None if c is None else str(c) for c in deal.reserve],
    }
    if deal.is_partial or deal.removed:  # a deal from the app: "??" for a card not known yet
        out["unknown"] = len(deal.unknown_places())
        out["removed"] = [str(c) for c in deal.removed]
    return out


def cmd_show(args: argparse.Namespace) -> int:
    if args.png:
        check_output_file(args.png, "--png")
    deal = load_deal(args.deal)
    if args.png:
        from halfmoon.report.pictures import save_deal_png

        save_deal_png(deal, args.png)
    if args.format == "layout":
        sys.stdout.write(format_layout(deal))
    elif args.format == "json":
        print(json_line(deal_to_json(deal)))
    else:
        sys.stdout.write(render(deal, reveal=args.reveal))
    return 0


def add_show(p: argparse.ArgumentParser):
    p.add_argument("deal", metavar="CODE|LAYOUT_FILE", help="deal code, deal number or layout file")
    p.add_argument("--reveal", action="store_true", help="show every card, not only the top ones")
    p.add_argument("--format", choices=("text", "layout", "json"), default="text")
    p.add_argument("--png", metavar="FILE", help="also draw the deal to a PNG file")
    return cmd_show


def solution_lines(deal, moves) -> list[str]:
    """A winning line in the move notation, numbered: `` 1. 5♠ P1 + 6♦ P8``."""
    from halfmoon.game.notation import format_moves

    return [f"{k:2d}. {text}" for k, text in enumerate(format_moves(moves, deal), start=1)]


def moves_json(moves, deal) -> list[dict]:
    """Moves as programs read them: ``{"move": "P5+P9", "text": "5♦ P5 + 6♥ P9"}``, the
    notation ``analyse --moves`` and ``play --moves`` read beside the text with the cards."""
    from halfmoon.game.notation import format_moves

    return [{"move": str(m), "text": text} for m, text in zip(moves, format_moves(moves, deal))]


def deal_number(deal):
    """The deal number of a whole deal (a code, a number, a layout file of a deal), else
    None (a position, a partial layout)."""
    return deal.number if deal.is_full and not deal.is_partial else None


def _solve_one(args: argparse.Namespace, deal):
    """The deal's Result, a loss with its ``why``, and the budget it had (None: cpsat)."""

    from solver import DEFAULT_BUDGET, solve, solve_cpsat, why_lost

    if args.engine == "cpsat":
        result = solve_cpsat(deal, time_limit=args.time_limit, counting=args.counting)
        if result.verdict == "loss":
            result = dataclasses.replace(result, why=why_lost(deal))
        return result, None
    budget = DEFAULT_BUDGET if args.budget is None else args.budget
    if args.why_budget is None:
        return solve(deal, budget=budget, why=True), budget
    from solver import deadlock

    result = solve(deal, budget=budget)
    if result.verdict == "loss":  # as the findings' deadlock stage looks: no bound in all
        result = dataclasses.replace(result, why=deadlock(deal, args.why_budget))
    return result, budget


def _why_line(why, args) -> str:
    """Why a loss is lost; where the bounded look did not find it, the budget it had and how
    to look further (the findings' deadlock stage gives each smaller game the run's budget)."""
    from solver import DEFAULT_BUDGET, WHY_TOTAL

    line = f"lost: {why.text} [{why.seconds:.3f} s]"
    if why.kind == "unresolved" and args.why_budget is None:
        line += (f"; the bounded look stops at {WHY_TOTAL:,} positions in all: --why-budget N "
                 f"gives each smaller game N positions with no bound in all, as the findings' "
                 f"deadlock stage does with the run's budget ({DEFAULT_BUDGET:,} by default)")
    elif why.kind == "unresolved":
        line += f"; --why-budget {args.why_budget:,} positions a smaller game"
    return line


WARM_UP_DEAL = 3  # settled in a few hundred positions


def _warm_up() -> float:
    """Seconds spent making the solver ready and solving a small deal untimed: a process's
    first solve pays for its kernels' first calls (milliseconds, where the same deal takes
    a fraction of one after), which is loading, not that deal's solving."""
    import time

    from solver import solve

    t0 = time.perf_counter()
    solve(WARM_UP_DEAL)
    return time.perf_counter() - t0


def cmd_solve(args: argparse.Namespace) -> int:
    from halfmoon.game.inputs import deal_label

    if args.budget is not None and args.budget < 1:
        raise _UsageError(f"--budget must be a positive number of positions, got {args.budget}")
    if args.budget is not None and args.engine == "cpsat":
        raise _UsageError("--budget goes with --engine dfs (the constraint model has a time limit)")
    if (args.time_limit is not None or args.counting) and args.engine != "cpsat":
        raise _UsageError("--time-limit and --counting go with --engine cpsat")
    if args.time_limit is not None and not args.time_limit > 0:
        raise _UsageError(f"--time-limit must be a positive number of seconds, got "
                          f"{args.time_limit}")
    if args.why_budget is not None and args.why_budget < 1:
        raise _UsageError(f"--why-budget must be a positive number of positions, "
                          f"got {args.why_budget}")
    if args.png and len(args.deals) != 1:
        raise _UsageError("--png draws one deal: give a single CODE or LAYOUT_FILE")
    if args.png:
        check_output_file(args.png, "--png")
    deals = [(deal_label(arg, d), d) for arg in args.deals for d in [load_deal(arg)]]
    warm = _warm_up() if args.engine == "dfs" else 0.0
    for label, deal in deals:
        result, budget = _solve_one(args, deal)
        if warm:  # the first deal's loading: the solver's, and its first solve's untimed
            result = dataclasses.replace(result, setup_seconds=result.setup_seconds + warm)
            warm = 0.0
        why = result.why
        from .pick import deal_level

        level = deal_level(result.number, result.verdict)
        if args.json:
            print(json_line({
                "code": label,
                "number": result.number,
                "verdict": result.verdict,
                "moves": None if result.moves is None else moves_json(result.moves, deal),
                "nodes": result.nodes,
                "seconds": result.seconds,
                "setup_seconds": result.setup_seconds,
                "settled_by": result.settled_by,
                "engine": args.engine,
                "budget": budget,
                "solver_version": result.solver_version,
                "why": None if why is None else why.to_dict(),
                "difficulty": None if level is None else level.as_dict(),
            }))
        else:
            setup = (f" (and {result.setup_seconds:.3f} s loading the solver)"
                     if result.setup_seconds >= 0.0005 else "")
            by = f", settled by {result.settled_by}" if result.settled_by else ""
            level_words = "" if level is None else f"; level: {level.words()}"
            print(f"{label}: {result.verdict} in {result.seconds:.3f} s{setup}, "
                  f"{result.nodes} positions{by}{level_words}")
            if why is not None:
                print(_why_line(why, args))
            if result.moves is not None:
                print("\n".join(solution_lines(deal, result.moves)))
        sys.stdout.flush()
        if args.png and result.moves is not None:
            from halfmoon.report.pictures import save_line_png

            save_line_png(deal, result.moves, args.png)
    return 0


def add_solve(p: argparse.ArgumentParser):
    p.add_argument("deals", nargs="+", metavar="CODE|LAYOUT_FILE",
                   help="deal codes, deal numbers or layout files")
    p.add_argument("--budget", type=int, metavar="N",
                   help="positions searched at most, a conflict of the clause-learning search "
                   "counting as one (default: the solver's)")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.add_argument("--engine", choices=("dfs", "cpsat"), default="dfs",
                   help="dfs: the solver (default); cpsat: the independent constraint model")
    p.add_argument("--time-limit", type=float, metavar="S",
                   help="(cpsat) seconds a deal at most, then 'unresolved' (default: none)")
    p.add_argument("--counting", action="store_true",
                   help="(cpsat) the model written by counts, as the published sets were "
                   "confirmed with (benchmarks/make_sets.py: --counting --time-limit 60)")
    p.add_argument("--png", metavar="FILE", help="draw the winning line to a PNG file")
    p.add_argument("--why-budget", type=int, metavar="N",
                   help="why a loss is lost: positions for each smaller game (the deal's cards "
                   "of some classes alone), with no bound in all, as the findings' deadlock stage "
                   "looks (default: a bounded look, its budget said where it stops short)")
    return cmd_solve


def cmd_analyse(args: argparse.Namespace) -> int:
    from halfmoon.research.analysis import DEFAULT_BUDGET, analyse, format_analysis

    if args.budget is not None and args.budget < 1:
        raise _UsageError(f"bad budget {args.budget}: expected at least 1 position")
    # the partial analysis's options, checked whatever the deal: a bad value is a mistake
    if args.samples < 1:
        raise _UsageError(f"--samples must be at least 1, got {args.samples}")
    if args.seconds is not None and not args.seconds > 0:
        raise _UsageError(f"--seconds must be a positive number, got {args.seconds}")
    if args.games < 0:
        raise _UsageError(f"--games must be at least 0, got {args.games}")
    deal = load_deal(args.deal)
    if deal.is_partial:
        if args.moves is not None:
            raise _UsageError("--moves replays a game on a whole deal, not a partial layout")
        return cmd_analyse_partial(args, deal)
    budget = args.budget or DEFAULT_BUDGET
    game = None
    if args.moves is not None:
        from halfmoon.game.engine import Game
        from halfmoon.game.notation import parse_moves
        from halfmoon.research.replay import format_replay, replay_game

        moves = parse_moves(args.moves, deal)  # a bad move: one line, before any solve
        game = replay_game(deal, moves, budget=budget)
        if not args.json:
            sys.stdout.write(format_replay(game))
            sys.stdout.flush()
        position = Game(deal)
        for m in moves:
            position.push(m)
        result = analyse(position, budget=budget)
    else:
        result = analyse(deal, budget=budget)
    why = None
    if result.verdict == "loss" and result.cards_left:
        from solver import why_lost

        why = why_lost(deal if game is None else position.remaining_deal())
    if args.json:
        out = {"number": deal_number(deal), **result.to_dict(),
               "why": None if why is None else why.to_dict()}
        if game is not None:
            out["game"] = game.to_dict()
        print(json_line(out))
    else:
        sys.stdout.write(format_analysis(result))
        if why is not None:
            print(f"lost: {why.text} [{why.seconds:.3f} s]")
    return 0


def cmd_analyse_partial(args: argparse.Namespace, deal) -> int:
    """A partial layout (cards not known yet: played along with the app): shares of sampled
    layouts, and the fair player's chance (halfmoon.research.partial)."""
    from halfmoon.research.partial import DEFAULT_BUDGET, analyse_partial, format_partial

    result = analyse_partial(deal, samples=args.samples, games=args.games, seconds=args.seconds,
                             seed=args.seed, budget=args.budget or DEFAULT_BUDGET,
                             player=args.player)
    if args.json:
        print(json_line(result.to_dict()))
    else:
        sys.stdout.write(format_partial(result))
    return 0


def add_analyse(p: argparse.ArgumentParser):
    from halfmoon.research.analysis import DEFAULT_BUDGET
    from halfmoon.research.partial import DEFAULT_BUDGET as PARTIAL_BUDGET

    p.add_argument("deal", metavar="CODE|LAYOUT_FILE", help="deal code, deal number or layout file")
    p.add_argument("--budget", type=int, default=None, metavar="N",
                   help=f"positions searched after each move (default: {DEFAULT_BUDGET:,}; "
                   f"{PARTIAL_BUDGET:,} a sampled layout of a partial layout)")
    p.add_argument("--moves", metavar="MOVES",
                   help="a game's moves played from the deal, e.g. \"P4+P7 P2+P3+R3\" or "
                   "\"9♦ P4 + 2♥ P7, ...\" (docs/usage.md, Moves): replayed, the move that "
                   "lost the win marked, then the position they reach analysed")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    partial = p.add_argument_group(
        "a partial layout (?? for the cards the app has not shown yet)")
    partial.add_argument("--samples", type=int, default=256, metavar="N",
                         help="layouts drawn among those consistent with what is known "
                         "(default: 256, in batches of 16)")
    partial.add_argument("--games", type=int, default=16, metavar="N",
                         help="the fair player's games, one on each of the first layouts "
                         "(default: 16)")
    partial.add_argument("--seconds", type=float, default=None, metavar="S",
                         help="stop after S seconds (after at least one batch of layouts)")
    partial.add_argument("--seed", type=seed, default=0, help="seed of the draws (default: 0)")
    partial.add_argument("--player", default="fair", metavar="NAME",
                         help="the fair player whose chance is given (default: fair)")
    return cmd_analyse
