"""The commands on many deals: a batch run, its statistics, its report, a census's findings."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .checks import EXIT_INTERRUPTED, add_quiet, check_output_dir, seed
from .checks import UsageError as _UsageError
from .output import json_line


def cmd_batch(args: argparse.Namespace) -> int:
    from halfmoon import batch

    if args.seed is not None and args.random is None:
        raise _UsageError("--seed goes with --random")
    for option, value in (("--chunk-size", args.chunk_size), ("--piece-size", args.piece_size)):
        if value is not None and value < 1:  # before the run makes its directory
            raise _UsageError(f"bad {option} {value}: expected at least 1 deal")
    check_output_dir(args.out, "--out")
    if args.difficulty and ("://" in args.out or args.dry_run):
        raise _UsageError("--difficulty needs a local --out directory and a run, not a dry run")
    if args.codes is not None:
        deals = batch.deals_from_codes(args.codes)
    elif args.range is not None:
        deals = batch.parse_range(args.range)
    else:
        deals = batch.deals_from_random(args.random, 0 if args.seed is None else args.seed)
    if args.connect_timeout is not None and args.scheduler is None:
        raise _UsageError("--connect-timeout goes with --scheduler")
    options = dict(budget=args.budget, workers=args.workers, scheduler=args.scheduler,
                   connect_timeout=args.connect_timeout,
                   chunk_size=args.chunk_size, piece_size=args.piece_size, lines=args.lines,
                   chunks=None if args.chunks is None else batch.parse_chunks(args.chunks))
    if args.dry_run:
        plan = batch.plan_batch(deals, args.out, cores=args.cores, sample=args.sample,
                                sample_seed=args.sample_seed, **options)
        print("\n".join(plan.lines()))
        return 0
    if args.cores is not None or args.sample is not None or args.sample_seed is not None:
        raise _UsageError("--cores, --sample and --sample-seed go with --dry-run")
    try:
        summary = batch.run_batch(
            deals, args.out, **options, progress=False if args.quiet else None,
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
    if args.difficulty and summary.complete:
        from .pick import run_difficulty

        print(run_difficulty(args.out, quiet=args.quiet))
    return 0


def add_deals(p: argparse.ArgumentParser, random_help: str) -> None:
    """The deals of a run: --codes, --range or --random, one of them."""
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--codes", metavar="FILE",
                     help="one deal code or deal number per line (# comments)")
    src.add_argument("--range", metavar="A:B", help="deal numbers A to B-1")
    src.add_argument("--random", metavar="N", type=int, help=random_help)


def add_batch(p: argparse.ArgumentParser):
    from halfmoon.batch.plan import SAMPLE

    add_deals(p, "N distinct random deals (see --seed)")
    p.add_argument("--seed", type=seed, metavar="S", help="seed of --random (default: 0)")
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
    p.add_argument("--connect-timeout", type=float, metavar="S",
                   help="with --scheduler: seconds to reach it before giving up (default: 10)")
    p.add_argument("--chunk-size", type=int, metavar="N",
                   help="deals per Parquet file, on a cluster one task each (default: a rerun's"
                   " own; else chosen for the range and where it runs, from 250 up; see"
                   " --dry-run)")
    p.add_argument("--piece-size", type=int, metavar="N",
                   help="deals solved together: a task sent to a local worker, or a row group a"
                   " cluster worker writes (default: 16 to 256 locally, by the run's length; up to"
                   " 10,000 on a cluster)")
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
                   " the cluster's); without --scheduler and --workers, a cluster of N cores")
    p.add_argument("--sample", type=int, metavar="N",
                   help=f"with --dry-run: deals to time (default: {SAMPLE:,})")
    p.add_argument("--sample-seed", type=seed, metavar="S",
                   help="with --dry-run: draw the sample at random with this seed (default:"
                   " spread evenly over the run)")
    p.add_argument("--difficulty", action="store_true",
                   help="once the run is complete, each deal's difficulty level, estimate and "
                   "signals to difficulty.parquet in --out (about 4 ms a deal; kept on a rerun)")
    add_quiet(p)
    return cmd_batch


def cmd_stats(args: argparse.Namespace) -> int:
    from halfmoon.game.errors import HalfMoonError
    from halfmoon.research import scan

    z = _z(args.confidence)
    if len(args.dir) > 1:
        from halfmoon.research.pool import pooled_summary

        summary = pooled_summary(args.dir, z)
        # each run's plan and state: an unfinished one is said before any figure
        notes = [f"{r['results']}: {note}" for r in summary["pooled"]["runs"]
                 for note in run_notes(r["results"], r["deals"])["notes"]]
        summary["run"] = {"notes": notes}
        return _print_stats(args, summary, " + ".join(args.dir))
    try:
        summary = scan.summarize(args.dir[0], z)  # streamed: any size, local or at a URL
    except HalfMoonError as exc:
        notes = run_notes(args.dir[0], 0)
        if notes["planned"] is None or "no finished chunk file" not in str(exc):
            raise
        print(f"{args.dir[0]}: no deal finished yet: " + "; ".join(notes["notes"]))
        return 0
    summary["run"] = run_notes(args.dir[0], summary["deals"])
    return _print_stats(args, summary, args.dir[0])


def _print_stats(args: argparse.Namespace, summary: dict, source: str) -> int:
    from halfmoon.research import stats
    from halfmoon.research.provenance import provenance

    summary.setdefault("provenance", provenance())
    from .pick import level_shares

    levels = level_shares(args.dir, _z(args.confidence))
    if args.json:
        print(json_line(_nan_to_none(stats_rounded(
            summary if levels is None else {**summary, "difficulty": {
                k: v for k, v in levels.items() if k != "line"}}))))
    else:
        sys.stdout.write(stats.format_summary(summary, source))
        if levels is not None:
            print(levels["line"])
    return 0


def _z(confidence: float) -> float:
    from halfmoon.research.stats import z_of

    try:
        return z_of(confidence)
    except ValueError:
        raise _UsageError(f"--confidence must be a share in (0, 1), such as 0.99; got "
                          f"{confidence}") from None


RATE_DIGITS = 6  # a rate to a millionth: a deal in a million deals
COUNT_DIGITS = 1  # positions' mean and percentiles: counts, interpolated


def stats_rounded(summary: dict) -> dict:
    """``stats --json``'s figures rounded to what they mean: rates and their bounds to
    :data:`RATE_DIGITS` decimals, the positions' figures to :data:`COUNT_DIGITS` (times are
    rounded by :func:`.output.json_line`)."""
    out = dict(summary)
    for key in ("win_rate", "win_rate_resolved", "ci_low", "ci_high"):
        if isinstance(out.get(key), float):
            out[key] = round(out[key], RATE_DIGITS)
    if isinstance(out.get("nodes"), dict):
        out["nodes"] = {k: round(v, COUNT_DIGITS) if isinstance(v, float) else v
                        for k, v in out["nodes"].items()}
    return out


def run_notes(path, done: int) -> dict:
    """The run's plan and state for a reader of ``done`` of its deals (see
    :mod:`halfmoon.batch.state`): planned deals, finished, the writing process, the notes."""
    from halfmoon.batch.state import run_state

    st = run_state(path)
    return {"planned": st.planned, "finished": st.finished and done == st.planned,
            "writer": st.writer,
            "source": st.source() if (st.manifest or {}).get("source") else None,
            "notes": st.lines(done)}


def _nan_to_none(value):
    """JSON has no NaN: undefined figures (e.g. a win rate of zero deals) become null."""
    if isinstance(value, dict):
        return {k: _nan_to_none(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_nan_to_none(v) for v in value]
    if isinstance(value, float) and value != value:
        return None
    return value


def add_stats(p: argparse.ArgumentParser):
    p.add_argument("dir", metavar="DIR|URL", nargs="+",
                   help="results directory written by 'halfmoon batch', or its fsspec URL "
                   "(s3://…); several: pooled, each deal counted once (runs of different solver "
                   "versions refused)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--confidence", type=float, default=0.95, metavar="C",
                   help="the intervals' confidence, a share in (0, 1) (default: 0.95)")
    return cmd_stats


def cmd_report(args: argparse.Namespace) -> int:
    from halfmoon.report.markdown import write_report

    check_output_dir(args.out, "--out")
    path = write_report(args.dir, args.out, players=not args.no_players,
                        formats=_formats(args.formats))
    print(f"report written to {path}")
    return 0


def add_report(p: argparse.ArgumentParser):
    p.add_argument("dir", metavar="DIR", help="results directory written by 'halfmoon batch'")
    p.add_argument("--out", metavar="DIR", default="report",
                   help="where to write report.md and its charts")
    p.add_argument("--no-players", action="store_true",
                   help="leave out the random and greedy players")
    _add_formats(p)
    return cmd_report


def _add_formats(p: argparse.ArgumentParser) -> None:
    p.add_argument("--formats", metavar="LIST", default="",
                   help="also write the tables as csv and latex (booktabs) in tables/, and the "
                   "charts as svg and pdf beside their PNGs: any of csv,latex,svg,pdf")


def _formats(text: str) -> tuple:
    from halfmoon.game.errors import HalfMoonError
    from halfmoon.report.exports import parse_formats

    try:
        return parse_formats(text)
    except HalfMoonError as exc:
        raise _UsageError(str(exc)) from None


def cmd_findings(args: argparse.Namespace) -> int:
    from halfmoon.report.findings_out import write_findings

    for name in ("workers", "players_deals", "forgiveness_deals"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise _UsageError(f"--{name.replace('_', '-')} must be at least 1, "
                              f"got {getattr(args, name)}")
    if not 0 < args.recheck <= 1:
        raise _UsageError(f"--recheck must be a share of the census in (0, 1], got {args.recheck}")
    if args.fair_deals is not None and args.fair_deals < 0:
        raise _UsageError(f"--fair-deals must be at least 0, got {args.fair_deals}")
    if not args.limit > 0:
        raise _UsageError(f"--limit must be a positive number of seconds, got {args.limit}")
    formats = _formats(args.formats)
    if args.confidence is not None:
        _z(args.confidence)
    if args.out is not None:
        check_output_dir(args.out, "--out")
    if args.work is not None:
        check_output_dir(args.work, "--work")
    from halfmoon.report.findings_out import check_out, default_out

    runs, pooled = args.census, None
    if len(runs) > 1:
        if args.out is None:
            raise _UsageError(f"findings of {len(runs)} runs pooled need --out DIR: the pooled "
                              "run and its page are written there")
        from halfmoon.research.pool import POOLED_DIR, pooled_run

        pooled = pooled_run(runs)
        args.census = str(Path(args.out) / POOLED_DIR)
    else:
        args.census = runs[0]
    out = default_out(args.census, args.work) if args.out is None else args.out
    replaced = check_out(out, args.census, force=args.force, partial=args.partial,
                         manifest=None if pooled is None else pooled[1])
    if replaced:
        print(f"halfmoon: --force: replacing {replaced} in {out}", file=sys.stderr)
    if pooled is not None:
        from halfmoon.research.pool import write_pooled

        rows, manifest = pooled
        wrote = write_pooled(rows, manifest, args.census)
        shared = sum(r["shared"] for r in manifest["source"]["runs"])
        print(f"halfmoon: {len(runs)} runs pooled: {len(rows):,} deals, each once ({shared:,} "
              f"held by more than one run) {'in' if wrote else 'as before in'} {args.census}",
              file=sys.stderr)
    if args.fair_only:
        from halfmoon.report.findings_out import write_fair

        page = write_fair(args.census, args.out, force=True, workers=args.workers,
                          fair_deals=args.fair_deals, progress=not args.quiet, work=args.work,
                          formats=formats, confidence=args.confidence)
    else:
        page = write_findings(args.census, args.out, force=True, partial=args.partial,
                              seed=args.seed, workers=args.workers,
                              players_deals=args.players_deals,
                              forgiveness_deals=args.forgiveness_deals,
                              recheck_share=args.recheck, recheck_limit=args.limit,
                              progress=not args.quiet, work=args.work, fair_deals=args.fair_deals,
                              formats=formats,
                              confidence=0.95 if args.confidence is None else args.confidence)
    print(f"findings written to {page}")
    return 0


def add_findings(p: argparse.ArgumentParser):
    import os

    from halfmoon.research.costs import UNIT_SECONDS as COST
    from halfmoon.research.costs import help_text

    p.epilog = help_text()

    p.add_argument("census", metavar="DIR", nargs="+",
                   help="a finished run (a census): a results directory written by 'halfmoon "
                   "batch' (or its fsspec URL); several: pooled into one run in --out (each deal"
                   " counted once; runs of different solver versions or budgets refused)")
    p.add_argument("--work", metavar="DIR", default=None,
                   help="where the stages keep their pieces, so a cut run goes on (default: the"
                   " census's _findings; needed for a census at a URL)")
    p.add_argument("--out", metavar="DIR", default=None,
                   help="where to write findings.md and its data and charts in findings/"
                   " (default: beside the run, in DIR/_findings; the shipped page: make findings)")
    p.add_argument("--force", action="store_true",
                   help="replace the page of another run in --out (refused without it)")
    p.add_argument("--partial", action="store_true",
                   help="derive the findings of a run not finished, from the deals it holds so"
                   " far (the page says so)")
    p.add_argument("--seed", type=seed, default=2026,
                   help="seed of the samples the players, the forgiveness "
                   "study and the recheck take from the census (default: 2026)")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1, metavar="N",
                   help="local worker processes (default: every core)")
    p.add_argument("--players-deals", type=int, default=None, metavar="N",
                   help="deals the simple players play (default: 100,000, or all of a smaller"
                   f" run; about {1000 * COST['players']:g} ms a deal)")
    p.add_argument("--forgiveness-deals", type=int, default=None, metavar="N",
                   help="winnable deals followed move by move (default: 10,000 for a run of"
                   " 1,000,000 deals, in proportion for a smaller one, at least 200; about"
                   f" {COST['forgiveness']:g} s a deal)")
    p.add_argument("--recheck", type=float, default=0.01, metavar="SHARE",
                   help="share of the census checked by independent means (default: 0.01)")
    p.add_argument("--limit", type=float, default=60.0, metavar="SECONDS",
                   help="the independent model's time limit per loss (default: 60; a loss"
                   f" takes about {COST['recheck_loss']:g} s)")
    p.add_argument("--fair-deals", type=int, default=None, metavar="N",
                   help="deals the fair-play ladder plays, the first of the players' sample"
                   " (default: 2,000 for a run of 1,000,000 deals, in proportion for a smaller"
                   f" one, at least 20; 0: none; about {COST['fair']:g} s a deal, the costliest"
                   " stage)")
    p.add_argument("--fair-only", action="store_true",
                   help="only add the fair-play stage to the findings already in --out (made from"
                   " this census, with their seed, samples and budget), and redraw the page; if"
                   " the run grew since, every stage is brought up to date with their options")
    p.add_argument("--confidence", type=float, default=None, metavar="C",
                   help="the confidence of every interval of the page, its charts and data, a "
                   "share in (0, 1) (default: 0.95; with --fair-only: the findings' own)")
    _add_formats(p)
    add_quiet(p)
    return cmd_findings
