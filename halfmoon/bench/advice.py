"""``halfmoon bench --suite advice``: how soon a player of a game from the app gets a
settled recommendation after a move.

A simulated player with the app's undo plays seeded deals the solver wins (``--deals``,
drawn from ``--seed`` as :func:`halfmoon.game.codes.random_numbers` draws them) along on
the board's own code, in a process of its own (``halfmoon/board/advice_player.py``, run
as a script: a revision exported elsewhere, ``--revision`` or ``--against``, runs its own
board in it, with the solver processes its board starts; where its solver's source is this
checkout's, on this checkout's solver and compiled kernels: only the boards differ).  It
tells each card a move uncovers at once and thinks ``--think`` seconds before each move
(the time a board has to think on the player's time).  For each position with a choice:

- the **wall** seconds from the move (its cards told) to the first settled recommendation,
  and the **CPU** seconds the board's processes spent meanwhile: p50, p95 and max;
- whether the first settled recommendation **differs from the final one** (the last
  stage's, or the stage a limit stopped), with its 95 % Wilson interval;
- the **stage** (layouts) it settled at, and how many were stopped by a limit.

With ``--against REV`` both run each deal in turn, the revision first, so that both meet
the machine alike.  The machine is described and watched as for the other suites
(:mod:`halfmoon.bench.machine`): its load before and after, other processes' cores.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional, TextIO

from .errors import BenchError
from .machine import Watch, describe

PLAYER = Path(__file__).resolve().parents[1] / "board" / "advice_player.py"
ROOT = Path(__file__).resolve().parents[2]
DEALS, SEED, MAX_MOVES, THINK = 3, 65, 60, 1.0
TARGET = {"p50": 0.3, "p95": 1.5, "differs": 0.05}  # issue 65's, on a quiet 2-core machine


def advice_deals(count: int, seed: int) -> list[int]:
    """``count`` deals the solver wins, the first of ``seed``'s random deals."""
    import solver
    from halfmoon.game.codes import random_numbers

    out: list[int] = []
    tries = 0
    while len(out) < count:
        tries += 1
        numbers = random_numbers(count * 2 * tries + 10, seed)
        out = [n for n in numbers if solver.solve(n).verdict == "win"][:count]
    return out


def play(deals: list[int], max_moves: int, think: float,
         revision: Optional[tuple] = None) -> dict:
    """The player's record (:mod:`halfmoon.board.advice_player`) of ``deals``: on this
    checkout's board, or on ``revision``'s (its export folder and numba cache, as
    :func:`halfmoon.bench.against.checkout` gives them)."""
    env = dict(os.environ)
    home = [revision[2] if revision is not None else ROOT]
    if revision is not None and same_solver(revision[2]):
        home = [_board_only(revision[2]), ROOT]  # its board, this checkout's kernels
    elif revision is not None:
        env["NUMBA_CACHE_DIR"] = str(revision[3])
    env["PYTHONPATH"] = os.pathsep.join([str(h) for h in home] + [p for p in env.get(
        "PYTHONPATH", "").split(os.pathsep) if p])
    request = json.dumps({"deals": deals, "max_moves": max_moves, "think": think})
    done = subprocess.run([sys.executable, str(PLAYER), request], env=env,
                          capture_output=True, text=True)
    if done.returncode != 0 or not done.stdout.strip():
        raise BenchError(f"the advice player failed: {done.stderr.strip()[-300:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def same_solver(export: Path) -> bool:
    """Whether a revision's solver is this checkout's, source for source (the digest of
    :func:`halfmoon.batch.estimate.solver_digest`): then its board runs on this checkout's
    solver and compiled kernels, and only the board differs."""
    from halfmoon.batch.estimate import solver_digest

    return solver_digest(export / "solver") == solver_digest(ROOT / "solver")


def _board_only(export: Path) -> Path:
    """A folder beside the export holding only its ``halfmoon`` package (a link)."""
    place = export.parent / "board-only"
    place.mkdir(exist_ok=True)
    link = place / "halfmoon"
    if not link.is_symlink():
        link.symlink_to(export / "halfmoon", target_is_directory=True)
    return place


def _pct(values: list[float], q: float) -> Optional[float]:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 3) if q < 1 else \
        round(ordered[-1], 3)


def figures(records: list[dict]) -> dict:
    """The suite's figures from the player's deals (see the module's docstring)."""
    from halfmoon.research.stats import wilson_interval

    rows = [p for d in records for p in d["positions"]]
    n = len(rows)
    wall = [p["seconds"] for p in rows]
    cpu = [p["cpu"] for p in rows]
    differs = sum(p["first"] != p["final"] for p in rows)
    low, high = wilson_interval(differs, n) if n else (0.0, 1.0)
    stages: dict[str, int] = {}
    for p in rows:
        stages[str(p["stage"])] = stages.get(str(p["stage"]), 0) + 1
    return {"positions": n, "deals": len(records), "won": sum(d["won"] for d in records),
            "moves": sum(d["moves_made"] for d in records),
            "undos": sum(d["undos"] for d in records),
            "wall": {"p50": _pct(wall, 0.5), "p95": _pct(wall, 0.95), "max": _pct(wall, 1),
                     "median": round(statistics.median(wall), 3) if wall else None},
            "cpu": {"p50": _pct(cpu, 0.5), "p95": _pct(cpu, 0.95), "max": _pct(cpu, 1)},
            "differs": differs, "differs_share": differs / n if n else 0.0,
            "differs_low": low, "differs_high": high, "stages": dict(sorted(
                stages.items(), key=lambda kv: int(kv[0]))),
            "stopped": sum(p["stopped"] for p in rows)}


