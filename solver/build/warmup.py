"""Compiling the solver's kernels once per installation, shared between processes.

The kernels are compiled by numba on first use and kept in its on-disk cache; compiling them
all takes a minute or two on one core, loading them well under a second.  So that the
processes of a run (a batch's workers, the board's solver, a cluster's workers sharing one
``NUMBA_CACHE_DIR``) do not compile the same kernels side by side, the kernels are split into
*groups*, each warmed up by calling it once (:data:`GROUPS`), and a group is compiled under a
lock file in the cache directory: a process takes the first group nobody is compiling, and
waits for (then loads) the groups others are compiling.  Two processes starting together thus
compile two groups at once, and a third compiles nothing.  A group compiled for the current
sources leaves a stamp (its name and the hash of :mod:`solver.build.caching`), so later
processes load it without taking the lock.

While a process compiles, one line on stderr says so (and, on a terminal, a counter of
seconds); :func:`compile_seconds` tells how much of a process's time went to compiling, so
that rates can count solving alone.
"""

from __future__ import annotations

import fcntl
import functools
import os
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Iterable, Optional, TextIO

from numba.core import config, event

from .caching import numba_cache_dir, sources_hash

PACKAGE = Path(__file__).resolve().parent.parent  # the solver package: one cache stamp for all

_compile_seconds = 0.0
_depth = 0
_t0 = 0.0


class _Timer(event.Listener):
    """Seconds spent in numba's outermost compilations (nested callees counted once)."""

    def on_start(self, ev):
        global _depth, _t0
        if _depth == 0:
            _t0 = time.perf_counter()
        _depth += 1

    def on_end(self, ev):
        global _depth, _compile_seconds
        _depth -= 1
        if _depth == 0:
            _compile_seconds += time.perf_counter() - _t0


event.register("numba:compile", _Timer())


def compile_seconds() -> float:
    """Seconds this process has spent compiling kernels so far."""
    return _compile_seconds


def _search() -> None:
    # the portfolio's searches (dfs) and the batch's compiled first turn (quick_kernel)
    from ..portfolio.deal_numbers import solve_numbers
    from ..portfolio.search import QUICK_PHASE, SLICE, solve

    solve(0, budget=QUICK_PHASE + SLICE)
    solve_numbers([0], QUICK_PHASE)


def _plain() -> None:
    # the plain search's own compiled copy (solver.depth_first.dfs.plain_dfs): only a search
    # with the free-card rule alone calls it (benchmarks, solver.portfolio.search.solve with
    # rules=FREE_CARDS), never the portfolio's members with the default rules
    import numpy as np

    from ..depth_first.dfs import new_stack, search_kernel
    from ..depth_first.pruning import FREE_CARDS
    from ..mirror.convert import sample_arrays
    from ..mirror.position import MAX_PLY
    from ..portfolio.search import default_tables, kernel_arrays

    piles, reserve = sample_arrays()
    root, tops, part, npart, proj = kernel_arrays(piles, reserve)
    tab, ptab = default_tables()
    search_kernel(FREE_CARDS)(piles, reserve, tops, part, npart, root, 1, FREE_CARDS, tab.slots,
                              np.uint32(tab.next_generation()), tab.bits,
                              np.zeros(MAX_PLY, np.uint64),
                              np.zeros(4, np.int64), new_stack(np.uint64(0)), 0, proj,
                              (ptab.slots, np.uint32(ptab.generation), ptab.bits), 0)


def _grouping() -> None:
    # the grouping search: its model, the clause-learning engine, the line check
    import numpy as np

    from ..grouping.model import VIEW_COUNTS, grouping_model, grouping_run, line_wins
    from ..mirror.convert import sample_arrays
    from ..mirror.position import MAX_PLY
    from ..portfolio.search import kernel_arrays

    piles, reserve = sample_arrays()
    root, _, part, npart, _ = kernel_arrays(piles, reserve)
    line = np.zeros(MAX_PLY, np.uint64)
    grouping_run(grouping_model(piles, reserve, part, npart, root, VIEW_COUNTS)[1], 1, line,
                 np.zeros(2, np.int64))
    line_wins(piles, reserve, root, line, 0)


