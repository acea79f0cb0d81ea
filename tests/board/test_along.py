"""A game played along with the app: the entry checked, piles waiting for the card that
appeared, reveals, undo, and a stand-in deal that depends only on what was entered."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from halfmoon.board.along import (
    DECK,
    AlongError,
    AlongGame,
    AlongLive,
    EntryError,
    entry_check,
    entry_problem,
    read_cards,
)
from halfmoon.game.cards import Card
from halfmoon.game.deal import Deal
from halfmoon.game.layouts import format_layout
from halfmoon.game.moves import Move

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


# --- correcting a card entered or told ---------------------------------------------------
def _told_wrongly(deal: Deal):
    """Deal 27 after its first two moves, P4's card told wrongly (the card that really lies
    at the bottom of P1, never seen); returns the game, the wrong card and the true one."""
    along = AlongGame(shown(deal))
    for source in DEAD_END_MOVES[0].split("+"):
        along.tap(source)
    tell_all(along, deal)
    for source in DEAD_END_MOVES[1].split("+"):
        along.tap(source)
    wrong, true = deal.piles[0][0], deal.piles[3][6]
    assert along.seen()[wrong] == 0 and wrong != true
    along.reveal("P4", str(wrong))
    tell_all(along, deal)
    return along, wrong, true


def test_a_card_told_wrongly_is_corrected_in_its_place_and_the_moves_kept():
    deal = Deal.from_number(DEAD_END_DEAL)
    along, wrong, true = _told_wrongly(deal)
    moves, counts = list(along.game.stack), list(along.game.counts)
    along.tap("P1")  # a card selected: a correction clears the selection
    assert along.game.selection == ("P1",)
    assert along.correct("P4", str(true).upper()) == (wrong, true)
    assert along.game.card_at("P4") == true and along.known[3][6] == true
    assert list(along.game.stack) == moves and list(along.game.counts) == counts
    assert along.game.selection == () and along.corrections == [(2, "P4", wrong, true)]
    assert along.seen()[wrong] == 0 and along.seen()[true] == 1
    # the stand-in made again: the same as if the card had been told right
    right = play_along(deal, DEAD_END_MOVES[:2])
    assert along.known_text() == right.known_text()
    assert format_layout(along.start_deal()) == format_layout(right.start_deal())
    assert format_layout(along.game.remaining_deal()) == \
        format_layout(right.game.remaining_deal())
    assert list(along.game.legal_moves) == list(right.game.legal_moves)
    # one of the 20 entered: a pile top and a reserve card
    r1, p9 = along.game.card_at("R1"), along.game.card_at("P9")
    along.correct("R1", str(wrong))
    along.correct("p9.7", str(r1))  # by depth: P9's top is the card the app first showed
    assert along.game.card_at("R1") == wrong and along.reserve[0] == wrong
    assert along.game.card_at("P9") == r1 and along.seen()[p9] == right.seen()[p9] - 1
    assert along.seen()[wrong] == right.seen()[wrong] + 1
    # the stand-in still holds the double deck, the unseen cards in the unknown places
    stand_in = along.game.deal
    assert Counter(c for p in stand_in.piles for c in p) + Counter(stand_in.reserve) == DECK
    assert sorted(stand_in.piles[i][d] for i, d in along.unknown_places()) == \
        sorted(along.unseen().elements())


def test_a_correction_is_refused_naming_the_place_or_the_card_and_the_game_kept():
    deal = Deal.from_number(DEAD_END_DEAL)
    along = play_along(deal, DEAD_END_MOVES[:3])  # move 3 removes P4's card told at move 2
    along.tap("P11")
    along.tap("R2")
    assert along.waiting == ["P11"]
    twice = along.game.card_at("P2")  # a second copy entered at R1: a third is refused
    if along.seen()[twice] == 1:
        along.correct("R1", str(twice))
    before = (along.known_text(), list(along.game.stack), along.waiting)
    for place, card, says in [
        ("P4.6", "AS", rf"{deal.piles[3][6].symbol()} at P4.6 was removed by move 3: undo 2 "
                       r"moves \(back to before move 3\) first, then correct it"),
        ("R7", "AS", rf"{deal.reserve[6].symbol()} at R7 was removed by move 1: undo 4 moves "
                     r"\(back to before move 1\)"),
        ("P11", "AS", "P11 waits for the card that appeared: tell it"),
        ("P2.3", "AS", r"P2.3 \(P2, 5th card from the top\) has not been seen: only a card "
                       "entered or told can be corrected"),
        ("P13", "AS", "unknown place 'P13': expected P1-P12 for a pile's top"),
        ("P2.8", "AS", "unknown place 'P2.8'"),
        ("R9", "AS", "unknown place 'R9'"),
        (7, "AS", "unknown place '7'"),
        ("P2", "ZZ", "P2: not a card: 'ZZ'"),
        ("P2", str(twice), f"P2 is already {twice.symbol()}: nothing to correct"),
        ("P5", str(twice), rf"a third {twice.symbol()}: both copies are already on the table "
                           r"or removed \(P2, R1\)"),
    ]:
        with pytest.raises(AlongError, match=says):
            along.correct(place, card)
        assert (along.known_text(), list(along.game.stack), along.waiting) == before, place
    # an empty pile: its last card named, and the moves to undo
    game = AlongGame(shown(deal))
    for k in range(7, -1, -1):  # P1 and P2 emptied, each card told (no rule checked here)
        game.game.push(Move(("P1", "P2")))
        if k:
            game.reveal("P1", str(deal.piles[0][k - 1]))
            game.reveal("P2", str(deal.piles[1][k - 1]))
    with pytest.raises(AlongError, match=rf"P1 is empty: its last card, "
                                         rf"{deal.piles[0][0].symbol()}, was removed by move 8: "
                                         r"undo 1 move \(back to before move 8\) first"):
        game.correct("P1", "AS")


def test_undo_after_a_correction_keeps_the_card_corrected():
    deal = Deal.from_number(DEAD_END_DEAL)
    along, wrong, true = _told_wrongly(deal)
    along.correct("P4", str(true))
    along.undo()  # P4+P7 taken back: the card corrected is under P4's top, known
    assert along.known_under() == [(3, 6), (6, 6)] and along.known[3][6] == true
    assert along.where(true) == ["under P4's top"]
    # corrected there too, by its depth; then the move again shows it at once
    along.correct("P4.6", str(wrong))
    assert along.known[3][6] == wrong and along.corrections[-1][1] == "P4.6"
    assert [c["place"] for c in along.correctable()][:6] == \
        ["P1.7", "P2.7", "P3.6", "P4.7", "P4.6", "P5.7"]
    along.tap("P4")
    along.tap("P7")
    assert along.waiting == [] and along.game.card_at("P4") == wrong


def test_the_live_game_counts_a_correction():
    deal = Deal.from_number(DEAD_END_DEAL)
    live = AlongLive("x", AlongGame(shown(deal)))
    live.correct("R1", str(deal.piles[0][0]))
    assert live.version == 1 and live.along.reserve[0] == deal.piles[0][0]


def test_a_bad_entry_keeps_the_cards_before_it_and_counts_them():
    """What the entry screen draws with an error: the cards read before the bad one, their
    count and the place of the bad one, so that the arc, the count and the error agree."""
    deal = Deal.from_number(5)
    cards = [str(c) for c in shown(deal)]
    with pytest.raises(EntryError, match=r"card 4 \(P4\): not a card") as info:
        entry_check(" ".join(cards[:3] + ["3x"] + cards[4:]))  # a slip in a pasted deal
    kept = info.value.entry
    assert (kept["count"], kept["cards"], kept["next"], kept["typed"]) == (3, cards[:3], "P4", 20)
    with pytest.raises(EntryError, match="21 cards typed") as info:
        entry_check(" ".join(cards + ["AS"]))  # one too many pasted
    kept = info.value.entry
    assert (kept["count"], kept["cards"], kept["next"], kept["typed"]) == (20, cards, None, 21)
    with pytest.raises(EntryError, match="a third 5♠ at P3") as info:
        entry_check("5S 5S 5S 6D")
    assert (info.value.entry["count"], info.value.entry["next"]) == (2, "P3")
    assert entry_check(" ".join(cards))["typed"] == 20
