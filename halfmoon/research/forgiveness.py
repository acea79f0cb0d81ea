"""How forgiving Half Moon is: along the simple players' games, how many legal moves keep a
winnable position winnable, and where the fatal move is made.

A *walk* follows one player's game on a deal (the game that
:func:`halfmoon.research.strategies.play` gives for that deal and seed).  It starts only on a
deal the solver proves winnable; at each position along the game while it is still winnable,
every legal move's child is settled, and the walk stops at the win, at the first move whose
child is lost (the *fatal move*), or at a chosen move whose child the solver left unresolved
within the budget (never guessed).

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

The solves of one walk also share one table of lost positions (see :class:`_WalkTable`):
siblings' subtrees overlap, so a child is often settled from what its siblings proved.

Usage::

    positions, games = forgiveness(range(100), workers=2)
    keep_share_by_cards_left(positions)   # share of moves keeping it winnable, by cards left
    random_move_loses(positions)          # chance that a random move loses a winnable position
    fatal_points(games)                   # where the fatal moves are made

``positions``: one row per winnable position walked through: ``deal`` int64, ``player`` str,
``ply`` int16 (moves made before it), ``cards_left`` int16, ``legal`` int16 (legal moves),
``keep`` int16 (moves whose child is winnable), ``lose`` int16 (proved lost), ``unresolved``
int16 (left open within the budget), ``chosen_keeps`` bool (the player's move keeps it
winnable), ``chosen_loses`` bool (it is the fatal move; neither when it was unresolved).

``games``: one row per deal and player: ``deal`` int64 (-1 for a position that is not a
numbered deal), ``player`` str, ``start`` str (the solver's verdict on the deal: win, loss or
unresolved; only wins are walked), ``won`` bool (the player's game is won), ``moves_made``
int16 (of the player's whole game), ``fatal_ply`` int16 and ``fatal_cards_left`` int16 (moves
made and cards left before the fatal move, -1 if none), ``unresolved`` bool (the walk stopped
on an unresolved chosen child, or the start is unresolved), ``solves`` int32 and ``nodes``
int64 (the solver's calls the walk made, its start's included, and their positions).

The summaries take intervals at 95 %.  Positions of one deal are dependent, so the means over
positions get a deal-clustered interval: the mean plus or minus 1.96 cluster-robust standard
errors (clusters are deals, with the G/(G-1) correction), clipped to [0, 1].  Counts of games
or moves get Wilson intervals.
"""

from __future__ import annotations

import concurrent.futures as cf
import multiprocessing
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence, Union

import numpy as np
import pandas as pd

from solver.verdicts import LOSS, UNRESOLVED, WIN
from solver.mirror.position import MAX_MOVES, all_moves, initial_position
from solver.portfolio.search import search_arrays
from solver.verdicts import NAMES as VERDICTS
from solver.mirror.convert import deal_arrays
from solver.mirror.table import Table

from halfmoon.game.codes import MAX_NUMBER
from halfmoon.game.deal import SOURCES, Deal
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.inputs import load_deal

from . import strategies as _strategies
from .stats import Z95, wilson_bounds

DEFAULT_BUDGET = 1_000_000
PLAYERS = ("random", "greedy")
# Buckets of cards left (high, low), the start's 104 down to the last pair
CARD_BUCKETS = ((104, 96), (95, 80), (79, 64), (63, 48), (47, 32), (31, 16), (15, 1))
_SOURCE_DELTA = {s: (1 << (4 * i)) if i < 12 else (1 << (48 + i - 12)) for i, s in enumerate(SOURCES)}
_PILE_SHIFTS = np.arange(0, 48, 4, dtype=np.uint64)
_RESERVE_SHIFTS = np.arange(48, 56, dtype=np.uint64)
_DEPTHS = np.arange(8, dtype=np.uint64)[None, :]
_PIECE = 4  # deals per piece of work sent to a process
POSITION_COLUMNS = {"deal": "int64", "player": "object", "ply": "int16", "cards_left": "int16",
                    "legal": "int16", "keep": "int16", "lose": "int16", "unresolved": "int16",
                    "chosen_keeps": "bool", "chosen_loses": "bool"}
