"""Fair players: what a player who sees only the app's cards can win.

A fair player sees the pile tops, the reserve, the piles' sizes and the cards removed,
and so knows the multiset of the hidden cards but not their places (:mod:`solver.players.fair`:
the view, the layouts consistent with it, and the kernels that decide from it alone).  The
players, by name (:data:`solver.FAIR_PLAYERS`):

- ``random``, ``greedy``, ``lookahead``, ``tuned``: the simple players of :mod:`.strategies`;
- ``pimc``: perfect-information sampling (hindsight optimisation), the baseline of the
  literature: in each of K sampled layouts the solver settles every move's child; the move
  that wins in most samples is played (ties to the lookahead player's move);
- ``rollout``: greedy's move, unless paired roll-outs say otherwise
  (:func:`solver.players.fair.rollout_choice`), one move of each kind a fair player cannot
  tell apart weighed (:func:`solver.players.fair.move_signature`);
- ``rollout-lookahead``: the same with lookahead as the base player;
- ``rollout-tuned``: the same with the tuned player as the base player (its features in
  :mod:`solver.players.features`, its weights fitted by :mod:`.tuning`);
- ``uct``: UCT over the fair game's states, greedy roll-outs
  (:func:`solver.players.fair.mcts_choice`);
- ``bandit``: UCB1 over the moves (one of each kind a fair player cannot tell apart), each
  sample a layout drawn from the view on which the solver's depth-first search, capped at a
  few positions, looks for a win after the move: only a win found within the cap scores
  (:mod:`solver.players.bandit`, the method of the Klondike engine lonelybot);
  ``bandit@cap=1000,lead=1000`` sets its cap, the leader's plays and its other settings;
- ``fair``: the best fair player at its default settings (:data:`FAIR`), the one the board's
  fair hint uses;
- ``NAME@K``: a sampling player with K samples (layouts or iterations) a decision.

:func:`play_players` plays each on the same deals (seeded per deal, so a game does not
depend on the other deals of a run), :func:`ladder` puts them side by side: win rates with
Wilson intervals and paired differences against greedy and lookahead with intervals (95 %,
or the confidence asked; Newcombe's for paired proportions); :func:`ceiling` the solver's
verdicts on the same deals, the most any player could win.
"""

from __future__ import annotations

import os
from concurrent.futures import as_completed
from typing import Callable, Iterable, Optional, Sequence

import pandas as pd

from halfmoon.batch.backends import stoppable_pool
from halfmoon.game.codes import MAX_NUMBER
from halfmoon.game.deal import Deal
from halfmoon.game.errors import HalfMoonError
from solver import (  # noqa: F401  (FAIR, too)
    DEFAULT_BUDGET,
    FAIR,
    VERDICT_NAMES,
    Player,
    player_games,
    player_named,
    solve_numbers,
    warm_up,
)
from solver import fair_hint as _fair_hint

from .stats import paired_difference, wilson_interval
from .strategies import game_seed


def player_list(text: str) -> list[str]:
    """The players' names of a comma-separated list, where a bandit's settings keep their
    own commas: ``"tuned,bandit@cap=100,lead=300,fair"`` names three players (a piece
    ``KEY=VALUE`` without an ``@`` belongs to the name before it)."""
    names: list[str] = []
    for piece in (p.strip() for p in text.split(",")):
        if not piece:
            continue
        if "=" in piece and "@" not in piece and names and "=" in names[-1]:
            names[-1] += "," + piece
        else:
            names.append(piece)
    return names


def players(names: Iterable[str], samples: Optional[int] = None) -> list[Player]:
    """The players of ``names`` (:func:`solver.player_named`: ``fair`` is :data:`FAIR`'s
    settings under the name ``fair``, ``NAME@K`` a sampling player at K samples);
    :class:`HalfMoonError` naming an unknown one."""
    if samples is not None and samples < 1:
        raise HalfMoonError(f"--samples must be at least 1, got {samples}")
    return [player_named(name, samples) for name in names]


# --- playing ----------------------------------------------------------------------------
GAME_COLUMNS = {"deal": "int64", "player": "object", "won": "bool", "moves_made": "int16",
                "cards_left": "int16", "seconds": "float64", "evaluations": "int64"}
# with a fatal-move budget (see solver.player_games): the columns of forgiveness's games
FATAL_COLUMNS = {"start": "object", "fatal_ply": "int16", "fatal_cards_left": "int16",
                 "unresolved": "bool"}


def _play_piece(numbers: list[int], player: Player, seed: int,
                fatal_budget: int = 0) -> pd.DataFrame:
    """One game of ``player`` on each deal number (seconds: each game's own; the fatal move
    looked for after it, with ``fatal_budget`` positions a solve, if not 0)."""
    g = player_games(numbers, player, [game_seed(seed, int(n)) for n in numbers], fatal_budget)
    data = {"deal": numbers, "player": player.name, "won": g.won, "moves_made": g.moves_made,
            "cards_left": g.cards_left, "seconds": g.seconds, "evaluations": g.evaluations}
    if fatal_budget:
        data.update(start=list(g.start), fatal_ply=g.fatal_ply, fatal_cards_left=g.fatal_cards_left,
                    unresolved=g.unresolved)
    columns = {**GAME_COLUMNS, **(FATAL_COLUMNS if fatal_budget else {})}
    return pd.DataFrame(data, columns=list(columns)).astype(columns)


