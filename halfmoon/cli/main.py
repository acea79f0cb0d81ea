"""The ``halfmoon`` command: argument parsing and printing over library functions.

Library errors become one line on stderr, ``halfmoon: error: …``, and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Optional, Sequence

from halfmoon.game.diagram import render
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.inputs import load_deal
from halfmoon.game.layouts import format_layout

from .checks import UsageError as _UsageError
from .checks import check_output_file

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line, like every other error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(f"{message} (see '{self.prog} --help')")



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


def _add_show(p: argparse.ArgumentParser):
    p.add_argument("deal", metavar="CODE|LAYOUT_FILE", help="deal code, deal number or layout file")
    p.add_argument("--reveal", action="store_true", help="show every card, not only the top ones")
    p.add_argument("--format", choices=("text", "layout", "json"), default="text")
    p.add_argument("--png", metavar="FILE", help="also draw the deal to a PNG file")
    return cmd_show


def cmd_batch(args: argparse.Namespace) -> int:
    from halfmoon import batch

    if args.seed is not None and args.random is None:
        raise _UsageError("--seed goes with --random")
    if args.codes is not None:
        deals = batch.deals_from_codes(args.codes)
    elif args.range is not None:
        deals = batch.parse_range(args.range)
    else:
        deals = batch.deals_from_random(args.random, 0 if args.seed is None else args.seed)
    options = dict(budget=args.budget, workers=args.workers, scheduler=args.scheduler,
                   chunk_size=args.chunk_size, piece_size=args.piece_size, lines=args.lines,
                   chunks=None if args.chunks is None else batch.parse_chunks(args.chunks))
    if args.dry_run:
        plan = batch.plan_batch(deals, args.out, cores=args.cores, sample=args.sample, **options)
        print("\n".join(plan.lines()))
        return 0
    if args.cores is not None or args.sample is not None:
        raise _UsageError("--cores and --sample go with --dry-run")
    try:
        summary = batch.run_batch(
            deals, args.out, **options,
            log=lambda msg: print(f"halfmoon: warning: {msg}", file=sys.stderr),
        )
    except batch.BatchInterrupted as exc:
        s = exc.summary
        print(f"halfmoon: interrupted: {s.done} of {s.total} deals done in {s.out};"
              " run the same command again to go on", file=sys.stderr)
        return EXIT_INTERRUPTED
    c = summary.counts
    rate = f", {summary.rate:.3g} deals/s" if summary.solved else ""
    if summary.solved and summary.compile_seconds > 0:
        rate = (f" (compiling the solver {summary.compile_seconds:.1f} s, first run only), solving"
                f" {summary.rate:.3g} deals/s, {summary.wall_rate:.3g} deals/s with compiling")
    rest = "" if summary.complete else f"; {summary.total - summary.done} deals still to do"
    print(f"{summary.out}: {summary.total} deals ({summary.solved} solved now,"
          f" {summary.resumed} before): {c['win']} win, {c['loss']} loss,"
          f" {c['unresolved']} unresolved; {summary.seconds:.1f} s{rate}{rest}")
    return 0


def _add_deals(p: argparse.ArgumentParser, random_help: str) -> None:
    """The deals of a run: --codes, --range or --random, one of them."""
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--codes", metavar="FILE",
                     help="one deal code or deal number per line (# comments)")
    src.add_argument("--range", metavar="A:B", help="deal numbers A to B-1")
    src.add_argument("--random", metavar="N", type=int, help=random_help)


def _add_batch(p: argparse.ArgumentParser):
    _add_deals(p, "N distinct random deals (see --seed)")
    p.add_argument("--seed", type=int, metavar="S", help="seed of --random (default: 0)")
    p.add_argument("--out", metavar="DIR|URL", default="results",
                   help="results directory, or an fsspec URL such as s3://bucket/run"
                   " (default: results)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="local worker processes (default: every core)")
    p.add_argument("--budget", type=int, metavar="N",
                   help="positions searched per deal, a conflict of the clause-learning "
                   "search counting as one (default: the solver's)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on this Dask distributed scheduler instead")
    p.add_argument("--chunk-size", type=int, metavar="N",
                   help="deals per Parquet file, on a cluster one task each (default: a rerun's"
                   " own; else chosen for the range and where it runs, from 250 up; see"
                   " --dry-run)")
    p.add_argument("--piece-size", type=int, metavar="N",
                   help="deals solved together: a task sent to a local worker, or a row group a"
                   " cluster worker writes (default: 16 locally, up to 10,000 on a cluster)")
    p.add_argument("--lines", choices=("all", "none"), default="all",
                   help="keep each win's line (all, about 66 bytes a deal) or the verdicts only"
                   " (none, about 7; a line is found again by solving the deal) (default: all)")
    p.add_argument("--chunks", metavar="A:B",
                   help="only chunks A to B-1 of the run (e.g. to try its first ones)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the chunks, the tasks and an estimate of the time and the bytes,"
                   " from a sample solved here; write nothing")
    p.add_argument("--cores", type=int, metavar="N",
                   help="with --dry-run: cores to estimate the time for (default: the workers or"
                   " the cluster's)")
    p.add_argument("--sample", type=int, metavar="N",
                   help="with --dry-run: deals to time (default: 100)")
    return cmd_batch


def cmd_stats(args: argparse.Namespace) -> int:
    from halfmoon.research import scan, stats

    summary = scan.summarize(args.dir)  # streamed: any size, local or at a URL
    if args.json:
        print(json.dumps(_nan_to_none(summary)))
    else:
        sys.stdout.write(stats.format_summary(summary, args.dir))
    return 0


def _nan_to_none(value):
    """JSON has no NaN: undefined figures (e.g. a win rate of zero deals) become null."""
    if isinstance(value, dict):
        return {k: _nan_to_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nan_to_none(v) for v in value]
    if isinstance(value, float) and value != value:
        return None
    return value


def _add_stats(p: argparse.ArgumentParser):
    p.add_argument("dir", metavar="DIR|URL",
                   help="results directory written by 'halfmoon batch', or its fsspec URL (s3://…)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return cmd_stats


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


def _add_analyse(p: argparse.ArgumentParser):
    from halfmoon.research.analysis import DEFAULT_BUDGET

    p.add_argument("deal", metavar="CODE|LAYOUT_FILE", help="deal code, deal number or layout file")
    p.add_argument("--budget", type=int, default=DEFAULT_BUDGET, metavar="N",
                   help=f"positions searched after each move (default: {DEFAULT_BUDGET:,})")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return cmd_analyse


def cmd_report(args: argparse.Namespace) -> int:
    from halfmoon.report.markdown import write_report

    path = write_report(args.dir, args.out, players=not args.no_players)
    print(f"report written to {path}")
    return 0


def _add_report(p: argparse.ArgumentParser):
    p.add_argument("dir", metavar="DIR", help="results directory written by 'halfmoon batch'")
    p.add_argument("--out", metavar="DIR", default="report",
                   help="where to write report.md and its charts")
    p.add_argument("--no-players", action="store_true",
                   help="leave out the random and greedy players")
    return cmd_report


def cmd_play(args: argparse.Namespace) -> int:
    from halfmoon.board.server import serve

    if not 0 <= args.port <= 65535:
        raise _UsageError(f"bad port {args.port}: expected 0 to 65535 (0: a free one)")
    if args.budget < 1:
        raise _UsageError(f"--budget must be a positive number of positions, got {args.budget}")
    deal = load_deal(args.deal) if args.deal is not None else None
    serve(deal, host=args.host, port=args.port, open_browser=not args.no_browser,
          budget=args.budget)
    return 0


def _add_play(p: argparse.ArgumentParser):
    from halfmoon.board.service import DEFAULT_BUDGET

    p.add_argument("deal", nargs="?", metavar="CODE|NUMBER|LAYOUT_FILE",
                   help="the deal to start on (default: a random one)")
    p.add_argument("--port", type=int, default=0, metavar="N",
                   help="port to listen on (default: a free one)")
    p.add_argument("--host", default="127.0.0.1", metavar="H",
                   help="address to listen on (default: 127.0.0.1, this machine only)")
    p.add_argument("--no-browser", action="store_true",
                   help="do not open the page in the default browser")
    p.add_argument("--budget", type=int, default=DEFAULT_BUDGET, metavar="N",
                   help="positions searched per solve beside the game"
                   f" (default: {DEFAULT_BUDGET:,})")
    return cmd_play


def cmd_findings(args: argparse.Namespace) -> int:
    from halfmoon.report.findings import write_findings

    for name in ("workers", "players_deals", "forgiveness_deals"):
        if getattr(args, name) < 1:
            raise _UsageError(f"--{name.replace('_', '-')} must be at least 1, "
                              f"got {getattr(args, name)}")
    if not 0 < args.recheck <= 1:
        raise _UsageError(f"--recheck must be a share of the census in (0, 1], got {args.recheck}")
    if args.fair_deals < 0:
        raise _UsageError(f"--fair-deals must be at least 0, got {args.fair_deals}")
    if args.fair_only:
        from halfmoon.report.findings import write_fair

        page = write_fair(args.census, args.out, workers=args.workers, fair_deals=args.fair_deals,
                          progress=not args.quiet, work=args.work)
    else:
        page = write_findings(args.census, args.out, seed=args.seed, workers=args.workers,
                              players_deals=args.players_deals,
                              forgiveness_deals=args.forgiveness_deals,
                              recheck_share=args.recheck, recheck_limit=args.limit,
                              progress=not args.quiet, work=args.work, fair_deals=args.fair_deals)
    print(f"findings written to {page}")
    return 0


def _add_findings(p: argparse.ArgumentParser):
    import os

    p.add_argument("census", metavar="DIR",
                   help="a finished census: a results directory written by 'halfmoon batch' "
                   "(or its fsspec URL)")
    p.add_argument("--work", metavar="DIR", default=None,
                   help="where the stages keep their pieces, so a cut run goes on (default: the"
                   " census's _findings; needed for a census at a URL)")
    p.add_argument("--out", metavar="DIR", default="docs",
                   help="where to write findings.md and its data and charts in findings/"
                   " (default: docs)")
    p.add_argument("--seed", type=int, default=2026,
                   help="seed of the samples the players, the forgiveness "
                   "study and the recheck take from the census (default: 2026)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, metavar="N",
                   help="local worker processes (default: every core)")
    p.add_argument("--players-deals", type=int, default=100_000, metavar="N",
                   help="deals the simple players play (default: 100,000)")
    p.add_argument("--forgiveness-deals", type=int, default=10_000, metavar="N",
                   help="winnable deals followed move by move (default: 10,000)")
    p.add_argument("--recheck", type=float, default=0.01, metavar="SHARE",
                   help="share of the census checked by independent means (default: 0.01)")
    p.add_argument("--limit", type=float, default=60.0, metavar="SECONDS",
                   help="the independent model's time limit per loss (default: 60)")
    p.add_argument("--fair-deals", type=int, default=2_000, metavar="N",
                   help="deals the fair-play ladder plays, the first of the players' sample"
                   " (default: 2,000; 0: none)")
    p.add_argument("--fair-only", action="store_true",
                   help="only add the fair-play stage to the findings already in --out (made from"
                   " this census, with their seed, samples and budget), and redraw the page")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    return cmd_findings


def cmd_players(args: argparse.Namespace) -> int:
    from halfmoon import batch
    from halfmoon.research import fairplay

    if args.codes is not None:
        deals = batch.deals_from_codes(args.codes)
    elif args.range is not None:
        deals = batch.parse_range(args.range)
    else:
        if args.random < 1:
            raise _UsageError(f"--random must be at least 1, got {args.random}")
        deals = batch.deals_from_random(args.random, args.seed)
    names = [n.strip() for n in args.players.split(",") if n.strip()]
    if not names:
        raise _UsageError("--players names no player")
    chosen = fairplay.players(names, args.samples)  # unknown names fail before any game
    # the references of the differences
    played = list(dict.fromkeys([*names, "greedy", "lookahead"]))
    total = len(deals) * len(played)
    bar = None
    if not args.json and sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=total, unit=" games", file=sys.stderr, dynamic_ncols=True)
    try:
        games = fairplay.play_players(deals.numbers, played, seed=args.seed, samples=args.samples,
                                      workers=args.workers, progress=bar.update if bar else None)
    finally:
        if bar is not None:
            bar.close()
    table = fairplay.ladder(games).set_index("player")
    settings = {p.name: p.settings() for p in chosen}
    if args.json:
        out = []
        for name in names:
            r = table.loc[name]
            row = {"player": name, "deals": int(r["deals"]), "won": int(r["won"]),
                   "win_rate": float(r["win_rate"]),
                   "ci_low": float(r["ci_low"]), "ci_high": float(r["ci_high"])}
            for other in ("greedy", "lookahead"):
                row[f"vs_{other}"] = {k: float(r[f"vs_{other}{s}"]) for k, s in
                                      (("mean", ""), ("low", "_low"), ("high", "_high"))}
            row.update(seconds_per_game=float(r["seconds_per_game"]),
                       evaluations_per_game=float(r["evaluations_per_game"]),
                       settings=settings[name])
            out.append(row)
        print(json.dumps({"deals": len(deals), "seed": args.seed, "players": out}))
        return 0
    from halfmoon.batch.sources import describe_source

    print(f"{len(deals)} deals ({describe_source(deals.source)}), seed {args.seed}; "
          "win rates with 95 % Wilson intervals, differences paired by deal with 95 % intervals")
    width = max(len(n) for n in names)
    for name in names:
        r = table.loc[name]
        diffs = "  ".join(f"vs {o} {100 * r[f'vs_{o}']:+.2f} [{100 * r[f'vs_{o}_low']:+.2f}, "
                          f"{100 * r[f'vs_{o}_high']:+.2f}]" for o in ("greedy", "lookahead"))
        extra = f" ({settings[name]})" if settings[name] else ""
        print(f"{name:<{width}}  {int(r['deals'])} deals  won {int(r['won'])}  "
              f"{100 * r['win_rate']:.2f} % [{100 * r['ci_low']:.2f}, {100 * r['ci_high']:.2f}]  "
              f"{diffs}  {r['seconds_per_game']:.4f} s a game{extra}")
    return 0


def _add_players(p: argparse.ArgumentParser):
    _add_deals(p, "N distinct random deals of the whole code space")
    p.add_argument("--seed", type=int, default=0, metavar="S",
                   help="seed of --random and of the players' random numbers (default: 0)")
    p.add_argument("--players", default="random,greedy,lookahead,fair", metavar="LIST",
                   help="comma-separated: random, greedy, lookahead, pimc, rollout,"
                   " rollout-lookahead, uct, fair "
                   "(the best fair player; default: random,greedy,lookahead,fair)")
    p.add_argument("--samples", type=int, metavar="K",
                   help="sampled layouts (or UCT's iterations) a decision, for the players that"
                   " sample (default: each one's own)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="local worker processes (default: every core)")
    p.add_argument("--json", action="store_true", help="one JSON object")
    return cmd_players


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


def _add_solve(p: argparse.ArgumentParser):
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


# name, help, function that adds the arguments and returns the runner
SUBCOMMANDS = [
    ("show", "show a deal or position as a diagram, a layout or JSON", _add_show),
    ("solve", "settle deals: win (with a winning line), loss or unresolved", _add_solve),
    ("batch", "solve many deals into a resumable Parquet dataset", _add_batch),
    ("stats", "summarize a results directory: counts, win rate with its interval, times",
     _add_stats),
    ("analyse", "list every legal move of a position and whether the game stays winnable",
     _add_analyse),
    ("report", "write a Markdown report with charts for a results directory", _add_report),
    ("findings", "derive the findings page, its charts and data from a census", _add_findings),
    ("players", "fair players (who see only the app's cards) against greedy and lookahead,"
     " paired", _add_players),
    ("play", "play a deal in the browser, with the solver's opinion beside the game", _add_play),
]


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="halfmoon",
                     description="Half Moon solitaire: deals, engine, solver, batch runs.")
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