def _players() -> None:
    # the simple players (random, greedy, lookahead) of solver.players.simple, as the
    # research layer calls them: a batch of deals, one strategy code at a time
    import numpy as np

    from ..mirror.convert import sample_arrays
    from ..mirror.position import MAX_PLY, initial_position
    from ..players.simple import GREEDY, play_batch

    piles, reserve = sample_arrays()
    roots = np.array([initial_position(piles, reserve)], np.uint64)
    play_batch(piles[None], reserve[None], roots, np.int64(GREEDY), np.ones(1, np.uint64),
               np.zeros((1, MAX_PLY), np.uint64), np.zeros(1, np.int64), np.zeros(1, np.uint64),
               np.int64(2))


def _generator() -> None:
    # the deal generator's twin alone: a small group (the tests' example of sharing)
    import numpy as np

    from ..mirror.generator import DECK_SIZE, deal_ranks

    deal_ranks(0, np.zeros((12, 8), np.int8), np.zeros(8, np.int8), np.empty(DECK_SIZE, np.int64),
               np.zeros(1, np.uint64))


def _features() -> None:
    # the start's features from deal numbers: what results of format 2 compute when read
    import numpy as np

    from ..mirror.generator import LAYOUT_FEATURES
    from ..portfolio.deal_numbers import NDEAL, census_features, start_features

    start_features(np.zeros(1, np.int64), np.zeros((1, NDEAL), np.int64))
    census_features(np.zeros(1, np.int64), np.zeros((1, NDEAL + len(LAYOUT_FEATURES)), np.int64))


def _fair() -> None:
    # the fair players (solver.players.fair): a game of each kind, and a decision as the board
    # asks one
    import numpy as np

    from ..mirror.convert import sample_arrays
    from ..mirror.position import MAX_MOVES, MAX_PLY, all_moves, initial_position
    from ..players.fair import MCTS, NPARAMS, ROLLOUT, decide, fair_game, new_tree
    from ..players.simple import GREEDY

    piles, reserve = sample_arrays()
    root = initial_position(piles, reserve)
    params = np.ones(NPARAMS, np.float64)
    for player in (ROLLOUT, MCTS):
        fair_game(piles, reserve, root, player, GREEDY, params, np.uint64(1), 4,
                  np.zeros(MAX_PLY, np.uint64), np.zeros(1, np.int64))
    moves = np.empty(MAX_MOVES, np.uint64)
    m = all_moves(piles, reserve, root, moves)
    decide(piles, reserve, root, moves, m, ROLLOUT, GREEDY, params, np.ones(1, np.uint64),
           *new_tree(4), np.zeros(1, np.int64), np.zeros_like(piles))
    # the paired shares of the fair hint (solver.players.paired)
    from ..players.paired import Z95, child_table, recommend

    table = child_table(piles, reserve, root, moves, m, 1, np.ones(1, np.uint64), 10)
    recommend(table, 0, Z95, np.zeros((m, 5), np.float64))


def _bandit() -> None:
    # the bandit player (solver.players.bandit): a game with capped solves, in each rule set
    import numpy as np

    from ..mirror.convert import sample_arrays
    from ..mirror.position import MAX_PLY, initial_position
    from ..players.bandit import B_FLAGS, SEARCHES, bandit_game
    from ..players.roster import player_named

    piles, reserve = sample_arrays()
    params = player_named("bandit@cap=10,lead=1,total=10,hopeless=10").params()
    for flags in sorted(set(SEARCHES.values())):
        params[B_FLAGS] = flags
        bandit_game(piles, reserve, initial_position(piles, reserve), 0, params, np.uint64(1),
                    np.zeros(MAX_PLY, np.uint64), np.zeros(1, np.int64))


