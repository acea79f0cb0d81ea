"""A partial position analysed (playing along with the app): how often it can be won, after
each legal move, and how the fair player fares from it.

A partial deal (:attr:`Deal.is_partial`: the pile cards the app has not shown are unknown)
stands for every layout consistent with what is known: its unknown places filled with the
cards not seen, each arrangement as likely (:meth:`Deal.sample`).  On layouts drawn so, two
different questions are answered, and the answer says which is which:

- **Winnable** (:attr:`PartialAnalysis.winnable`, and each move's
  :attr:`MoveShare.share`): the share of layouts in which the position (or the position
  after the move) can be won *by someone who then sees every card*: the solver's verdict on
  the layout.  An upper bound on anyone's chance; a move that lowers it throws layouts away.
- **The fair player's chance** (:attr:`PartialAnalysis.fair`): the share of its games, one
  on each of some of the same layouts, that the fair player (who sees only what the app
  shows, and decides on that alone) wins from here; with its move
  (:attr:`PartialAnalysis.fair_move`).  What a good player can expect.

Every share comes with its Wilson interval (95 %) and its sample count; a layout the solver
could not settle within its budget counts as not won at the low end and as won at the high
end.  :func:`partial_analyses` yields better answers as samples come in (a batch of layouts
for the shares, then a few of the fair player's games, again and again), holding only counts;
:func:`analyse_partial` stops it at a number of samples or seconds.  Every random choice
comes from ``seed`` and what is known, never from the cards not entered.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, replace
from typing import Iterator, Optional

import numpy as np

from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.moves import Move

from .stats import paired_difference, win_interval

DEFAULT_BUDGET = 20_000  # positions a solve of a sampled layout (the board's fair hint's)
SHARE_BATCH = 16  # layouts a batch of shares
FAIR_BATCH = 1  # the fair player's games a batch
FAIR_TIME = 0.25  # the share of the time the fair player's games may take


@dataclass(frozen=True)
class Share:
    """Of ``samples`` layouts, ``wins`` in which it is won and ``unresolved`` in which the
    solver could not settle it; ``low``/``high``: the 95 % Wilson interval (unresolved as
    lost at the low end, won at the high end)."""

    wins: int
    unresolved: int
    samples: int

    @property
    def value(self) -> Optional[float]:
        """The share won (None before any sample)."""
        return self.wins / self.samples if self.samples else None

    @property
    def interval(self) -> tuple[float, float]:
        return win_interval(self.wins, self.samples - self.wins - self.unresolved,
                            self.unresolved)

    def to_dict(self) -> dict:
        low, high = self.interval
        return {"share": self.value, "low": low, "high": high, "wins": self.wins,
                "unresolved": self.unresolved, "samples": self.samples}


@dataclass(frozen=True)
class MoveShare:
    """A legal move, the cards it removes and the share of layouts in which the position
    after it can still be won (by someone who then sees every card); against the best move
    on the same layouts (paired): ``only`` layouts won after this move and not after the
    best, ``only_best`` the other way, and ``diff`` (this move's share minus the best's)
    with its 95 % interval ``diff_low``/``diff_high`` (Newcombe's for paired
    proportions)."""

    move: Move
    cards: tuple[str, ...]
    share: Share
    only: int = 0
    only_best: int = 0
    diff: float = 0.0
    diff_low: float = 0.0
    diff_high: float = 0.0

    @property
    def clearly_below(self) -> bool:
        """Whether its share is clearly below the best's (the paired interval below 0)."""
        return self.diff_high < 0


