"""Fair players: what a player who sees only the app's cards can win.

A fair player sees the pile tops, the reserve, the piles' sizes and the cards removed,
and so knows the multiset of the hidden cards but not their places (:mod:`solver.players.fair`:
the view, the layouts consistent with it, and the kernels that decide from it alone).  The
players, by name (:data:`PLAYERS`):

- ``random``, ``greedy``, ``lookahead``, ``tuned``: the simple players of :mod:`.strategies`;
- ``pimc``: perfect-information sampling (hindsight optimisation), the baseline of the
  literature: in each of K sampled layouts the solver settles every move's child; the move
  that wins in most samples is played (ties to the lookahead player's move);
- ``rollout``: greedy's move, unless paired roll-outs say otherwise (:func:`solver.players.fair.rollout_choice`),
  one move of each kind a fair player cannot tell apart weighed (:func:`solver.players.fair.move_signature`);
- ``rollout-lookahead``: the same with lookahead as the base player;
- ``rollout-tuned``: the same with the tuned player as the base player (its features in
  :mod:`solver.players.features`, its weights fitted by :mod:`.tuning`);
- ``uct``: UCT over the fair game's states, greedy roll-outs (:func:`solver.players.fair.mcts_choice`);
- ``fair``: the best fair player at its default settings (:data:`FAIR`), the one the board's
  fair hint uses;
- ``NAME@K``: a sampling player with K samples (layouts or iterations) a decision.

:func:`play_players` plays each on the same deals (seeded per deal, so a game does not
depend on the other deals of a run), :func:`ladder` puts them side by side: win rates with
Wilson intervals and paired differences against greedy and lookahead with 95 % intervals.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Optional, Sequence

import numpy as np
import pandas as pd

from halfmoon.game.codes import MAX_NUMBER
from halfmoon.game.deal import Deal
from halfmoon.game.errors import HalfMoonError

from .stats import paired_difference, wilson_interval
from .strategies import deal_batch, game_seed

TABLE_BITS = 20  # UCT's table: 2**20 slots, shared by a game's decisions


@dataclass(frozen=True)
class Player:
    """A player's settings: ``kind`` is ``simple`` (a player of :mod:`.strategies`),
    ``kernel`` (:func:`solver.players.fair.fair_game`) or ``pimc``."""

    name: str
    kind: str
    code: int = 0  # solver.players.simple / solver.players.fair player code
    base: int = 0  # the base player of the sampling players
    samples: int = 0  # layouts (rollout, pimc) or iterations (uct) a decision
    rounds: int = 1
    z: float = 2.0
    c: float = 0.3
    partial: float = 0.0  # credit of a lost roll-out for the share of cards it removed
    default: int = -1  # the rollout player's move without evidence: this player's (-1: the base player's)
    dedupe: bool = False  # weigh one move of each kind a fair player cannot tell apart
    budget: int = 0  # positions a solve (pimc)
    about: str = ""

    def with_samples(self, samples: Optional[int]) -> "Player":
        return self if samples is None or not self.samples else replace(self, samples=int(samples))

    def params(self) -> np.ndarray:
        """The settings as :func:`solver.players.fair.decide` takes them."""
        from solver.players.fair import NPARAMS, P_BUDGET, P_C, P_DEDUPE, P_DEFAULT, P_PARTIAL, P_ROUNDS, P_Z

        out = np.zeros(NPARAMS, np.float64)
        out[[P_BUDGET, P_ROUNDS, P_Z, P_C, P_PARTIAL, P_DEFAULT, P_DEDUPE]] = (
            self.samples, self.rounds, self.z, self.c, self.partial, self.default + 1, float(self.dedupe))
        return out

    def settings(self) -> str:
        if self.kind == "simple":
            return ""
        if self.kind == "pimc":
            return f"{self.samples} layouts, {self.budget:,} positions a solve"
        what = "iterations" if self.name.startswith("uct") else "layouts"
        return f"{self.samples} {what} a decision"


def _players() -> dict[str, Player]:
    from solver.players.fair import MCTS, ROLLOUT
    from solver.players.simple import GREEDY, LOOKAHEAD, RANDOM, TUNED

    return {
        "random": Player("random", "simple", RANDOM, about="a uniformly random legal move"),
        "greedy": Player("greedy", "simple", GREEDY, about="the move uncovering most pile cards, pairs first"),
        "lookahead": Player("lookahead", "simple", LOOKAHEAD, about="two moves ahead over the cards in view"),
        "tuned": Player("tuned", "simple", TUNED, about="the largest weighted sum of fair features, weights fitted"),
        "pimc": Player("pimc", "pimc", base=LOOKAHEAD, samples=8, budget=20_000,
                       about="the solver on each move's child in sampled layouts"),
        "rollout": Player("rollout", "kernel", ROLLOUT, GREEDY, samples=256, rounds=8, z=2.0, dedupe=True,
                          about="greedy, unless paired greedy roll-outs say otherwise"),
        "rollout-lookahead": Player("rollout-lookahead", "kernel", ROLLOUT, LOOKAHEAD, samples=32, rounds=4,
                                    z=2.0, about="lookahead, unless paired lookahead roll-outs say otherwise"),
        "rollout-tuned": Player("rollout-tuned", "kernel", ROLLOUT, TUNED, samples=256, rounds=8, z=2.0,
                                dedupe=True, about="tuned, unless paired tuned roll-outs say otherwise"),
        "uct": Player("uct", "kernel", MCTS, GREEDY, samples=2000, c=0.3,
                      about="UCT over the fair game's states, greedy roll-outs"),
    }


FAIR = "rollout-tuned"  # the best fair player at its default settings


def players(names: Iterable[str], samples: Optional[int] = None) -> list[Player]:
    """The players of ``names`` (``fair`` is :data:`FAIR`'s settings under the name ``fair``);
    :class:`HalfMoonError` naming an unknown one."""
    known = _players()
    if samples is not None and samples < 1:
        raise HalfMoonError(f"--samples must be at least 1, got {samples}")
    out = []
    for name in names:
        base, _, at = name.partition("@")  # "rollout@64": the player at 64 samples
        if base == "fair":
            p = replace(known[FAIR], name="fair")
        elif base in known:
            p = known[base]
        else:
            raise HalfMoonError(f"unknown player {name!r} (expected some of {', '.join([*known, 'fair'])}, "
                                "or NAME@SAMPLES)")
        p = p.with_samples(samples)
        if at:
            if not at.isdigit() or int(at) < 1 or not p.samples:
                raise HalfMoonError(f"bad player {name!r}: NAME@SAMPLES takes a sampling player and a "
                                    "number of samples of at least 1")
            p = replace(p, samples=int(at))
        out.append(replace(p, name=name))
    return out


# --- playing ----------------------------------------------------------------------------
GAME_COLUMNS = {"deal": "int64", "player": "object", "won": "bool", "moves_made": "int16",
                "cards_left": "int16", "seconds": "float64", "evaluations": "int64"}
# with a fatal-move budget (see fatal_move): the columns of forgiveness's games
FATAL_COLUMNS = {"start": "object", "fatal_ply": "int16", "fatal_cards_left": "int16", "unresolved": "bool"}


def _play_piece(numbers: list[int], player: Player, seed: int, fatal_budget: int = 0) -> pd.DataFrame:
    """One game of ``player`` on each deal number (seconds: each game's own; the fatal move
    looked for after it, with ``fatal_budget`` positions a solve, if not 0)."""
    from solver.mirror.position import MAX_PLY, cards_left

    piles, reserve, roots = deal_batch(numbers)
    rows = []
    line = np.zeros(MAX_PLY, np.uint64)
    for k, n in enumerate(numbers):
        s = game_seed(seed, int(n))
        t0 = time.perf_counter()
        moves, final, rollouts = _game(piles[k], reserve[k], roots[k], player, s, line)
        row = (int(n), player.name, final == 0, moves, cards_left(np.uint64(final)),
               time.perf_counter() - t0, rollouts)
        if fatal_budget:
            row += fatal_move(piles[k], reserve[k], int(roots[k]), line[:moves], fatal_budget)
        rows.append(row)
    columns = {**GAME_COLUMNS, **(FATAL_COLUMNS if fatal_budget else {})}
    return pd.DataFrame(rows, columns=list(columns)).astype(columns)


def fatal_move(piles, reserve, root: int, line: np.ndarray, budget: int) -> tuple[str, int, int, bool]:
    """Where a game (its moves ``line`` from ``root``) was lost, as :mod:`.forgiveness` has it
    for the simple players: the solver's verdict on the deal (``budget`` positions a solve),
    the moves made and cards left before the first move whose child is lost (-1, -1 if the
    game never left a winnable position, or the deal is not won), and whether a solve was
    left unresolved (then no fatal move is named).  A position after a lost one is lost, so
    the winnable positions of a game are a prefix of it and bisection finds its end in about
    log2(moves) solves."""
    from solver.verdicts import LOSS, WIN
    from solver.mirror.position import cards_left
    from solver.portfolio.search import search_arrays
    from solver.verdicts import NAMES as VERDICTS

    def status(pos: int) -> int:
        if pos == 0:
            return WIN
        return int(search_arrays(*layout_at(piles, reserve, np.uint64(pos)), budget)[0])

    start = status(root)
    if start != WIN:
        return VERDICTS[start], -1, -1, start != LOSS
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


def _game(piles, reserve, root, player: Player, seed: int, line) -> tuple[int, int, int]:
    """(moves made, final position, roll-outs) of one game."""
    from solver.players.fair import fair_game
    from solver.players.simple import play_game

    if player.kind == "simple":
        n, final = play_game(piles, reserve, root, player.code, np.array([seed], np.uint64), line, 2)
        return int(n), int(final), 0
    if player.kind == "kernel":
        stats = np.zeros(1, np.int64)
        n, final = fair_game(piles, reserve, root, player.code, player.base, player.params(), np.uint64(seed),
                             TABLE_BITS, line, stats)
        return int(n), int(final), int(stats[0])
    return pimc_game(piles, reserve, root, player, seed, line)


def pimc_game(piles, reserve, root, player: Player, seed: int, line) -> tuple[int, int, int]:
    """A game of the PIMC player: (moves made, final position, solves)."""
    from solver.players.fair import view_layout
    from solver.mirror.position import DEPTH, MAX_MOVES, NPILES, all_moves

    moves = np.empty(MAX_MOVES, np.uint64)
    view = np.zeros((NPILES, DEPTH), np.int8)
    state = np.array([seed], np.uint64)
    pos = np.uint64(root)
    n = solves = 0
    while pos != 0:
        m = all_moves(piles, reserve, pos, moves)
        if m == 0:
            break
        view_layout(piles, pos, view)
        k, s = pimc_choice(view, reserve, pos, moves, m, player, state)
        solves += s
        line[n] = moves[k]
        n += 1
        pos = np.uint64(pos - moves[k])
    return n, int(pos), solves


def pimc_choice(view, reserve, pos, moves, m, player: Player, state) -> tuple[int, int]:
    """The PIMC player's move index on the view ``view`` and the solves it took: the move
    whose child the solver wins in most of ``player.samples`` sampled layouts (the same
    layouts for every move), ties to the base player's move."""
    from solver.players.fair import base_choice

    b = int(base_choice(view, reserve, pos, moves, m, player.base))
    if m == 1:
        return b, 0
    wins, _, solves = child_solves(view, reserve, pos, moves, m, player.samples, state, player.budget)
    best = b
    for j in range(m):
        if wins[j] > wins[best]:
            best = j
    return best, solves


def child_solves(view, reserve, pos, moves, m, samples, state, budget) -> tuple[np.ndarray, np.ndarray, int]:
    """In ``samples`` layouts drawn from the view ``view`` (the same for every move), how
    often the solver (``budget`` positions a solve) wins each move's child, how often it
    cannot settle it, and the solves made."""
    from solver.verdicts import LOSS, WIN
    from solver.players.fair import sample_layout
    from solver.portfolio.search import search_arrays

    wins = np.zeros(m, np.int64)
    unknown = np.zeros(m, np.int64)
    sample = np.zeros_like(view)
    solves = 0
    for _ in range(samples):
        sample_layout(view, pos, state, sample)
        for j in range(m):
            p, r = layout_at(sample, reserve, np.uint64(pos - moves[j]))
            if not p.any() and not r.any():  # the move wins the game
                wins[j] += 1
                continue
            status = search_arrays(p, r, budget)[0]
            wins[j] += status == WIN
            unknown[j] += status not in (WIN, LOSS)
            solves += 1
    return wins, unknown, solves


def layout_at(piles, reserve, pos) -> tuple[np.ndarray, np.ndarray]:
    """The arrays of layout ``piles``/``reserve`` at position ``pos`` (removed cards 0), as
    the solver takes a position."""
    from solver.mirror.position import NPILES, NRESERVE, pile_count, reserve_full

    p = piles.copy()
    r = reserve.copy()
    for i in range(NPILES):
        p[i, pile_count(pos, i):] = 0
    for k in range(NRESERVE):
        if not reserve_full(pos, k):
            r[k] = 0
    return p, r


def play_players(numbers: Iterable[int], names: Sequence[str], *, seed: int = 0,
                 samples: Optional[int] = None, workers: Optional[int] = None,
                 progress: Optional[Callable[[int], None]] = None, fatal_budget: int = 0) -> pd.DataFrame:
    """One game of each player of ``names`` on each deal; :data:`GAME_COLUMNS`, rows by
    player then deal, and :data:`FATAL_COLUMNS` (:func:`fatal_move`) if ``fatal_budget`` is
    not 0.  ``workers`` processes (default: every core); ``progress(k)`` is called as ``k``
    more games finish."""
    nums = [int(n) for n in numbers]
    bad = [n for n in nums if not 0 <= n <= MAX_NUMBER]
    if bad:
        raise HalfMoonError(f"deal number {bad[0]} is outside 0..{MAX_NUMBER}")
    if not nums:
        raise HalfMoonError("no deals to play")
    chosen = players(names, samples)
    workers = (os.cpu_count() or 1) if workers is None else workers
    if workers < 1:
        raise HalfMoonError(f"--workers must be at least 1, got {workers}")
    from solver.build.warmup import prepare

    prepare(["players", "fair"])
    size = max(1, min(200, len(nums) // (4 * workers) or 1))
    tasks = [(nums[k:k + size], p) for p in chosen for k in range(0, len(nums), size)]
    parts = []
    if workers == 1:
        for piece, p in tasks:
            parts.append(_play_piece(piece, p, seed, fatal_budget))
            if progress:
                progress(len(piece))
    else:
        ctx = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(workers, mp_context=ctx) as pool:
            futures = [pool.submit(_play_piece, piece, p, seed, fatal_budget) for piece, p in tasks]
            for f, (piece, _) in zip(futures, tasks):
                parts.append(f.result())
                if progress:
                    progress(len(piece))
    return pd.concat(parts, ignore_index=True)


# --- side by side -----------------------------------------------------------------------
def ladder(games: pd.DataFrame, against: Sequence[str] = ("greedy", "lookahead")) -> pd.DataFrame:
    """One row per player of ``games`` (in its order): ``player, deals, won, win_rate, ci_low,
    ci_high``, for each player ``X`` of ``against`` present ``vs_X, vs_X_low, vs_X_high`` (the
    win rate's paired difference on the same deals), ``seconds_per_game`` and
    ``evaluations_per_game`` (roll-outs played, or the PIMC player's solves)."""
    wide = games.pivot(index="deal", columns="player", values="won")
    rows = []
    for name in dict.fromkeys(games["player"]):
        g = games[games["player"] == name]
        n, k = len(g), int(g["won"].sum())
        row = {"player": name, "deals": n, "won": k, "win_rate": k / n}
        row["ci_low"], row["ci_high"] = wilson_interval(k, n)
        for other in against:
            if other in wide:
                row[f"vs_{other}"], row[f"vs_{other}_low"], row[f"vs_{other}_high"] = paired_difference(
                    wide[name].to_numpy(), wide[other].to_numpy())
        row["seconds_per_game"] = float(g["seconds"].mean())
        row["evaluations_per_game"] = float(g["evaluations"].mean())
        rows.append(row)
    return pd.DataFrame(rows)


# --- the board's fair hint --------------------------------------------------------------
def view_deal(position: Deal) -> Deal:
    """``position`` as a fair player knows it: the tops and the reserve in their places, the
    hidden cards (under the tops) sorted and laid in the hidden places pile by pile, so
    that where they really lie does not show."""
    hidden = sorted(c for pile in position.piles for c in pile[:-1])
    piles, k = [], 0
    for pile in position.piles:
        n = max(len(pile) - 1, 0)
        piles.append(hidden[k:k + n] + list(pile[-1:]))
        k += n
    out = Deal(piles=piles, reserve=list(position.reserve))
    return out


def fair_hint(position: Deal, samples: int, seed: int, budget: int = 20_000,
              player: str = "fair") -> dict:
    """What a fair player can say about ``position`` (given as :func:`view_deal` makes it:
    nothing here looks under the tops): the move of ``player`` and, for each legal move,
    in how many of ``samples`` layouts drawn uniformly among those consistent with the view
    the solver (``budget`` positions a solve) finds the position after it winnable."""
    from solver.players.fair import decide, new_tree, view_layout
    from solver.mirror.position import MAX_MOVES, all_moves, initial_position
    from solver.mirror.convert import deal_arrays, delta_to_move

    (p,) = players([player])
    piles, reserve = deal_arrays(position)
    pos = np.uint64(initial_position(piles, reserve))
    moves = np.empty(MAX_MOVES, np.uint64)
    m = int(all_moves(piles, reserve, pos, moves))
    if m == 0:
        return {"move": None, "samples": 0, "moves": []}
    state = np.array([seed % (1 << 64)], np.uint64)
    view = np.zeros_like(piles)
    view_layout(piles, pos, view)
    if p.kind == "kernel":
        k = int(decide(piles, reserve, pos, moves, m, p.code, p.base, p.params(), state, *new_tree(TABLE_BITS),
                       np.zeros(1, np.int64), np.zeros_like(piles)))
    else:
        from solver.players.fair import base_choice

        k = int(base_choice(view, reserve, pos, moves, m, p.code))
    keeps, unknown, _ = child_solves(view, reserve, pos, moves, m, samples, state, budget)
    return {"move": str(delta_to_move(int(moves[k]))), "samples": int(samples),
            "moves": [{"move": str(delta_to_move(int(moves[j]))), "keeps": int(keeps[j]),
                       "unresolved": int(unknown[j])} for j in range(m)]}