GAME_COLUMNS = {"deal": "int64", "player": "object", "start": "object", "won": "bool",
                "moves_made": "int16", "fatal_ply": "int16", "fatal_cards_left": "int16",
                "unresolved": "bool", "solves": "int32", "nodes": "int64"}


def position_arrays(piles: np.ndarray, reserve: np.ndarray, pos: int) -> tuple[np.ndarray, np.ndarray]:
    """A position of a deal as its own arrays: the cards above each pile's count and the
    empty reserve slots zeroed, so that its start position is ``pos``."""
    pos = np.uint64(pos)
    counts = (pos >> _PILE_SHIFTS) & np.uint64(15)
    full = (pos >> _RESERVE_SHIFTS) & np.uint64(1)
    return (np.where(_DEPTHS < counts[:, None], piles, 0).astype(piles.dtype),
            np.where(full != 0, reserve, 0).astype(reserve.dtype))


def _cards_left(pos: int) -> int:
    return sum((pos >> (4 * i)) & 15 for i in range(12)) + bin(pos >> 48).count("1")


def _commuting(line: tuple) -> list[int]:
    """The places of the moves of a winning line that no earlier move of it touches: each
    can be played first, the rest of the line unchanged, and it still wins."""
    touched, out = 0, []
    for j, m in enumerate(line):
        if not m & touched:
            out.append(j)
        touched |= m
    return out


def _front(line: tuple, move: int) -> Optional[tuple]:
    """The line without ``move`` if ``move`` can be played first (see :func:`_commuting`),
    else None."""
    touched = 0
    for j, m in enumerate(line):
        if m == move:
            return None if touched & move else line[:j] + line[j + 1:]
        touched |= m
    return None


@dataclass
class Walk:
    """One player's walk along its game on a deal (fields as the rows of ``games``), and
    the rows of ``positions`` it went through."""

    deal: int
    player: str
    start: str
    won: bool
    moves_made: int
    fatal_ply: int = -1
    fatal_cards_left: int = -1
    unresolved: bool = False
    solves: int = 0
    nodes: int = 0
    positions: list = field(default_factory=list)  # (ply, cards_left, legal, keep, lose,
    #                                                 unresolved, chosen_keeps, chosen_loses)


class _WalkTable(Table):
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


_table: Optional[_WalkTable] = None


class _Solver:
    """The solver on positions of one deal, counting its calls."""

    def __init__(self, piles: np.ndarray, reserve: np.ndarray, budget: int) -> None:
        global _table
        if _table is None:
            _table = _WalkTable()
        self.piles, self.reserve, self.budget = piles, reserve, budget
        self.solves = self.nodes = 0

    def new_walk(self) -> None:
        _table.new_walk()

    def __call__(self, pos: int) -> tuple[int, Optional[tuple]]:
        """(status, winning line or None) of a position."""
        status, nodes, line, nline, _ = search_arrays(*position_arrays(self.piles, self.reserve, pos),
                                                      self.budget, table=_table)
        self.solves += 1
        self.nodes += int(nodes)
        if status != WIN:
            return status, None
        won = tuple(line[:nline].tolist())
        if sum(won) != pos:
            raise RuntimeError(f"the solver's winning line does not empty position {pos:#x} (a bug)")
        return status, won

    def legal(self, pos: int) -> list[int]:
        out = np.empty(MAX_MOVES, np.uint64)
        m = all_moves(self.piles, self.reserve, np.uint64(pos), out)
        return [int(x) for x in out[:m]]


def _as_deal(deal: Union[Deal, str, int]) -> Deal:
    if isinstance(deal, Deal):
        return deal
    if isinstance(deal, (int, np.integer)) and not isinstance(deal, bool):
        if deal < 0:
            raise HalfMoonError(f"deal numbers must be non-negative, got {int(deal)}")
        return Deal.from_number(int(deal))
    if isinstance(deal, str):
        return load_deal(deal)
    raise HalfMoonError(f"expected a deal number, code, layout file or Deal, got {deal!r}")


