"""What is known of a partial deal: the cards not seen, and the checks that name a card."""

from __future__ import annotations

from collections import Counter

from conftest import app_view

from halfmoon import Deal
from halfmoon.game.cards import DOUBLE_DECK, UNKNOWN, Card
from halfmoon.game.partial import (
    partial_problem,
    seen_cards,
    unseen_cards,
    where_seen,
)

C = Card.parse


def test_unseen_cards_are_the_hidden_cards_of_the_deal():
    deal = Deal("HM1-N-AAAAAAB")
    view = app_view(deal)
    hidden = Counter(c for p in deal.piles for c in p[:-1])
    assert unseen_cards(view.piles, view.reserve) == hidden
    assert sum(seen_cards(view.piles, view.reserve).values()) == 20
    assert partial_problem(view.piles, view.reserve) is None


def test_unseen_cards_leave_out_the_removed_ones():
    deal = Deal("HM1-N-AAAAAAA")
    view = app_view(deal)
    piles = [list(p) for p in view.piles]
    piles[0] = piles[0][:-1]  # 7d of P1 removed ...
    piles[7] = piles[7][:-1]  # ... with 4s of P8
    assert partial_problem(piles, view.reserve, [C("7d"), C("4s")]) is None  # P1, P8 wait
    assert partial_problem(piles, view.reserve) == (
        "84 unknown cards (??) but 86 cards neither on the table nor removed: a partial layout "
        "accounts for all 104 cards (a position lists the cards removed on a 'removed:' line)")
    piles[0][-1], piles[7][-1] = C("10c"), C("10s")  # the cards that appeared, known now
    assert partial_problem(piles, view.reserve, [C("7d"), C("4s")]) is None
    assert sum(unseen_cards(piles, view.reserve, [C("7d"), C("4s")]).values()) == 82


def test_a_third_copy_is_named_with_where_its_copies_are():
    deal = Deal("HM1-N-AAAAAAA")
    view = app_view(deal)
    piles = [list(p) for p in view.piles]
    piles[0][-1] = C("8h")  # 8h is on P6 and in R2 already
    assert where_seen(C("8h"), piles, view.reserve) == ["P1", "P6", "R2"]
    assert partial_problem(piles, view.reserve) == (
        "a third 8h: both copies are already on the table or removed (P1, P6, R2), a double "
        "deck has only two")


def test_a_card_that_can_no_longer_pair_up_is_named():
    deal = Deal("HM1-N-AAAAAAA")
    view = app_view(deal)
    piles = [list(p) for p in view.piles]
    piles[1] = piles[1][2:]  # two places fewer: two cards said removed, not a pair
    problem = partial_problem(piles, view.reserve, [C("5c"), C("5h")])
    assert problem == ("6d can no longer pair up: 8 × 6 left but 6 × 5 (class 5+6; the removed "
                       "cards must form pairs)")


def test_a_face_that_can_no_longer_form_a_triplet_is_named():
    deal = Deal("HM1-N-AAAAAAA")
    view = app_view(deal)
    piles = [list(p) for p in view.piles]
    piles[1] = piles[1][2:]
    problem = partial_problem(piles, view.reserve, [C("Jc"), C("Qc")])
    assert problem == ("Kc can no longer form a triplet: 7 J, 7 Q, 8 K left (the removed cards "
                       "must form triplets)")


def test_every_place_unknown_holds_the_double_deck():
    piles = [[UNKNOWN] * 8 for _ in range(12)]
    reserve = list(DOUBLE_DECK[:8])
    assert partial_problem(piles, reserve) is None
    assert Counter(unseen_cards(piles, reserve)) == Counter(DOUBLE_DECK) - Counter(reserve)
