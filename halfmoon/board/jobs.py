"""What a solver process does for the board: one job in, one plain answer out.

Jobs and answers are plain data (text, numbers, lists), so that they cross a pipe
between processes unchanged:

- ``("solve", layout, budget[, why])``: settle a position given as layout text;
  answer ``{"verdict", "moves", "nodes", "seconds"}`` (``moves``: the winning line as
  ``"P1+P8"`` strings, or None), and with ``why`` true, for a loss, ``"why"``: why it is
  lost, in words (its smallest deadlocked set, :func:`solver.why_lost`);
- ``("fair", layout, samples, seed, budget)``: the fair hint of a position given as the
  layout text of :func:`halfmoon.research.fairplay.view_deal` (the hidden cards sorted:
  the process is never told where they lie); answer ``{"move", "samples", "moves"}``
  (:func:`halfmoon.research.fairplay.fair_hint`);
- ``("level", number, budget, verdict)``: the level of a whole deal beside its verdict
  (the difficulty model of :mod:`halfmoon.batch.difficulty`; the deal is solved here
  within ``budget`` when ``verdict`` is None); answer
  ``{"level"}``: the level in words, or None with ``"why"`` where the model cannot be used
  (:mod:`halfmoon.board.levels`);
- ``("pick", kind, seed, budget, tries)``: a random deal that is ``"winnable"``, or
  ``"hard"`` (winnable, but lost by the greedy player); answer
  ``{"number", "code", "verdict", "moves", "nodes", "seconds", "tried"}`` or
  ``{"error": …}`` when ``tries`` deals gave none.

The jobs of a game played along with the app (``"along"``, ``"review"``, ``"walk"``,
``"moves"``) are
:mod:`halfmoon.board.along_jobs`'.  A job that fails answers ``{"error": …}``;
:func:`worker_main` is the process's loop.
"""

from __future__ import annotations

import os
import random
import signal
import threading
from typing import Any, Optional

from halfmoon.game.codes import DEAL_COUNT
from halfmoon.game.deal import Deal
from halfmoon.game.layouts import parse_layout

from .along_jobs import FAIR_GROUPS, along_job, moves_job, review_job, walk_job

PICK_KINDS = ("winnable", "hard")
READY = "ready"
COLD = "cold"  # said before READY when the kernels are compiled first (a cold cache)


def solve_job(layout: str, budget: int, why: bool = False) -> dict[str, Any]:
    from solver import solve

    position = parse_layout(layout, name="position")
    result = solve(position, budget=budget, why=why)
    answer = _answer(result)
    if result.why is not None:
        answer["why"] = result.why.text
    return answer


def level_job(number: int, budget: int, verdict: Optional[str] = None) -> dict[str, Any]:
    from halfmoon.batch.difficulty import DifficultyModelError, estimate_numbers
    from solver import solve

    if verdict is None:
        verdict = solve(number, budget=budget).verdict
    try:
        return {"level": estimate_numbers([number], [verdict])[0].words()}
    except DifficultyModelError as exc:
        return {"level": None, "why": str(exc)}


def pick_job(kind: str, seed: int, budget: int, tries: int) -> dict[str, Any]:
    """Random deals from ``seed`` until one is of the ``kind`` asked, at most ``tries``."""
    if kind not in PICK_KINDS:
        return {"error": f"unknown kind of deal {kind!r} (expected {' or '.join(PICK_KINDS)})"}
    from halfmoon.research.strategies import play
    from solver import solve

    rng = random.Random(seed)
    for tried in range(1, tries + 1):
        number = rng.randrange(DEAL_COUNT)
        deal = Deal.from_number(number)
        if kind == "hard" and play(deal, "greedy").won:
            continue
        result = solve(deal, budget=budget)
        if result.verdict == "win":
            return {"number": number, "code": deal.code, "tried": tried, **_answer(result)}
    return {"error": f"no {kind} deal among {tries} random deals; try again"}


def fair_job(layout: str, samples: int, seed: int, budget: int) -> dict[str, Any]:
    from halfmoon.research.fairplay import fair_hint
    from solver import warm_up

    warm_up(FAIR_GROUPS, out=None)
    return fair_hint(parse_layout(layout, name="position"), samples, seed, budget)


def run_job(job: tuple) -> dict[str, Any]:
    """The answer to one job (see the module's docstring); never raises."""
    try:
        kind, *args = job
        if kind == "solve":
            return solve_job(*args)
        if kind == "pick":
            return pick_job(*args)
        if kind == "level":
            return level_job(*args)
        if kind == "fair":
            return fair_job(*args)
        if kind == "along":  # a game played along with the app
            return along_job(*args)
        if kind == "review":
            return review_job(*args)
        if kind == "walk":  # a game from the app's kept layouts (halfmoon.board.sampled)
            return walk_job(*args)
        if kind == "moves":
            return moves_job(*args)
        return {"error": f"unknown job {kind!r}"}
    except Exception as exc:  # an answer, not a dead process: the board goes on
        return {"error": f"{type(exc).__name__}: {exc}"}


def worker_main(conn) -> None:
    """A solver process: load the solver (saying COLD first when it has to be compiled),
    say READY, then answer jobs until None or EOF.

    Ctrl-C is the parent's to handle: the parent stops its processes itself, this one with
    what it starts (the helpers compiling the kernels) as its process group."""
    os.setpgid(0, 0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTTOU, signal.SIG_IGN)  # out of the terminal's group, yet says so there
    import halfmoon.research.fairplay  # noqa: F401  (the fair hint needs it)
    import halfmoon.research.strategies  # noqa: F401  (picks need it: loaded before any job)
    from solver import SOLVING, compile_in_parallel, is_ready, warm_up

    if not all(is_ready(g) for g in SOLVING):
        conn.send(COLD)
    # on a cold cache, two helper processes compile the kernels side by side (a job must
    # never compile: it would overrun its time limit); then they are loaded here
    compile_in_parallel(SOLVING, processes=2)
    warm_up()
    conn.send(READY)
    # the fair hint's kernels after the light's: on a cold cache a helper compiles them in
    # the background, and the first fair hint waits for it (fair_job loads them)
    threading.Thread(target=compile_in_parallel, args=(FAIR_GROUPS, 1, None), daemon=True).start()
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        if job is None:
            return
        conn.send(run_job(job))


def _answer(result) -> dict[str, Any]:
    moves = None if result.moves is None else [str(m) for m in result.moves]
    return {"verdict": result.verdict, "moves": moves, "nodes": int(result.nodes),
            "seconds": float(result.seconds)}
