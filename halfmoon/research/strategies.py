"""Simple players: how often a game is won by a player who sees only what the app shows.

The players, all run by numba kernels (:mod:`solver.players.simple`) over the packed mirror
of the game, so that thousands of deals take a second or two:

- ``"random"``: a uniformly random legal move each turn, reproducible from a seed;
- ``"greedy"``: a fixed rule, deterministic, without thinking ahead: the move that
  uncovers the most pile cards, then pairs before triplets, then the move taking from
  the fullest piles, ties to the first move in the engine's order;
- ``"lookahead"`` and ``"lookahead3"``: deterministic, thinking 2 (or 3) moves ahead
  over the cards in view only, since the app hides the cards under the pile tops.  Every
  line of up to that many moves among the cards in view is scored by, in order: it wins;
  it does not end in a sure dead end; the cards it uncovers times the number of unseen
  cards (known by counting, not by place) that would be playable at once with the cards
  left in view; its pairs; the sizes of the piles it takes from.  The player makes the
  move whose best line scores highest; ties go to the larger greedy key, then to the
  first move in the engine's order.

The rules, and how they were chosen, are documented in :mod:`solver.players.simple`.  Measured
on deals 0–1,999 (one game each, random with seed 0), and the time of a game in
``play_many`` on the 10,000 deals 100,000–109,999 (both cores busy)::

    random        3 wins   0.15 %   0.18 ms a game
    greedy      420       21.0 %    0.18 ms
    lookahead   431       21.55 %   0.38 ms
    lookahead3  424       21.2 %    0.68 ms

Looking ahead gains little because the next cards are hidden: a depth-2 player that
peeked under the tops (not allowed) won 36.5 % of the same deals.

Usage::

    play("HM1-N-AAAAAAA", "greedy")          # Play(strategy, won, moves, cards_left)
    play_many(range(2000), "random", seed=1)  # DataFrame: deal, won, moves_made, cards_left
    play_many(range(2000), "lookahead")
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Union

import numpy as np
import pandas as pd

from solver.mirror.position import DEPTH, MAX_PLY, NPILES, NRESERVE, cards_left, initial_position
from solver.players.simple import GREEDY, LOOKAHEAD, RANDOM, TUNED, play_batch
from solver.mirror.convert import deal_arrays, delta_to_move

from halfmoon.game.deal import Deal
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.generator import MASK64, SplitMix64
from halfmoon.game.inputs import load_deal
from halfmoon.game.moves import Move

# name -> (kernel strategy code, lookahead depth; the depth matters to the lookahead only)
STRATEGIES = {
    "random": (RANDOM, 0),
    "greedy": (GREEDY, 0),
    "lookahead": (LOOKAHEAD, 2),
    "lookahead3": (LOOKAHEAD, 3),
    "tuned": (TUNED, 0),
}
COMPARED = ("greedy", "random")  # the players compare_players puts beside the solver by default
_SEED_STRIDE = 0xD1B54A32D192ED03  # an odd constant: distinct deals get distinct streams


@dataclass(frozen=True)
class Play:
    """One game played by a simple player."""

    strategy: str
    won: bool
    moves: tuple[Move, ...]
    cards_left: int


def game_seed(seed: int, index: int) -> int:
    """The random player's SplitMix64 state for game ``index`` (a deal number) of a run."""
    return (SplitMix64(seed).next() + index * _SEED_STRIDE) & MASK64


def _strategy_code(strategy: str) -> tuple[int, int]:
    """(kernel code, depth) of a strategy name."""
    try:
        return STRATEGIES[strategy]
    except KeyError:
        raise HalfMoonError(
            f"unknown strategy {strategy!r} (expected one of {', '.join(STRATEGIES)})"
        ) from None


def _as_deal(deal: Union[Deal, str, int]) -> Deal:
    if isinstance(deal, Deal):
        return deal
    if isinstance(deal, (int, np.integer)):
        return Deal.from_number(int(deal))
    return load_deal(deal)


def play(deal: Union[Deal, str, int], strategy: str = "greedy", seed: int = 0) -> Play:
    """Play one game of a deal or position with a simple player.

    The random player's game on a deal with a number uses the same seed as in
    :func:`play_many`, so both give the same game.
    """
    code, depth = _strategy_code(strategy)
    d = _as_deal(deal)
    piles, reserve = deal_arrays(d)
    index = d.number if d.number is not None and d == Deal(d.code) else 0
    lines, nmoves, finals = _run(piles[None], reserve[None], code, [game_seed(seed, index)], depth)
    moves = tuple(delta_to_move(int(x)) for x in lines[0, : nmoves[0]])
    return Play(strategy, bool(finals[0] == 0), moves, int(cards_left(finals[0])))


