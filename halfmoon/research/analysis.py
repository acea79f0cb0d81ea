"""Position analysis: every legal move of a position, and whether the game stays winnable.

The reference engine lists the legal moves (all of them, unpruned); the solver
settles the position after each one within a budget of positions.  The position
itself is winnable exactly when some move keeps it winnable, lost when every move
loses (or there is none), and otherwise, when the children leave it open, the
solver is asked about the position itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.inputs import load_deal
from halfmoon.game.moves import Move

DEFAULT_BUDGET = 1_000_000


@dataclass(frozen=True)
class MoveVerdict:
    """One legal move and the solver's verdict on the position after it."""

    move: Move
    cards: tuple[str, ...]  # the cards removed, e.g. ('5♠', '6♦')
    verdict: str  # "win" | "loss" | "unresolved"
    nodes: int
    seconds: float

    @property
    def written(self) -> str:
        """The move in the notation of :mod:`halfmoon.game.notation`: ``5♠ P1 + 6♦ P8``."""
        return " + ".join(f"{c} {s}" for c, s in zip(self.cards, self.move.sources))


@dataclass(frozen=True)
class Analysis:
    """The analysis of a position: its verdict and every legal move's."""

    code: Optional[str]
    cards_left: int
    verdict: str
    moves: tuple[MoveVerdict, ...]
    budget: int

    @property
    def winning_moves(self) -> tuple[Move, ...]:
        return tuple(m.move for m in self.moves if m.verdict == "win")

    def to_dict(self) -> dict:
        """As JSON (``analyse --json``): the legal moves under ``legal_moves``, a name no
        reader takes for a line to play (``solve --json``'s ``moves``)."""
        return {
            "code": self.code,
            "cards_left": self.cards_left,
            "verdict": self.verdict,
            "budget": self.budget,
            "legal_moves": [
                {
                    "move": str(m.move),
                    "text": m.written,
                    "sources": list(m.move.sources),
                    "cards": list(m.cards),
                    "verdict": m.verdict,
                    "nodes": m.nodes,
                    "seconds": m.seconds,
                }
                for m in self.moves
            ],
        }


def analyse(position: Union[Deal, Game, str, int], budget: int = DEFAULT_BUDGET) -> Analysis:
    """Analyse a deal or position (a Deal, a Game's current position, a code,
    a deal number or a layout file); each move's solve gets ``budget`` positions."""
    from solver import solve

    if budget < 1:
        raise ValueError(f"budget must be at least 1 position, got {budget}")
    if isinstance(position, Game):
        deal = position.remaining_deal()
    elif isinstance(position, Deal):
        deal = position
    elif isinstance(position, int):
        deal = Deal.from_number(position)
    else:
        deal = load_deal(position)
    game = Game(deal)
    verdicts = []
    for move in list(game.legal_moves):
        cards = tuple(game.card_at(s).symbol() for s in move.sources)
        game.push(move)
        if game.cards_left() == 0:
            verdict, nodes, seconds = "win", 0, 0.0
        else:
            r = solve(game.remaining_deal(), budget=budget)
            verdict, nodes, seconds = r.verdict, r.nodes, r.seconds
        game.pop()
        verdicts.append(MoveVerdict(move, cards, verdict, nodes, seconds))
    found = {v.verdict for v in verdicts}
    if game.cards_left() == 0 or "win" in found:
        verdict = "win"
    elif not found or found == {"loss"}:
        verdict = "loss"
    else:
        verdict = solve(deal, budget=budget).verdict
    return Analysis(deal.code, game.cards_left(), verdict, tuple(verdicts), budget)


_SAYS = {"win": "stays winnable", "loss": "lost", "unresolved": "unresolved (budget spent)"}


def format_analysis(a: Analysis) -> str:
    """The text printed by ``halfmoon analyse``."""
    head = a.code or "position"
    lines = [f"{head}: {a.cards_left} cards left, {len(a.moves)} legal moves"]
    if a.moves:
        width = max(len(m.written) for m in a.moves)
        for m in a.moves:
            lines.append(
                f"  {m.written:<{width}}  {_SAYS[m.verdict]:<25}  {m.nodes:>12,} positions"
            )
    says = {
        "win": "winnable" if a.cards_left else "won",
        "loss": "lost",
        "unresolved": f"unresolved within {a.budget:,} positions per move",
    }[a.verdict]
    if a.moves:
        says += f" ({len(a.winning_moves)} of {len(a.moves)} moves keep it winnable)"
    lines.append(f"position: {says}")
    return "\n".join(lines) + "\n"
