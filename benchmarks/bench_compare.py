"""Two versions of the solver side by side, in one process: the working tree against a
git revision.

    python benchmarks/bench_compare.py [--base REV] [--rounds 7] [--positions 200000]
                                       [--deals 129,1570,38,390,876] [--solve LO:HI]
                                       [--random N --seed S] [--numbers FILE] [--budget N]
                                       [--pieces] [--grouping-alone C]
                                       [--grouping-deals LIST]

This machine switches between full and about half speed within seconds, so timing one
version and then the other measures the machine's phases as much as the code.  Here the ``solver/``
of revision ``--base`` (default HEAD) is loaded beside the working tree's, as a second
package in the same process, and the two are timed in alternating rounds:

- the kernel, as in bench_kernel.py (the plain search and the search with every rule,
  from the start of each deal, for ``--positions`` positions): microseconds a position
  for each version, and the median and range over the rounds of the ratio
  working tree / base (above 1: the working tree expands more positions a second);
- with ``--solve LO:HI`` (or ``--random N --seed S``, deals drawn from the whole code space,
  or ``--numbers FILE``), :func:`solver.solve` on every deal of the range (with
  ``--budget N``, at most N positions each: 100,000 times the depth-first searches alone,
  before the grouping search joins), in blocks of 250 deals that each version takes in turn,
  first one then the other: time and positions in all, how many deals took over 0.5 s, the
  ``--slowest`` K slowest (8), the positions a win took (median, mean, 99th percentile), the
  time by verdict and by the search that settled each deal, any deal whose verdict differs
  and any whose positions or settling search differ, and the time of the deals the base
  settles in over 100,000 positions (wins, losses) and of the rest; with ``--pieces``,
  through :func:`solver.portfolio.deal_numbers.solve_numbers` in pieces of 16 (the batch's
  path, its first turn in compiled code) instead; with ``--grouping-alone C``, then the
  grouping search alone (at most C conflicts, in the portfolio's slices) on each deal the
  base's grouping search settled, the versions in turn: seconds, and any deal whose status,
  conflicts, line or final counters differ; ``--grouping-deals LIST`` does the same on
  the deals listed, in ``--rounds`` rounds (long runs, where the clause store grows).

Against itself the median ratio stays within a few per cent of 1 over 7 rounds (figures
in docs/tuning-log.md): smaller differences need more rounds.

The base revision's ``solver/`` is extracted with ``git archive`` into
benchmarks/results/tmp/compare-<commit>/ and kept there, so that numba's cache spares its
compilation the next time.  Both versions use the working tree's ``halfmoon`` package (a
base from before the core game moved to ``halfmoon.game`` gets its imports pointed there).
"""

from __future__ import annotations

import argparse
import importlib
import io
import re
import statistics
import subprocess
import sys
import tarfile
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from halfmoon.game.codes import DEAL_COUNT, random_numbers  # noqa: E402
from halfmoon.game.deal import Deal  # noqa: E402

BLOCK = 250
PIECE = 16  # deals per call of solve_numbers with --pieces, as a batch's local workers
# the core game's modules, once at the top of halfmoon/, now in halfmoon.game
_OLD_CORE = re.compile(r"\bhalfmoon\.(cards|codes|deal|engine|errors|generator|inputs|layouts"
                       r"|moves|taps)\b")
SLOW = 0.5
HARD = 100_000  # the table by the base's positions: the deals past this many, and the rest


def extract(rev: str) -> tuple[str, Path]:
    """The full commit of ``rev`` and a directory holding its ``solver/`` as the package
    ``solver_base``; exits with status 2 if the revision has no ``solver/``."""
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify",
                                 f"{rev}^{{commit}}"],
                                capture_output=True, text=True, check=True).stdout.strip()
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "solver"],
                                 capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        print(f"error: no solver/ at revision {rev!r} of this repository", file=sys.stderr)
        sys.exit(2)
    home = ROOT / "benchmarks" / "results" / "tmp" / f"compare-{commit[:12]}"
    package = home / "solver_base"
    if not (package / "__init__.py").exists():
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            for member in tar.getmembers():
                if member.isfile() and member.name.startswith("solver/"):
                    target = package / member.name[len("solver/"):]
                    target.parent.mkdir(parents=True, exist_ok=True)
                    data = tar.extractfile(member).read()
                    if target.suffix == ".py":
                        data = _OLD_CORE.sub(r"halfmoon.game.\1",
                                             data.decode("utf-8")).encode("utf-8")
                    target.write_bytes(data)
    return commit, home


