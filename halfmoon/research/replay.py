"""A game played elsewhere, checked: its moves replayed and the move that lost the win found.

The moves (written in the notation of :mod:`halfmoon.game.notation`, or given as Moves) are
replayed through the reference engine from the deal, so a move that is not legal where it
is played is refused, naming it.  Along a game the verdicts are monotone (a position before
a winnable one is winnable, one after a lost one is lost), so the move that turned a
winnable game into a lost one, the *fatal move*, is found by bisection over the positions
of the game, as the board's move list finds it: the start and the end are solved, then the
middle of the gap between the last position known winnable and the first known lost, about
log2(moves) solves in all.  Nothing is guessed: a position the solver leaves unresolved
within its budget stops the search, and the fatal move is then only known to lie in a range.

Usage::

    g = replay_game("HM1-N-AAAAAAD", "P4+P7 P2+P3+R3")
    g.fatal          # 2: the second move lost the win (None if none did)
    print(format_replay(g))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Union

from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.moves import Move
from halfmoon.game.notation import format_moves, parse_moves

DEFAULT_BUDGET = 1_000_000


@dataclass(frozen=True)
class Replay:
    """A game replayed: ``verdicts[k]`` is the verdict after the first ``k`` moves ("win",
    "loss", "unresolved", or None where neither solved nor implied), ``fatal`` the number
    (1-based) of the move that lost the win, if found; else ``lost_between`` gives the
    moves ``(a, b)`` among which it is, when the solver left the positions between open."""

    code: Optional[str]
    moves: tuple[Move, ...]
    written: tuple[str, ...]  # each move with its cards
    verdicts: tuple[Optional[str], ...]  # ply 0..n
    fatal: Optional[int]
    lost_between: Optional[tuple[int, int]]
    cards_left: int  # after the last move
    solves: int
    nodes: int
    budget: int

    @property
    def start(self) -> Optional[str]:
        return self.verdicts[0]

    @property
    def end(self) -> Optional[str]:
        return self.verdicts[-1]

    def to_dict(self) -> dict:
        return {"code": self.code, "budget": self.budget, "start": self.start, "end": self.end,
                "fatal": self.fatal, "lost_between": self.lost_between,
                "cards_left": self.cards_left,
                "moves": [{"n": k, "move": str(m), "text": w, "after": v}
                          for k, (m, w, v) in enumerate(zip(self.moves, self.written,
                                                            self.verdicts[1:]), 1)],
                "solves": self.solves, "nodes": self.nodes}


def _as_moves(moves: Union[str, Sequence[Move]], deal: Deal) -> tuple[Move, ...]:
    if isinstance(moves, str):
        return parse_moves(moves, deal)
    out = tuple(moves)
    for m in out:
        if not isinstance(m, Move):
            raise HalfMoonError(f"expected moves as text or Moves, got {m!r}")
    game = Game(deal)
    for k, m in enumerate(out, start=1):
        if not game.is_legal(m):
            raise HalfMoonError(f"move {k} ({m}) is not legal where it is played")
        game.push(m)
    return out


def replay_game(deal: Union[Deal, str, int], moves: Union[str, Sequence[Move]],
                budget: int = DEFAULT_BUDGET) -> Replay:
    """Replay ``moves`` (text in the move notation, or Moves) from ``deal`` (a Deal, a code,
    a deal number or a layout file) and find the move that lost the win; each solve gets
    ``budget`` positions.  Raises :class:`~halfmoon.game.errors.HalfMoonError` naming the
    first move that cannot be read or played."""
    from solver import solve

    from .forgiveness import _as_deal

    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise HalfMoonError(f"budget must be at least 1 position, got {budget!r}")
    d = _as_deal(deal)
    played = _as_moves(moves, d)
    game = Game(d)
    positions = [d]
    for m in played:
        game.push(m)
        positions.append(game.remaining_deal())
    n = len(played)
    settled: list[Optional[str]] = [None] * (n + 1)
    cost = [0, 0]

    def verdict(ply: int) -> str:
        if settled[ply] is None:
            if positions[ply].card_count() == 0:
                settled[ply] = "win"
            else:
                r = solve(positions[ply], budget)
                cost[0] += 1
                cost[1] += r.nodes
                settled[ply] = r.verdict
        return settled[ply]

    fatal, between = None, None
    if verdict(0) == "win" and n and verdict(n) == "loss":
        lo, hi = 0, n  # lo winnable, hi lost
        while hi - lo > 1:
            mid = (lo + hi) // 2
            v = verdict(mid)
            if v == "unresolved":
                break
            lo, hi = (mid, hi) if v == "win" else (lo, mid)
        if hi - lo == 1:
            fatal = hi
        else:
            between = (lo + 1, hi)
    known = _implied(settled)
    return Replay(d.code, played, tuple(format_moves(played, d)), tuple(known), fatal, between,
                  positions[-1].card_count(), cost[0], cost[1], budget)


def _implied(settled: list[Optional[str]]) -> list[Optional[str]]:
    """The verdicts with what monotonicity implies: winnable before a win, lost after a loss."""
    wins = [k for k, v in enumerate(settled) if v == "win"]
    losses = [k for k, v in enumerate(settled) if v == "loss"]
    last_win = wins[-1] if wins else -1
    first_loss = losses[0] if losses else len(settled)
    return ["win" if k <= last_win else "loss" if k >= first_loss else v
            for k, v in enumerate(settled)]


_SAYS = {"win": "winnable", "loss": "lost", "unresolved": "not known", None: "-"}


def format_replay(g: Replay) -> str:
    """The text ``halfmoon analyse --moves`` prints: each move, the verdict after it, the
    fatal move marked ``??``, and a closing line."""
    head = g.code or "position"
    lines = [f"{head}: {len(g.moves)} moves replayed; at the start: {_SAYS[g.start]}"]
    width = max((len(w) for w in g.written), default=0)
    for k, (w, v) in enumerate(zip(g.written, g.verdicts[1:]), start=1):
        mark = "  ?? lost the win" if k == g.fatal else ""
        lines.append(f"  {k:2d}. {w:<{width}}  {_SAYS[v]}{mark}")
    lines.append("game: " + summary(g))
    return "\n".join(lines) + "\n"


def summary(g: Replay) -> str:
    """One line: what became of the game, and which move lost the win."""
    if g.start == "loss":
        return "lost from the start: no line of play wins this deal"
    if g.start == "unresolved":
        return f"not known whether the start is winnable within {g.budget:,} positions"
    if g.fatal is not None:
        return (f"lost; move {g.fatal} ({g.written[g.fatal - 1]}) turned the winnable game "
                f"into a lost one")
    if g.lost_between is not None:
        a, b = g.lost_between
        return (f"lost by one of moves {a}-{b} (the solver could not settle the positions "
                f"between within {g.budget:,} positions)")
    if g.end == "win":
        return "won" if g.cards_left == 0 else "still winnable after the last move"
    return f"not known within {g.budget:,} positions whether the last position is winnable"

