"""A deal's level: worked out by a solver process's job (the difficulty model on the deal
solved there), kept for a bounded number of deals, none for a game from the app or a
position that is not a whole deal."""

from __future__ import annotations

import pytest
from board_helpers import EXAMPLE

from halfmoon.batch.difficulty import estimate_numbers
from halfmoon.board.games import LiveGame
from halfmoon.board.jobs import run_job
from halfmoon.board.levels import Levels, level_number
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.layouts import format_layout, parse_layout
from solver import solve


def NONE():  # the deal's verdict not known to the board
    return None


class Along(LiveGame):
    kind = "along"  # played along with the app: nothing the app does not show


def live(deal) -> LiveGame:
    return LiveGame("g", Game(deal))


def test_the_job_answers_the_models_words_on_the_deal_solved_or_its_verdict_given():
    words = estimate_numbers([100], [solve(100).verdict])[0].words()
    assert run_job(("level", 100, 2_000_000, None)) == {"level": words}
    assert run_job(("level", 55, 2_000_000, None)) == {"level": "cannot be won"}  # a loss
    # the board's verdict of the deal, when it has one, is taken as it is: no solve
    assert run_job(("level", 100, 1, "win")) == {"level": words}
    assert run_job(("level", 100, 1, "loss")) == {"level": "cannot be won"}


def test_only_a_whole_known_deal_has_a_level():
    assert level_number(live(Deal.from_number(100))) == 100
    assert level_number(live(EXAMPLE)) is None  # a position, not a whole deal
    assert level_number(Along("g", Game(Deal.from_number(100)))) is None
    # all 104 cards laid out by hand (a layout file without a code): no number, no level
    by_hand = parse_layout(format_layout(Deal.from_number(100), code=""))
    assert by_hand.is_full and level_number(live(by_hand)) is None
    levels = Levels()
    assert levels.jobs(live(EXAMPLE), NONE, 1) == [] and levels.of(live(EXAMPLE)) is None


def test_a_level_is_asked_once_then_kept():
    levels, game = Levels(), live(Deal.from_number(100))
    [job] = levels.jobs(game, NONE, 5)
    assert job.message() == ("level", 100, 5, None) and levels.of(game) is None
    [job] = levels.jobs(game, lambda: "win", 5)  # the deal's verdict known: carried
    assert job.message() == ("level", 100, 5, "win") and job.key == ("level", 100)
    levels.record(100, {"level": "easy (…)"})
    assert levels.of(game) == "easy (…)" and levels.jobs(game, NONE, 5) == []


def test_a_level_the_model_cannot_give_shows_none_and_is_not_asked_again():
    levels, game = Levels(), live(Deal.from_number(7))
    levels.record(7, {"error": "the solver process failed: EOFError"})
    assert levels.of(game) is None and levels.jobs(game, NONE, 5) == [] and 7 in levels
    levels.record(7, {"level": None, "why": "no difficulty model"})
    assert levels.of(game) is None and levels.jobs(game, NONE, 5) == []


def test_the_levels_kept_are_bounded_the_least_recently_used_dropped():
    levels = Levels(capacity=2)
    levels.record(1, {"level": "a"})
    levels.record(2, {"level": "b"})
    assert levels.of(live(Deal.from_number(1))) == "a"  # used: 2 is now the oldest
    levels.record(3, {"level": "c"})
    assert len(levels) == 2 and 2 not in levels and 1 in levels and 3 in levels
    assert levels.jobs(live(Deal.from_number(2)), NONE, 5)  # dropped: asked again
    with pytest.raises(ValueError, match="at least 1"):
        Levels(capacity=0)
