"""Live games: versions, settings, the analysed position; the store's cap and its order."""

from __future__ import annotations

import pytest
from board_helpers import EXAMPLE

from halfmoon.board.games import GameStore, LiveGame, deal_key
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game, Settings
from halfmoon.game.errors import IllegalMoveError
from halfmoon.game.layouts import format_layout, parse_layout


def live_example() -> LiveGame:
    return LiveGame("g1", Game(EXAMPLE, settings=Settings(move_errors=True)))


def test_every_change_bumps_the_version_and_keeps_the_last_message():
    live = live_example()
    live.tap("P1")
    assert live.version == 1 and live.game.selection == ("P1",)
    outcome = live.tap("R1")  # 5 + A: not 11
    assert outcome.message == live.message == "The sum must equal 11"
    live.tap("P1")
    live.tap("P8")
    assert live.removed == ("P1", "P8") and live.message is None and live.version == 4
    assert live.undo() is not None and live.removed is None and live.version == 5
    assert live.game.score == 0


def test_an_unknown_source_is_the_engine_s_error_and_changes_nothing():
    live = live_example()
    with pytest.raises(IllegalMoveError, match="unknown source 'P13'"):
        live.tap("P13")
    assert live.version == 0


def test_settings_change_one_at_a_time():
    live = LiveGame("g", Game(EXAMPLE))
    assert live.game.settings == Settings()
    live.set_settings(placement_assistance=True)
    assert live.game.settings == Settings(move_errors=False, placement_assistance=True)
    live.set_settings(move_errors=True)
    assert live.game.settings == Settings(move_errors=True, placement_assistance=True)
    live.set_settings(placement_assistance=False)
    assert live.game.settings == Settings(move_errors=True, placement_assistance=False)


def test_the_analysis_belongs_to_the_position_it_was_asked_for():
    live = live_example()
    assert not live.analysis_asked
    live.ask_analysis()
    assert live.analysis_asked
    live.tap("P1")  # a selection is not a move
    assert live.analysis_asked
    live.tap("P8")
    assert not live.analysis_asked
    live.undo()
    assert live.analysis_asked  # back on the position it was asked for


def test_the_store_drops_the_game_used_least_recently():
    store = GameStore(capacity=3)
    a, b, c = (store.add(Game(n)) for n in range(3))
    assert store.get(a.id) is a  # a is now the most recent
    d = store.add(Game(3))
    assert b.id not in store and len(store) == 3 and store.dropped == 1
    assert [g.id for g in store.recent()] == [d.id, a.id, c.id]
    assert store.get(b.id) is None


def test_ids_are_distinct_and_url_safe():
    store = GameStore(capacity=100)
    ids = {store.add(Game(0)).id for _ in range(100)}
    assert len(ids) == 100
    assert all(len(i) == 12 and all(ch.isalnum() or ch in "-_" for ch in i) for i in ids)


def test_the_deal_key_names_the_cards_not_the_code():
    with_code = Deal("HM1-N-AAAAAAB")
    without = parse_layout(format_layout(with_code, code=""))
    assert without.code is None
    assert deal_key(with_code) == deal_key(without) != deal_key(Deal("HM1-N-AAAAAAC"))


def test_a_store_needs_room():
    with pytest.raises(ValueError, match="at least one game"):
        GameStore(0)
