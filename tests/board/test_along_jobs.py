"""The solver processes' jobs for a game played along with the app: the share of layouts,
the fair hint beside it, and the end-of-game review."""

from __future__ import annotations

import random
from collections import Counter

from board_helpers import EXAMPLE, TRAP
from conftest import make_layout
from test_along import DEAD_END_DEAL, DEAD_END_MOVES, play_along

from halfmoon.board.along_jobs import (
    along_job,
    hidden_places,
    last_winnable,
    review_job,
    shuffled,
)
from halfmoon.board.jobs import run_job
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.layouts import format_layout
from halfmoon.game.moves import Move


def test_shuffled_deals_again_only_the_places_given():
    deal = Deal.from_number(4)
    places = hidden_places(deal)
    assert len(places) == 84
    again = shuffled(deal, places, random.Random(1))
    assert Counter(again.cards()) == Counter(deal.cards())
    assert [p[-1] for p in again.piles] == [p[-1] for p in deal.piles]
    assert again.reserve == deal.reserve
    assert again.piles != deal.piles


def test_along_job_counts_the_winnable_layouts_and_gives_the_fair_hint():
    # the example: one card under a top (J♣ under 6♦), so every layout is the deal: won
    out = along_job(format_layout(EXAMPLE), 8, 1, 20_000)
    assert out["samples"] == 8 and out["wins"] == 8 and out["unresolved"] == 0
    legal = {str(m) for m in Game(EXAMPLE).legal_moves}
    assert {m["move"] for m in out["moves"]} == legal
    assert out["move"] in legal


def test_along_job_is_the_same_for_the_same_text_and_seed():
    deal = Deal.from_number(DEAD_END_DEAL)
    along = play_along(deal, DEAD_END_MOVES[:1])
    text = format_layout(along.game.remaining_deal(), code="")
    first = along_job(text, 16, 7, 20_000)
    assert first == along_job(text, 16, 7, 20_000)
    assert 0 <= first["wins"] <= 16


def test_run_job_knows_the_along_jobs():
    out = run_job(("along", format_layout(TRAP), 4, 1, 20_000))
    assert out["samples"] == 4 and "moves" in out
    assert "error" in run_job(("review", "not a layout", [], [], 4, 1, 1000))


def test_the_along_job_keeps_the_known_places():
    # the 6 under the 5c: lost whatever the two other hidden cards; drawn again, won mostly
    text = make_layout({1: "3c 10c", 2: "8c Ac", 3: "6c 5c"})
    drawn = run_job(("along", text, 16, 1, 5_000, []))
    known = run_job(("along", text, 16, 1, 5_000, [[2, 0]]))
    assert 0 < drawn["wins"] < 16 and known["wins"] == 0
    assert known["moves"][0]["keeps"] == 0 and "error" not in known


def test_last_winnable_on_a_won_line_and_on_a_dead_end():
    game = Game(TRAP)
    line = [Move.parse(m) for m in ("P1+R1", "R2+P1")]  # 10♣ + A♦, then A♣ + 10♦: won
    assert last_winnable(TRAP, line, 10_000, False) == (2, False)
    lost = [Move.parse("R1+R2")]  # A♦ + 10♦ leaves 10♣ over the last Ace
    game.push(lost[0])
    assert last_winnable(TRAP, lost, 10_000, False)[0] == 0


def test_review_of_a_dead_end():
    deal = Deal.from_number(DEAD_END_DEAL)
    along = play_along(deal, DEAD_END_MOVES)
    assert along.is_over
    out = review_job(format_layout(along.start_deal()), along.unknown_places(),
                     [str(m) for m in along.game.stack], 16, 3, 20_000)
    wins = out["wins"]
    assert out["samples"] == 16 and len(wins) == len(DEAD_END_MOVES) + 1
    assert wins[-1] == 0  # the dead end is lost in every layout
    assert all(a >= b for a, b in zip(wins, wins[1:]))  # never winnable after a lost one


def test_review_of_a_game_with_nothing_unknown_is_one_layout():
    line = ["P1+R1", "R2+P1"]
    out = review_job(format_layout(TRAP), [], line, 64, 1, 10_000)
    assert out == {"samples": 64, "wins": [64, 64, 64], "unresolved": 0}


