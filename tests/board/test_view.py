"""The state the page draws: cards and counts in their places, selection, dimming,
message, status bar, the end of the game; and the position's token."""

from __future__ import annotations

from board_helpers import EXAMPLE, TRAP

from halfmoon.board.games import LiveGame
from halfmoon.board.view import DEAD_END, WON, position_token, state_view
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game, Settings


def view(deal, settings=Settings(), clock=None) -> tuple[LiveGame, dict]:
    kwargs = {"clock": clock} if clock else {}
    live = LiveGame("g", Game(deal, settings=settings, **kwargs))
    return live, state_view(live)


def test_top_cards_and_counts_in_every_place():
    _, s = view(EXAMPLE)
    assert [p["source"] for p in s["piles"]] == [f"P{i}" for i in range(1, 13)]
    assert [r["source"] for r in s["reserve"]] == [f"R{i}" for i in range(1, 9)]
    p1, p8 = s["piles"][0], s["piles"][7]
    assert p1 == {"source": "P1", "count": 1, "card": {"rank": "5", "suit": "♠", "red": False,
                                                        "text": "5♠", "face": False}}
    assert p8["count"] == 2 and p8["card"]["text"] == "6♦" and p8["card"]["red"]
    assert s["piles"][1] == {"source": "P2", "card": None, "count": 0}
    assert s["reserve"][0]["card"]["text"] == "A♥" and s["reserve"][0]["card"]["red"]
    assert s["reserve"][1]["card"]["rank"] == "10" and not s["reserve"][1]["card"]["red"]
    assert s["reserve"][2] == {"source": "R3", "card": None, "count": 0}
    assert s["piles"][2]["card"]["face"] and s["piles"][2]["card"]["text"] == "K♥"


def test_selection_dimming_and_message_come_from_the_engine():
    live, s = view(EXAMPLE, Settings(move_errors=True, placement_assistance=True))
    assert s["selection"] == [] and s["dimmed"] == []
    live.tap("P1")
    s = state_view(live)
    assert s["selection"] == ["P1"] and s["dimmed"] == ["P3", "P5", "R1", "R2"]
    live.tap("R1")
    s = state_view(live)
    assert s["selection"] == [] and s["message"] == "The sum must equal 11"
    assert s["settings"] == {"move_errors": True, "placement_assistance": True}


def test_the_status_bar():
    now = [100.0]
    live, s = view(EXAMPLE, clock=lambda: now[0])
    live.tap("P1")
    live.tap("P8")
    now[0] += 75.4
    s = state_view(live)
    assert s["status"] == {"seconds": 75, "time": "1:15", "score": 10, "moves": 1, "code": None,
                           "line": "Time 1:15  Score 10  Moves 1  no code"}
    assert s["removed"] == ["P1", "P8"] and s["can_undo"] and s["cards_left"] == 5


def test_victory_and_dead_end_are_announced():
    live, s = view(EXAMPLE)
    assert s["over"] is None and s["announcement"] is None
    for move in ("P1+P8", "P3+P5+P8", "R1+R2"):
        live.game.play(move)
    s = state_view(live)
    assert s["over"] == "won" and s["announcement"] == WON and s["status"]["score"] == 35
    live, _ = view(TRAP)
    for move in ("R1+R2", "P3+P4", "P5+P6", "P7+P8", "P9+P10"):
        live.game.play(move)
    s = state_view(live)
    assert s["over"] == "dead end" and s["announcement"] == DEAD_END


def test_the_position_token_names_counts_and_reserve():
    game = Game(1)
    assert position_token(game.position) == "888888888888-ff"
    game.play(next(iter(game.legal_moves)))
    token = position_token(game.position)
    assert token != "888888888888-ff" and len(token) == 15
    tokens = set()
    for move in list(game.legal_moves):
        game.push(move)
        tokens.add(position_token(game.position))
        game.pop()
    assert len(tokens) == len(game.legal_moves)


def test_the_level_is_the_one_given_and_none_until_then():
    live = LiveGame("g", Game(Deal.from_number(100)))
    assert state_view(live)["level"] is None  # not answered yet: no level shown
    words = "medium (the fair player wins it 46 %, 95 % interval 16-79 %)"
    assert state_view(live, words)["level"] == words
