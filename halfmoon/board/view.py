"""The state of a live game as the page draws it: plain JSON, every fact from the engine.

The page places the cards (3 piles up the left, 7 across the top, 2 down the right, the
reserve in two rows of four in the centre) and draws what it is given here: each
pile's top card and count, each reserve slot, the selection, the cards Placement
assistance dims, the Move errors message, the status bar and the end of the game.
"""

from __future__ import annotations

from typing import Optional

from halfmoon.game.cards import Card
from halfmoon.game.deal import PILE_SOURCES, RESERVE_SOURCES
from halfmoon.game.engine import Position

from .games import LiveGame

RED_SUITS = (1, 2)  # diamonds, hearts
WON = "Victory: every card is removed."
DEAD_END = ("Dead end: among the playable cards there is no pair adding up to 11 and no "
            "Jack, Queen, King trio. Undo, or start a new game.")


def position_token(position: Position) -> str:
    """A short text naming a position of a deal: the pile counts in hex, then the
    reserve slots as a bit mask.  The page ties every answer to one."""
    mask = sum(1 << r for r, full in enumerate(position.reserve) if full)
    return "".join(f"{n:x}" for n in position.counts) + f"-{mask:02x}"


def card_view(card: Optional[Card]) -> Optional[dict]:
    if card is None:
        return None
    return {"rank": card.rank_name, "suit": "♣♦♥♠"[card.suit], "red": card.suit in RED_SUITS,
            "text": card.symbol(), "face": card.is_face}


def state_view(live: LiveGame, level: Optional[str] = None) -> dict:
    """Everything the page draws of a game, as JSON-ready data; ``level``: the deal's
    level in words, once a solver process has answered it (:mod:`halfmoon.board.levels`),
    else None (no level shown)."""
    game = live.game
    piles = [{"source": s, "card": card_view(game.card_at(s)), "count": n}
             for s, n in zip(PILE_SOURCES, game.counts)]
    reserve = [{"source": s, "card": card_view(game.card_at(s)), "count": int(full)}
               for s, full in zip(RESERVE_SOURCES, game.reserve_full)]
    seconds = max(int(game.elapsed()), 0)
    over = "won" if game.is_won else "dead end" if game.is_dead_end else None
    return {
        "id": live.id,
        "version": live.version,
        "position": position_token(game.position),
        "piles": piles,
        "reserve": reserve,
        "selection": list(game.selection),
        "dimmed": sorted(game.dimmed()),
        "message": live.message,
        "removed": None if live.removed is None else list(live.removed),
        "settings": {"move_errors": game.settings.move_errors,
                     "placement_assistance": game.settings.placement_assistance},
        "status": {
            "seconds": seconds,
            "time": f"{seconds // 60}:{seconds % 60:02d}",
            "score": game.score,
            "moves": game.move_count,
            "code": game.deal.code,
            "line": game.status_line(),
        },
        "cards_left": game.cards_left(),
        "can_undo": game.can_undo(),
        "over": over,
        "announcement": WON if over == "won" else DEAD_END if over else None,
        "analysis_asked": live.analysis_asked,
        "level": level,
    }