def test_walk_job_gives_each_childs_verdict_as_a_solve_of_it_would():
    from halfmoon.board.along_jobs import layout_cards, layout_deal
    from solver import solve

    deal = Deal.from_number(DEAD_END_DEAL)
    game = Game(deal)
    for move in DEAD_END_MOVES[:2]:
        game.play(move)
    position = game.remaining_deal()
    assert layout_deal(layout_cards(position)).piles == position.piles
    moves = [str(m) for m in game.legal_moves]
    given = run_job(("walk", [layout_cards(position)], moves, 20_000))
    found = run_job(("walk", [layout_cards(position)], None, 20_000))
    assert given["verdicts"] == found["verdicts"] and given["cpu"] >= 0
    [said] = given["verdicts"]
    expected = {}
    for move in game.legal_moves:
        game.push(move)
        expected[str(move)] = solve(game.remaining_deal(), budget=20_000).verdict[0]
        game.pop()
    if "w" not in expected.values():  # a lost position: said in one word, {}
        assert said == {}
    else:
        assert {m: v for m, v in said.items() if m != "*"} == expected and said["*"] == "w"


def test_walk_job_says_a_lost_position_in_one_word():
    from halfmoon.board.along_jobs import layout_cards

    game = Game(Deal.from_number(DEAD_END_DEAL))
    for move in DEAD_END_MOVES:
        game.play(move)
    assert game.is_dead_end
    assert run_job(("walk", [layout_cards(game.remaining_deal())], None, 1))["verdicts"] == [{}]


def test_moves_job_names_the_fair_and_the_tuned_players_moves():
    out = run_job(("moves", format_layout(Deal.from_number(5)), 3, 20_000, []))
    legal = {str(m) for m in Game(Deal.from_number(5)).legal_moves}
    assert out["fair"] in legal and out["tuned"] in legal


def test_a_walk_of_some_moves_gives_theirs_and_the_positions_verdict():
    from halfmoon.board.along_jobs import layout_cards
    from solver import solve

    game = Game(Deal.from_number(5))
    line = solve(game.deal).moves
    for move in line[:20]:
        game.push(move)
    position = game.remaining_deal()
    legal = [str(m) for m in game.legal_moves]
    full = run_job(("walk", [layout_cards(position)], legal, 20_000))["verdicts"][0]
    some = run_job(("walk", [layout_cards(position)], legal, 20_000, legal[:2]))["verdicts"][0]
    assert some == {k: v for k, v in full.items() if k in ("*", *legal[:2])}
    assert some["*"] == "w" and str(line[20]) in legal


def _unsettled_then_won() -> tuple:
    """A deal's start that a walk leaves unsettled within some budget and that a solve
    within AGAIN times it wins: (deal, its legal moves, that budget)."""
    from halfmoon.board.along_jobs import AGAIN
    from solver import solve, walk_games

    for number in range(1, 40):
        deal = Deal.from_number(number)
        moves = list(Game(deal).legal_moves)
        for budget in (25, 50, 100, 200, 400, 800):
            if walk_games(deal, [moves[:1]], budget)[0].start != "unresolved":
                continue
            if solve(deal, budget=budget * AGAIN).verdict == "win":
                return deal, moves, budget
            break
    raise AssertionError("no start found unsettled within a budget and won within twice it")


def test_a_position_the_walk_leaves_unsettled_is_solved_again_within_more():
    from halfmoon.board.along_jobs import AGAIN, _first_of, children_verdicts
    from solver import solve

    deal, moves, budget = _unsettled_then_won()
    said = children_verdicts(deal, moves, budget)
    line = list(solve(deal, budget=budget * AGAIN).moves)
    assert said["*"] == "w" and set(said) == {"*", *map(str, moves)}
    game = Game(deal)
    for move in moves:
        game.push(move)
        alone = solve(game.remaining_deal(), budget=budget).verdict[0]
        game.pop()
        # a child the line plays first is won; the others as a solve within the budget says
        assert said[str(move)] == ("w" if _first_of(line, move) else alone)
    assert any(_first_of(line, m) for m in moves)


def test_a_position_unsettled_again_has_every_child_unsettled():
    from halfmoon.board.along_jobs import children_verdicts

    deal = Deal.from_number(DEAD_END_DEAL)
    moves = list(Game(deal).legal_moves)
    assert children_verdicts(deal, moves, 1) == {"*": "u", **{str(m): "u" for m in moves}}
