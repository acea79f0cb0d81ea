"""Taps: selection, removal and the "Move errors" and "Placement assistance" settings."""

from __future__ import annotations

import pytest
from conftest import make_game

from halfmoon import IllegalMoveError, Move, Settings
from halfmoon.game.cards import parse_card
from halfmoon.game.taps import SUM_MESSAGE, TRIPLET_MESSAGE, TapOutcome, resolve_tap

# The worked example's cards (5♠ P1, K♥ P3, Q♥ P5, 6♦ over J♣ P8, A♥ R1, 10♣ R2),
# with a second K♥ (P11), a second Queen (Q♠ P12) and a second Jack (J♠ P10).
PILES = {1: "5s", 3: "Kh", 5: "Qh", 8: "Jc 6d", 10: "Js", 11: "Kh", 12: "Qs"}
RESERVE = "Ah 10c"


def game_with(**settings):
    return make_game(PILES, RESERVE, settings=Settings(**settings))


def test_layout_has_the_cards_the_taps_need():
    game = game_with()
    shown = {s: str(c) for s, c in game.playable().items()}
    assert shown == {
        "P1": "5s", "P3": "Kh", "P5": "Qh", "P8": "6d", "P10": "Js",
        "P11": "Kh", "P12": "Qs", "R1": "Ah", "R2": "10c",
    }


def test_first_tap_selects():
    game = game_with()
    outcome = game.tap("P1")
    assert outcome == TapOutcome(("P1",))
    assert game.selection == ("P1",)


@pytest.mark.parametrize("second", ["R1", "P3"])  # A♥ (5 + 1 ≠ 11), K♥ (a face)
def test_misfit_removes_nothing_and_clears_selection(second):
    game = game_with()
    game.tap("P1")
    outcome = game.tap(second)
    assert outcome.removed is None
    assert outcome.selection == () and game.selection == ()
    assert game.move_count == 0 and game.score == 0
    assert game.cards_left() == 10
    assert outcome.message is None  # "Move errors" is off by default


@pytest.mark.parametrize(
    "first, second, message",
    [
        ("P1", "R1", "The sum must equal 11"),  # 5♠ then A♥
        ("P1", "P3", "The sum must equal 11"),  # 5♠ then K♥: number then face
        ("P3", "P1", "Requires a Jack, a Queen and a King"),  # K♥ then 5♠: face then number
        ("P3", "R1", "Requires a Jack, a Queen and a King"),  # K♥ then A♥
    ],
)
def test_move_errors_messages(first, second, message):
    game = game_with(move_errors=True)
    assert game.tap(first).message is None
    outcome = game.tap(second)
    assert outcome.message == message
    assert outcome.removed is None and game.selection == ()


def test_message_constants_are_the_apps_words():
    assert SUM_MESSAGE == "The sum must equal 11"
    assert TRIPLET_MESSAGE == "Requires a Jack, a Queen and a King"


def test_two_faces_then_a_number_gives_triplet_message():
    game = game_with(move_errors=True)
    game.tap("P10")
    game.tap("P5")
    outcome = game.tap("R1")
    assert outcome.message == TRIPLET_MESSAGE
    assert game.selection == () and game.move_count == 0


def test_no_message_on_success_even_with_move_errors():
    game = game_with(move_errors=True)
    game.tap("R1")
    outcome = game.tap("R2")
    assert outcome.removed == ("R1", "R2")
    assert outcome.message is None


def test_two_kings_of_hearts_second_becomes_selected():
    game = game_with(move_errors=True)
    game.tap("P3")
    outcome = game.tap("P11")
    assert outcome.removed is None
    assert outcome.message is None
    assert game.selection == ("P11",)
    assert game.cards_left() == 10


def test_tapping_the_selected_card_deselects_it():
    game = game_with()
    game.tap("P1")
    outcome = game.tap("P1")
    assert outcome.selection == () and outcome.removed is None
    assert game.selection == ()
    # and the next tap starts a new selection
    game.tap("R1")
    assert game.selection == ("R1",)


def test_pair_removed_on_second_tap():
    game = game_with()
    game.tap("P8")
    outcome = game.tap("P1")
    assert set(outcome.removed) == {"P1", "P8"}
    assert game.selection == ()
    assert game.score == 10 and game.move_count == 1
    assert game.stack == [Move.parse("P1+P8")]
    assert str(game.card_at("P8")) == "Jc"