# name -> (warm-up, what it is)
GROUPS: dict[str, tuple[Callable[[], None], str]] = {
    "search": (_search, "the depth-first searches"),
    "plain": (_plain, "the plain search"),
    "grouping": (_grouping, "the grouping search"),
    "players": (_players, "the players"),
    "generator": (_generator, "the deal generator"),
    "features": (_features, "the deals' features"),
    "fair": (_fair, "the fair players"),
    "bandit": (_bandit, "the bandit player"),
}
SOLVER = ("search", "grouping")  # what solving any deal may call (with the default rules)


@functools.lru_cache(maxsize=1)
def _digest() -> str:
    # once a process: the caches were kept or dropped for these sources when it imported solver
    return sources_hash(PACKAGE)[:16]


def _stamp(cache: Path, group: str) -> Path:
    return cache / f"halfmoon-{group}-{_digest()}.ready"


def _timing(cache: Path, group: str) -> Path:
    # seconds the group last took to compile here, whatever the sources: the message's figure
    return cache / f"halfmoon-{group}.seconds"


def last_seconds(group: str, cache: Optional[Path] = None) -> Optional[float]:
    """Seconds ``group`` took to compile the last time it was compiled with this cache (on
    this machine), None if never."""
    try:
        return float(_timing(cache or numba_cache_dir(PACKAGE), group).read_text())
    except (OSError, ValueError):
        return None


def _record(cache: Path, group: str, seconds: float) -> None:
    try:
        _timing(cache, group).write_text(f"{seconds:.1f}\n")
    except OSError:  # a read-only cache: the next message gives no figure
        pass


def _first_run(seconds: Optional[float]) -> str:
    """"first run only", and the time it took here the last time, if it was measured (a
    constant would be wrong on a machine busier or quieter than the one it came from)."""
    if seconds is None:
        return "first run only"
    return f"first run only; {seconds:.0f} s the last time here"


def is_ready(group: str) -> bool:
    """True if ``group`` is compiled in the cache for the current sources."""
    return _stamp(numba_cache_dir(PACKAGE), group).exists()


class _Say:
    """One line on ``out`` when compiling starts; on a terminal, seconds counting after it."""

    def __init__(self, out: Optional[TextIO], text: str) -> None:
        self.out, self.text, self.stop = out, text, threading.Event()
        self.thread = None
        if out is None:
            return
        tty = getattr(out, "isatty", lambda: False)()
        out.write(text + ("" if tty else "\n"))
        out.flush()
        if tty:
            self.thread = threading.Thread(target=self._tick, daemon=True)
            self.thread.start()

    def _tick(self):
        t0 = time.monotonic()
        while not self.stop.wait(1.0):
            self.out.write(f"\r{self.text} {time.monotonic() - t0:.0f} s")
            self.out.flush()

    def close(self, seconds: float):
        """The line again, with the time it took: rewritten on a terminal, a line of its own
        elsewhere (a log)."""
        if self.out is None:
            return
        self.stop.set()
        if self.thread is not None:
            self.thread.join()
        start = "" if self.thread is None else "\r"  # a terminal: over the counter
        self.out.write(f"{start}{self.text} done in {seconds:.0f} s\n")
        self.out.flush()