def play_many(numbers: Iterable[int], strategy: str = "greedy", seed: int = 0) -> pd.DataFrame:
    """One game on each deal number; a DataFrame with one row per deal.

    Columns: ``deal`` (int64), ``won`` (bool), ``moves_made`` (int16),
    ``cards_left`` (int16).  The random player's game on deal ``n`` is seeded with
    :func:`game_seed` ``(seed, n)``, so results do not depend on which other deals
    are played alongside.
    """
    code, depth = _strategy_code(strategy)
    nums = np.asarray(list(numbers), dtype=np.int64)
    if nums.size and nums.min() < 0:
        raise HalfMoonError(f"deal numbers must be non-negative, got {int(nums.min())}")
    piles, reserve, _ = deal_batch(nums)
    seeds = [game_seed(seed, int(n)) for n in nums] if code == RANDOM else [0] * nums.size
    _, nmoves, finals = _run(piles, reserve, code, seeds, depth)
    left = np.array([cards_left(f) for f in finals], dtype=np.int16)
    return pd.DataFrame(
        {
            "deal": nums,
            "won": finals == 0,
            "moves_made": nmoves.astype(np.int16),
            "cards_left": left,
        }
    )


def deal_batch(numbers) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernels' arrays of many deal numbers: piles, reserves and start positions."""
    piles = np.zeros((len(numbers), NPILES, DEPTH), np.int8)
    reserve = np.zeros((len(numbers), NRESERVE), np.int8)
    for k, n in enumerate(numbers):
        piles[k], reserve[k] = deal_arrays(Deal.from_number(int(n)))
    roots = np.array([initial_position(piles[k], reserve[k]) for k in range(len(numbers))], np.uint64)
    return piles, reserve, roots


def random_games(deal: Union[Deal, str, int], games: int, seed: int = 0) -> pd.DataFrame:
    """``games`` games of the random player on one deal or position (game ``k`` seeded
    with :func:`game_seed` ``(seed, k)``): how much luck a deal asks for.

    Columns: ``game``, ``won``, ``moves_made``, ``cards_left``.
    """
    if games < 1:
        raise HalfMoonError(f"games must be at least 1, got {games}")
    piles, reserve = deal_arrays(_as_deal(deal))
    seeds = [game_seed(seed, k) for k in range(games)]
    _, nmoves, finals = _run(
        np.repeat(piles[None], games, axis=0), np.repeat(reserve[None], games, axis=0), RANDOM, seeds
    )
    return pd.DataFrame(
        {
            "game": np.arange(games),
            "won": finals == 0,
            "moves_made": nmoves.astype(np.int16),
            "cards_left": np.array([cards_left(f) for f in finals], dtype=np.int16),
        }
    )


def _run(piles: np.ndarray, reserve: np.ndarray, code: int, seeds, depth: int = 2) -> tuple:
    n = piles.shape[0]
    roots = np.array([initial_position(piles[k], reserve[k]) for k in range(n)], dtype=np.uint64)
    lines = np.zeros((n, MAX_PLY), np.uint64)
    nmoves = np.zeros(n, np.int64)
    finals = np.zeros(n, np.uint64)
    play_batch(piles, reserve, roots, np.int64(code), np.array(seeds, dtype=np.uint64), lines, nmoves, finals,
               np.int64(depth))
    return lines, nmoves, finals


def compare_players(results: pd.DataFrame, seed: int = 0, players: Iterable[str] = COMPARED) -> pd.DataFrame:
    """The solver's results against simple players on the same deals.

    ``results`` is a results dataset (see :mod:`halfmoon.batch.results`).  One row per
    player (``solver``, then ``players`` in order: by default ``greedy`` and ``random``,
    or any names of :data:`STRATEGIES`, e.g. ``("greedy", "lookahead", "random")``):
    ``deals, wins, unresolved, win_rate, ci_low, ci_high`` (Wilson intervals; the
    solver's unresolved deals widen its interval as in
    :func:`halfmoon.research.stats.summarize`), and ``wins_of_winnable``: the share of
    the solver's wins the player also won.
    """
    from .stats import summarize, wilson_interval

    players = (players,) if isinstance(players, str) else tuple(players)
    for name in players:
        _strategy_code(name)  # unknown names fail before any work
    s = summarize(results)
    solver_wins = results["verdict"].to_numpy() == "win"
    n_winnable = int(solver_wins.sum())
    rows = [
        {
            "player": "solver",
            "deals": s["deals"],
            "wins": s["wins"],
            "unresolved": s["unresolved"],
            "win_rate": s["win_rate"],
            "ci_low": s["ci_low"],
            "ci_high": s["ci_high"],
            "wins_of_winnable": 1.0 if n_winnable else float("nan"),
        }
    ]
    for name in players:
        games = play_many(results["deal"].to_numpy(), name, seed=seed)
        won = games["won"].to_numpy()
        k, n = int(won.sum()), len(won)
        low, high = wilson_interval(k, n)
        rows.append(
            {
                "player": name,
                "deals": n,
                "wins": k,
                "unresolved": 0,
                "win_rate": k / n if n else float("nan"),
                "ci_low": low,
                "ci_high": high,
                "wins_of_winnable": (won & solver_wins).sum() / n_winnable if n_winnable else float("nan"),
            }
        )
    return pd.DataFrame(rows).set_index("player")
