"""The board's command: play a deal in the browser with the solver beside the game."""

from __future__ import annotations

import argparse
from pathlib import Path

from halfmoon.game.inputs import load_deal

from .checks import EXIT_INTERRUPTED
from .checks import UsageError as _UsageError


def cmd_play(args: argparse.Namespace) -> int:
    from halfmoon.board.server import serve

    if not 0 <= args.port <= 65535:
        raise _UsageError(f"bad port {args.port}: expected 0 to 65535 (0: a free one)")
    if args.budget < 1:
        raise _UsageError(f"--budget must be a positive number of positions, got {args.budget}")
    deal = load_deal(args.deal) if args.deal is not None else None
    moves = ()
    if args.moves is not None:
        from halfmoon.game.notation import parse_moves

        if deal is None:
            raise _UsageError("--moves needs a deal to play them from: "
                              "give CODE|NUMBER|LAYOUT_FILE")
        moves = parse_moves(args.moves, deal)
    from halfmoon.board.store import default_path

    store = args.store if args.store is not None else default_path()
    interrupted = serve(deal, host=args.host, port=args.port, open_browser=not args.no_browser,
                        budget=args.budget, moves=moves, store=store)
    return EXIT_INTERRUPTED if interrupted else 0


def add_play(p: argparse.ArgumentParser):
    from halfmoon.board.service import DEFAULT_BUDGET

    p.add_argument("deal", nargs="?", metavar="CODE|NUMBER|LAYOUT_FILE",
                   help="the deal to start on (default: none; the page offers a game from "
                        "the app or a random deal)")
    p.add_argument("--port", type=int, default=0, metavar="N",
                   help="port to listen on (default: a free one)")
    p.add_argument("--host", default="127.0.0.1", metavar="H",
                   help="address to listen on (default: 127.0.0.1, this machine only)")
    p.add_argument("--no-browser", action="store_true",
                   help="do not open the page in the default browser")
    p.add_argument("--moves", metavar="MOVES",
                   help="open the board with these moves played from the deal, e.g. "
                   "\"P4+P7 P2+P3+R3\" (docs/usage.md, Moves)")
    p.add_argument("--budget", type=int, default=DEFAULT_BUDGET, metavar="N",
                   help="positions searched per solve beside the game"
                   f" (default: {DEFAULT_BUDGET:,})")
    p.add_argument("--store", type=Path, metavar="PATH",
                   help="the file the board keeps its games in (default: "
                   "$XDG_DATA_HOME/halfmoon/board.sqlite3, else ~/.local/share/halfmoon/"
                   "board.sqlite3)")
    return cmd_play
