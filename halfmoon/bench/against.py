"""This version against another: a git revision checked out beside this one and run in
worker processes of its own, the two taking the same blocks of deals in turn on the same
cores (so both meet the machine's phases alike), or a saved result.

A revision's packages are exported with ``git archive`` into the user's cache, outside the
repository (which is left as it was: no worktree, nothing to prune), for the run, and
removed after it; numba's cache of its kernels is kept there, so only its first run compiles
them.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import threading
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterator, Optional, Sequence, TextIO

from .errors import BenchError
from .figures import BLOCK, block_size, differing, part_figures, ratio
from .lanes import Lane, Row, can_pin, usable_cores
from .machine import Watch, describe, solver_digest
from .run import ROOT, SCHEMA, Progress, suite_workers
from .suites import part_about, part_numbers, set_version, suite_seed

EXPORTED = ("solver", "halfmoon")  # what a revision's workers import


def revisions_home() -> Path:
    """Where revisions are exported: the user's cache (``$XDG_CACHE_HOME``, else
    ``~/.cache``), outside any repository."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "halfmoon" / "bench-revisions"


def resolve(rev: str, root: Path = ROOT) -> str:
    """The full commit of ``rev`` in the repository at ``root``."""
    def git(*args, check=True):
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                              check=check)
    try:
        commit = git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").stdout.strip()
    except FileNotFoundError:
        raise BenchError("--against a revision needs git") from None
    except subprocess.CalledProcessError:
        raise BenchError(f"--against {rev}: no such revision in this repository, and no such "
                         "result file") from None
    if git("cat-file", "-e", f"{commit}:solver/api.py", check=False).returncode != 0:
        raise BenchError(f"--against {rev}: that revision has no solver front door "
                         "(solver/api.py) to run")
    return commit


@contextmanager
def checkout(rev: str, root: Path = ROOT, home: Optional[Path] = None
             ) -> Iterator[tuple[str, Path, Path]]:
    """The full commit of ``rev``, its packages exported (``git archive``, nothing written
    into the repository, no worktree) under ``home`` (default :func:`revisions_home`), and
    the folder of numba's cache for them; the export is removed afterwards, the cache kept,
    so that only a revision's first run compiles its kernels.  Its place and its files'
    times (the commit's) are the same each time, which is what numba's cache checks."""
    commit = resolve(rev, root)
    place = (home or revisions_home()) / commit[:12]
    source, cache = place / "src", place / "numba-cache"
    place.mkdir(parents=True, exist_ok=True)
    lock = open(place / "lock", "w")  # one run of a revision at a time: each makes its export
    try:
        import fcntl

        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except ImportError:  # not POSIX: no lock
        pass
    except OSError:
        lock.close()
        raise BenchError(f"--against {rev}: another halfmoon bench is running that revision "
                         f"(its export in {source}); run this one after it") from None
    if source.exists():  # left by a run that was killed
        shutil.rmtree(source)
    source.mkdir()
    try:
        present = [name for name in EXPORTED if subprocess.run(
            ["git", "-C", str(root), "cat-file", "-e", f"{commit}:{name}"],
            capture_output=True).returncode == 0]
        made = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", commit,
                               *present], capture_output=True)
        if made.returncode != 0:
            raise BenchError(f"--against {rev}: could not export it: "
                             f"{made.stderr.decode(errors='replace').strip()[-200:]}")
        with tarfile.open(fileobj=io.BytesIO(made.stdout)) as tar:
            tar.extractall(source, filter="data")
        cache.mkdir(exist_ok=True)
        yield commit, source, cache
    finally:
        shutil.rmtree(source, ignore_errors=True)
        lock.close()  # and with it the lock


@contextmanager
def trees(rev: Optional[str], root: Path = ROOT, home: Optional[Path] = None
          ) -> Iterator[tuple[list[tuple[str, Path, dict]], Optional[str]]]:
    """The trees a lab script runs in turn, as ``(name, folder, environment)`` (``python -m
    halfmoon`` in the folder runs its packages, with the environment added): revision
    ``rev``'s export (:func:`checkout`, numba's cache of it kept) when given, then this
    one; and the revision's full commit (None without one)."""
    here = [("this tree", root, {})]
    if rev is None:
        yield here, None
        return
    with checkout(rev, root, home) as (commit, source, cache):
        yield [(f"{rev} ({commit[:12]})", source, {"NUMBA_CACHE_DIR": str(cache)})] + here, \
            commit