class Version:
    """One version of the solver: its modules and the deals in its kernel's terms."""

    def __init__(self, name: str, package: str) -> None:
        self.name = name
        top = importlib.import_module(package)
        if hasattr(top, "solve_numbers"):  # the solver in subpackages, behind its front door
            search = importlib.import_module(f"{package}.portfolio.search")
            convert = importlib.import_module(f"{package}.mirror.convert")
            verdicts = importlib.import_module(f"{package}.verdicts")
            # (search imports deal_arrays itself: the names given here replace its own)
            self.search = SimpleNamespace(**{**vars(search), "deal_arrays": convert.deal_arrays,
                                             "warm_up": top.warm_up, "VERDICTS": verdicts.NAMES})
            self.dfs = importlib.import_module(f"{package}.depth_first.dfs")
            self.pruning = importlib.import_module(f"{package}.depth_first.pruning")
            self.pieces = importlib.import_module(f"{package}.portfolio.deal_numbers")
            self.grouping = importlib.import_module(f"{package}.grouping.model")
            self.bounds = importlib.import_module(f"{package}.depth_first.bounds")
            self.position = importlib.import_module(f"{package}.mirror.position")
        else:  # before: every module at the top of solver/
            self.search = importlib.import_module(f"{package}.search")
            self.dfs = importlib.import_module(f"{package}.dfs")
            self.pruning = importlib.import_module(f"{package}.pruning")
            self.pieces = importlib.import_module(f"{package}.pieces")
        self.search.warm_up()

    def kernel(self, number: int, flags: int, depth: int, positions: int) -> tuple[int, float]:
        """(positions expanded, seconds) of one search from the start of a deal."""
        s = self.search
        piles, reserve = s.deal_arrays(Deal.from_number(number))
        root, tops, part, npart, proj = s.kernel_arrays(piles, reserve)
        tab, ptab = s.default_tables()
        gen = np.uint32(tab.next_generation())
        ptab_args = (ptab.slots, np.uint32(ptab.next_generation()), ptab.bits)
        line = np.zeros(48, np.uint64)
        stats = np.zeros(4, np.int64)
        stack = self.dfs.new_stack(np.uint64(0))
        search = (self.dfs.search_kernel(flags) if hasattr(self.dfs, "search_kernel")
                  else self.dfs.dfs)
        t = time.perf_counter()
        search(piles, reserve, tops, part, npart, root, positions, flags, tab.slots, gen, tab.bits,
               line, stats, stack, 0, proj, ptab_args, depth)
        return int(stats[0]), time.perf_counter() - t

    def grouping_alone(self, number: int, budget: int) -> tuple[tuple, float]:
        """The grouping search alone from the start of a deal (by counts), in slices of the
        portfolio's size until it settles or ``budget`` conflicts are spent: (its status,
        conflicts, line and final counters; seconds)."""
        g, s = self.grouping, self.search
        piles, reserve = s.deal_arrays(Deal.from_number(number))
        part, npart = self.bounds.partner_table(piles, reserve)
        root = self.position.initial_position(piles, reserve)
        line = np.zeros(self.position.MAX_PLY, np.uint64)
        info = np.zeros(2, np.int64)
        t = time.perf_counter()
        status, model = g.grouping_model(piles, reserve, part, npart, root, g.VIEW_COUNTS)
        conflicts = 0
        while status == g.UNRESOLVED and conflicts < budget:
            status, model = g.grouping_run(model, min(s.GROUPING_SLICE, budget - conflicts),
                                           line, info)
            conflicts += int(info[0])
        seconds = time.perf_counter() - t
        won = tuple(int(x) for x in line[:info[1]]) if status == g.WIN else ()
        # the counters but the clauses and literals stored (which the store's housekeeping
        # may change alone)
        ctl = importlib.import_module(g.__name__.replace(".model", ".state")).Ctl
        kept = [int(x) for i, x in enumerate(model.ctl) if i not in (ctl.CLAUSES, ctl.LITS)]
        return (int(status), conflicts, won, tuple(kept)), seconds

    def setups(self) -> dict[str, tuple[int, int]]:
        p = self.pruning
        return {"plain": (p.FREE_CARDS, 0),
                "every rule": (p.ALL_RULES & ~p.GROUPING,
                               getattr(self.search, "URGENCY_DEPTH", self.search.BOUNDS_DEPTH))}


