"""What a solver process does for one job: solve a position, pick a deal; never raise."""

from __future__ import annotations

from board_helpers import EXAMPLE, TRAP

from halfmoon.board.jobs import pick_job, run_job, solve_job
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.layouts import format_layout
from halfmoon.research.strategies import play
from solver import solve


def test_a_solve_answers_a_winning_line_that_replays():
    answer = solve_job(format_layout(EXAMPLE), 10_000)
    assert answer["verdict"] == "win" and answer["nodes"] >= 1
    game = Game(EXAMPLE)
    for move in answer["moves"]:
        game.play(move)
    assert game.is_won


def test_a_lost_position_answers_loss_without_a_line():
    game = Game(TRAP)
    game.play("R1+R2")
    answer = run_job(("solve", format_layout(game.remaining_deal()), 10_000))
    assert answer["verdict"] == "loss" and answer["moves"] is None


def test_a_winnable_pick_is_winnable():
    answer = pick_job("winnable", seed=3, budget=200_000, tries=50)
    deal = Deal.from_number(answer["number"])
    assert answer["code"] == deal.code and answer["verdict"] == "win"
    assert solve(deal, budget=200_000).verdict == "win"


def test_a_hard_pick_is_winnable_and_lost_by_the_greedy_player():
    answer = pick_job("hard", seed=5, budget=200_000, tries=50)
    deal = Deal.from_number(answer["number"])
    assert answer["verdict"] == "win" and len(answer["moves"]) == 48
    assert not play(deal, "greedy").won


def test_a_pick_is_the_same_from_the_same_seed():
    assert (pick_job("hard", 11, 200_000, 50)["number"]
            == pick_job("hard", 11, 200_000, 50)["number"])


def test_a_pick_that_finds_nothing_says_so():
    answer = pick_job("hard", seed=1, budget=1, tries=3)  # a budget of 1 settles no deal
    assert answer == {"error": "no hard deal among 3 random deals; try again"}


def test_bad_jobs_answer_an_error_instead_of_raising():
    assert run_job(("dance",)) == {"error": "unknown job 'dance'"}
    assert run_job(("pick", "easy", 1, 10, 1))["error"].startswith("unknown kind of deal 'easy'")
    broken = run_job(("solve", "P1: Zz\n", 10))
    assert broken["error"].startswith("InvalidLayoutError: position, line 1: unreadable card 'Zz'")
    assert run_job(())["error"].startswith("ValueError")


def test_a_fair_hint_answers_each_legal_move_and_never_sees_the_hidden_cards():
    from halfmoon.game.engine import Game
    from halfmoon.game.layouts import format_layout
    from halfmoon.research.fairplay import view_deal

    deal = Deal.from_number(777)
    view = view_deal(deal)
    assert [p[-1] for p in view.piles] == [p[-1] for p in deal.piles]
    assert view.reserve == deal.reserve
    assert sorted(view.cards()) == sorted(deal.cards())
    answer = run_job(("fair", format_layout(view), 6, 11, 20_000))
    legal = {str(m) for m in Game(deal).legal_moves}
    assert answer["samples"] == 6 and {m["move"] for m in answer["moves"]} == legal
    assert answer["move"] in legal
    assert all(0 <= m["keeps"] <= 6 for m in answer["moves"])
    # the hidden cards put elsewhere: the view, and so the answer, are the same
    shuffled = Deal(piles=[list(reversed(p[:-1])) + list(p[-1:]) for p in deal.piles],
                    reserve=list(deal.reserve))
    assert view_deal(shuffled) == view
    assert run_job(("fair", format_layout(view_deal(shuffled)), 6, 11, 20_000)) == answer