def _check(strategies: Sequence[str], budget: int) -> None:
    for s in strategies:
        if s not in _strategies.STRATEGIES:
            known = ", ".join(_strategies.STRATEGIES)
            raise HalfMoonError(f"unknown strategy {s!r} (expected one of {known})")
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget < 1:
        raise ValueError(f"budget must be at least 1 position, got {budget!r}")


def walk(deal: Union[Deal, str, int], strategy: str, seed: int = 0,
         budget: int = DEFAULT_BUDGET) -> Walk:
    """Walk one player's game on a deal (a number, a code, a layout file or a Deal); each
    solve gets ``budget`` positions.  A deal that the solver does not prove winnable is
    returned unwalked, with its verdict in ``start``."""
    _check([strategy], budget)
    return _walk_deal(_as_deal(deal), [strategy], seed, budget)[0]


def _walk_deal(d: Deal, strategies: Sequence[str], seed: int, budget: int) -> list[Walk]:
    """The walks of several players on one deal, its start solved once."""
    number = d.number if d.code is not None and d == Deal(d.code) else -1
    piles, reserve = deal_arrays(d)
    solve = _Solver(piles, reserve, budget)
    root = int(initial_position(piles, reserve))
    solve.new_walk()
    status, line = solve(root) if root else (WIN, ())
    start = (solve.solves, solve.nodes)
    walks = []
    for name in strategies:
        game = _strategies.play(d, name, seed)
        w = Walk(number, name, VERDICTS[status], game.won, len(game.moves),
                 unresolved=VERDICTS[status] == "unresolved")
        if status == WIN:
            solve.new_walk()
            solve.solves, solve.nodes = start
            moves = [sum(_SOURCE_DELTA[s] for s in m.sources) for m in game.moves]
            _follow(w, solve, root, line, moves)
        w.solves, w.nodes = solve.solves, solve.nodes
        walks.append(w)
    return walks


def _follow(w: Walk, solve: _Solver, pos: int, line: tuple, chosen: list[int]) -> None:
    """Walk from the winnable ``pos`` (won by ``line``) along the moves ``chosen``."""
    won: dict[int, tuple] = {}  # children known won, with a winning line
    lost: set[int] = set()  # children known lost
    for ply, move in enumerate(chosen + [None]):
        if pos == 0:
            return
        if move is None:
            raise RuntimeError(f"the player stopped at a winnable position {pos:#x} (a bug)")
        for j in _commuting(line):  # the position's own line, a commuting move first
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
        if move not in verdicts:
            raise RuntimeError(f"the player's move {move:#x} is not legal at {pos:#x} (a bug)")
        counts = [sum(1 for s, _ in verdicts.values() if s == v) for v in (WIN, LOSS, UNRESOLVED)]
        status, line = verdicts[move]
        w.positions.append((ply, _cards_left(pos), len(verdicts), *counts, status == WIN,
                            status == LOSS))
        if status == LOSS:
            w.fatal_ply, w.fatal_cards_left = ply, _cards_left(pos)
            return
        if status == UNRESOLVED:
            w.unresolved = True
            return
        won, lost = {}, set()  # what the children tell of the next position's children
        for m, (s, ln) in verdicts.items():
            if m == move:
                continue
            if s == WIN and ln:
                rest = _front(ln, move)
                if rest is not None:
                    won[pos - m - move] = rest
            elif s == LOSS and (m & move == 0 or move in solve.legal(pos - m)):
                # (the test is the proof's step; it holds whenever the entry is looked up: if m
                # is legal after the chosen move, it takes cards of the ranks it took before,
                # so the chosen move is legal after m too)
                lost.add(pos - m - move)
        pos -= move


def _walk_piece(numbers: list[int], strategies: Sequence[str], seed: int, budget: int) -> list[Walk]:
    return [w for n in numbers for w in _walk_deal(Deal.from_number(n), strategies, seed, budget)]


