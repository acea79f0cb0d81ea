"""How hard a deal is for a person: the expensive measure, a deal's games by many players.

A deal's difficulty is measured by playing it with players of several strengths who all see
only what the app shows (the pile tops and the reserve), and fitting a Rasch model to their
results (:mod:`halfmoon.research.difficulty_fit`).  The players (:data:`MEASURE`), a deal's
games each:

- ``greedy``, ``lookahead``, ``lookahead3``, ``tuned``: the simple players, without undo,
  deterministic (one game each);
- ``undo-greedy@100``, ``undo-greedy@250``, ``undo-greedy@1000``: greedy's moves with the
  app's undo (at a dead end one move back, a depth-first search by hand:
  :func:`solver.undo_game` with policy ``"greedy"``), won within 100, 250 or 1,000 moves
  (the undone ones counted): a patient player, of three patiences (one game, read three ways);
- ``rollout@8``: greedy's move unless roll-outs of greedy on 8 layouts drawn from the view say
  otherwise, without undo, 4 seeded games;
- ``fair@16``: the fair player (roll-outs of the tuned player) on 16 layouts a decision,
  without undo, 6 seeded games: the **reference player** whose chance of winning is the
  readable scale of a deal's difficulty.

The random player is left out: it wins about 1 deal in 1,000, which says nothing of one deal.
A game is seeded from the run's seed, the game's index and the deal number, so a deal's
games do not depend on the other deals of a run.  Only deals the solver wins are played
(a lost deal "cannot be won": no difficulty), and the measure costs about half a second of
one core a deal.

The measure of a run is written a line a deal (JSON) and resumed: ``python -m
halfmoon.research.difficulty --random N --seed S --out FILE [--part I/K]`` measures the
deals of ``--random N --seed S`` (the K parts share them out), skipping those already in
FILE.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Iterable, Sequence, Union

from halfmoon.batch.sources import deals_from_random
from halfmoon.game.errors import HalfMoonError
from solver import (
    SOLVER_VERSION,
    VERDICT_NAMES,
    deal_batch,
    player_games,
    player_named,
    simple_games,
    solve_numbers,
    undo_game,
)

from .strategies import game_seed

SIMPLE = ("greedy", "lookahead", "lookahead3", "tuned")
UNDO_LIMITS = (100, 250, 1000)  # undo-greedy's patiences: won within so many moves
SAMPLED = (("rollout@8", 4), ("fair@16", 6))  # name (as player_named takes it), games a deal
REFERENCE = "fair@16"
# every player of the measure with its games a deal, in the order of a measured row
MEASURE: tuple[tuple[str, int], ...] = (
    *((name, 1) for name in SIMPLE),
    *((f"undo-greedy@{m}", 1) for m in UNDO_LIMITS),
    *SAMPLED,
)
_SEED_STEP = 0x9E3779B97F4A7C15  # an odd constant: a deal's seeded games get distinct streams


def _player(name: str):
    base, _, k = name.partition("@")
    return player_named("rollout-tuned" if base == "fair" else base, int(k))


def measure_deals(numbers: Sequence[int], seed: int = 0) -> list[dict]:
    """The measure of each of ``numbers`` (deal numbers): a dict with ``number``,
    ``verdict`` (the solver's) and, for a deal the solver wins, ``wins`` (for each player of
    :data:`MEASURE`, its games won) and ``moves`` (undo-greedy's moves made, the undone
    ones too; 1,000 when not won within them)."""
    nums = [int(n) for n in numbers]
    if not nums:
        return []
    piece = solve_numbers(nums)
    verdicts = [VERDICT_NAMES[int(v)] for v in piece.verdicts]
    won = [n for n, v in zip(nums, verdicts) if v == "win"]
    wins: dict[int, dict[str, int]] = {n: {} for n in won}
    moves: dict[int, int] = {}
    if won:
        batch = deal_batch(won)
        for name in SIMPLE:
            g = simple_games(batch, name)
            for n, w in zip(won, g.won):
                wins[n][name] = int(bool(w))
        for n in won:
            u = undo_game(n, "greedy", max_moves=max(UNDO_LIMITS))
            moves[n] = int(u.moves_made) if u.won else max(UNDO_LIMITS)
            for m in UNDO_LIMITS:
                wins[n][f"undo-greedy@{m}"] = int(bool(u.won) and u.moves_made <= m)
        for name, games in SAMPLED:
            player = _player(name)
            for j in range(games):
                seeds = [(game_seed(seed, n) + j * _SEED_STEP) % (1 << 64) for n in won]
                g = player_games(batch, player, seeds)
                for n, w in zip(won, g.won):
                    wins[n][name] = wins[n].get(name, 0) + int(bool(w))
    rows = []
    for n, v in zip(nums, verdicts):
        row: dict = {"number": n, "verdict": v}
        if v == "win":
            row["wins"] = wins[n]
            row["moves"] = moves[n]
        rows.append(row)
    return rows


def read_measure(path: Union[str, Path]) -> list[dict]:
    """The rows of a measure file (one JSON object a line; a last line cut short by an
    interrupted run is left out); the header line, if any, is skipped."""
    rows = []
    p = Path(path)
    if not p.exists():
        return rows
    for line in p.read_text().splitlines():
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(obj, dict) and "number" in obj:
            rows.append(obj)
    return rows


def read_header(path: Union[str, Path]) -> dict:
    """A measure file's first line: the players, the seed and the solver version it was
    measured with ({} if it has none)."""
    try:
        with Path(path).open() as f:
            head = json.loads(f.readline() or "{}")
    except (OSError, json.JSONDecodeError):
        return {}
    return head if isinstance(head, dict) and "seed" in head else {}


def measure_file(numbers: Iterable[int], path: Union[str, Path], seed: int,
                 chunk: int = 20, out=sys.stderr) -> int:
    """Measure ``numbers`` into ``path`` a chunk at a time, skipping those already there
    (resumable): the deals measured now."""
    p = Path(path)
    done = {int(r["number"]) for r in read_measure(p)}
    todo = [int(n) for n in numbers if int(n) not in done]
    if p.exists() and p.stat().st_size and not p.read_bytes().endswith(b"\n"):
        with p.open("a") as f:  # a line cut short by an interrupted run ends here
            f.write("\n")
    if not p.exists():
        p.write_text(json.dumps({"measure": [list(m) for m in MEASURE], "seed": seed,
                                 "solver_version": SOLVER_VERSION}) + "\n")
    for i in range(0, len(todo), chunk):
        rows = measure_deals(todo[i:i + chunk], seed)
        with p.open("a") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
        if out is not None:
            print(f"{len(done) + i + len(rows)} deals measured", file=out, flush=True)
    return len(todo)


def _part(text: str) -> tuple[int, int]:
    i, _, k = text.partition("/")
    if not (i.isdigit() and k.isdigit()) or not 0 <= int(i) < int(k):
        raise HalfMoonError(f"bad --part {text!r}: expected I/K with 0 <= I < K")
    return int(i), int(k)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m halfmoon.research.difficulty",
                                 description="measure deals' difficulty (resumable)")
    ap.add_argument("--random", type=int, required=True, metavar="N")
    ap.add_argument("--seed", type=int, default=0, metavar="S")
    ap.add_argument("--out", required=True, metavar="FILE")
    ap.add_argument("--part", default="0/1", metavar="I/K")
    args = ap.parse_args(argv)
    i, k = _part(args.part)
    numbers = deals_from_random(args.random, args.seed).numbers[i::k]
    measure_file(numbers, args.out, args.seed)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
