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

from halfmoon.game.deal import Deal
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.generator import MASK64, SplitMix64
from halfmoon.game.inputs import as_deal
from halfmoon.game.moves import Move
from solver import SIMPLE_PLAYERS, line_moves, simple_games

# name -> (player code, lookahead depth; the depth matters to the lookahead only)
STRATEGIES = SIMPLE_PLAYERS
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


def _check_strategy(strategy: str) -> None:
    if strategy not in STRATEGIES:
        raise HalfMoonError(f"unknown strategy {strategy!r} "
                            f"(expected one of {', '.join(STRATEGIES)})")


def play(deal: Union[Deal, str, int], strategy: str = "greedy", seed: int = 0) -> Play:
    """Play one game of a deal or position with a simple player.

    The random player's game on a deal with a number uses the same seed as in
    :func:`play_many`, so both give the same game.
    """
    _check_strategy(strategy)
    d = as_deal(deal)
    index = d.number if d.number is not None and d == Deal(d.code) else 0
    g = simple_games([d], strategy, [game_seed(seed, index)])
    moves = line_moves(g.lines[0, : g.moves_made[0]])
    return Play(strategy, bool(g.won[0]), moves, int(g.cards_left[0]))


def play_many(numbers: Iterable[int], strategy: str = "greedy", seed: int = 0) -> pd.DataFrame:
    """One game on each deal number; a DataFrame with one row per deal.

    Columns: ``deal`` (int64), ``won`` (bool), ``moves_made`` (int16),
    ``cards_left`` (int16).  The random player's game on deal ``n`` is seeded with
    :func:`game_seed` ``(seed, n)``, so results do not depend on which other deals
    are played alongside.
    """
    _check_strategy(strategy)
    nums = np.asarray(list(numbers), dtype=np.int64)
    if nums.size and nums.min() < 0:
        raise HalfMoonError(f"deal numbers must be non-negative, got {int(nums.min())}")
    seeds = [game_seed(seed, int(n)) for n in nums] if strategy == "random" else None
    g = simple_games(nums, strategy, seeds)
    return pd.DataFrame(
        {
            "deal": nums,
            "won": g.won,
            "moves_made": g.moves_made.astype(np.int16),
            "cards_left": g.cards_left.astype(np.int16),
        }
    )


def random_games(deal: Union[Deal, str, int], games: int, seed: int = 0) -> pd.DataFrame:
    """``games`` games of the random player on one deal or position (game ``k`` seeded
    with :func:`game_seed` ``(seed, k)``): how much luck a deal asks for.

    Columns: ``game``, ``won``, ``moves_made``, ``cards_left``.
    """
    if games < 1:
        raise HalfMoonError(f"games must be at least 1, got {games}")
    d = as_deal(deal)
    g = simple_games([d] * games, "random", [game_seed(seed, k) for k in range(games)])
    return pd.DataFrame(
        {
            "game": np.arange(games),
            "won": g.won,
            "moves_made": g.moves_made.astype(np.int16),
            "cards_left": g.cards_left.astype(np.int16),
        }
    )


def compare_players(results: pd.DataFrame, seed: int = 0,
                    players: Iterable[str] = COMPARED) -> pd.DataFrame:
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
        _check_strategy(name)  # unknown names fail before any work
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
                "wins_of_winnable": ((won & solver_wins).sum() / n_winnable if n_winnable
                                     else float("nan")),
            }
        )
    return pd.DataFrame(rows).set_index("player")