def forgiveness(numbers: Iterable[int], strategies: Sequence[str] = PLAYERS, seed: int = 0,
                budget: int = DEFAULT_BUDGET, workers: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The walks of each player on each deal number: (positions, games), schemas in the
    module's notes, rows in the order of the deals, then of the players.  With ``workers``
    > 1 the deals are walked in that many processes, with the same result (the processes are
    spawned: a script calling this needs the ``if __name__ == "__main__":`` guard)."""
    strategies = tuple(strategies)
    _check(strategies, budget)
    if not strategies:
        raise HalfMoonError("no strategy to walk")
    nums = [int(n) for n in numbers]
    bad = [n for n in nums if not 0 <= n <= MAX_NUMBER]
    if bad:
        raise HalfMoonError(f"deal numbers must be non-negative, got {bad[0]}" if bad[0] < 0 else
                            f"deal number {bad[0]} is outside 0..{MAX_NUMBER}")
    if len(set(nums)) != len(nums):
        raise HalfMoonError("deal numbers must be distinct")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise HalfMoonError(f"workers must be at least 1, got {workers!r}")
    pieces = [nums[k:k + _PIECE] for k in range(0, len(nums), _PIECE)]
    if workers == 1 or len(pieces) <= 1:
        walks = [w for p in pieces for w in _walk_piece(p, strategies, seed, budget)]
    else:
        with cf.ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as ex:
            futures = [ex.submit(_walk_piece, p, strategies, seed, budget) for p in pieces]
            walks = [w for f in futures for w in f.result()]
    return frames(walks)


def frames(walks: Iterable[Walk]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The (positions, games) frames of walks."""
    walks = list(walks)
    rows = [(w.deal, w.player, *p) for w in walks for p in w.positions]
    positions = pd.DataFrame(rows, columns=list(POSITION_COLUMNS)).astype(POSITION_COLUMNS)
    games = pd.DataFrame([(w.deal, w.player, w.start, w.won, w.moves_made, w.fatal_ply,
                           w.fatal_cards_left, w.unresolved, w.solves, w.nodes) for w in walks],
                         columns=list(GAME_COLUMNS)).astype(GAME_COLUMNS)
    return positions, games


# --- summaries ---------------------------------------------------------------------------
def clustered_mean(y, clusters, z: float = Z95) -> tuple[float, float, float]:
    """(mean, low, high): the mean of ``y`` and its interval of ``z`` cluster-robust standard
    errors, clusters given by ``clusters`` (G/(G-1) correction), clipped to [0, 1]; NaN bounds
    with fewer than two clusters."""
    y = np.asarray(y, dtype=float)
    if y.size == 0:
        return float("nan"), float("nan"), float("nan")
    mean = float(y.mean())
    sums = pd.Series(y - mean).groupby(np.asarray(clusters)).sum().to_numpy()
    g = sums.size
    if g < 2:
        return mean, float("nan"), float("nan")
    se = float(np.sqrt(g / (g - 1) * np.sum(sums ** 2))) / y.size
    return mean, max(0.0, mean - z * se), min(1.0, mean + z * se)


def _bucket_labels(cards: pd.Series, buckets) -> pd.Series:
    if buckets is None:
        return cards.astype(int).astype(str)
    labels = pd.Series("", index=cards.index, dtype=object)
    for high, low in buckets:
        labels[(cards >= low) & (cards <= high)] = f"{high}–{low}"
    return labels


def _by_player(df: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    parts = [(p, df[df["player"] == p]) for p in dict.fromkeys(df["player"])]
    return parts + [("all", df)] if len(parts) > 1 else parts


def keep_share_by_cards_left(positions: pd.DataFrame, buckets=CARD_BUCKETS) -> pd.DataFrame:
    """The share of legal moves that keep a winnable position winnable, by buckets of cards
    left (``buckets`` of (high, low), or None for each number of cards left), for each player
    and all together: ``player, cards_left, positions, deals, keep_share, ci_low, ci_high``
    (deal-clustered interval) and ``unresolved_share`` (moves left open, counted as not kept)."""
    rows = []
    for player, df in _by_player(positions):
        labels = _bucket_labels(df["cards_left"], buckets)
        order = [f"{h}–{lo}" for h, lo in buckets] if buckets is not None else \
            [str(c) for c in sorted(df["cards_left"].unique(), reverse=True)]
        for label in order:
            part = df[labels == label]
            if part.empty:
                continue
            mean, low, high = clustered_mean(part["keep"] / part["legal"], part["deal"])
            rows.append({"player": player, "cards_left": label, "positions": len(part),
                         "deals": part["deal"].nunique(), "keep_share": mean, "ci_low": low,
                         "ci_high": high,
                         "unresolved_share": float((part["unresolved"] / part["legal"]).mean())})
    return pd.DataFrame(rows, columns=["player", "cards_left", "positions", "deals", "keep_share",
                                       "ci_low", "ci_high", "unresolved_share"])


def random_move_loses(positions: pd.DataFrame) -> pd.DataFrame:
    """The chance that a uniformly random legal move loses a winnable position: for each
    player's positions (and all together), the mean of ``lose / legal`` (``measure`` "uniform
    move", ``n`` positions, deal-clustered interval); and for each player, the share of its own
    moves from winnable positions that lost the game (``measure`` "own move", ``n`` moves with
    a settled child, Wilson interval)."""
    rows = []
    for player, df in _by_player(positions):
        mean, low, high = clustered_mean(df["lose"] / df["legal"], df["deal"])
        rows.append({"player": player, "measure": "uniform move", "n": len(df),
                     "deals": df["deal"].nunique(), "loses": mean, "ci_low": low, "ci_high": high})
    for player, df in _by_player(positions):
        if player == "all":
            continue
        k, n = int(df["chosen_loses"].sum()), int((df["chosen_keeps"] | df["chosen_loses"]).sum())
        low, high = wilson_bounds(k, n)
        rows.append({"player": player, "measure": "own move", "n": n, "deals": df["deal"].nunique(),
                     "loses": k / n if n else float("nan"), "ci_low": float(low),
                     "ci_high": float(high)})
    return pd.DataFrame(rows, columns=["player", "measure", "n", "deals", "loses", "ci_low", "ci_high"])


def fatal_points(games: pd.DataFrame, buckets=CARD_BUCKETS) -> pd.DataFrame:
    """Where the fatal moves are made, for each player's walked games (deals proved winnable):
    one row per bucket of cards left before the fatal move (``outcome`` "fatal"), then "never
    lost" (the game won) and "unresolved"; ``games`` in it, ``share`` of the player's walked
    games with its Wilson interval, and ``share_of_fatal`` (of the player's fatal moves)."""
    rows = []
    walked = games[games["start"] == "win"]
    for player in dict.fromkeys(walked["player"]):
        df = walked[walked["player"] == player]
        n = len(df)
        fatal = df[df["fatal_ply"] >= 0]
        labels = _bucket_labels(fatal["fatal_cards_left"], buckets)
        order = [f"{h}–{lo}" for h, lo in buckets] if buckets is not None else \
            [str(c) for c in sorted(fatal["fatal_cards_left"].unique(), reverse=True)]
        counts = [("fatal", label, int((labels == label).sum())) for label in order]
        never = df["won"] & (df["fatal_ply"] < 0) & ~df["unresolved"]
        counts += [("never lost", "", int(never.sum())),
                   ("unresolved", "", int(df["unresolved"].sum()))]
        for outcome, label, k in counts:
            low, high = wilson_bounds(k, n)
            rows.append({"player": player, "outcome": outcome, "cards_left": label, "games": k,
                         "share": k / n if n else float("nan"), "ci_low": float(low),
                         "ci_high": float(high),
                         "share_of_fatal": k / len(fatal) if outcome == "fatal" and len(fatal)
                         else float("nan")})
    return pd.DataFrame(rows, columns=["player", "outcome", "cards_left", "games", "share", "ci_low",
                                       "ci_high", "share_of_fatal"])