def compare_kernel(versions: list[Version], deals: list[int], positions: int, rounds: int) -> None:
    names = list(versions[0].setups())
    per = {(v.name, s): [] for v in versions for s in names}
    for r in range(rounds):
        order = versions if r % 2 == 0 else versions[::-1]
        for v in order:
            for setup, (flags, depth) in v.setups().items():
                n = t = 0
                for number in deals:
                    dn, dt = v.kernel(number, flags, depth, positions)
                    n += dn
                    t += dt
                per[(v.name, setup)].append(t / n * 1e6)
    base, work = versions
    print(f"kernel, deals {','.join(map(str, deals))}, {positions:,} positions each, "
          f"{rounds} rounds:")
    for setup in names:
        b, w = per[(base.name, setup)], per[(work.name, setup)]
        ratios = sorted(x / y for x, y in zip(b, w))
        print(f"  {setup:10s} base {statistics.median(b):.3f} us"
              f"  working tree {statistics.median(w):.3f} us"
              f"  speed ratio: median {statistics.median(ratios):.3f},"
              f" range {ratios[0]:.3f}-{ratios[-1]:.3f}")


def compare_solve(versions: list[Version], numbers: list[int], label: str, budget: int | None,
                  pieces: bool = False, slowest_n: int = 8) -> None:
    total = {v.name: 0.0 for v in versions}
    nodes = {v.name: 0 for v in versions}
    times: dict[str, dict[int, float]] = {v.name: {} for v in versions}
    verdicts: dict[str, dict[int, str]] = {v.name: {} for v in versions}
    spent: dict[str, dict[int, int]] = {v.name: {} for v in versions}  # positions, per deal
    settlers: dict[str, dict[int, str]] = {v.name: {} for v in versions}
    for k, start in enumerate(range(0, len(numbers), BLOCK)):
        order = versions if k % 2 == 0 else versions[::-1]
        for v in order:
            if pieces:  # the batch's path: pieces of PIECE deals in one call of compiled code
                for at in range(start, min(start + BLOCK, len(numbers)), PIECE):
                    part = numbers[at:min(at + PIECE, start + BLOCK)]
                    t = time.perf_counter()
                    r = v.pieces.solve_numbers(part, budget or v.search.DEFAULT_BUDGET)
                    total[v.name] += time.perf_counter() - t
                    nodes[v.name] += int(r.nodes.sum())
                    for j, number in enumerate(part):
                        verdicts[v.name][number] = v.search.VERDICTS.get(int(r.verdicts[j]),
                                                                         "unresolved")
                        times[v.name][number] = float(r.seconds[j])
                        spent[v.name][number] = int(r.nodes[j])
                        settlers[v.name][number] = r.settled_by[j] or "unresolved"
                continue
            for number in numbers[start:start + BLOCK]:
                t = time.perf_counter()
                r = (v.search.solve(number) if budget is None
                     else v.search.solve(number, budget=budget))
                el = time.perf_counter() - t
                total[v.name] += el
                nodes[v.name] += r.nodes
                verdicts[v.name][number] = r.verdict
                times[v.name][number] = el
                spent[v.name][number] = r.nodes
                settlers[v.name][number] = getattr(r, "settled_by", None) or "unresolved"
    limit = "" if budget is None else f", budget {budget:,}"
    how = f" in pieces of {PIECE} (solve_numbers)" if pieces else ""
    print(f"solve{how}, {label}{limit}, blocks of {BLOCK} in turn:")
    for v in versions:
        t = times[v.name]
        slowest = sorted(t, key=t.get, reverse=True)[:slowest_n]
        print(f"  {v.name:12s} {total[v.name]:7.1f} s  {nodes[v.name]:,} positions"
              f"  {sum(x > SLOW for x in t.values())} deals over {SLOW} s;"
              f" slowest: {', '.join(f'{n} ({t[n]:.2f} s)' for n in slowest)}")
    print("  positions a win (median, mean, p99); seconds by verdict; seconds by the search that"
          " settled the deal (deals):")
    for v in versions:
        won = sorted(spent[v.name][n] for n in numbers if verdicts[v.name][n] == "win")
        p99 = won[min(len(won) - 1, int(0.99 * len(won)))] if won else 0
        by_verdict: dict[str, float] = {}
        by_member: dict[str, list] = {}
        for n in numbers:
            by_verdict[verdicts[v.name][n]] = by_verdict.get(verdicts[v.name][n], 0.0) + times[
                v.name][n]
            cell = by_member.setdefault(settlers[v.name][n], [0, 0.0])
            cell[0] += 1
            cell[1] += times[v.name][n]
        print(f"    {v.name:12s} wins: {statistics.median(won) if won else 0:,.0f},"
              f" {statistics.fmean(won) if won else 0:,.0f}, {p99:,}; "
              + ", ".join(f"{k} {t:.1f} s" for k, t in sorted(by_verdict.items())) + "; "
              + ", ".join(f"{k} {t:.1f} s ({c:,})" for k, (c, t) in sorted(by_member.items())))
    base, work = (verdicts[v.name] for v in versions)
    positions = spent[versions[0].name]  # the base's, per deal
    differ = [n for n in base if base[n] != work[n]]
    print(f"  verdicts differ on {len(differ)} deals"
          f"{': ' + ', '.join(map(str, differ[:20])) if differ else ''}")
    # a change meant to keep the search the same keeps each deal's positions and settler
    w = versions[1].name
    moved = [n for n in base if positions[n] != spent[w][n] or settlers[versions[0].name][n]
             != settlers[w][n]]
    print(f"  positions or the settling search differ on {len(moved)} deals"
          f"{': ' + ', '.join(map(str, moved[:20])) if moved else ''}")
    # by the base's positions: the deals past HARD of them (wins, losses), and the rest
    groups = {f"wins past {HARD:,} positions": [n for n in base
                                                if positions[n] >= HARD and base[n] == "win"],
              f"losses past {HARD:,}": [n for n in base
                                        if positions[n] >= HARD and base[n] == "loss"],
              "the rest": [n for n in base
                           if positions[n] < HARD or base[n] not in ("win", "loss")]}
    print("  by the base's positions (seconds, deals a second in one process):")
    for group, members in groups.items():
        cells = [f"{v.name} {sum(times[v.name][n] for n in members):7.1f} s "
                 f"{len(members) / max(sum(times[v.name][n] for n in members), 1e-9):8.1f}/s"
                 for v in versions]
        print(f"    {group:28s} {len(members):6,} deals  " + "  ".join(cells))
    return [n for n in numbers if settlers[versions[0].name][n] == "grouping"]


