"""The ``halfmoon`` command: the parser of every subcommand and the way errors leave.

Each command lives with its kin: ``deals`` (show, solve, analyse), ``runs`` (batch, stats,
report, findings), ``players``, ``play``.

Library errors become one line on stderr, ``halfmoon: error: …``, and exit status 2.
"""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

from halfmoon.game.errors import HalfMoonError

from .bench import add_bench
from .checks import EXIT_BAD_INPUT, EXIT_INTERRUPTED
from .checks import UsageError as _UsageError
from .ctrl_c import CtrlC
from .deals import add_analyse, add_show, add_solve
from .pick import add_pick
from .play import add_play
from .players import add_players
from .runs import add_batch, add_findings, add_report, add_stats

__all__ = ["EXIT_BAD_INPUT", "EXIT_INTERRUPTED", "build_parser", "main"]


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line, like every other error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(f"{message} (see '{self.prog} --help')")


def version_line() -> str:
    """``halfmoon --version``: the package's version and the solver's, one line."""
    from halfmoon import __version__
    from solver import SOLVER_VERSION

    return f"halfmoon {__version__} (solver version {SOLVER_VERSION})"


class _Version(argparse.Action):
    """``--version``: the line of :func:`version_line`, exit 0; the solver is loaded only
    then."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_line())
        parser.exit()


# name, help, function that adds the arguments and returns the runner
SUBCOMMANDS = [
    ("show", "show a deal or position as a diagram, a layout or JSON", add_show),
    ("solve", "settle deals: win (with a winning line), loss or unresolved", add_solve),
    ("batch", "solve many deals into a resumable Parquet dataset", add_batch),
    ("stats", "summarize a results directory: counts, win rate with its interval, times",
     add_stats),
    ("analyse", "list every legal move of a position and whether the game stays winnable",
     add_analyse),
    ("report", "write a Markdown report with charts for a results directory", add_report),
    ("findings", "derive the findings page, its charts and data from a census", add_findings),
    ("pick", "deals chosen by verdict and difficulty level (--winnable --level hard)",
     add_pick),
    ("players", "fair players (who see only the app's cards) against others (greedy, lookahead),"
     " paired", add_players),
    ("play", "play a deal in the browser, with the solver's opinion beside the game", add_play),
    ("bench", "benchmark the solver: a suite's figures with the machine beside them, or side "
     "by side with another revision", add_bench),
]


def build_parser(commands: Optional[Sequence[str]] = None) -> argparse.ArgumentParser:
    """The parser of every subcommand; with ``commands``, only those get their arguments (the
    others are listed, as in ``halfmoon --help``): a command's arguments import what their
    help names, so a run builds its own alone."""
    parser = _Parser(prog="halfmoon",
                     description="Half Moon solitaire: deals, engine, solver, batch runs.")
    parser.add_argument("--version", action=_Version,
                        help="print the package's version and the solver's, and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, help_text, add in SUBCOMMANDS:
        p = sub.add_parser(name, help=help_text, description=help_text)
        if commands is None or name in commands:
            p.set_defaults(run=add(p))
    return parser


# options whose value may start with "-" (a range such as -5:10): argparse would take it for
# an option and say only "expected one argument"; joined as --range=-5:10, the value gets
# its own check and message
_DASHED_VALUES = ("--range", "--chunks")


def _join_dashed_values(argv: Sequence[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(argv):
        if argv[i] in _DASHED_VALUES and i + 1 < len(argv) and argv[i + 1].startswith("-") \
                and not argv[i + 1].startswith("--"):
            out.append(f"{argv[i]}={argv[i + 1]}")
            i += 2
        else:
            out.append(argv[i])
            i += 1
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        with CtrlC():  # a Ctrl-C amid the command's imports comes once they are done
            argv = _join_dashed_values(sys.argv[1:] if argv is None else list(argv))
            names = {name for name, _, _ in SUBCOMMANDS}
            commands = [argv[0]] if argv and argv[0] in names else []
            args = build_parser(commands).parse_args(argv)
            args.command_line = argv[1:]
            return args.run(args)
    except BrokenPipeError:  # the reader left (piped into head): stop quietly
        _quiet_stdout()
        return 0
    except _UsageError as exc:
        print(f"halfmoon: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except (HalfMoonError, OSError) as exc:
        print(f"halfmoon: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("halfmoon: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _quiet_stdout() -> None:
    """Point stdout at /dev/null: what is left in its buffer would fail again at exit."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # not a real file (a test's capture): nothing to flush
        pass
