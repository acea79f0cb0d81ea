"""A game replayed: the move that lost the win, found by bisection, against every position."""

from __future__ import annotations

import pytest

from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.notation import format_line
from halfmoon.research.replay import format_replay, replay_game, summary
from halfmoon.research.strategies import play
from solver import solve


def lost_game(start: int):
    """A random player's lost game on a winnable deal from ``start`` on: (deal, moves)."""
    for n in range(start, start + 50):
        deal = Deal.from_number(n)
        if solve(deal, budget=200_000).verdict != "win":
            continue
        for seed in range(5):
            game = play(deal, "random", seed)
            if not game.won:
                return deal, list(game.moves)
    raise AssertionError("no lost game found")


def verdicts_along(deal, moves):
    game = Game(deal)
    out = [solve(deal, budget=1_000_000).verdict]
    for m in moves:
        game.play(m)
        out.append("win" if game.cards_left() == 0 else
                   solve(game.remaining_deal(), budget=1_000_000).verdict)
    return out


@pytest.mark.parametrize("start", [0, 100])
def test_the_fatal_move_is_the_first_after_which_the_game_is_lost(start):
    deal, moves = lost_game(start)
    g = replay_game(deal, format_line(moves, deal))
    truth = verdicts_along(deal, moves)
    fatal = next(k for k in range(1, len(truth)) if truth[k] == "loss")
    assert g.fatal == fatal and g.lost_between is None
    assert truth[fatal - 1] == "win"
    # every verdict given (solved or implied by the order) is the truth
    assert all(v is None or v == t for v, t in zip(g.verdicts, truth))
    assert g.solves < len(moves)  # bisection: far fewer solves than positions
    text = format_replay(g)
    lines = text.splitlines()
    assert lines[fatal].endswith("?? lost the win") and f"{fatal:2d}. " in lines[fatal]
    assert sum("??" in line for line in lines) == 1
    assert lines[-1] == "game: " + summary(g)
    assert f"move {fatal} ({g.written[fatal - 1]}) turned the winnable game into a lost one" \
        in lines[-1]
    assert g.to_dict()["fatal"] == fatal and len(g.to_dict()["moves"]) == len(moves)


def test_a_game_still_winnable_a_won_game_and_a_lost_deal():
    deal = Deal.from_number(3)
    line = solve(deal).moves
    g = replay_game(deal, list(line[:10]))
    assert g.fatal is None and g.end == "win" and summary(g) == "still winnable after the last move"
    g = replay_game(deal, list(line))
    assert g.cards_left == 0 and summary(g) == "won"
    loss = next(n for n in range(400) if solve(n, budget=200_000).verdict == "loss")
    g = replay_game(loss, "")
    assert g.start == "loss" and g.fatal is None
    assert summary(g).startswith("lost from the start")


def test_an_unresolved_position_leaves_a_range():
    deal, moves = lost_game(0)
    g = replay_game(deal, moves, budget=1)  # nothing is settled within one position
    assert g.fatal is None
    assert "not known" in summary(g) or g.lost_between is not None


def test_bad_moves_are_named():
    deal = Deal.from_number(3)
    with pytest.raises(HalfMoonError, match="cannot read 'x'"):
        replay_game(deal, "P1+P8 x")
    line = solve(deal).moves
    with pytest.raises(HalfMoonError, match=r"^move 2 \("):
        replay_game(deal, [line[0], line[0]])
    with pytest.raises(HalfMoonError, match="budget"):
        replay_game(deal, "", budget=0)
