"""A game played along with the app: the entry checked, piles waiting for the card that
appeared, reveals, undo, and a stand-in deal that depends only on what was entered."""

from __future__ import annotations

import random

import pytest

from halfmoon.board.along import (
    AlongError,
    AlongGame,
    AlongLive,
    entry_check,
    entry_problem,
    read_cards,
)
from halfmoon.game.cards import Card
from halfmoon.game.deal import Deal
from halfmoon.game.layouts import format_layout

# deal 27 reaches a dead end in four moves: every move uncovers pile cards
DEAD_END_DEAL = 27
DEAD_END_MOVES = ("P3+R7+R8", "P4+P7", "P4+P11", "P11+R2")


def shown(deal: Deal) -> list[Card]:
    return [p[-1] for p in deal.piles] + list(deal.reserve)


def shown_text(deal: Deal) -> str:
    return " ".join(str(c) for c in shown(deal))


def play_along(deal: Deal, moves) -> AlongGame:
    """``moves`` played along on ``deal``, each card that appears told as the app shows it."""
    along = AlongGame(shown(deal))
    for move in moves:
        for source in move.split("+"):
            along.tap(source)
        tell_all(along, deal)
    return along


def tell_all(along: AlongGame, deal: Deal) -> None:
    for pile in along.waiting:
        i = int(pile[1:]) - 1
        along.reveal(pile, str(deal.piles[i][along.game.counts[i] - 1]))


def test_read_cards_takes_the_typed_forms_and_names_a_bad_one():
    assert read_cards("5S, 6d 10h;QC") == [Card(5, 3), Card(6, 1), Card(10, 2), Card(12, 0)]
    with pytest.raises(AlongError, match=r"card 3 \(P3\): not a card: 'XX'"):
        read_cards("5S 6D XX")
    with pytest.raises(AlongError, match="21 cards typed"):
        read_cards(" ".join(["AS"] * 21))


def test_a_third_copy_is_named_with_where_the_others_are():
    assert entry_problem(read_cards("5S 6D 5S")) is None
    problem = entry_problem(read_cards("5S 6D 5S 5s"))
    assert problem.startswith("a third 5♠ at P4: both copies are already entered (P1, P3)")
    with pytest.raises(AlongError, match="a third 5♠"):
        entry_check("5S 6D 5S 5s")


def test_entry_check_says_the_next_place_and_the_cards_still_possible():
    out = entry_check("5S 5S 6D")
    assert out["count"] == 3 and out["next"] == "P4"
    assert "5s" not in out["possible"] and "6d" in out["possible"]
    assert len(out["possible"]) == 51
    deal = Deal.from_number(5)
    assert entry_check(shown_text(deal))["next"] is None
    assert entry_check(" ".join(str(c) for c in shown(deal)[:12]))["next"] == "R1"


def test_a_card_being_typed_is_not_an_error():
    # the "1" of "10", a rank before its suit: not a card yet, and no error while typed
    for text, typing in (("5S 1", "1"), ("5S 10", "10"), ("5S q", "q"), ("5s 2", "2")):
        out = entry_check(text)
        assert (out["count"], out["typing"], out["next"]) == (1, typing, "P2"), text
    assert entry_check("5S 10h")["typing"] is None
    # once it is followed by a space, or sent as it is, it is named
    with pytest.raises(AlongError, match=r"card 2 \(P2\): '10' has no suit"):
        entry_check("5S 10 ")
    with pytest.raises(AlongError, match=r"card 2 \(P2\): '10' is not finished"):
        read_cards("5S 10")
    with pytest.raises(AlongError, match=r"card 2 \(P2\): not a card: 'X'"):
        entry_check("5S X")  # not the start of any card


def test_entry_check_names_the_places_still_empty():
    deal = Deal.from_number(5)
    assert entry_check(" ".join(str(c) for c in shown(deal)[:19]))["empty"] == "R8"
    assert entry_check("5S 6D")["empty"] == "P3 to R8"
    assert entry_check(shown_text(deal))["empty"] is None


def test_a_new_game_needs_the_20_cards():
    with pytest.raises(AlongError, match="19 cards entered: R8 is empty"):
        AlongGame(shown(Deal.from_number(5))[:19])
    with pytest.raises(AlongError, match="12 cards entered: R1 to R8 are empty"):
        AlongGame(shown(Deal.from_number(5))[:12])
    with pytest.raises(AlongError, match="21 cards entered: the app shows 20"):
        AlongGame(shown(Deal.from_number(5)) + [Card(1, 0)])


def test_a_move_that_uncovers_a_card_waits_for_it():
    deal = Deal.from_number(DEAD_END_DEAL)
    along = AlongGame(shown(deal))
    assert along.waiting == [] and sum(along.unseen().values()) == 84
    for source in ("P3", "R7", "R8"):
        along.tap(source)
    assert along.waiting == ["P3"]
    assert not along.is_over
    with pytest.raises(AlongError, match="P3 waits for the card that appeared"):
        along.tap("P4")
    with pytest.raises(AlongError, match="P4 is not waiting for a card: its top, .* is known"):
        along.reveal("P4", "AS")
    with pytest.raises(AlongError, match="unknown pile 'P13'"):
        along.reveal("P13", "AS")
    with pytest.raises(AlongError, match="P3: not a card"):
        along.reveal("P3", "ZZ")
    card = deal.piles[2][6]
    along.reveal("P3", str(card))
    assert along.waiting == [] and along.game.card_at("P3") == card
    assert sum(along.seen().values()) == 21