@dataclass(frozen=True)
class PartialAnalysis:
    """The analysis of a partial position so far (see the module): ``winnable`` (the share
    of layouts in which it can be won by someone who then sees every card), ``moves`` (each
    legal move's share after it, the engine's order), ``fair_move`` (the fair player's move)
    and ``fair`` (the share of the fair player's games from here that it wins), with
    ``seconds`` spent and the settings (``seed``, ``budget``, ``player``).  The position
    and the moves are solved on the same layouts: the position is won in a layout exactly
    when some move's child is (so no move's share is above ``winnable``); ``best`` is the
    move of most wins (ties to the tuned player's move, then to the first in the engine's
    order) and ``recommended`` the same move, the board's recommendation (:data:`RULE`)."""

    cards_left: int
    unknown: int
    winnable: Share
    moves: tuple[MoveShare, ...]
    fair_move: Optional[Move]
    fair: Share
    seconds: float
    seed: int
    budget: int
    player: str
    best: Optional[Move] = None
    recommended: Optional[Move] = None

    def to_dict(self) -> dict:
        """As JSON (``analyse --json`` of a partial layout): each legal move's share under
        ``legal_moves``."""
        return {
            "cards_left": self.cards_left,
            "unknown": self.unknown,
            "winnable": {"question": "share of layouts consistent with what is known in which "
                         "the position can be won by someone who then sees every card",
                         **self.winnable.to_dict()},
            "legal_moves": [
                {"move": str(m.move), "cards": list(m.cards), **m.share.to_dict(),
                 "vs_best": {"difference": m.diff, "low": m.diff_low, "high": m.diff_high,
                             "only_this": m.only, "only_best": m.only_best,
                             "clearly_below": m.clearly_below}}
                for m in self.moves],
            "best": None if self.best is None else str(self.best),
            "recommended": {"rule": RULE,
                            "move": None if self.recommended is None else str(self.recommended)},
            "fair": {"question": f"share of the fair player's ({self.player}) games from here "
                     "that it wins, seeing only what the app shows",
                     "move": None if self.fair_move is None else str(self.fair_move),
                     **self.fair.to_dict()},
            "seconds": round(self.seconds, 3), "seed": self.seed, "budget": self.budget,
            "player": self.player,
        }


def _check(position) -> Deal:
    if isinstance(position, Game):
        position = position.remaining_deal()
    if not isinstance(position, Deal):
        raise HalfMoonError(f"expected a Deal or a Game, got {position!r}")
    waiting = Game(position).waiting
    if waiting:
        raise HalfMoonError(f"{', '.join(waiting)}: the top card is not known; enter it first "
                            "(the app shows every top card)")
    return position


def _layout(position: Deal, seed: int, k: int) -> Deal:
    """The ``k``-th layout of ``seed``: it depends on what is known, ``seed`` and ``k``."""
    return position.sample(random.Random(f"halfmoon-partial:{seed}:{k}"))


def _plays_first(line, move: Move) -> bool:
    """Whether a winning line from the position can play ``move`` first and still win:
    ``move`` is in it and no move before touches its sources (so it takes the same cards,
    and the moves before it stay legal without them)."""
    sources = set(move.sources)
    for m in line:
        if m == move:
            return True
        if sources.intersection(m.sources):
            return False
    return False


def _verdicts(layout: Deal, moves: list[Move], budget: int) -> tuple[str, list[str]]:
    """The solver's verdict on a full layout, and after each of ``moves``.  A lost position
    loses after every move; a child whose move a winning line already found (the
    position's, or a sibling's with its move first) can play first is won without a solve."""
    from solver import solve

    if layout.card_count() == 0:
        return "win", []
    top = solve(layout, budget)
    if top.verdict == "loss":
        return "loss", ["loss"] * len(moves)
    if not moves:
        return top.verdict, []
    lines = [top.moves] if top.verdict == "win" else []
    game = Game(layout)
    out = []
    for move in moves:
        if any(_plays_first(line, move) for line in lines):
            out.append("win")
            continue
        game.push(move)
        if game.cards_left() == 0:
            verdict = "win"
        else:
            r = solve(game.remaining_deal(), budget)
            verdict = r.verdict
            if verdict == "win":
                lines.append((move, *r.moves))
        game.pop()
        out.append(verdict)
    # the position is won where some move keeps the win (a winning line's first move does,
    # and it was found above), so its share and the moves' come from the same layouts
    if "win" in out:
        return "win", out
    return ("loss" if set(out) == {"loss"} else "unresolved"), out


def _fair_move(position: Deal, seed: int, player: str) -> Optional[Move]:
    from solver import fair_hint

    # the hint reads the view only (the tops, the reserve, the hidden multiset): every
    # layout consistent with what is known gives the same view (a card known under a top,
    # from a layout file, is hidden to it, as in the app)
    return fair_hint(_layout(position, seed, -1), 1, seed, 1, player).move


def _fair_wins(position: Deal, seed: int, player: str, ks: range) -> int:
    """How many of the fair player's games on layouts ``ks`` (each seeded from ``seed`` and
    its index) it wins."""
    from solver import player_games

    games = player_games([_layout(position, seed, k) for k in ks], player,
                         [random.Random(f"halfmoon-fair:{seed}:{k}").getrandbits(64)
                          for k in ks])
    return int(sum(games.won))


