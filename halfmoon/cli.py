"""The ``halfmoon`` command: argument parsing and printing over library functions.

Library errors become one line on stderr, ``halfmoon: error: …``, and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Optional, Sequence

from .diagram import render
from .errors import HalfMoonError
from .inputs import load_deal
from .layouts import format_layout

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line, like every other error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(f"{message} (see '{self.prog} --help')")


class _UsageError(Exception):
    pass


def deal_to_json(deal) -> dict:
    return {
        "code": deal.code,
        "piles": [[str(c) for c in pile] for pile in deal.piles],
        "reserve": [None if c is None else str(c) for c in deal.reserve],
    }


def cmd_show(args: argparse.Namespace) -> int:
    deal = load_deal(args.deal)
    if args.png:
        from .pictures import save_deal_png

        save_deal_png(deal, args.png)
    if args.format == "layout":
        sys.stdout.write(format_layout(deal))
    elif args.format == "json":
        print(json.dumps(deal_to_json(deal), ensure_ascii=False))
    else:
        sys.stdout.write(render(deal, reveal=args.reveal))
    return 0


def _add_show(p: argparse.ArgumentParser):
    p.add_argument("deal", metavar="CODE|LAYOUT_FILE", help="deal code, deal number or layout file")
    p.add_argument("--reveal", action="store_true", help="show every card, not only the top ones")
    p.add_argument("--format", choices=("text", "layout", "json"), default="text")
    p.add_argument("--png", metavar="FILE", help="also draw the deal to a PNG file")
    return cmd_show


# name, help, function that adds the arguments and returns the runner
SUBCOMMANDS = [
    ("show", "show a deal or position as a diagram, a layout or JSON", _add_show),
]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="halfmoon", description="Half Moon solitaire: deals, engine, solver, batch runs.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, help_text, add in SUBCOMMANDS:
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.set_defaults(run=add(p))
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return args.run(args)
    except _UsageError as exc:
        print(f"halfmoon: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (HalfMoonError, OSError) as exc:
        print(f"halfmoon: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("halfmoon: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # pragma: no cover - e.g. piped into head
        return 0