def test_triplet_removed_on_third_tap():
    game = game_with()
    first = game.tap("P10")  # J♠
    second = game.tap("P5")  # Q♥
    assert first.removed is None and second.removed is None
    assert game.selection == ("P10", "P5")
    assert game.move_count == 0
    third = game.tap("P3")  # K♥
    assert set(third.removed) == {"P3", "P5", "P10"}
    assert game.selection == ()
    assert game.score == 15 and game.move_count == 1
    assert game.stack == [Move.parse("P3+P5+P10")]
    assert game.card_at("P10") is None


def test_triplet_in_any_tap_order():
    game = game_with()
    for source in ("P11", "P10", "P12"):  # K, J, Q
        outcome = game.tap(source)
    assert set(outcome.removed) == {"P10", "P11", "P12"}


def test_jack_queen_then_another_jack_replaces_the_first_jack():
    game = game_with()
    game.play("P1+P8")  # J♣ now shows on pile 8
    game.tap("P10")  # J♠
    game.tap("P5")  # Q♥
    outcome = game.tap("P8")  # J♣ replaces J♠
    assert outcome.removed is None
    assert set(game.selection) == {"P5", "P8"}
    assert len(game.selection) == 2
    outcome = game.tap("P3")  # K♥ completes J♣ Q♥ K♥
    assert set(outcome.removed) == {"P3", "P5", "P8"}
    assert game.card_at("P10") is not None  # the J♠ stayed


def test_deselect_one_of_two_faces_keeps_the_other():
    game = game_with()
    game.tap("P10")
    game.tap("P5")
    game.tap("P10")
    assert game.selection == ("P5",)


def test_tapping_an_empty_pile_or_slot_does_nothing():
    game = game_with(move_errors=True)
    assert game.tap("P2") == TapOutcome(())
    game.tap("P1")
    for empty in ("P2", "P4", "R8"):
        outcome = game.tap(empty)
        assert outcome == TapOutcome(("P1",))
        assert game.selection == ("P1",)
    assert game.cards_left() == 10 and game.move_count == 0


def test_tapping_an_unknown_source_raises():
    game = game_with()
    with pytest.raises(IllegalMoveError, match="P13"):
        game.tap("P13")


def test_tap_accepts_lower_case_and_spaces():
    game = game_with()
    game.tap(" p1 ")
    assert game.selection == ("P1",)


def test_playing_a_move_clears_the_selection():
    game = game_with()
    game.tap("P3")
    game.play("R1+R2")
    assert game.selection == ()


# --- placement assistance ----------------------------------------------------------


def test_placement_assistance_dims_cards_that_cannot_join_a_number():
    game = game_with(placement_assistance=True)
    assert game.dimmed() == set()  # nothing selected
    game.tap("P1")  # 5♠: only the 6♦ can join
    assert game.dimmed() == {"P3", "P5", "P10", "P11", "P12", "R1", "R2"}
    game.tap("P1")
    game.tap("R1")  # A♥: only the 10♣
    assert game.dimmed() == {"P1", "P3", "P5", "P8", "P10", "P11", "P12"}


def test_placement_assistance_dims_cards_that_cannot_join_a_face():
    game = game_with(placement_assistance=True)
    game.tap("P3")  # K♥: Queens and the J♠ can join; the other K♥ cannot
    assert game.dimmed() == {"P1", "P8", "P11", "R1", "R2"}
    game.tap("P5")  # K♥ + Q♥: only the J♠ completes the trio
    assert game.dimmed() == {"P1", "P8", "P11", "P12", "R1", "R2"}


def test_placement_assistance_dims_everything_when_nothing_fits():
    game = make_game({1: "7h 4c", 2: "5s", 3: "6d"}, "",
                     settings=Settings(placement_assistance=True))
    game.tap("P1")  # 4♣: the only 7 is under it
    assert game.dimmed() == {"P2", "P3"}


def test_no_dimming_without_the_setting():
    game = game_with()
    game.tap("P1")
    assert game.dimmed() == set()


# --- the pure function ---------------------------------------------------------------


def test_resolve_tap_pure_function():
    five, six, jack, queen = (parse_card(t) for t in ("5s", "6d", "Jc", "Qh"))
    assert resolve_tap((), "P1", five) == TapOutcome(("P1",))
    assert resolve_tap((("P1", five),), "P8", six) == TapOutcome((), removed=("P1", "P8"))
    assert resolve_tap((("P1", five),), "P2", queen) == TapOutcome((), message=SUM_MESSAGE)
    assert resolve_tap((("P1", jack),), "P2", five) == TapOutcome((), message=TRIPLET_MESSAGE)
    assert resolve_tap((("P1", jack),), "P2", queen) == TapOutcome(("P1", "P2"))
