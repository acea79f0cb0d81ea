"""The positions of a game: the verdict of every child of every position along a game's
moves, the walk's solves sharing one table of lost positions.

A *walk* starts on a deal the portfolio proves winnable and follows a game's moves; at each
position, every legal move's child is settled, and the walk stops after the first position
whose chosen child is not won (lost, or left unresolved within the budget: never guessed),
or when the moves run out.

Most children are settled without a solve, each by a proof, so this changes no verdict; it
only saves solves and turns some unresolved children into settled ones:

- a child with no card left is won;
- a winning line still wins with one of its moves played first, if no earlier move of the
  line touches that move's sources (the moves commute): so the position's own line (its
  child's, one ply earlier) wins several of its children at once, and a child won by a line
  that holds the chosen move, commuting, gives one ply later the child of the same move, won
  by the rest of the line;
- a position reached from a lost one is lost: a lost child gives one ply later the child of
  the same move, lost (the chosen move is legal after it).

The solves of one walk also share one table of lost positions (:class:`WalkTable`):
siblings' subtrees overlap, so a child is often settled from what its siblings proved.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence

import numpy as np

from halfmoon.game.deal import Deal
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.moves import Move

from ..mirror.convert import deal_arrays, delta_to_move, move_delta
from ..mirror.position import MAX_MOVES, all_moves, initial_position, position_arrays
from ..mirror.table import Table
from ..verdicts import LOSS, NAMES, WIN
from .search import search_arrays


class WalkTable(Table):
    """One table of lost positions for every solve of a walk.

    A position of a deal means the same cards whichever of its positions the search starts
    from, and the table holds only positions proved lost (as when the portfolio's searches
    share it), so the solves of one walk share what they proved: a sibling's subtree is
    mostly searched already.  :func:`search_arrays` asks for a new generation at each solve;
    this table starts one per walk instead (:meth:`new_walk`), so a walk's result depends on
    that walk alone.
    """

    def next_generation(self) -> int:
        return self.generation

    def new_walk(self) -> None:
        Table.next_generation(self)


_table: Optional[WalkTable] = None  # made on first use: 64.5 MiB


class PositionSolver:
    """The portfolio on positions of one deal, on the walk's table, counting its calls."""

    def __init__(self, piles: np.ndarray, reserve: np.ndarray, budget: int) -> None:
        global _table
        if _table is None:
            _table = WalkTable()
        self.piles, self.reserve, self.budget = piles, reserve, budget
        self.solves = self.nodes = 0

    def new_walk(self) -> None:
        _table.new_walk()

    def __call__(self, pos: int) -> tuple[int, Optional[tuple]]:
        """(status, winning line or None) of a position."""
        status, nodes, line, nline, _ = search_arrays(
            *position_arrays(self.piles, self.reserve, pos), self.budget, table=_table)
        self.solves += 1
        self.nodes += int(nodes)
        if status != WIN:
            return status, None
        won = tuple(line[:nline].tolist())
        if sum(won) != pos:
            raise RuntimeError(f"the solver's winning line does not empty position {pos:#x}"
                               " (a bug)")
        return status, won

    def legal(self, pos: int) -> list[int]:
        out = np.empty(MAX_MOVES, np.uint64)
        m = all_moves(self.piles, self.reserve, np.uint64(pos), out)
        return [int(x) for x in out[:m]]


def commuting(line: tuple) -> list[int]:
    """The places of the moves of a winning line that no earlier move of it touches: each
    can be played first, the rest of the line unchanged, and it still wins."""
    touched, out = 0, []
    for j, m in enumerate(line):
        if not m & touched:
            out.append(j)
        touched |= m
    return out


def front(line: tuple, move: int) -> Optional[tuple]:
    """The line without ``move`` if ``move`` can be played first (see :func:`commuting`),
    else None."""
    touched = 0
    for j, m in enumerate(line):
        if m == move:
            return None if touched & move else line[:j] + line[j + 1:]
        touched |= m
    return None


def game_deltas(solve: PositionSolver, root: int, moves: Sequence[Move], g: int) -> list[int]:
    """The deltas of game ``g``'s moves, each checked legal where it is played."""
    pos, out = root, []
    for ply, move in enumerate(moves):
        delta = move_delta(move)
        if delta not in solve.legal(pos):
            raise HalfMoonError(f"game {g}: move {move} at ply {ply} is not legal")
        out.append(delta)
        pos -= delta
    return out


def follow(solve: PositionSolver, pos: int, line: tuple, chosen: list[int]) -> list[dict]:
    """Walk from the winnable ``pos`` (won by ``line``) along the legal moves ``chosen``: for
    each position walked, each legal move's child's status, in the order of the legal moves."""
    walked: list[dict] = []
    won: dict[int, tuple] = {}  # children known won, with a winning line
    lost: set[int] = set()  # children known lost
    for move in chosen:
        for j in commuting(line):  # the position's own line, a commuting move first
            won.setdefault(pos - line[j], line[:j] + line[j + 1:])
        verdicts = {}
        for m in solve.legal(pos):
            child = pos - m
            if child == 0:
                verdicts[m] = (WIN, ())
            elif child in won:
                verdicts[m] = (WIN, won[child])
            elif child in lost:
                verdicts[m] = (LOSS, None)
            else:
                verdicts[m] = solve(child)
        walked.append({m: s for m, (s, _) in verdicts.items()})
        status, line = verdicts[move]
        if status != WIN:
            break
        won, lost = {}, set()  # what the children tell of the next position's children
        for m, (s, ln) in verdicts.items():
            if m == move:
                continue
            if s == WIN and ln:
                rest = front(ln, move)
                if rest is not None:
                    won[pos - m - move] = rest
            elif s == LOSS and (m & move == 0 or move in solve.legal(pos - m)):
                # (the test is the proof's step; it holds whenever the entry is looked up: if m
                # is legal after the chosen move, it takes cards of the ranks it took before,
                # so the chosen move is legal after m too)
                lost.add(pos - m - move)
        pos -= move
    return walked


@dataclass(frozen=True)
class GameWalk:
    """One game walked by :func:`walk_games`: the deal's verdict, the verdicts on the
    children of each position walked, and what the walk's solves cost."""

    start: str  # the verdict on the deal ("win", "loss", "unresolved"): only a win is walked
    # one entry per position walked, the first the deal's start: the verdict on the child of
    # each legal move there ("win", "loss" or "unresolved"), the game's own move among them
    children: tuple[dict[Move, str], ...]
    solves: int  # the solver's calls, the start's included
    nodes: int  # their positions


def walk_games(deal: Deal, games: Sequence[Sequence[Move]], budget: int) -> tuple[GameWalk, ...]:
    """The walks of several games on one deal (checked by :func:`solver.walk_games`), the
    start solved once and each walk on a fresh generation of the table."""
    piles, reserve = deal_arrays(deal)
    solve = PositionSolver(piles, reserve, budget)
    root = int(initial_position(piles, reserve))
    chosen = [game_deltas(solve, root, moves, g) for g, moves in enumerate(games)]
    if not games:
        return ()
    solve.new_walk()
    status, line = solve(root) if root else (WIN, ())
    start = (solve.solves, solve.nodes)
    out = []
    for deltas in chosen:
        walked: list[dict] = []
        if status == WIN:
            solve.new_walk()
            solve.solves, solve.nodes = start
            walked = follow(solve, root, line, deltas)
        children = tuple({delta_to_move(m): NAMES[s] for m, s in w.items()} for w in walked)
        out.append(GameWalk(NAMES[status], children, solve.solves, solve.nodes))
    return tuple(out)

