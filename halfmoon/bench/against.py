"""This version against another: a git revision checked out beside this one and run in
worker processes of its own, the two taking the same blocks of deals in turn on the same
cores (so both meet the machine's phases alike), or a saved result.

A revision is checked out once with ``git worktree`` under ``build/bench-worktrees/`` (git
ignores it) and keeps numba's cache there, so only its first run compiles its kernels.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional, Sequence, TextIO

from .errors import BenchError
from .figures import BLOCK, differing, part_figures, ratio
from .lanes import Lane, Row, can_pin, usable_cores
from .machine import Watch, describe
from .run import ROOT, SCHEMA, Progress, suite_workers
from .suites import part_numbers, set_version

WORKTREES = Path("build") / "bench-worktrees"  # in the repository, which git ignores


def checkout(rev: str, root: Path = ROOT) -> tuple[str, Path]:
    """The full commit of ``rev`` and a checkout of it (made once, then reused)."""
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
    home = root / WORKTREES / commit[:12]
    if not (home / "solver" / "__init__.py").is_file():
        if git("cat-file", "-e", f"{commit}:solver/api.py", check=False).returncode != 0:
            raise BenchError(f"--against {rev}: that revision has no solver front door "
                             "(solver/api.py) to run")
        home.parent.mkdir(parents=True, exist_ok=True)
        git("worktree", "prune", check=False)
        made = git("worktree", "add", "--detach", "--force", str(home), commit, check=False)
        if made.returncode != 0:
            raise BenchError(f"--against {rev}: could not check it out: "
                             f"{made.stderr.strip().splitlines()[-1:]}")
    return commit, home


def run_against_revision(suite: str, rev: str, *, workers: Optional[int], budget: int,
                         progress: Optional[TextIO] = sys.stderr,
                         command: str = "") -> tuple[dict, dict]:
    """The suite's solver parts (the random deals, the hard set), this version and
    revision ``rev`` in turn on each block: both sides' figures, the ratio of their times
    with its interval, and the deals whose verdicts differ."""
    spec, n = suite_workers(suite, workers)
    p = Progress(progress)
    cores = usable_cores()
    # this checkout's repository; an installed toolkit's revisions are the current folder's
    commit, home = checkout(rev, ROOT if (ROOT / ".git").exists() else Path.cwd())
    machine = describe(ROOT)
    base_machine = describe(home)
    p.say(f"suite {suite} against {rev} ({commit[:12]}), in turn on blocks of {BLOCK} deals, "
          f"{n} pair{'s' if n > 1 else ''} of workers"
          + (" pinned to a core each" if can_pin() else "") + " …")
    p.say(f"starting the workers of {commit[:12]} (its first run compiles its kernels, "
          "minutes) …")
    pairs: list[tuple[Lane, Lane]] = []
    try:
        for k in range(n):
            core = cores[k % len(cores)]
            pairs.append((Lane(core, home), Lane(core)))
    except BaseException:
        _close(pairs, kill=True)
        raise
    watch = Watch(workers=n).start()
    parts, rows_of = {}, {}
    try:
        for part in spec.parts:
            if part.engine != "solver" or part.name == "workers":
                continue
            numbers = part_numbers(part.name, suite)
            p.say(f"{part.name}: {part.about}, each block by both versions …")
            base_rows, new_rows, walls = _alternate(pairs, numbers, budget, p, part.name)
            rows_of[part.name] = {"base": base_rows, "this": new_rows}
            differ = differing(new_rows, base_rows)
            fig = {"about": part.about,
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
                    "commit_dirty": base_machine["dirty"]},
        "machine": machine, "sets": {name: set_version(name) for name in ("quick", "hard")},
        **watch.as_dict(len(cores)), "parts": parts,
    }
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
    blocks = [list(numbers[i:i + BLOCK]) for i in range(0, len(numbers), BLOCK)]
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


def load_saved(path: Path) -> tuple[dict, Optional[dict]]:
    """A saved result (its bench.json, or the folder holding it) and its rows by part and
    deal when its deals.parquet is there."""
    file = path / "bench.json" if path.is_dir() else path
    try:
        saved = json.loads(file.read_text())
    except (OSError, ValueError) as exc:
        raise BenchError(f"--against {path}: not a saved benchmark result ({exc})") from None
    if not isinstance(saved, dict) or "parts" not in saved or "schema" not in saved:
        raise BenchError(f"--against {path}: not a saved benchmark result (no parts, no schema)")
    rows = None
    table = file.with_name("deals.parquet")
    if table.is_file():
        import pandas as pd

        df = pd.read_parquet(table)
        rows = {}
        for (part, version), g in df.groupby(["part", "version"], sort=False):
            if version != "this":
                continue
            rows[part] = [Row(int(a), b, int(c), float(d), float(e), f) for a, b, c, d, e, f in
                          zip(g.number, g.verdict, g.nodes, g.solve, g.whole, g.settled_by)]
    return saved, rows


def compare_saved(result: dict, rows_of: dict, saved: dict, saved_rows: Optional[dict],
                  name: str) -> dict:
    """This run's solver parts against the same parts of a saved result: the ratio of the
    rates (and, when both hold the same deals, with its interval over blocks), the reference
    workload's timings of both (a saved result was measured at another time, perhaps on
    another machine), and the deals whose verdicts differ."""
    out = {"saved": name, "saved_solver_version": saved.get("solver_version"),
           "saved_commit": saved.get("commit"), "saved_created": saved.get("created"),
           "saved_cpu": saved.get("machine", {}).get("cpu"),
           "saved_reference_ns": saved.get("reference_ns"),
           "saved_busy": saved.get("busy"), "parts": {}}
    for part, fig in result["parts"].items():
        other = saved["parts"].get(part)
        if not other or "deals_per_second_per_core" not in fig or \
                "deals_per_second_per_core" not in other:
            continue
        cell = {"this": fig["deals_per_second_per_core"],
                "saved": other["deals_per_second_per_core"]}
        cell["ratio"] = round(cell["this"] / cell["saved"], 4) if cell["saved"] else None
        mine = rows_of.get(part)
        theirs = (saved_rows or {}).get(part)
        if mine and theirs and [r.number for r in mine] == [r.number for r in theirs]:
            cell["speedup"] = ratio([r.whole for r in theirs], [r.whole for r in mine])
            cell["verdicts_differ"] = differing(mine, theirs)
        out["parts"][part] = cell
    return out
