"""How forgiving Half Moon is: along the simple players' games, how many legal moves keep a
winnable position winnable, and where the fatal move is made.

A *walk* follows one player's game on a deal (the game that
:func:`halfmoon.research.strategies.play` gives for that deal and seed).  It starts only on a
deal the solver proves winnable; at each position along the game while it is still winnable,
every legal move's child is settled, and the walk stops at the win, at the first move whose
child is lost (the *fatal move*), or at a chosen move whose child the solver left unresolved
within the budget (never guessed).

The children are settled by :func:`solver.walk_games`: most without a solve, each by a proof
(so no verdict changes), the solves of one walk sharing one table of lost positions.

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

The summaries take intervals at 95 %, or at the confidence asked (:func:`.stats.at_confidence`).
Positions of one deal are dependent, so the means over positions get a deal-clustered
interval: the mean plus or minus z (1.96 at 95 %) cluster-robust standard errors (clusters are
deals, with the G/(G-1) correction), clipped to [0, 1].  Counts of games
or moves get Wilson intervals.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence, Union

import numpy as np
import pandas as pd

from halfmoon.batch.backends import stoppable_pool
from halfmoon.game.codes import MAX_NUMBER
from halfmoon.game.deal import Deal
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.inputs import load_deal
from solver import VERDICTS, walk_games

from . import strategies as _strategies
from .stats import current_z, wilson_bounds

DEFAULT_BUDGET = 1_000_000
PLAYERS = ("random", "greedy")
# Buckets of cards left (high, low), the start's 104 down to the last pair
CARD_BUCKETS = ((104, 96), (95, 80), (79, 64), (63, 48), (47, 32), (31, 16), (15, 1))
_PIECE = 4  # deals per piece of work sent to a process
POSITION_COLUMNS = {"deal": "int64", "player": "object", "ply": "int16", "cards_left": "int16",
                    "legal": "int16", "keep": "int16", "lose": "int16", "unresolved": "int16",
                    "chosen_keeps": "bool", "chosen_loses": "bool"}
GAME_COLUMNS = {"deal": "int64", "player": "object", "start": "object", "won": "bool",
                "moves_made": "int16", "fatal_ply": "int16", "fatal_cards_left": "int16",
                "unresolved": "bool", "solves": "int32", "nodes": "int64"}


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
    games = [_strategies.play(d, name, seed) for name in strategies]
    walks = []
    walked_games = walk_games(d, [g.moves for g in games], budget)
    for name, game, walked in zip(strategies, games, walked_games):
        w = Walk(number, name, walked.start, game.won, len(game.moves),
                 unresolved=walked.start == "unresolved", solves=walked.solves, nodes=walked.nodes)
        _rows(w, d.card_count(), game.moves, walked.children)
        walks.append(w)
    return walks


def _rows(w: Walk, cards: int, moves: Sequence, children: Sequence[dict]) -> None:
    """The rows of the positions walked along ``moves`` (``cards`` at the start), and where
    the walk stopped."""
    for ply, verdicts in enumerate(children):
        chosen = verdicts[moves[ply]]
        names = list(verdicts.values())
        w.positions.append((ply, cards, len(names), *map(names.count, VERDICTS),
                            chosen == "win", chosen == "loss"))
        if chosen == "loss":
            w.fatal_ply, w.fatal_cards_left = ply, cards
            return
        if chosen == "unresolved":
            w.unresolved = True
            return
        cards -= len(moves[ply])
    if cards and w.start == "win":
        raise RuntimeError(f"the player stopped at a winnable position of deal {w.deal} (a bug)")


def _walk_piece(numbers: list[int], strategies: Sequence[str], seed: int,
                budget: int) -> list[Walk]:
    return [w for n in numbers for w in _walk_deal(Deal.from_number(n), strategies, seed, budget)]


def forgiveness(numbers: Iterable[int], strategies: Sequence[str] = PLAYERS, seed: int = 0,
                budget: int = DEFAULT_BUDGET,
                workers: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
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
        with stoppable_pool(workers) as ex:  # Ctrl-C stops the workers too
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
def clustered_mean(y, clusters, z: Optional[float] = None) -> tuple[float, float, float]:
    """(mean, low, high): the mean of ``y`` and its interval of ``z`` cluster-robust standard
    errors (left out: the current confidence's, :func:`.stats.at_confidence`), clusters given by
    ``clusters`` (G/(G-1) correction), clipped to [0, 1]; NaN bounds with fewer than two
    clusters."""
    z = current_z(z)
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
    return pd.DataFrame(rows, columns=["player", "measure", "n", "deals", "loses", "ci_low",
                                       "ci_high"])


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
    return pd.DataFrame(rows, columns=["player", "outcome", "cards_left", "games", "share",
                                       "ci_low", "ci_high", "share_of_fatal"])