def test_a_third_copy_told_is_refused_naming_the_card_and_the_game_kept():
    deal = Deal.from_number(DEAD_END_DEAL)
    along = play_along(deal, DEAD_END_MOVES[:1])
    along.tap("P4")
    along.tap("P7")
    assert along.waiting == ["P4", "P7"]
    seen = along.seen()
    card = next(c for c in shown(deal) if seen[c] == 1)
    where = along.where(card)
    along.reveal("P4", str(card))  # its second copy: fine
    before = (list(along.game.stack), along.waiting, sum(along.seen().values()))
    with pytest.raises(AlongError, match=rf"a third {card.symbol()}: both copies are already on "
                                         rf"the table or removed \({where[0]}, P4\)"):
        along.reveal("P7", str(card))
    assert (list(along.game.stack), along.waiting, sum(along.seen().values())) == before


def test_undo_keeps_the_cards_told_and_a_replay_asks_for_none():
    """A card told stays known after the undo of the move that uncovered it (the app's
    player saw it): a move that uncovers its place again shows it and waits for nothing."""
    deal = Deal.from_number(DEAD_END_DEAL)
    along = play_along(deal, DEAD_END_MOVES[:2])
    seen, told = sum(along.seen().values()), list(along.reveals)
    p4, p7 = deal.piles[3][along.game.counts[3] - 1], deal.piles[6][along.game.counts[6] - 1]
    assert along.undo() is not None
    assert len(along.game.stack) == 1 and along.waiting == []
    assert sum(along.seen().values()) == seen and along.reveals == told
    # the two cards told are now under the tops of P4 and P7, known
    depth4, depth7 = along.game.counts[3] - 2, along.game.counts[6] - 2
    assert along.known_under() == [(3, depth4), (6, depth7)]
    assert along.known[3][depth4] == p4 and along.known[6][depth7] == p7
    assert (3, depth4) not in along.unknown_places()
    assert "under P4's top" in along.where(p4)
    p4_line = along.known_text().splitlines()[3].split()
    assert p4_line[-2:] == [str(p4), str(along.game.card_at("P4"))]
    # played again: the cards are on the table at once, nothing to tell
    along.tap("P4")
    along.tap("P7")
    assert along.waiting == [] and len(along.game.stack) == 2
    assert along.game.card_at("P4") == p4 and along.game.card_at("P7") == p7
    assert along.known_under() == []
    with pytest.raises(AlongError, match="P4 is not waiting for a card"):
        along.reveal("P4", str(p4))
    # an undo while piles wait takes the move back, with nothing told to keep
    along.tap("P4")
    along.tap("P11")
    assert along.waiting == ["P4", "P11"]
    along.undo()
    assert along.waiting == [] and len(along.game.stack) == 2 and along.known_under() == []
    along.undo()
    assert along.known_under() == [(3, depth4), (6, depth7)]


def test_a_card_known_under_a_top_counts_for_a_third_copy():
    deal = Deal.from_number(DEAD_END_DEAL)
    along = play_along(deal, DEAD_END_MOVES[:3])
    card = along.game.card_at("P11")  # told at move 3, then covered again by its undo
    along.undo()
    assert along.seen()[card] == 1 and along.where(card) == ["under P11's top"]
    for move in ("P4+P8", "P4+P10"):  # other moves there: P4 shows its card known
        along.tap("P4")
        along.tap(move[3:])
        assert along.waiting == [move[3:]]
        if move == "P4+P8":
            along.reveal("P8", str(card))  # its second copy
            along.undo()
    with pytest.raises(AlongError, match=rf"a third {card.symbol()}: .*\(under P8's top, "
                                         r"under P11's top\)"):
        along.reveal("P10", str(card))


def test_a_dead_end_is_over_only_once_its_cards_are_told():
    deal = Deal.from_number(DEAD_END_DEAL)
    along = play_along(deal, DEAD_END_MOVES[:-1])
    for source in DEAD_END_MOVES[-1].split("+"):
        along.tap(source)
    assert along.waiting and not along.is_over
    tell_all(along, deal)
    assert along.is_over and along.game.is_dead_end
    assert len(along.unknown_places()) == 84 - 6


def test_what_is_sent_depends_only_on_what_was_entered():
    """Two deals that agree on every card seen give the same stand-in: the hidden cards
    are the unseen ones sorted, wherever they really lie."""
    deal = Deal.from_number(DEAD_END_DEAL)
    other = _shuffle_hidden(play_along(deal, DEAD_END_MOVES), deal, random.Random(3))
    assert other != deal.piles
    again = play_along(Deal(piles=other, reserve=deal.reserve), DEAD_END_MOVES)
    first = play_along(deal, DEAD_END_MOVES)
    assert format_layout(first.start_deal()) == format_layout(again.start_deal())
    assert first.known_text() == again.known_text()
    assert first.unknown_places() == again.unknown_places()


def _shuffle_hidden(along: AlongGame, deal: Deal, rng: random.Random):
    places = along.unknown_places()
    cards = [deal.piles[i][d] for i, d in places]
    rng.shuffle(cards)
    piles = [list(p) for p in deal.piles]
    for (i, d), c in zip(places, cards):
        piles[i][d] = c
    return tuple(tuple(p) for p in piles)


def test_the_live_game_counts_versions():
    deal = Deal.from_number(DEAD_END_DEAL)
    along = AlongGame(shown(deal))
    live = AlongLive("x", along)
    for source in ("P3", "R7", "R8"):
        live.tap(source)
    assert live.version == 3
    live.reveal("P3", str(deal.piles[2][6]))
    assert live.version == 4
    live.undo()
    assert live.version == 5 and along.waiting == [] and len(along.reveals) == 1