def compare_grouping(versions: list[Version], numbers: list[int], budget: int, label: str,
                     rounds: int = 1) -> None:
    """The grouping search alone on each deal, the versions in turn (the first first on
    every other deal, and on every other round): seconds in all, and the deals whose status,
    conflicts, line or final counters differ (a change meant to keep the search the same
    keeps them all)."""
    total = {v.name: 0.0 for v in versions}
    found: dict[str, dict[int, tuple]] = {v.name: {} for v in versions}
    for r in range(rounds):
        for k, number in enumerate(numbers):
            for v in versions if (k + r) % 2 == 0 else versions[::-1]:
                found[v.name][number], seconds = v.grouping_alone(number, budget)
                total[v.name] += seconds
    a, b = (found[v.name] for v in versions)
    differ = [n for n in numbers if a[n] != b[n]]
    print(f"the grouping search alone (by counts, at most {budget:,} conflicts) on {label}, "
          f"in turn, {rounds} round{'s' if rounds > 1 else ''}:")
    w, lo, un = (versions[0].grouping.WIN, versions[0].grouping.LOSS,
                 versions[0].grouping.UNRESOLVED)
    for v in versions:
        f = found[v.name]
        print(f"  {v.name:12s} {total[v.name]:7.1f} s  "
              f"{sum(x[1] for x in f.values()):,} conflicts  "
              f"{sum(x[0] == w for x in f.values())} wins, {sum(x[0] == lo for x in f.values())} "
              f"losses, {sum(x[0] == un for x in f.values())} unresolved")
    print(f"  status, conflicts, line or counters differ on {len(differ)} deals"
          f"{': ' + ', '.join(map(str, differ[:20])) if differ else ''}")


