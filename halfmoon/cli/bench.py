"""The benchmark command: a suite of this version's solver, on this machine, with the machine
beside every figure; against another revision or a saved result; the deal sets exported."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from .checks import UsageError as _UsageError
from .checks import add_quiet, check_output_dir

DEFAULT_OUT = "bench-results"  # git ignores it


def cmd_bench(args: argparse.Namespace) -> int:
    from halfmoon.bench import run_against, run_suite, write_result
    from halfmoon.bench.against import checkout, compare_saved, load_saved, repository
    from solver import DEFAULT_BUDGET, SOLVER_VERSION

    if args.export:
        return _export(args)
    if args.suite == "advice" or any(getattr(args, name) is not None
                                     for name in ("deals", "think", "max_moves")):
        return _advice(args)
    from halfmoon.bench.suites import suite_seed

    seed = suite_seed(args.suite, args.seed)  # a seed the suite has no use for: refused
    if args.workers is not None and args.workers < 1:
        raise _UsageError(f"--workers must be at least 1, got {args.workers}")
    if args.rounds is not None and args.rounds < 1:
        raise _UsageError(f"--rounds must be at least 1, got {args.rounds}")
    if args.revision and (args.against or args.refit_tail_model):
        raise _UsageError("--revision measures another revision alone: not with --against "
                          "or --refit-tail-model")
    budget = DEFAULT_BUDGET if args.budget is None else args.budget
    if budget < 1:
        raise _UsageError(f"--budget must be at least 1 position, got {budget}")
    if args.refit_tail_model and (args.suite != "standard" or args.against
                                  or budget != DEFAULT_BUDGET):
        raise _UsageError("--refit-tail-model needs the standard suite at the default budget, "
                          "without --against")
    out = Path(args.out) if args.out else Path(DEFAULT_OUT) / (
        f"{args.suite}-{('r' + args.revision) if args.revision else f'v{SOLVER_VERSION}'}-"
        f"{time.strftime('%Y%m%d-%H%M%S')}")
    check_output_dir(str(out), "--out")
    saved = None
    if args.against and (Path(args.against).exists() or args.against.endswith(".json")):
        saved = load_saved(Path(args.against))  # a bad file fails before any work
    command = "halfmoon bench " + " ".join(sys.argv[2:] if args.command_line is None
                                          else args.command_line)
    progress = None if args.quiet else sys.stderr
    if args.against and saved is None:
        result, rows = run_against(args.suite, args.against, workers=args.workers,
                                   budget=budget, progress=progress, command=command,
                                   seed=seed)
    elif args.revision:
        with checkout(args.revision, repository()) as (commit, home, cache):
            result, rows = run_suite(args.suite, workers=args.workers, budget=budget,
                                     progress=progress, command=command, rounds=args.rounds,
                                     revision=(args.revision, commit, home, cache), seed=seed)
    else:
        result, rows = run_suite(args.suite, workers=args.workers, budget=budget,
                                 progress=progress, command=command, rounds=args.rounds,
                                 seed=seed)
        if saved is not None:
            result["versus_saved"] = compare_saved(result, rows, saved[0], saved[1],
                                                   args.against)
    paths = write_result(out, result, rows)
    if args.refit_tail_model:
        paths.append(_refit(result, rows, out))
    from halfmoon.bench.output import markdown

    text = markdown(result)
    print(text.split("\n## ")[0].rstrip())
    if result.get("versus_saved"):
        from halfmoon.bench.compare import compare_lines

        print(f"\nAgainst the saved result {args.against} (A), this run (B):")
        print("\n".join(compare_lines(result["versus_saved"])))
    print(f"\nwritten: {', '.join(str(p) for p in paths)}")
    if result.get("busy"):
        print("halfmoon bench: busy machine: " + "; ".join(result["busy_reasons"])
              + ": the result is marked busy; rerun on a quiet machine", file=sys.stderr)
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    """Two saved results, B against A, without running anything."""
    from halfmoon.bench.against import load_saved
    from halfmoon.bench.compare import compare_lines, compare_results

    a, a_rows = load_saved(Path(args.a), "compare")
    b, b_rows = load_saved(Path(args.b), "compare")
    c = compare_results(a, b, a_rows, b_rows, names=(args.a, args.b))
    if args.json:
        from .output import json_line

        print(json_line(c))
    else:
        print("\n".join(compare_lines(c)))
    return 0


def _refit(result: dict, rows: dict, out: Path) -> Path:
    from halfmoon.batch.estimate import MODEL_FILE, write_tail_model

    random = rows["random"]
    made_from = (out / "bench.json").resolve()
    root = Path(__file__).resolve().parents[2]
    if made_from.is_relative_to(root):  # the release step's: named in the repository
        made_from = made_from.relative_to(root)
    write_tail_model([r.solve for r in random], made_from=made_from.as_posix(),
                     positions=[r.nodes for r in random],
                     command=result["command"], budget=result["budget"],
                     solver_version=result["solver_version"], path=MODEL_FILE,
                     commit=result["commit"],
                     solver_digest=result["machine"]["solver_digest"],
                     machine=f"{result['machine']['cpu']}, {result['machine']['cores']} cores")
    return MODEL_FILE


def _advice(args: argparse.Namespace) -> int:
    """The advice suite: this checkout's board, a revision's (--revision), or both in turn
    on each deal (--against REV)."""
    from halfmoon.bench import advice
    from halfmoon.bench.against import checkout, repository

    if args.suite != "advice":
        raise _UsageError("--deals, --think and --max-moves are the advice suite's: "
                          "add --suite advice")
    for name in ("rounds", "workers", "budget"):
        if getattr(args, name) is not None:
            raise _UsageError(f"--{name} is not the advice suite's (its board's own settings "
                              "are measured)")
    if args.refit_tail_model:
        raise _UsageError("--refit-tail-model needs the standard suite")
    if args.against and (Path(args.against).exists() or args.against.endswith(".json")):
        raise _UsageError("--against with the advice suite takes a git revision, not a file")
    if args.revision and args.against:
        raise _UsageError("--revision measures another revision alone: not with --against")
    how = {"deals": advice.DEALS if args.deals is None else args.deals,
           "think": advice.THINK if args.think is None else args.think,
           "seed": advice.SEED if args.seed is None else args.seed,
           "max_moves": advice.MAX_MOVES if args.max_moves is None else args.max_moves}
    for name in ("deals", "max_moves"):
        if how[name] < 1:
            raise _UsageError(f"--{name.replace('_', '-')} must be at least 1, got {how[name]}")
    if not 0 <= how["think"] <= 60:
        raise _UsageError(f"--think must be 0 to 60 seconds, got {how['think']:g}")
    out = Path(args.out) if args.out else Path(DEFAULT_OUT) / (
        f"advice-{('r' + args.revision) if args.revision else 'this'}-"
        f"{time.strftime('%Y%m%d-%H%M%S')}")
    check_output_dir(str(out), "--out")
    command = "halfmoon bench " + " ".join(sys.argv[2:] if args.command_line is None
                                          else args.command_line)
    progress = None if args.quiet else sys.stderr
    rev = args.revision or args.against
    if rev:
        with checkout(rev, repository()) as (commit, home, cache):
            side = (rev, commit, home, cache)
            result = advice.run_advice(**how, progress=progress, command=command,
                                       revision=side if args.revision else None,
                                       against=side if args.against else None)
    else:
        result = advice.run_advice(**how, progress=progress, command=command)
    path = advice.write_advice(out, result)
    print("\n".join(advice.advice_lines(result)))
    print(f"\nwritten: {path}")
    return 0


def _export(args: argparse.Namespace) -> int:
    from halfmoon.bench.sets import export_set

    if not args.out:
        raise _UsageError("--export needs --out DIR: the folder for the layout files")
    check_output_dir(args.out, "--out")
    n = export_set(args.export, Path(args.out))
    print(f"written: {n:,} layout files and {args.export}.csv in {args.out}")
    return 0


def add_bench(p: argparse.ArgumentParser):
    from halfmoon.bench.suites import STANDARD_SEED, SUITES

    p.epilog = ("Suites: " + "; ".join(f"{s.name}: {s.about} ({s.minutes} on two cores)"
                                      for s in SUITES.values())
                + ". Writes bench.json, bench.md, deals.parquet, cactus.png and times.png.")
    p.add_argument("--suite", choices=[*SUITES, "advice"], default="quick",
                   help="what to measure (default quick; advice: the play-along board's "
                        "time from a move to a settled recommendation, a simulated player "
                        "with the app's undo)")
    p.add_argument("--deals", type=int, metavar="N",
                   help="(advice only) deals the player plays (default 3)")
    p.add_argument("--think", type=float, metavar="S",
                   help="(advice only) seconds the player thinks before each move (default 1)")
    p.add_argument("--seed", type=int, metavar="N",
                   help="(standard and advice) the random deals' seed (default: standard "
                        f"{STANDARD_SEED}, advice 65): another draws as many other deals, "
                        "the way to check a claim on deals it was not tuned on")
    p.add_argument("--max-moves", type=int, metavar="N",
                   help="(advice only) moves a deal at most, undone ones too (default 60)")
    p.add_argument("--out", metavar="DIR",
                   help=f"folder for the result (default: a new folder under {DEFAULT_OUT}/)")
    p.add_argument("--against", metavar="REV|FILE",
                   help="side by side with a git revision (exported outside the repository, "
                        "the two in turn on each block of deals: the way to measure a change) "
                        "or against a saved result (its bench.json or folder)")
    p.add_argument("--rounds", type=int, metavar="N",
                   help="times each of the solver's parts is solved over, after a warm-up "
                        "(default: quick and tail 3, standard 1)")
    p.add_argument("--revision", metavar="REV",
                   help="measure the solver of git revision REV (exported outside the "
                        "repository) with this toolkit's suite, instead of this one's")
    p.add_argument("--workers", type=int, metavar="N",
                   help="worker processes (default: every usable core; quick: one, pinned)")
    p.add_argument("--budget", type=int, metavar="N",
                   help="positions a deal at most (default: the solver's)")
    p.add_argument("--refit-tail-model", action="store_true",
                   help="(standard only) refit the batch's tail model, which prices a dry "
                        "run, from this run's random deals: the release step")
    p.add_argument("--export", metavar="SET", choices=["quick", "hard"],
                   help="write the set's layout files and verdicts into --out, and stop")
    add_quiet(p)
    p.set_defaults(command_line=None)
    sub = p.add_subparsers(dest="bench_action", metavar="compare", parser_class=type(p))
    c = sub.add_parser("compare", help="two saved results, B against A, without a rerun",
                       description="Two saved results (bench.json or its folder), B against "
                       "A: the ratio of their rates with a 95 % interval that holds the "
                       "rounds of each and the machine's drift between the two runs (the "
                       "reference workload, the workers' share of a core); \"not told "
                       "apart\" where it holds 1. To measure a change, run both in one run "
                       "instead: --against REV.")
    c.add_argument("a", metavar="A", help="the saved result compared against")
    c.add_argument("b", metavar="B", help="the saved result compared")
    c.add_argument("--json", action="store_true", help="one JSON object")
    c.set_defaults(run=cmd_compare)
    return cmd_bench