def run_advice(*, deals: int = DEALS, seed: int = SEED, max_moves: int = MAX_MOVES,
               think: float = THINK, revision: Optional[tuple] = None,
               against: Optional[tuple] = None, progress: Optional[TextIO] = None,
               command: str = "") -> dict:
    """The suite: this checkout's board (or ``revision``'s), and with ``against`` (a
    revision, as ``revision``) that one's on each deal first."""
    def say(text: str) -> None:
        if progress is not None:
            print(f"halfmoon bench: {text}", file=progress, flush=True)

    numbers = advice_deals(deals, seed)
    say(f"advice: {len(numbers)} deals ({', '.join(map(str, numbers))}), at most {max_moves} "
        f"moves each, {think:g} s of thought a move")
    watch = Watch(2).start()
    sides: dict[str, list] = {"this": [], "against": []}
    workers: dict[str, int] = {}
    for number in numbers:
        for side, rev in (("against", against), ("this", revision if against is None
                                                        else None)):
            if side == "against" and against is None:
                continue
            got = play([number], max_moves, think, rev)
            workers[side] = got["workers"]
            sides[side] += got["deals"]
            d = got["deals"][0]
            say(f"{side if against is not None else 'deal'} {number}: "
                f"{'won' if d['won'] else 'not won'} in {d['moves_made']} moves, "
                f"{len(d['positions'])} positions with a choice")
    watch.stop()
    machine = describe(ROOT)
    result = {"suite": "advice", "command": command,
              "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "deals": numbers, "seed": seed, "max_moves": max_moves, "think": think,
              "target": TARGET, "machine": machine, **watch.as_dict(2),
              "this": {"figures": figures(sides["this"]), "workers": workers.get("this"),
                       "records": sides["this"]}}
    if revision is not None:
        result["revision"] = {"name": revision[0], "commit": revision[1]}
    if against is not None:
        result["against"] = {"name": against[0], "commit": against[1],
                             "figures": figures(sides["against"]),
                             "workers": workers.get("against"), "records": sides["against"]}
    return result


def advice_lines(result: dict) -> list[str]:
    """The suite's result in words, a line a side, the machine beside them."""
    m = result["machine"]
    lines = [f"halfmoon bench: suite advice, {len(result['deals'])} deals (seed "
             f"{result['seed']}), at most {result['max_moves']} moves, {result['think']:g} s "
             "of thought a move"]
    sides = []
    if result.get("against"):
        sides.append((f"{result['against']['name']} ({result['against']['commit'][:12]})",
                      result["against"]))
    name = (f"{result['revision']['name']} ({result['revision']['commit'][:12]})"
            if result.get("revision") else f"this checkout ({(m.get('commit') or '')[:12]}"
            + (" with changes" if m.get("dirty") else "") + ")")
    sides.append((name, result["this"]))
    for name, side in sides:
        f = side["figures"]
        w, c = f["wall"], f["cpu"]
        stages = ", ".join(f"{k}: {v}" for k, v in f["stages"].items())
        lines.append(
            f"{name}, {side['workers']} solver process(es): {f['positions']} positions with a "
            f"choice ({f['won']} of {f['deals']} deals won, {f['moves']} moves, {f['undos']} "
            f"undone); move to settled recommendation: wall p50 {_s(w['p50'])}, p95 "
            f"{_s(w['p95'])}, max {_s(w['max'])}; CPU p50 {_s(c['p50'])}, p95 {_s(c['p95'])}, "
            f"max {_s(c['max'])}; first shown differs from the final in {f['differs']} of "
            f"{f['positions']} ({100 * f['differs_share']:.1f} %, 95 %: "
            f"{100 * f['differs_low']:.1f}–{100 * f['differs_high']:.1f} %); settled at "
            f"{stages} layouts ({f['stopped']} stopped by a limit)")
    t = result["target"]
    lines.append(f"target (a quiet 2-core machine): wall p50 ≤ {t['p50']} s, p95 ≤ {t['p95']} s, "
                 f"first shown differs ≤ {100 * t['differs']:.0f} %")
    lines.append(f"machine: {m['cpu'] or 'unknown processor'}, {m['cores']} cores "
                 f"({m['usable_cores']} usable), Python {m['python']}; load "
                 f"{result['load_before']} before, {result['load_after']} after; other "
                 f"processes used {result['other_processes_cores']} cores on average"
                 + (" (busy: " + "; ".join(result["busy_reasons"]) + ")"
                    if result.get("busy") else ""))
    return lines


def _s(x: Optional[float]) -> str:
    return "—" if x is None else f"{x:.2f} s"


def write_advice(out: Path, result: dict) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    path = out / "advice.json"
    path.write_text(json.dumps(result, indent=1) + "\n")
    (out / "advice.txt").write_text("\n".join(advice_lines(result)) + "\n")
    return path