def deal_list(text: str) -> list[int]:
    try:
        deals = [int(n) for n in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected deal numbers separated by commas, got {text!r}") from None
    if any(n < 0 for n in deals):
        raise argparse.ArgumentTypeError(f"deal numbers are not negative: {text!r}")
    return deals


def deal_range(text: str) -> tuple[int, int]:
    try:
        lo, hi = (int(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected LO:HI, got {text!r}") from None
    if not 0 <= lo < hi:
        raise argparse.ArgumentTypeError(f"empty or negative range {text!r}")
    return lo, hi


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base", default="HEAD", help="git revision to compare with (default HEAD)")
    p.add_argument("--rounds", type=int, default=7, help="alternating rounds of the kernel timing")
    p.add_argument("--positions", type=int, default=200_000, help="positions per deal and run")
    p.add_argument("--deals", type=deal_list, default=[129, 1570, 38, 390, 876],
                   help="deal numbers for the kernel, comma-separated")
    p.add_argument("--solve", type=deal_range, metavar="LO:HI", help="also solve deals LO..HI-1")
    p.add_argument("--random", type=int, metavar="N",
                   help="also solve N random deals from the whole code space")
    p.add_argument("--seed", type=int, default=0, help="the seed of --random (default 0)")
    p.add_argument("--numbers", type=Path, metavar="FILE",
                   help="also solve the deal numbers in FILE (whitespace-separated)")
    p.add_argument("--budget", type=int, help="the solver's budget when solving (default: its own)")
    p.add_argument("--no-kernel", action="store_true", help="skip the kernel timing")
    p.add_argument("--slowest", type=int, default=8, metavar="K",
                   help="list the K slowest deals of each (default 8)")
    p.add_argument("--pieces", action="store_true",
                   help="solve through pieces.solve_numbers (the batch's compiled path) "
                        "instead of solve()")
    p.add_argument("--grouping-alone", type=int, default=0, metavar="C",
                   help="after solving, the grouping search alone (at most C conflicts) on the "
                        "deals the base's grouping search settled, checked the same")
    p.add_argument("--grouping-deals", type=deal_list, metavar="LIST",
                   help="the grouping search alone on these deals, --rounds rounds (at most "
                        "--grouping-alone conflicts, default 30,000)")
    args = p.parse_args(argv)
    if args.grouping_alone < 0:
        p.error(f"--grouping-alone {args.grouping_alone}: expected a number of conflicts >= 0")
    deals = args.deals
    jobs = []
    if args.solve:
        lo, hi = args.solve
        jobs.append((list(range(lo, hi)), f"deals {lo}-{hi - 1}"))
    if args.random is not None:
        if not 1 <= args.random <= DEAL_COUNT:
            p.error(f"--random {args.random}: expected 1 to {DEAL_COUNT} deals")
        jobs.append((random_numbers(args.random, args.seed),
                     f"{args.random:,} random deals (seed {args.seed})"))
    if args.numbers:
        try:
            listed = [int(x) for x in args.numbers.read_text().split()]
        except (OSError, ValueError) as exc:
            p.error(f"--numbers {args.numbers}: {exc}")
        if not listed or any(not 0 <= n < DEAL_COUNT for n in listed):
            p.error(f"--numbers {args.numbers}: expected deal numbers 0 to {DEAL_COUNT - 1}")
        jobs.append((listed, f"{len(listed):,} deals of {args.numbers.name}"))
    commit, home = extract(args.base)
    # The working tree's kernels compiled in a process of their own first: compiled here, beside
    # the base's, numba's cache could keep entries that name solver_base, which a later process
    # of the working tree alone cannot load.
    warm = subprocess.run([sys.executable, "-c", "import solver; solver.warm_up(out=None)"],
                          cwd=ROOT)
    if warm.returncode != 0:
        print("error: the working tree's solver did not compile", file=sys.stderr)
        return 2
    sys.path.insert(0, str(home))
    versions = [Version(f"base {commit[:8]}", "solver_base"), Version("working tree", "solver")]
    if (args.grouping_alone or args.grouping_deals) and not hasattr(versions[0], "grouping"):
        print(f"error: revision {args.base!r} has no solver.grouping to run alone",
              file=sys.stderr)
        return 2
    if not args.no_kernel:
        compare_kernel(versions, deals, args.positions, args.rounds)
    for numbers, label in jobs:
        settled = compare_solve(versions, numbers, label, args.budget, args.pieces, args.slowest)
        if args.grouping_alone:
            compare_grouping(versions, settled, args.grouping_alone,
                             f"the {len(settled):,} deals the base's grouping search settled")
    if args.grouping_deals:
        compare_grouping(versions, args.grouping_deals, args.grouping_alone or 30_000,
                         f"deals {','.join(map(str, args.grouping_deals))}", args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