def play_players(numbers: Iterable[int], names: Sequence[str], *, seed: int = 0,
                 samples: Optional[int] = None, workers: Optional[int] = None,
                 progress: Optional[Callable[[int], None]] = None,
                 fatal_budget: int = 0) -> pd.DataFrame:
    """One game of each player of ``names`` on each deal; :data:`GAME_COLUMNS`, rows by
    player then deal, and :data:`FATAL_COLUMNS` (:func:`solver.player_games`) if
    ``fatal_budget`` is not 0.  ``workers`` processes (default: every core); ``progress(k)``
    is called as ``k`` more games finish."""
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
    warm_up(["players", "fair", *(["bandit"] if any(p.kind == "bandit" for p in chosen) else [])])
    # pieces of deals, each player's in turn, so that progress (and the time left it implies)
    # mixes fast and slow players from the start; small pieces for the players that sample
    slow = any(p.kind != "simple" for p in chosen)
    size = max(1, min(20 if slow else 200, len(nums) // (4 * workers) or 1))
    tasks = [(k, i, nums[k:k + size], p) for k in range(0, len(nums), size)
             for i, p in enumerate(chosen)]
    done: dict[tuple[int, int], pd.DataFrame] = {}
    if workers == 1:
        for k, i, piece, p in tasks:
            done[i, k] = _play_piece(piece, p, seed, fatal_budget)
            if progress:
                progress(len(piece))
    else:
        with stoppable_pool(workers) as pool:  # Ctrl-C stops the workers too
            futures = {pool.submit(_play_piece, piece, p, seed, fatal_budget): (i, k, len(piece))
                       for k, i, piece, p in tasks}
            for f in as_completed(futures):
                i, k, n = futures[f]
                done[i, k] = f.result()
                if progress:
                    progress(n)
    parts = [done[key] for key in sorted(done)]  # rows by player, then deal
    return pd.concat(parts, ignore_index=True)


# --- side by side -----------------------------------------------------------------------
def ladder(games: pd.DataFrame, against: Sequence[str] = ("greedy", "lookahead")) -> pd.DataFrame:
    """One row per player of ``games`` (in its order): ``player, deals, won, win_rate, ci_low,
    ci_high``, for each player ``X`` of ``against`` present ``vs_X, vs_X_low, vs_X_high`` (the
    win rate's paired difference on the same deals), ``seconds_per_game`` (the mean),
    ``seconds_median`` (the median game's: one slow game moves the mean of a few games, not
    it) and ``evaluations_per_game`` (roll-outs played, or the PIMC player's solves)."""
    wide = games.pivot(index="deal", columns="player", values="won")
    rows = []
    for name in dict.fromkeys(games["player"]):
        g = games[games["player"] == name]
        n, k = len(g), int(g["won"].sum())
        row = {"player": name, "deals": n, "won": k, "win_rate": k / n}
        row["ci_low"], row["ci_high"] = wilson_interval(k, n)
        for other in against:
            if other in wide:  # a player against itself: no difference, no interval
                row[f"vs_{other}"], row[f"vs_{other}_low"], row[f"vs_{other}_high"] = (
                    (0.0, 0.0, 0.0) if other == name else
                    paired_difference(wide[name].to_numpy(), wide[other].to_numpy()))
        row["seconds_per_game"] = float(g["seconds"].mean())
        row["seconds_median"] = float(g["seconds"].median())
        row["evaluations_per_game"] = float(g["evaluations"].mean())
        rows.append(row)
    return pd.DataFrame(rows)


def ceiling(numbers: Iterable[int], budget: int = DEFAULT_BUDGET) -> dict:
    """The solver's verdicts on the deals ``numbers`` (solved here, ``budget`` positions a
    deal): ``deals, won, unresolved, win_rate, ci_low, ci_high, budget``, the deals that can
    be won at all, the most any player could win (an unresolved deal counted as not won)."""
    nums = [int(n) for n in numbers]
    verdicts = [VERDICT_NAMES[int(v)] for v in solve_numbers(nums, budget).verdicts]
    n, k = len(nums), verdicts.count("win")
    low, high = wilson_interval(k, n)
    return {"deals": n, "won": k, "unresolved": verdicts.count("unresolved"),
            "win_rate": k / n, "ci_low": low, "ci_high": high, "budget": budget}


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
              player: str = "fair", known: Sequence[tuple[int, int]] = ()) -> dict:
    """What a fair player can say about ``position`` (given as :func:`view_deal` makes it:
    nothing here looks under the tops): the move of ``player`` and, for each legal move,
    in how many of ``samples`` layouts drawn uniformly among those consistent with the view
    the solver (``budget`` positions a solve) finds the position after it winnable; from the
    same layouts (paired), ``position_wins`` those in which some move keeps the win
    (``position_open``: none does and some child was not settled), ``best`` the move of
    most keeps, ``recommended`` the player's move unless clearly below the best (then the
    best), and for each move ``only``/``only_best`` (layouts won after it and not after the
    best, and the other way) and ``diff_low``/``diff_high`` (the 95 % interval of its share
    minus the best's, Newcombe's paired interval).  ``known``: places (pile, depth) under
    the tops whose card the player knows (seen, then covered by an undo): kept in every
    layout."""
    h = _fair_hint(position, samples, seed, budget, player, known=known)
    return {"move": None if h.move is None else str(h.move), "samples": h.samples,
            "position_wins": h.wins, "position_open": h.open,
            "best": None if h.best is None else str(h.best),
            "recommended": None if h.recommended is None else str(h.recommended),
            "moves": [{"move": str(m), "keeps": k, "unresolved": u, "only": a, "only_best": b,
                       "diff_low": lo, "diff_high": hi}
                      for m, k, u, a, b, lo, hi in zip(h.moves, h.keeps, h.unresolved, h.only,
                                                       h.only_best, h.low, h.high)]}