def run_against_revision(suite: str, rev: str, *, workers: Optional[int], budget: int,
                         progress: Optional[TextIO] = sys.stderr, command: str = "",
                         seed: Optional[int] = None) -> tuple[dict, dict]:
    """The suite's solver parts (the random deals, the hard set), this version and
    revision ``rev`` in turn on each block: both sides' figures, the ratio of their times
    with its interval, and the deals whose verdicts differ.  ``seed`` draws the standard
    suite's random deals (:func:`halfmoon.bench.suites.suite_seed`)."""
    spec, n = suite_workers(suite, workers)
    seed = suite_seed(suite, seed)
    with checkout(rev, repository()) as (commit, home, cache):
        return _against(spec, n, rev, commit, home, cache, budget, Progress(progress),
                        command, seed)


def repository() -> Path:
    """This checkout's repository; an installed toolkit's revisions are the current
    folder's."""
    return ROOT if (ROOT / ".git").exists() else Path.cwd()


def _against(spec, n: int, rev: str, commit: str, home: Path, cache: Path, budget: int,
             p: Progress, command: str, seed: Optional[int] = None) -> tuple[dict, dict]:
    suite = spec.name
    cores = usable_cores()
    machine = describe(ROOT)
    p.say(f"suite {suite} against {rev} ({commit[:12]}), in turn on blocks of up to {BLOCK} "
          "deals, "
          f"{n} pair{'s' if n > 1 else ''} of workers"
          + (" pinned to a core each" if can_pin() else "") + " …")
    p.say(f"starting the workers of {commit[:12]} (its first run compiles its kernels, "
          "minutes) …")
    pairs: list[tuple[Lane, Lane]] = []
    try:
        for k in range(n):
            core = cores[k % len(cores)]
            pairs.append((Lane(core, home, cache), Lane(core)))
    except BaseException:
        _close(pairs, kill=True)
        raise
    watch = Watch(workers=n).start()
    parts, rows_of = {}, {}
    try:
        for part in spec.parts:
            if part.engine != "solver" or part.name == "workers":
                continue
            numbers = part_numbers(part.name, suite, seed)
            about = part_about(part, seed)
            p.say(f"{part.name}: {about}, each block of {block_size(len(numbers))} deals by "
                  "both versions …")
            base_rows, new_rows, walls = _alternate(pairs, numbers, budget, p, part.name)
            rows_of[part.name] = {"base": base_rows, "this": new_rows}
            differ = differing(new_rows, base_rows)
            fig = {"about": about,
                   "base": part_figures(base_rows, walls[0], n),
                   "this": part_figures(new_rows, walls[1], n),
                   "speedup": ratio([r.whole for r in base_rows], [r.whole for r in new_rows]),
                   "verdicts_differ": differ}
            parts[part.name] = fig
            watch.mark(part.name)
            s = fig["speedup"]
            p.say(f"{part.name}: this version {s['ratio']:.3f}x the base's speed "
                  f"[{s['low']:.3f}, {s['high']:.3f}] (95 %; {s['verdict']}); verdicts differ "
                  f"on {len(differ)} deals")
    except BaseException:
        _close(pairs, kill=True)
        raise
    _close(pairs)
    watch.stop()
    result = {
        "schema": SCHEMA, "suite": suite, "about": spec.about, "command": command,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "solver_version": machine["solver_version"], "commit": machine["commit"],
        "dirty": machine["dirty"], "budget": budget, "workers": n, "pinned": can_pin(),
        "against": {"revision": rev, "commit": commit,
                    "solver_version": pairs[0][0].solver_version if pairs else None,
                    "solver_digest": solver_digest(home / "solver")},
        "machine": machine, "sets": {name: set_version(name) for name in ("quick", "hard")},
        **watch.as_dict(len(cores)), "parts": parts,
    }
    if seed is not None:
        result["seed"] = seed
    return result, rows_of


