"""A player of the app with its undo: it sees only what the app shows, remembers every card
it has seen (a card uncovered and then covered again by an undo stays known to it), follows
some advice, and at a dead end undoes and tries another move — a player's search, never the
solver's knowledge of the cards it has not seen.

The advice (:data:`POLICIES`), at a position, among the moves not tried there yet:

- ``greedy``: no advice, the greedy player's move; at a dead end, undo one move and try the
  next there (a depth-first search, by hand);
- ``fair``: the fair player's move (:data:`.roster.FAIR`, deciding on what the app shows);
- ``share``: the move whose child is won in most of K layouts drawn from what the player
  knows (the solver on each; :mod:`.paired`), ties to the tuned player's move: the board's
  recommendation;
- ``board``: :func:`.paired.recommend`, the fair player's move unless its share is clearly
  below the best's on the same K layouts, then the best;
- ``board-tuned``: the same with the tuned player's move in the fair player's place.

At a dead end each advised player asks for the review, as the board's play-along page
gives it: in R layouts drawn from everything seen so far, the last position of the game
that can be won (by bisection along the game); a move is marked where the share of layouts
in which the game can be won fell most (by 0.15 or more, and by half the largest fall; at
most three marks).  The player undoes to the marked move of largest fall and tries another
move there; with no mark, the move of largest fall; with no fall at all, one move back.
When every move of a position has been tried, it goes back one more move.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

import numpy as np

from ..mirror.position import (
    DEPTH,
    MAX_MOVES,
    NPILES,
    all_moves,
    pile_count,
    position_arrays,
)
from ..portfolio.search import search_arrays
from ..verdicts import WIN
from .fair import base_choice, decide, new_tree, view_layout
from .paired import Z95, child_table, recommend, sample_known
from .roster import FAIR, PLAYERS
from .simple import GREEDY, TUNED

POLICIES = ("board", "board-tuned", "fair", "share", "greedy")
LOST_FALL = 0.15  # the board's review: a move is marked when the share fell by this much,
MARKED = 3  # and by half the largest fall; at most this many marks


@dataclass(frozen=True)
class UndoGame:
    """One deal played with the app's undo: ``won`` within ``max_moves`` moves;
    ``moves_made`` (every move played, the undone ones too), ``undos`` (moves taken back),
    ``dead_ends`` met, ``solves`` the advice and the reviews took, ``seconds``; ``line``
    the moves on the table at the end (the solver's move numbers), ``unseen`` the places
    (pile, depth from the bottom) whose card the player never saw."""

    won: bool
    moves_made: int
    undos: int
    dead_ends: int
    solves: int
    seconds: float
    line: tuple[int, ...] = ()
    unseen: tuple[tuple[int, int], ...] = ()


class _Advice:
    """The advice of one policy on one deal, as the player knows it."""

    def __init__(self, piles, reserve, policy: str, samples: int, review: int, budget: int,
                 seed: int, rollouts: int) -> None:
        self.piles, self.reserve, self.policy = piles, reserve, policy
        self.samples, self.review, self.budget = samples, review, budget
        self.state = np.array([seed % (1 << 64)], np.uint64)
        self.view = np.zeros_like(piles)
        self.fair = replace(PLAYERS[FAIR], samples=rollouts) if rollouts else PLAYERS[FAIR]
        self.tree = new_tree(1)
        self.solves = 0
        self.cmp = np.zeros((MAX_MOVES, 5), np.float64)

    def base(self, pos, cands, code) -> int:
        view_layout(self.piles, pos, self.view)
        return int(base_choice(self.view, self.reserve, pos, cands, len(cands), code))

    def fair_move(self, pos, cands) -> int:
        return int(decide(self.piles, self.reserve, pos, cands, len(cands), self.fair.code,
                          self.fair.base, self.fair.params(), self.state, *self.tree,
                          np.zeros(1, np.int64), self.view))

    def choose(self, pos, cands: np.ndarray, known) -> int:
        """The index in ``cands`` of the move to play."""
        if len(cands) == 1:
            return 0
        if self.policy == "greedy":
            return self.base(pos, cands, GREEDY)
        if self.policy == "fair":
            return self.fair_move(pos, cands)
        base = (self.base(pos, cands, TUNED) if self.policy in ("share", "board-tuned")
                else self.fair_move(pos, cands))
        table = child_table(self.piles, self.reserve, pos, cands, len(cands), self.samples,
                            self.state, self.budget, known)
        self.solves += table.size
        rec, best = recommend(table, base, Z95, self.cmp[:len(cands)])
        return int(best if self.policy == "share" else rec)

    def marked(self, root, line: list[int], known) -> int:
        """The review at a dead end: the index (in ``line``) of the move to undo to."""
        at = [np.uint64(root)]
        for d in line:
            at.append(at[-1] - np.uint64(d))
        n = len(line)
        wins = np.zeros(n + 1, np.int64)
        sample = np.zeros_like(self.piles)
        for _ in range(self.review):
            sample_known(self.piles, np.uint64(root), known, self.state, sample)
            low, high = -1, n  # the end is a dead end: lost
            while high - low > 1:
                mid = (low + high) // 2
                p, r = position_arrays(sample, self.reserve, at[mid])
                self.solves += 1
                if search_arrays(p, r, self.budget)[0] == WIN:
                    low = mid
                else:
                    high = mid
            wins[:low + 1] += 1
        falls = (wins[:-1] - wins[1:]) / self.review  # falls[k]: by move k (from 0)
        top = float(falls.max()) if n else 0.0
        if top <= 0:
            return n - 1
        order = sorted(range(n), key=lambda k: -falls[k])
        marks = [k for k in order[:MARKED] if falls[k] >= LOST_FALL and falls[k] >= top / 2]
        return marks[0] if marks else order[0]


def undo_game(piles, reserve, root: int, policy: str, *, samples: int = 16, review: int = 16,
              budget: int = 20_000, max_moves: int = 2_000, seed: int = 0,
              rollouts: int = 0) -> UndoGame:
    """Play the deal ``piles``/``reserve`` from ``root`` as the app's player with undo under
    ``policy`` (:data:`POLICIES`; ``samples`` layouts a decision, ``review`` layouts a
    review, ``budget`` positions a solve, ``rollouts`` the fair player's layouts a decision,
    0: its own) until it is won or ``max_moves`` moves are made."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r} (expected one of {', '.join(POLICIES)})")
    t0 = time.perf_counter()
    advice = _Advice(piles, reserve, policy, samples, review, budget, seed, rollouts)
    known = np.zeros((NPILES, DEPTH), np.bool_)  # places whose card the player has seen
    tried: dict[int, set[int]] = {}  # position -> the moves tried there
    moves = np.empty(MAX_MOVES, np.uint64)
    line: list[int] = []  # the moves on the table now (deltas)
    pos = np.uint64(root)
    made = undos = dead = 0

    def see(p) -> None:
        for i in range(NPILES):
            c = pile_count(p, i)
            if c:
                known[i, c - 1] = True

    def untried(p) -> np.ndarray:
        m = int(all_moves(piles, reserve, p, moves))
        done = tried.get(int(p), ())
        return np.array([moves[j] for j in range(m) if int(moves[j]) not in done], np.uint64)

    see(pos)
    while pos != np.uint64(0) and made < max_moves:
        cands = untried(pos)
        if len(cands):
            d = cands[advice.choose(pos, cands, known)]
            tried.setdefault(int(pos), set()).add(int(d))
            line.append(int(d))
            pos = pos - d
            made += 1
            see(pos)
            continue
        # no move left to try here: a dead end (or every move tried), undo
        if int(all_moves(piles, reserve, pos, moves)) == 0:
            dead += 1
            back = (len(line) - 1 if policy == "greedy" or not line
                    else advice.marked(root, line, known))
        else:
            back = len(line) - 1
        if back < 0:
            break  # every move of the deal tried: lost
        for d in line[back:]:
            pos = pos + np.uint64(d)
        undos += len(line) - back
        del line[back:]
    start = np.uint64(root)
    unseen = tuple((i, k) for i in range(NPILES) for k in range(pile_count(start, i))
                   if not known[i, k])
    return UndoGame(bool(pos == np.uint64(0)), made, undos, dead, advice.solves,
                    time.perf_counter() - t0, tuple(line), unseen)
