"""Games of the players on many deals: the deals as the kernels' arrays, made once
(:class:`DealBatch`), a game of a player on each, and where a lost game went wrong.

- :func:`simple_games`: a simple player (:data:`.roster.SIMPLE`) on every deal in one call
  of compiled code (:func:`.simple.play_batch`);
- :func:`player_games`: any player of :mod:`.roster` a game at a time, each game timed and
  its evaluations (roll-outs, or the PIMC and bandit players' solves) counted; with a budget, the
  fatal move of each game (:func:`fatal_move`);
- :func:`weighted_wins`: whether the weighted player (:mod:`.features`) wins each deal,
  threads sharing the batch.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Iterable, Optional, Union

import numpy as np

from halfmoon.game.deal import Deal

from ..mirror.convert import deal_arrays
from ..mirror.position import (
    DEPTH,
    MAX_PLY,
    NPILES,
    NRESERVE,
    cards_left,
    initial_position,
    position_arrays,
)
from ..portfolio.search import search_arrays
from ..verdicts import LOSS, NAMES, WIN
from .bandit import bandit_game
from .fair import fair_game
from .features import weighted_wins as weighted_wins_kernel
from .paired import recommend_game
from .pimc import pimc_game
from .roster import TABLE_BITS, Player
from .simple import play_batch, play_game


@dataclass(frozen=True)
class DealBatch:
    """Deals as the players' kernels take them: ``piles`` (n × 12 × 8 ranks, bottom first),
    ``reserve`` (n × 8) and ``roots`` (each deal's packed start position)."""

    piles: np.ndarray
    reserve: np.ndarray
    roots: np.ndarray

    def __len__(self) -> int:
        return int(self.roots.size)

    def part(self, start: int, stop: int) -> "DealBatch":
        """Deals ``start`` to ``stop`` (views of these arrays, no copy)."""
        return DealBatch(self.piles[start:stop], self.reserve[start:stop], self.roots[start:stop])


def deal_batch(deals: Iterable[Union[Deal, int]]) -> DealBatch:
    """The arrays of ``deals`` (Deals, or deal numbers); a Deal given many times (one deal
    played with many seeds) is read once."""
    deals = list(deals)
    piles = np.zeros((len(deals), NPILES, DEPTH), np.int8)
    reserve = np.zeros((len(deals), NRESERVE), np.int8)
    seen: dict[int, int] = {}  # id of a Deal -> the first row holding it
    for k, d in enumerate(deals):
        if isinstance(d, Deal):
            first = seen.setdefault(id(d), k)
            if first != k:
                piles[k], reserve[k] = piles[first], reserve[first]
                continue
        else:
            d = Deal.from_number(int(d))
        piles[k], reserve[k] = deal_arrays(d)
    roots = np.array([initial_position(piles[k], reserve[k]) for k in range(len(deals))], np.uint64)
    return DealBatch(piles, reserve, roots)


@dataclass(frozen=True)
class Games:
    """One game a deal, as columns (a row a deal): ``won``, ``moves_made``, ``cards_left``
    and ``lines`` (each row's first ``moves_made`` entries: the moves, as the solver's move
    numbers).  :func:`player_games` adds ``seconds`` and ``evaluations``, and with a budget
    for the fatal move ``start`` (the solver's verdict on the deal), ``fatal_ply`` and
    ``fatal_cards_left`` (-1 where there is none) and ``unresolved``."""

    won: np.ndarray
    moves_made: np.ndarray
    cards_left: np.ndarray
    lines: np.ndarray
    seconds: Optional[np.ndarray] = None
    evaluations: Optional[np.ndarray] = None
    start: Optional[tuple[str, ...]] = None
    fatal_ply: Optional[np.ndarray] = None
    fatal_cards_left: Optional[np.ndarray] = None
    unresolved: Optional[np.ndarray] = None

    def __len__(self) -> int:
        return int(self.won.size)


def simple_games(batch: DealBatch, code: int, depth: int, seeds: np.ndarray) -> Games:
    """A game of the simple player ``code`` (lookahead ``depth``) on each deal of ``batch``,
    ``seeds[d]`` seeding the random player's game on deal ``d``: one call of compiled code."""
    n = len(batch)
    lines = np.zeros((n, MAX_PLY), np.uint64)
    nmoves = np.zeros(n, np.int64)
    finals = np.zeros(n, np.uint64)
    play_batch(batch.piles, batch.reserve, batch.roots, np.int64(code), seeds, lines, nmoves,
               finals, np.int64(depth))
    left = np.array([cards_left(f) for f in finals], np.int64)
    return Games(finals == 0, nmoves, left, lines)


def player_games(batch: DealBatch, player: Player, seeds: np.ndarray,
                 fatal_budget: int = 0) -> Games:
    """A game of ``player`` on each deal of ``batch`` (``seeds[d]`` seeding deal ``d``'s), a
    game at a time: each one's seconds are its own (and the fatal move is looked for after
    it, with ``fatal_budget`` positions a solve, if not 0)."""
    n = len(batch)
    lines = np.zeros((n, MAX_PLY), np.uint64)
    won = np.zeros(n, np.bool_)
    nmoves = np.zeros(n, np.int64)
    left = np.zeros(n, np.int64)
    seconds = np.zeros(n, np.float64)
    evaluations = np.zeros(n, np.int64)
    fatal = []
    for k in range(n):
        piles, reserve = batch.piles[k], batch.reserve[k]
        t0 = time.perf_counter()
        moves, final, evaluations[k] = _game(piles, reserve, batch.roots[k], player, int(seeds[k]),
                                             lines[k])
        won[k], nmoves[k], left[k] = final == 0, moves, cards_left(np.uint64(final))
        seconds[k] = time.perf_counter() - t0
        if fatal_budget:
            fatal.append(fatal_move(piles, reserve, int(batch.roots[k]), lines[k, :moves],
                                    fatal_budget))
    games = Games(won, nmoves, left, lines, seconds, evaluations)
    if not fatal_budget:
        return games
    start, ply, fatal_left, unresolved = zip(*fatal) if fatal else ((), (), (), ())
    return Games(won, nmoves, left, lines, seconds, evaluations, tuple(start),
                 np.array(ply, np.int64), np.array(fatal_left, np.int64),
                 np.array(unresolved, np.bool_))


def _game(piles, reserve, root, player: Player, seed: int, line) -> tuple[int, int, int]:
    """(moves made, final position, evaluations) of one game."""
    if player.kind == "simple":
        n, final = play_game(piles, reserve, root, player.code, np.array([seed], np.uint64), line,
                             2)
        return int(n), int(final), 0
    if player.kind == "kernel":
        stats = np.zeros(1, np.int64)
        n, final = fair_game(piles, reserve, root, player.code, player.base, player.params(),
                             np.uint64(seed), TABLE_BITS, line, stats)
        return int(n), int(final), int(stats[0])
    if player.kind == "bandit":
        stats = np.zeros(1, np.int64)
        n, final = bandit_game(piles, reserve, root, player.base, player.params(), np.uint64(seed),
                               line, stats)
        return int(n), int(final), int(stats[0])
    if player.kind == "recommend":
        return recommend_game(piles, reserve, root, player.samples, player.budget, player.z,
                              seed, line)
    return pimc_game(piles, reserve, root, player.base, player.samples, player.budget, seed, line)


def fatal_move(piles, reserve, root: int, line: np.ndarray,
               budget: int) -> tuple[str, int, int, bool]:
    """Where a game (its moves ``line`` from ``root``) was lost: the solver's verdict on the
    deal (``budget`` positions a solve), the moves made and cards left before the first
    move whose child is lost (-1, -1 if the game never left a winnable position, or the
    deal is not won), and whether a solve was left unresolved (then no fatal move is
    named).  A position after a lost one is lost, so the winnable positions of a game are a
    prefix of it and bisection finds its end in about log2(moves) solves."""

    def status(pos: int) -> int:
        if pos == 0:
            return WIN
        return int(search_arrays(*position_arrays(piles, reserve, pos), budget)[0])

    start = status(root)
    if start != WIN:
        return NAMES[start], -1, -1, start != LOSS
    steps = np.zeros(len(line) + 1, np.uint64)
    steps[1:] = np.cumsum(line, dtype=np.uint64)
    at = [int(np.uint64(root) - d) for d in steps]  # the position before each move, and the last
    if at[-1] == 0:
        return "win", -1, -1, False
    lo, hi = 0, len(line)  # at[lo] winnable, at[hi] lost (a game ends with no move left)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        s = status(at[mid])
        if s == WIN:
            lo = mid
        elif s == LOSS:
            hi = mid
        else:
            return "win", -1, -1, True
    return "win", lo, int(cards_left(np.uint64(at[lo]))), False


def weighted_wins(batch: DealBatch, weights: np.ndarray, threads: int = 0) -> np.ndarray:
    """Whether the weighted player with ``weights`` wins each deal of ``batch``, on
    ``threads`` threads (0: all cores; the kernel releases the GIL)."""
    w = np.ascontiguousarray(weights, np.float64)
    out = np.zeros(len(batch), np.bool_)
    threads = threads or os.cpu_count() or 1
    if threads == 1 or len(batch) < 256:
        weighted_wins_kernel(batch.piles, batch.reserve, batch.roots, w, out)
        return out
    cut = np.linspace(0, len(batch), threads + 1).astype(np.intp)

    def part(i: int) -> None:
        p = batch.part(cut[i], cut[i + 1])
        weighted_wins_kernel(p.piles, p.reserve, p.roots, w, out[cut[i]:cut[i + 1]])

    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(part, range(threads)))
    return out