def _close(pairs: Sequence[tuple[Lane, Lane]], kill: bool = False) -> None:
    for pair in pairs:
        for lane in pair:
            lane.close(kill=kill)


def _alternate(pairs: Sequence[tuple[Lane, Lane]], numbers: Sequence[int], budget: int,
               p: Progress, what: str) -> tuple[list[Row], list[Row], tuple[float, float]]:
    """Each pair takes the next block; the base first on even blocks, this version first on
    odd ones.  Returns both sides' rows in the order of ``numbers`` and the time each side
    spent (its blocks' walls, summed over the pairs and divided by their number)."""
    size = block_size(len(numbers))  # the ratio's bootstrap takes the same blocks
    blocks = [list(numbers[i:i + size]) for i in range(0, len(numbers), size)]
    lock = threading.Lock()
    base: dict[int, Row] = {}
    new: dict[int, Row] = {}
    walls = [0.0, 0.0]
    failed: list[BaseException] = []
    bar = p.bar(len(numbers), what)
    queue = list(enumerate(blocks))

    def work(pair):
        while True:
            with lock:
                if not queue or failed:
                    return
                k, block = queue.pop(0)
            sides = (0, 1) if k % 2 == 0 else (1, 0)
            for side in sides:
                try:
                    rows, wall = pair[side].run(block, engine="solver", budget=budget)
                except BaseException as exc:  # noqa: BLE001 - handed to the main thread
                    with lock:
                        failed.append(exc)
                    return
                with lock:
                    (base if side == 0 else new).update((r.number, r) for r in rows)
                    walls[side] += wall
            if bar is not None:
                with lock:
                    bar.update(len(block))

    threads = [threading.Thread(target=work, args=(pair,), daemon=True) for pair in pairs]
    for t in threads:
        t.start()
    for t in threads:
        while t.is_alive():
            t.join(0.2)
    if bar is not None:
        bar.close()
    if failed:
        raise failed[0]
    n = max(len(pairs), 1)
    return ([base[x] for x in numbers], [new[x] for x in numbers],
            (walls[0] / n, walls[1] / n))


def load_saved(path: Path, what: str = "--against") -> tuple[dict, Optional[dict]]:
    """A saved result (its bench.json, or the folder holding it) and its rows by part and
    deal when its deals.parquet is there (of each part's median round)."""
    file = path / "bench.json" if path.is_dir() else path
    try:
        saved = json.loads(file.read_text())
    except (OSError, ValueError) as exc:
        raise BenchError(f"{what} {path}: not a saved benchmark result ({exc})") from None
    if not isinstance(saved, dict) or "parts" not in saved or "schema" not in saved:
        raise BenchError(f"{what} {path}: not a saved benchmark result (no parts, no schema)")
    if saved["schema"] not in (1, SCHEMA):
        raise BenchError(f"{what} {path}: a result of schema {saved['schema']}, this toolkit "
                         f"reads 1 and {SCHEMA}")
    rows = None
    table = file.with_name("deals.parquet")
    if table.is_file():
        import pandas as pd

        df = pd.read_parquet(table)
        rows = {}
        for (part, version), g in df.groupby(["part", "version"], sort=False):
            if version != "this":
                continue
            if "round" in g:
                fig = saved["parts"].get(part, {})
                g = g[g["round"] == fig.get("rounds", {}).get("median_round", 1)]
            rows[part] = [Row(int(a), b, int(c), float(d), float(e), f) for a, b, c, d, e, f in
                          zip(g.number, g.verdict, g.nodes, g.solve, g.whole, g.settled_by)]
    return saved, rows


def compare_saved(result: dict, rows_of: dict, saved: dict, saved_rows: Optional[dict],
                  name: str) -> dict:
    """This run against a saved result (``--against FILE``): the saved one as A, this one as
    B (:func:`halfmoon.bench.compare.compare_results`)."""
    from .compare import compare_results

    return compare_results(saved, result, saved_rows, rows_of, names=(name, "this run"))