def partial_analyses(position, *, seed: int = 0, budget: int = DEFAULT_BUDGET,
                     player: str = "fair", share_batch: int = SHARE_BATCH,
                     fair_batch: int = FAIR_BATCH,
                     fair_time: float = FAIR_TIME) -> Iterator[PartialAnalysis]:
    """Answers on ``position`` (a partial Deal, or a Game on one: its current position) that
    improve as samples come in, without end: one after each ``share_batch`` layouts solved
    (each move's child, ``budget`` positions a solve) and one after each ``fair_batch`` games
    of ``player`` (a name of :data:`solver.FAIR_PLAYERS`; 0: no games) on the same layouts,
    played while their time is at most ``fair_time`` of the time spent (the first batch
    comes after the first batch of layouts, whatever it costs).  A layout's children are
    solved after the layout itself: a lost layout is lost after every move, and a child
    whose move a winning line found can play first needs no solve.  Memory holds counts.
    A full-information Deal works too (its one layout: itself).  Raises
    :class:`~halfmoon.game.errors.HalfMoonError` when a pile's top card is not known."""
    for name, value in (("share_batch", share_batch), ("fair_batch", fair_batch)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise HalfMoonError(f"{name} must be a whole number of at least 0, got {value!r}")
    if share_batch < 1:
        raise HalfMoonError("share_batch must be at least 1")
    position = _check(position)
    t0 = time.perf_counter()
    game = Game(position)
    moves = list(game.legal_moves)
    cards = [tuple(game.card_at(s).symbol() for s in m.sources) for m in moves]
    fair_move = _fair_move(position, seed, player) if moves else None
    tie = _fair_move(position, seed, "tuned") if moves else None  # the rule's tie-break
    n = w = u = 0
    mw = [0] * len(moves)
    mu = [0] * len(moves)
    won_rows: list[list[bool]] = []  # a layout a row: whether each move's child is won
    fair_n = fair_w = 0
    fair_seconds = 0.0
    if not moves:  # won, or a dead end: so is the fair player's game
        fair_n, fair_w = 1, int(game.cards_left() == 0)

    def answer() -> PartialAnalysis:
        shares, best, recommended = _paired(moves, cards, mw, mu, n, won_rows, tie)
        return PartialAnalysis(
            position.card_count(), sum(position.unknown().values()), Share(w, u, n),
            shares, fair_move, Share(fair_w, 0, fair_n), time.perf_counter() - t0, seed,
            budget, player, best, recommended)

    while True:
        for _ in range(share_batch):
            whole, verdicts = _verdicts(_layout(position, seed, n), moves, budget)
            for j, v in enumerate(verdicts):
                mw[j] += v == "win"
                mu[j] += v == "unresolved"
            won_rows.append([v == "win" for v in verdicts])
            w += whole == "win"
            u += whole == "unresolved"
            n += 1
        yield answer()
        spent = time.perf_counter() - t0
        if fair_batch and moves and fair_seconds <= fair_time * spent:
            t1 = time.perf_counter()
            ks = range(fair_n, fair_n + fair_batch)
            fair_w += _fair_wins(position, seed, player, ks)
            fair_n += fair_batch
            fair_seconds += time.perf_counter() - t1
            yield answer()


RULE = ("the move of largest share; among moves of equal share the tuned player's move, "
        "else the first in the engine's order")


def _paired(moves: list[Move], cards: list, wins: list[int], unresolved: list[int], n: int,
            rows: list[list[bool]], tie: Optional[Move]):
    """The moves' shares with each one against the best on the same layouts (``rows``), the
    best move (ties to ``tie``, then to the first) and the recommended one (:data:`RULE`:
    the best)."""
    if not moves:
        return (), None, None
    table = np.array(rows, dtype=float).reshape(len(rows), len(moves))
    k = moves.index(tie) if tie in moves else 0
    best = max(range(len(moves)), key=lambda j: (wins[j], j == k))
    out = []
    for j, (m, c) in enumerate(zip(moves, cards)):
        diff, low, high = paired_difference(table[:, j], table[:, best]) if n else (0.0, -1.0, 1.0)
        out.append(MoveShare(m, c, Share(wins[j], unresolved[j], n),
                             int(np.sum((table[:, j] == 1) & (table[:, best] == 0))),
                             int(np.sum((table[:, j] == 0) & (table[:, best] == 1))),
                             float(diff), float(low), float(high)))
    return tuple(out), moves[best], moves[best]


def analyse_partial(position, *, samples: int = 256, games: int = 16,
                    seconds: Optional[float] = None, seed: int = 0,
                    budget: int = DEFAULT_BUDGET, player: str = "fair") -> PartialAnalysis:
    """The analysis of a partial position (see :func:`partial_analyses`) once at least
    ``samples`` layouts have been solved for the shares (whole batches of 16) and ``games``
    of the fair player's games played (on the first layouts; they come in between batches,
    and the rest after the shares), or when ``seconds`` have passed (after at least one
    batch of layouts)."""
    for name, value, least in (("samples", samples, 1), ("games", games, 0)):
        if isinstance(value, bool) or not isinstance(value, int) or value < least:
            raise HalfMoonError(f"{name} must be a whole number of at least {least}, "
                                f"got {value!r}")
    if seconds is not None and not seconds > 0:
        raise HalfMoonError(f"seconds must be a positive number, got {seconds!r}")
    t0 = time.perf_counter()

    def out_of_time() -> bool:
        return seconds is not None and time.perf_counter() - t0 >= seconds

    best = None
    for best in partial_analyses(position, seed=seed, budget=budget, player=player,
                                 share_batch=min(SHARE_BATCH, samples),
                                 fair_batch=1 if games else 0):
        if best.winnable.samples >= samples or out_of_time():
            break
    fair = best.fair
    while best.moves and fair.samples < games and not out_of_time():
        k = fair.samples
        fair = Share(fair.wins + _fair_wins(_check(position), seed, player, range(k, k + 1)),
                     0, k + 1)
    return replace(best, fair=fair, seconds=time.perf_counter() - t0)


def _pct(share: Share) -> str:
    if not share.samples:
        return "   – (no sample yet)"
    low, high = share.interval
    return f"{100 * share.value:5.1f} %  [{100 * low:5.1f}, {100 * high:5.1f}]"


def format_partial(a: PartialAnalysis) -> str:
    """The text ``halfmoon analyse`` prints for a partial position: each number says which
    question it answers."""
    n = a.winnable.samples
    unresolved = f", {a.winnable.unresolved} unresolved" if a.winnable.unresolved else ""
    lines = [
        f"partial position: {a.cards_left} cards left, {a.unknown} of them not known yet; "
        f"{n} layouts drawn among those consistent with what is known (seed {a.seed}), "
        f"{a.seconds:.1f} s",
        "",
        "Winnable: the share of those layouts in which the game can be won by someone who "
        "then sees every card",
        f"(the solver, {a.budget:,} positions a layout; 95 % intervals):",
        f"  from here        {_pct(a.winnable)}  of {n} layouts{unresolved}",
    ]
    if a.moves:
        lines.append("  after each legal move (the same layouts; against the best: its share "
                     "minus the best's, in points, 95 % paired interval):")
        width = max(len(str(m.move)) for m in a.moves)
        cwidth = max(len(" + ".join(m.cards)) for m in a.moves)
        for m in a.moves:
            marks = []
            if m.move == a.recommended:
                marks.append("recommended")
            if m.move == a.fair_move:
                marks.append("the fair player's move")
            if m.move == a.best:
                marks.append("the best")
            elif m.clearly_below:
                marks.append("clearly below the best")
            mark = f"  <- {', '.join(marks)}" if marks else ""
            if m.share.unresolved:
                mark = f"  ({m.share.unresolved} unresolved)" + mark
            vs = (f"{100 * m.diff:+6.1f} [{100 * m.diff_low:+6.1f}, {100 * m.diff_high:+6.1f}]"
                  if n else "")
            lines.append(f"    {str(m.move):<{width}}  {' + '.join(m.cards):<{cwidth}}  "
                         f"{_pct(m.share)}  {vs}{mark}")
        lines.append(f"  recommended: {a.recommended} ({RULE})")
    else:
        lines.append("  no legal move" + (": won" if a.cards_left == 0 else ": a dead end"))
    lines += [
        "",
        f"The fair player ({a.player}): its own chance of winning from here, seeing only what "
        "the app shows",
        "(its games, one on each of the first layouts):",
    ]
    if a.fair_move is not None:
        cards = next(m.cards for m in a.moves if m.move == a.fair_move)
        lines.append(f"  its move         {a.fair_move}  {' + '.join(cards)}")
    lines.append(f"  it wins          {_pct(a.fair)}  of {a.fair.samples} games")
    return "\n".join(lines) + "\n"
