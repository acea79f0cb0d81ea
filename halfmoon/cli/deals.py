"""The commands on one deal: show it, solve it, analyse a position's moves."""

from __future__ import annotations

import argparse
import json
import sys

from halfmoon.game.diagram import render
from halfmoon.game.inputs import load_deal
from halfmoon.game.layouts import format_layout

from .checks import UsageError as _UsageError
from .checks import check_output_file


def deal_to_json(deal) -> dict:
    return {
        "code": deal.code,
        "piles": [[str(c) for c in pile] for pile in deal.piles],
        "reserve": [None if c is None else str(c) for c in deal.reserve],
    }


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
        print(json.dumps(deal_to_json(deal), ensure_ascii=False))
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
    """A winning line in card notation with sources: ``1. 5s P1 + 6d P8``."""
    from halfmoon.game.engine import Game

    game = Game(deal)
    out = []
    for k, move in enumerate(moves, start=1):
        cards = [f"{game.card_at(s)} {s}" for s in move.sources]
        game.play(move)
        out.append(f"{k:2d}. " + " + ".join(cards))
    return out


def cmd_solve(args: argparse.Namespace) -> int:
    from halfmoon.game.inputs import deal_label
    from solver import solve, solve_cpsat

    if args.budget is not None and args.budget < 1:
        raise _UsageError(f"--budget must be a positive number of positions, got {args.budget}")
    if args.budget is not None and args.engine == "cpsat":
        raise _UsageError("--budget goes with --engine dfs (the constraint model has a time limit)")
    if args.png and len(args.deals) != 1:
        raise _UsageError("--png draws one deal: give a single CODE or LAYOUT_FILE")
    if args.png:
        check_output_file(args.png, "--png")
    deals = [(deal_label(arg, d), d) for arg in args.deals for d in [load_deal(arg)]]
    for label, deal in deals:
        if args.engine == "cpsat":
            result = solve_cpsat(deal)
        elif args.budget is not None:
            result = solve(deal, budget=args.budget)
        else:
            result = solve(deal)
        if args.json:
            print(json.dumps({
                "code": label,
                "verdict": result.verdict,
                "moves": None if result.moves is None else [list(m.sources) for m in result.moves],
                "nodes": result.nodes,
                "seconds": round(result.seconds, 6),
            }))
        else:
            print(f"{label}: {result.verdict} in {result.seconds:.3f} s, {result.nodes} positions")
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
    p.add_argument("--png", metavar="FILE", help="draw the winning line to a PNG file")
    return cmd_solve


def cmd_analyse(args: argparse.Namespace) -> int:
    from halfmoon.research.analysis import analyse, format_analysis

    if args.budget < 1:
        raise _UsageError(f"bad budget {args.budget}: expected at least 1 position")
    result = analyse(load_deal(args.deal), budget=args.budget)
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        sys.stdout.write(format_analysis(result))
    return 0


def add_analyse(p: argparse.ArgumentParser):
    from halfmoon.research.analysis import DEFAULT_BUDGET

    p.add_argument("deal", metavar="CODE|LAYOUT_FILE", help="deal code, deal number or layout file")
    p.add_argument("--budget", type=int, default=DEFAULT_BUDGET, metavar="N",
                   help=f"positions searched after each move (default: {DEFAULT_BUDGET:,})")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return cmd_analyse