def prepare(groups: Iterable[str] = SOLVER, out: Optional[TextIO] = sys.stderr) -> dict[str, str]:
    """Make the kernels of ``groups`` ready in this process: load each from the cache, or
    compile it (once for all processes sharing the cache, see the module's docstring).

    Returns what happened to each group: ``"loaded"`` (it was ready), ``"compiled"`` (here),
    ``"waited"`` (another process compiled it meanwhile, then loaded here).  Messages about
    compiling go to ``out`` (None: silent)."""
    names = list(groups)
    for g in names:
        if g not in GROUPS:
            raise ValueError(f"no kernel group {g!r}: expected one of {', '.join(GROUPS)}")
    cache = numba_cache_dir(PACKAGE)
    done: dict[str, str] = {}
    todo = []
    for g in names:
        if _stamp(cache, g).exists():
            GROUPS[g][0]()
            done[g] = "loaded"
        else:
            todo.append(g)
    if not todo:
        return done
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:
        pass
    while todo:
        for g in todo:
            fd = _lock(cache, g, block=False)
            if fd is not None:
                break
        else:  # every group left is being compiled elsewhere: wait for the first
            g = todo[0]
            say = _Say(out, f"halfmoon: waiting for another process compiling {GROUPS[g][1]}...")
            t0 = time.perf_counter()
            fd = _lock(cache, g, block=True)
            say.close(time.perf_counter() - t0)
        try:
            ready = _stamp(cache, g).exists()
            before = _compile_seconds
            t0 = time.perf_counter()
            say = None
            if not ready:
                say = _Say(out, f"halfmoon: compiling {GROUPS[g][1]} "
                                f"({_first_run(last_seconds(g, cache))})...")
            GROUPS[g][0]()
            if say is not None:
                say.close(time.perf_counter() - t0)
                if _compile_seconds > before:
                    _record(cache, g, time.perf_counter() - t0)
            done[g] = "loaded" if ready else ("compiled" if _compile_seconds > before else "waited")
            if not ready:
                try:
                    _stamp(cache, g).write_text(f"{os.getpid()} {config.CACHE_DIR or ''}\n")
                except OSError:
                    pass
        finally:
            if fd is not None and fd >= 0:
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
        todo.remove(g)
    return done


def _lock(cache: Path, group: str, block: bool) -> Optional[int]:
    """An exclusive lock on the group's lock file (its descriptor), None if taken and not
    ``block``; -1 if no lock can be had here (a read-only cache): compile without one."""
    try:
        fd = os.open(cache / f"halfmoon-{group}.lock", os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        return -1
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if block else fcntl.LOCK_NB))
    except BlockingIOError:
        os.close(fd)
        return None
    except OSError:
        os.close(fd)
        return -1
    return fd


def compile_all(out: Optional[TextIO] = sys.stderr) -> dict[str, str]:
    """Every group, in this process."""
    return prepare(GROUPS, out)


def compile_in_parallel(groups: Iterable[str] = SOLVER, processes: int = 2,
                        out: Optional[TextIO] = sys.stderr) -> float:
    """Make ``groups`` ready in the cache using up to ``processes`` helper processes at once
    (they share the groups out by the locks), without loading them here; the seconds it
    took (0.0 when they were all ready).  A run calls it before its workers start, so that
    they load the kernels instead of each compiling them."""
    import subprocess

    todo = [g for g in groups if not is_ready(g)]
    if not todo:
        return 0.0
    n = max(1, min(processes, len(todo)))
    times = [last_seconds(g) for g in todo]
    # the groups shared out among n processes: the figure only when each was measured here
    figure = (None if None in times else max(sum(times) / n, max(times)))
    say = _Say(out, f"halfmoon: compiling the solver's kernels in {n} "
                    f"process{'es' if n > 1 else ''} ({_first_run(figure)})...")
    t0 = time.perf_counter()
    procs = []
    try:
        for _ in range(n):
            procs.append(subprocess.Popen([sys.executable, "-m", __name__, *todo],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                          text=True))
        errors = [p.communicate()[1] for p in procs]
    except BaseException:  # interrupted: no helper outlives the wait for it
        for p in procs:
            p.kill()
            p.wait()
        raise
    seconds = time.perf_counter() - t0
    say.close(seconds)
    failed = [e for p, e in zip(procs, errors) if p.returncode != 0]
    if failed:  # the run goes on: its workers compile what is missing themselves
        last = failed[0].strip().splitlines()[-1:] or ["no message"]
        if out is not None:
            out.write(f"halfmoon: compiling in helper processes failed ({last[0]}); the workers"
                      " will compile\n")
    return seconds


# a helper of compile_in_parallel: python -m solver.build.warmup GROUP...
if __name__ == "__main__":
    prepare(sys.argv[1:], out=None)
