"""The solver's front door: what the applications call, each entry checking its input.

Everything else in :mod:`solver` (the kernels, the packed positions, the searches' knobs) is
private to its subpackage and free to change; the applications (``halfmoon.batch``,
``halfmoon.research``, the board, the CLI, the notebooks) import from :mod:`solver` alone.

- One deal: :func:`solve` (a :class:`Result`), :func:`why_lost` and :func:`deadlock` (why
  a loss is lost: a :class:`Deadlock`), :func:`solve_cpsat` (the independent check),
  :func:`solve_plain` (the baseline: a plain memoized search).
- Many deals by number: :func:`solve_numbers` (columns, one row a deal), :func:`line_moves`,
  :func:`deal_features`, :func:`census_features`.
- The positions of a game: :func:`walk_games` (every child's verdict along games' moves).
- The players: :func:`player_named` (a :class:`Player`), :func:`deal_batch`,
  :func:`simple_games` and :func:`player_games` (:class:`Games`), :func:`weighted_wins`,
  :func:`fair_hint` (the board's hint that does not peek), :func:`undo_game` (a player of
  the app with its undo, under some advice).
- The build: :func:`warm_up`, :func:`compile_in_parallel`, :func:`compile_seconds`,
  :func:`is_ready` over the kernel groups of :data:`KERNEL_GROUPS`; :class:`Reference`, the
  workload a benchmark times to know how fast the machine runs.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from numbers import Integral
from typing import Iterable, Optional, Sequence, TextIO, Union

import numpy as np

from halfmoon.game.deal import Deal
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.moves import Move

from .build import warmup as _warmup
from .checks import check_budget as _check_budget
from .checks import check_deal as _check_deal
from .checks import check_deals as _check_deals
from .checks import check_games as _check_games
from .checks import check_known as _check_known
from .checks import check_numbers as _check_numbers
from .checks import check_player as _check_player
from .checks import check_seeds as _check_seeds
from .checks import check_total as _check_total
from .checks import check_whole as _check_whole
from .mirror.convert import delta_to_move as _delta_to_move
from .mirror.generator import LAYOUT_FEATURES
from .players import games as _games
from .players import hint as _hint
from .players import roster as _roster
from .players import undo as _undo
from .players.features import GREEDY_WEIGHTS as _GREEDY_WEIGHTS
from .players.features import NMOVE_FEATURES
from .players.games import DealBatch, Games
from .players.hint import FairHint
from .players.roster import FAIR, Player
from .players.undo import POLICIES as UNDO_POLICIES
from .players.undo import UndoGame
from .portfolio import deadlocks as _deadlocks
from .portfolio import deal_numbers as _numbers
from .portfolio import positions as _positions
from .portfolio.deadlocks import WHY_BUDGET, WHY_TOTAL, Deadlock
from .portfolio.deal_numbers import DEAL_FEATURES, Piece
from .portfolio.positions import GameWalk
from .portfolio.search import DEFAULT_BUDGET, SOLVER_VERSION, Result
from .portfolio.search import deal_number as _deal_number
from .portfolio.search import solve as _solve
from .timing import Reference
from .verdicts import NAMES as _NAMES
from .verdicts import VERDICTS

DealLike = Union[Deal, str, int]

# the kernel groups (name -> what it compiles) and the ones solving any deal may call
KERNEL_GROUPS: dict[str, str] = {name: what for name, (_, what) in _warmup.GROUPS.items()}
SOLVING: tuple[str, ...] = tuple(_warmup.SOLVER)


# --- one deal ------------------------------------------------------------------------------

_solving_ready = False


def _make_solving_ready() -> float:
    """The kernels a solve may call made ready in this process, once (loaded from the cache,
    or compiled saying so on stderr): the seconds it took, 0.0 once they are ready."""
    global _solving_ready
    if _solving_ready:
        return 0.0
    t0 = time.perf_counter()
    _warmup.prepare(SOLVING, out=sys.stderr)
    _solving_ready = True
    return time.perf_counter() - t0


def solve(deal: DealLike, budget: int = DEFAULT_BUDGET, *, why: bool = False) -> Result:
    """Settle ``deal`` (a :class:`~halfmoon.game.deal.Deal`, a deal code, a deal number or a
    layout file's path) with at most ``budget`` positions (and conflicts) of search.

    Returns a :class:`Result`: ``verdict`` ("win", "loss" or "unresolved"), ``moves`` (the
    winning line, which replays through the reference engine), ``nodes``, ``seconds`` (the
    search alone), ``code``, ``number`` (the deal number of a whole deal; None for a
    position), ``settled_by`` (the search that settled it: a member of the portfolio, such
    as ``"quick"`` or ``"urgency"``, or ``"grouping"``; None if unresolved),
    ``setup_seconds`` (the kernels made ready before the search: on the first solve of a
    process only, 0.0 after) and ``solver_version``.  With ``why``, a loss also says why it
    is lost (``why``: :func:`why_lost`, as ``halfmoon solve`` says it; it costs more solves,
    bounded).  Raises :class:`~halfmoon.game.errors.HalfMoonError` (a ``ValueError``) on a
    bad deal or budget."""
    budget = _check_budget(budget)
    d = _check_deal(deal)
    setup = _make_solving_ready()
    result = _solve(d, budget)
    if setup:
        result = dataclasses.replace(result, setup_seconds=setup)
    if why and result.verdict == "loss":
        result = dataclasses.replace(result, why=_deadlocks.smallest_deadlock(
            _solve, d, WHY_BUDGET, result.number, WHY_TOTAL))
    return result


def solve_cpsat(deal: DealLike, time_limit: Optional[float] = None, *,
                counting: bool = False) -> Result:
    """The verdict of the independent constraint model (OR-tools CP-SAT; needs
    ``halfmoon[check]``), as a :class:`Result` whose ``nodes`` are the model's branches and
    ``settled_by`` is ``"cpsat"``; ``time_limit`` in seconds (None: no limit).  With
    ``counting`` the model is written by counts (for each class and step, as many cards of
    each rank of the class removed by then; no pair Booleans), which proves hard losses
    with far fewer conflicts: the census's recheck puts its losses to it."""
    if time_limit is not None and not time_limit > 0:
        raise HalfMoonError(f"time limit must be a positive number of seconds, got {time_limit!r}")
    d = _check_deal(deal)
    try:
        from .check.cpsat import solve_cpsat as _cpsat
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise HalfMoonError("the cpsat engine needs OR-tools: "
                            "pip install 'halfmoon[check]'") from exc
    r = _cpsat([[c.rank for c in pile] for pile in d.piles],
               [None if c is None else c.rank for c in d.reserve], time_limit=time_limit,
               counting=bool(counting))
    moves = None if r.moves is None else tuple(Move(m) for m in r.moves)
    settled_by = None if r.verdict == "unresolved" else "cpsat"
    return Result(r.verdict, moves, int(r.branches), float(r.seconds), d.code, settled_by,
                  number=_deal_number(d))


def deadlock(deal: DealLike, budget: int = DEFAULT_BUDGET,
             total: Optional[int] = None) -> Deadlock:
    """Why ``deal`` (a deal or a position) is lost: its smallest set of classes (A+10, 2+9,
    3+8, 4+7, 5+6, J+Q+K) whose cards alone can never all be cleared, whatever else is
    played (the smallest lost projection, solved by size: proof in docs/solver.md).  Each
    projection gets ``budget`` positions, and all of them ``total`` (None: no bound).

    Returns a :class:`Deadlock`: ``classes`` (empty when none is lost), ``kind``
    (``"faces"``, ``"faces+2"``, ``"pairs:1"``, ...; ``"none"`` for a deal that can be won,
    ``"unresolved"`` past the budget), ``minimal_sets``, ``unresolved``, ``text`` (in
    words), its cost (``solves``, ``nodes``, ``seconds``) and ``to_dict()``."""
    budget = _check_budget(budget)
    total = _check_total(total)
    d = _check_deal(deal)
    _make_solving_ready()
    return _deadlocks.smallest_deadlock(_solve, d, budget, _deal_number(d), total)


def why_lost(deal: DealLike, budget: int = WHY_BUDGET, total: int = WHY_TOTAL) -> Deadlock:
    """:func:`deadlock` kept small for a user waiting on one lost deal or position (what
    ``solve(deal, why=True)`` and ``halfmoon solve`` give a loss): past ``budget`` positions
    a projection or ``total`` in all, ``kind == "unresolved"`` ("why is not known within
    the budget").  Called on a deal that can be won it finds no lost projection
    (``kind == "none"``) after solving them all: ask it of deals proved lost."""
    if total is None:
        raise HalfMoonError("why_lost is bounded: give total a number of positions "
                            "(deadlock has no total)")
    return deadlock(deal, budget, total)


# --- many deals by number ------------------------------------------------------------------

def solve_numbers(numbers: Sequence[int], budget: int = DEFAULT_BUDGET) -> Piece:
    """Settle many deals by number, the first turn of each in one call of compiled code:
    the same verdicts, positions, lines and settling searches as :func:`solve` on each.

    Returns a :class:`Piece` of columns, one row a deal: ``numbers``, ``verdicts`` (codes:
    :data:`VERDICT_NAMES` names them), ``nodes``, ``seconds``, ``lines`` with ``nline`` moves
    of each row (the solver's move numbers: :func:`line_moves` reads them), ``features``
    (:data:`DEAL_FEATURES`) and ``settled_by``."""
    return _numbers.solve_numbers(_check_numbers(numbers), _check_budget(budget))


def solve_plain(deal: DealLike, budget: int = DEFAULT_BUDGET) -> Result:
    """The baseline the solver is measured against: a plain memoized depth-first search of
    the same packed positions, with only the free-card rule (no other pruning, no portfolio,
    no grouping search), at most ``budget`` positions.  Its verdicts are exact too; a
    :class:`Result` whose ``settled_by`` is ``"plain"``."""
    from .depth_first.pruning import FREE_CARDS

    budget = _check_budget(budget)
    d = _check_deal(deal)
    _make_solving_ready()
    r = _solve(d, budget, rules=FREE_CARDS)
    return dataclasses.replace(r, settled_by=None if r.verdict == "unresolved" else "plain")


VERDICT_NAMES: dict[int, str] = dict(_NAMES)  # the verdict codes of solve_numbers, named


def line_moves(line: Iterable[int]) -> tuple[Move, ...]:
    """The game's moves of a line of the solver's move numbers (a row of
    :attr:`Piece.lines`, its first ``nline`` entries)."""
    return tuple(_delta_to_move(int(m)) for m in line)


def move_of(number: int) -> Move:
    """The game's move of one of the solver's move numbers (as :func:`line_moves`)."""
    return _delta_to_move(int(number))


def deal_features(numbers: Sequence[int]) -> np.ndarray:
    """The features of each deal's start (:data:`DEAL_FEATURES`: legal moves, faces in the
    reserve, faces on the pile tops, classes with a move), from the deal numbers alone: an
    int64 array, a row a deal, a column a feature."""
    nums = _check_numbers(numbers)
    _warmup.prepare(["features"], out=None)
    out = np.zeros((nums.size, len(DEAL_FEATURES)), np.int64)
    _numbers.start_features(nums, out)
    return out


def census_features(numbers: Sequence[int]) -> np.ndarray:
    """:func:`deal_features` followed by the layout's (:data:`LAYOUT_FEATURES`), each deal
    generated once; the compiled code releases the GIL, so threads may share the work."""
    nums = _check_numbers(numbers)
    out = np.zeros((nums.size, len(DEAL_FEATURES) + len(LAYOUT_FEATURES)), np.int64)
    _numbers.census_features(nums, out)
    return out


# --- the build -----------------------------------------------------------------------------

def _check_groups(groups) -> list[str]:
    names = [groups] if isinstance(groups, str) else list(groups)
    for g in names:
        if g not in KERNEL_GROUPS:
            raise HalfMoonError(f"no kernel group {g!r}: expected one of "
                                f"{', '.join(KERNEL_GROUPS)}")
    return names


def warm_up(groups: Iterable[str] = SOLVING, out: Optional[TextIO] = sys.stderr) -> dict[str, str]:
    """Make the kernels of ``groups`` (names of :data:`KERNEL_GROUPS`; by default what
    solving a deal may call) ready in this process, so that no deal's time includes
    loading them: loaded from numba's cache, or compiled there once for every process
    sharing it, saying so on ``out`` (None: silent).  Returns what happened to each group:
    ``"loaded"``, ``"compiled"`` or ``"waited"``."""
    return _warmup.prepare(_check_groups(groups), out)


def compile_in_parallel(groups: Iterable[str] = SOLVING, processes: int = 2,
                        out: Optional[TextIO] = sys.stderr) -> float:
    """Compile the groups not yet in the cache in up to ``processes`` helper processes,
    without loading them here (a run does this before its workers start); the seconds it
    took, 0.0 when all were ready."""
    if isinstance(processes, bool) or not isinstance(processes, Integral) or processes < 1:
        raise HalfMoonError(f"processes must be at least 1, got {processes!r}")
    return _warmup.compile_in_parallel(_check_groups(groups), int(processes), out)


def compile_seconds() -> float:
    """Seconds this process has spent compiling kernels so far (so rates can count solving
    alone)."""
    return _warmup.compile_seconds()


def is_ready(group: str) -> bool:
    """Whether kernel group ``group`` is compiled in the cache for the current sources."""
    return _warmup.is_ready(_check_groups([group])[0])


# --- the positions of a game (forgiveness, deadlocks) -------------------------------------


def walk_games(deal: DealLike, games: Iterable[Sequence[Move]],
               budget: int = DEFAULT_BUDGET) -> tuple[GameWalk, ...]:
    """The verdict on every child of every position along each of ``games`` (each a sequence
    of moves, :class:`~halfmoon.game.moves.Move`, played from the start of ``deal``), while
    the game keeps the deal winnable; each solve gets ``budget`` positions.

    The deal's start is solved once; a game is walked only from a start proved won, and the
    walk stops after the first position whose game move has a child lost or unresolved (the
    budget spent: never guessed), or when the moves run out (the position they leave is not
    walked).  Most children are settled by proofs without a solve (a child emptied of cards,
    or won by a line of its parent or sibling with one move played first; the child of a
    lost child's position), and the solves of one walk share a table of lost positions: the
    verdicts are the solver's, and a walk depends on that walk alone.

    Returns a :class:`GameWalk` per game: ``start`` (the deal's verdict: "win", "loss" or
    "unresolved"), ``children`` (a position walked each, the start first: a dict from each
    legal move there to its child's verdict), ``solves`` and ``nodes`` (the solver's calls
    and their positions, the start's included).  Raises
    :class:`~halfmoon.game.errors.HalfMoonError` on a bad deal or budget, or on a move that
    is not legal where its game plays it."""
    d = _check_deal(deal)
    budget = _check_budget(budget)
    return _positions.walk_games(d, _check_games(games), budget)


# --- the players ---------------------------------------------------------------------------
# Players by name (a small Player object), deals made into arrays once (a DealBatch), a game
# of a player on each deal (Games: columns, a row a deal), the board's fair hint.


# the simple players: name -> (player code, lookahead depth); simple_games plays them
SIMPLE_PLAYERS: dict[str, tuple[int, int]] = dict(_roster.SIMPLE)
# the names player_named knows (each sampling one also as NAME@SAMPLES)
FAIR_PLAYERS: tuple[str, ...] = (*_roster.PLAYERS, "fair")
# greedy's moves as the weighted player's weights over the NMOVE_FEATURES move features
GREEDY_WEIGHTS: np.ndarray = _GREEDY_WEIGHTS.copy()
GREEDY_WEIGHTS.flags.writeable = False


def player_named(name: str, samples: Optional[int] = None) -> Player:
    """The :class:`Player` called ``name``: one of :data:`FAIR_PLAYERS`, or ``NAME@K`` (a
    sampling player at K samples a decision); at ``samples`` samples a decision if given
    (players that do not sample keep none).  A Player carries its settings (``samples``,
    ``budget``, ...), ``about`` (what it does, in words) and ``settings()`` (its settings in
    words); :func:`player_games` plays it."""
    if not isinstance(name, str):
        raise HalfMoonError(f"a player's name must be a string, got {name!r}")
    if samples is not None:
        samples = _check_whole(samples, "samples", 1)
    return _roster.player_named(name, samples)


def deal_batch(deals: Iterable[DealLike]) -> DealBatch:
    """``deals`` (deal numbers, Deals, deal codes or layout files) made once into the arrays
    the players take: a :class:`DealBatch`, for :func:`simple_games`, :func:`player_games`
    and :func:`weighted_wins` to play many times."""
    return _check_deals(deals)


def simple_games(deals: Union[DealBatch, Iterable[DealLike]], player: str = "greedy",
                 seeds: Optional[Sequence[int]] = None) -> Games:
    """A game of the simple player ``player`` (a name of :data:`SIMPLE_PLAYERS`) on each of
    ``deals`` (a :class:`DealBatch`, or deals as :func:`deal_batch` takes them), all in one
    call of compiled code; ``seeds`` (one a deal, 0..2**64-1; None: all 0) seed the random
    player's games.  Returns :class:`Games`: ``won``, ``moves_made``, ``cards_left``,
    ``lines`` (the moves as the solver's move numbers: :func:`line_moves` reads them)."""
    if player not in _roster.SIMPLE:
        raise HalfMoonError(f"unknown simple player {player!r} (expected one of "
                            f"{', '.join(_roster.SIMPLE)})")
    batch = _check_deals(deals)
    code, depth = _roster.SIMPLE[player]
    return _games.simple_games(batch, code, depth, _check_seeds(seeds, len(batch)))


def player_games(deals: Union[DealBatch, Iterable[DealLike]], player: Union[Player, str],
                 seeds: Sequence[int], fatal_budget: int = 0) -> Games:
    """A game of ``player`` (a :class:`Player`, or a name as :func:`player_named` takes it)
    on each of ``deals``, ``seeds[d]`` (0..2**64-1) seeding deal ``d``'s game, a game at a
    time.  Returns :class:`Games` with each game's own ``seconds`` and its ``evaluations``
    (roll-outs played, or the PIMC player's solves); with ``fatal_budget`` positions a
    solve (0: none), where each game was lost: ``start`` (the solver's verdict on the deal),
    ``fatal_ply`` and ``fatal_cards_left`` (the moves made and cards left before the first
    move after which the game could no longer be won; -1 if none) and ``unresolved`` (a
    solve ran out of budget: no fatal move named)."""
    p = _check_player(player)
    batch = _check_deals(deals)
    budget = _check_whole(fatal_budget, "the fatal move's budget", 0)
    return _games.player_games(batch, p, _check_seeds(seeds, len(batch)), budget)


def weighted_wins(deals: Union[DealBatch, Iterable[DealLike]], weights: Sequence[float],
                  threads: int = 0) -> np.ndarray:
    """Whether the weighted player (the move with the largest weighted sum of its
    :data:`NMOVE_FEATURES` move features; :data:`GREEDY_WEIGHTS` play greedy's moves) with
    ``weights`` wins each of ``deals``: a bool array, on ``threads`` threads (0: every
    core)."""
    w = np.asarray(weights, np.float64)
    if w.shape != (NMOVE_FEATURES,) or not np.isfinite(w).all():
        raise HalfMoonError(f"weights must be {NMOVE_FEATURES} finite numbers, got shape {w.shape}")
    return _games.weighted_wins(_check_deals(deals), w, _check_whole(threads, "threads", 0))


def fair_hint(position: DealLike, samples: int, seed: int, budget: int = 20_000,
              player: str = "fair", known: Sequence[tuple[int, int]] = ()) -> FairHint:
    """What a fair player can say about ``position`` (a Deal, read as the app shows it:
    give it with its hidden cards out of place, nothing here looks under the tops): the move
    ``player`` (a name as :func:`player_named` takes it) would make, and for each legal move
    in how many of ``samples`` layouts drawn uniformly among those consistent with the view
    the solver (``budget`` positions a solve) wins the position after it.  ``seed`` (any
    whole number, modulo 2**64) seeds the draws.  ``known``: places (pile index from 0,
    depth from the bottom) under the tops whose card the player knows, as one who undid
    the move that uncovered it does: every layout keeps their cards there.  Returns a
    :class:`FairHint`."""
    p = _check_player(player)
    d = _check_deal(position)
    samples = _check_whole(samples, "samples", 1)
    if isinstance(seed, bool) or not isinstance(seed, Integral):
        raise HalfMoonError(f"seed must be a whole number, got {seed!r}")
    return _hint.fair_hint(d, p, samples, int(seed), _check_budget(budget),
                           _check_known(d, known))


def undo_game(deal: DealLike, policy: str, *, samples: int = 16, review: int = 16,
              budget: int = 20_000, max_moves: int = 2_000, seed: int = 0,
              rollouts: int = 0) -> UndoGame:
    """A game of the app's player with undo on ``deal`` under ``policy`` (one of
    :data:`UNDO_POLICIES`): it sees only what the app shows and remembers every card it has
    seen; ``samples`` layouts drawn from what it knows a decision of the advice, ``review``
    a review at a dead end, ``budget`` positions a solve; it stops when the deal is won or
    ``max_moves`` moves are made (the undone ones too); ``rollouts``: the fair player's
    layouts a decision (0: :data:`FAIR`'s own).  ``seed`` seeds its random numbers.
    Returns an :class:`UndoGame`."""
    from .mirror.convert import deal_arrays
    from .mirror.position import initial_position

    if policy not in UNDO_POLICIES:
        raise HalfMoonError(f"unknown policy {policy!r} (expected one of "
                            f"{', '.join(UNDO_POLICIES)})")
    d = _check_deal(deal)
    piles, reserve = deal_arrays(d)
    return _undo.undo_game(piles, reserve, int(initial_position(piles, reserve)), policy,
                           samples=_check_whole(samples, "samples", 1),
                           review=_check_whole(review, "review", 1), budget=_check_budget(budget),
                           max_moves=_check_whole(max_moves, "max_moves", 1),
                           seed=int(seed) % (1 << 64),
                           rollouts=_check_whole(rollouts, "rollouts", 0))


__all__ = [
    # one deal, the check, many deals by number, the build
    "DEFAULT_BUDGET", "SOLVER_VERSION", "VERDICTS", "VERDICT_NAMES", "Result", "Piece",
    "Deadlock", "deadlock", "why_lost", "WHY_BUDGET", "WHY_TOTAL",
    "DEAL_FEATURES", "LAYOUT_FEATURES", "KERNEL_GROUPS", "SOLVING",
    "solve", "solve_cpsat", "solve_plain", "solve_numbers", "line_moves", "move_of",
    "deal_features", "census_features", "warm_up", "compile_in_parallel", "compile_seconds",
    "is_ready", "Reference",
    # the positions of a game
    "GameWalk", "walk_games",
    # the players
    "Player", "DealBatch", "Games", "FairHint", "FAIR", "FAIR_PLAYERS", "SIMPLE_PLAYERS",
    "NMOVE_FEATURES", "GREEDY_WEIGHTS", "player_named", "deal_batch", "simple_games",
    "player_games", "weighted_wins", "fair_hint", "UNDO_POLICIES", "UndoGame", "undo_game",
]
