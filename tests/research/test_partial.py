"""A partial position analysed: shares of layouts consistent with what is known, checked
against every arrangement of a small position, and answers that depend on what was entered
alone."""

from __future__ import annotations

import random
from itertools import permutations

import pytest
from conftest import app_view, near_end

from halfmoon import Deal, Game, HalfMoonError
from halfmoon.research.partial import (
    Share,
    _fair_move,
    analyse_partial,
    format_partial,
    partial_analyses,
)
from solver import solve

PLAYER = "fair@8"  # a fair player cheap enough for tests


def _arrangements(position: Deal) -> list[Deal]:
    """Every layout consistent with a partial position: each distinct arrangement of the
    unseen cards in the unknown places (equally likely)."""
    places = position.unknown_places()
    out = []
    for cards in sorted(set(permutations(sorted(position.unknown().elements())))):
        piles = [list(p) for p in position.piles]
        for (i, k), card in zip(places, cards):
            piles[i][k] = card
        out.append(Deal(piles=piles, reserve=position.reserve, removed=position.removed))
    return out


def _exact_shares(position: Deal) -> tuple[float, list[float]]:
    """The share of arrangements in which the position, and each move's child, is won."""
    layouts = _arrangements(position)
    moves = list(Game(position).legal_moves)
    child = [[False] * len(moves) for _ in layouts]
    for a, layout in enumerate(layouts):
        game = Game(layout)
        for j, move in enumerate(moves):
            game.push(move)
            r = solve(game.remaining_deal(), 1_000_000) if game.cards_left() else None
            assert r is None or r.verdict != "unresolved"
            child[a][j] = r is None or r.verdict == "win"
            game.pop()
    whole = sum(any(row) for row in child) / len(layouts)
    return whole, [sum(row[j] for row in child) / len(layouts) for j in range(len(moves))]


def _small_partial(number: int, cards: int) -> Deal:
    return app_view(near_end(number, cards).remaining_deal())


@pytest.mark.parametrize("number, cards", [(3, 16), (5, 18)])
def test_shares_agree_with_every_arrangement_of_a_small_position(number, cards):
    position = _small_partial(number, cards)
    assert 2 <= len(position.unknown_places()) <= 8
    whole, per_move = _exact_shares(position)
    a = analyse_partial(position, samples=96, seed=7, budget=1_000_000, player=PLAYER)
    assert a.winnable.samples == 96 and a.winnable.unresolved == 0
    low, high = a.winnable.interval
    assert low <= whole <= high
    assert [m.move for m in a.moves] == list(Game(position).legal_moves)
    for m, exact in zip(a.moves, per_move):
        low, high = m.share.interval
        assert low <= exact <= high, (m.move, exact, m.share)
        assert m.share.wins <= a.winnable.wins  # a move keeps no layout the position loses


def test_the_answers_depend_only_on_what_was_entered():
    """Two true deals that differ only in the cards not entered (after a game played along
    with reveals, the cards still under the tops shuffled among their places), same seed:
    the same answers, the fair player's move included."""
    deal = Deal.from_number(11)
    full = Game(deal)
    moves = list(solve(deal).moves[:12])  # a game still going
    for move in moves:
        full.play(move)
    hidden = [(i, k) for i, n in enumerate(full.counts) for k in range(n - 1)]
    cards = [deal.piles[i][k] for i, k in hidden]
    other = cards[:]
    random.Random(5).shuffle(other)
    assert other != cards
    piles = [list(p) for p in deal.piles]
    for (i, k), card in zip(hidden, other):
        piles[i][k] = card
    twin = Deal(piles=piles, reserve=deal.reserve)
    assert twin != deal and solve(twin).verdict in ("win", "loss")

    answers = []
    for truth in (deal, twin):
        along = Game(app_view(truth))
        for move in moves:
            along.play(move)
            for pile in along.waiting:
                i = int(pile[1:]) - 1
                along.reveal(pile, truth.piles[i][along.counts[i] - 1])
        a = analyse_partial(along, samples=16, games=3, seed=42, player=PLAYER)
        answers.append({k: v for k, v in a.to_dict().items() if k != "seconds"})
    assert answers[0] == answers[1] and answers[0]["legal_moves"]
    assert answers[0]["fair"]["samples"] == 3 and answers[0]["winnable"]["samples"] == 16


def test_answers_improve_as_samples_come_in():
    position = _small_partial(3, 24)
    seen = []
    for a in partial_analyses(position, seed=1, player=PLAYER, fair_batch=2, fair_time=1.0):
        seen.append((a.winnable.samples, a.fair.samples))
        if len(seen) == 4:
            break
    assert seen == [(16, 0), (16, 2), (32, 2), (32, 4)]


def test_a_pile_waiting_for_its_card_is_refused():
    game = Game(app_view(Deal.from_number(0)))
    game.play("P1+P8")
    with pytest.raises(HalfMoonError, match="P1, P8: the top card is not known"):
        analyse_partial(game, samples=16)
    with pytest.raises(HalfMoonError, match="samples must be"):
        analyse_partial(app_view(Deal.from_number(0)), samples=0)


def test_the_text_says_which_number_answers_which_question():
    position = _small_partial(3, 16)
    a = analyse_partial(position, samples=16, seed=2, player=PLAYER)
    text = format_partial(a)
    assert "can be won by someone who then sees every card" in text
    assert "its own chance of winning from here, seeing only what the app shows" in text
    assert f"of {a.winnable.samples} layouts" in text and f"of {a.fair.samples} games" in text
    d = a.to_dict()
    assert "sees every card" in d["winnable"]["question"]
    assert "seeing only what the app shows" in d["fair"]["question"]
    assert len(d["legal_moves"]) == len(a.moves) and d["fair"]["move"] == str(a.fair_move)


def test_a_share_counts_the_unresolved_on_both_sides():
    s = Share(wins=6, unresolved=2, samples=10)
    low, high = s.interval
    assert s.value == 0.6 and low < 0.6 < 0.8 < high
    assert Share(0, 0, 0).value is None


@pytest.mark.parametrize("number", [404, 7])
def test_the_shortcuts_give_every_child_its_solved_verdict(number):
    """A lost layout's children lost, a child won by a known line with its move first: the
    same verdicts as a solve of each child."""
    from halfmoon.research.partial import _layout, _verdicts
    from halfmoon.research.strategies import play

    game = Game(number)
    for move in play(number, "greedy").moves[:12]:
        game.play(move)
    position = app_view(game.remaining_deal())
    moves = list(Game(position).legal_moves)
    for k in range(6):
        layout = _layout(position, 1, k)
        whole, verdicts = _verdicts(layout, moves, 2_000_000)
        each = []
        child = Game(layout)
        for move in moves:
            child.push(move)
            each.append(solve(child.remaining_deal(), 2_000_000).verdict)
            child.pop()
        assert verdicts == each and "unresolved" not in each
        assert whole == ("win" if "win" in each else "loss")


def test_a_dead_end_is_lost_for_everyone():
    position = _small_partial(3, 16)
    game = Game(position)
    while game.legal_moves:  # play the first move until the game ends
        game.play(next(iter(game.legal_moves)))
        for pile in game.waiting:
            game.reveal(pile, sorted(game.unknown().elements())[0])
    a = analyse_partial(game, samples=16, player=PLAYER)
    won = game.cards_left() == 0
    assert a.moves == () and a.fair_move is None
    assert (a.winnable.wins, a.fair.wins, a.fair.samples) == (16 * won, int(won), 1)


@pytest.mark.parametrize("number, cards", [(3, 16), (5, 18), (11, 40)])
def test_the_moves_are_paired_with_the_position_and_the_best(number, cards):
    """One set of layouts: the position is won where some move keeps the win, no move is
    above it, each move's difference with the best is the discordant layouts', and the
    recommended move is the best: the largest share, ties to the tuned player's move, then
    to the first in the engine's order."""
    position = _small_partial(number, cards)
    a = analyse_partial(position, samples=32, seed=3, games=0, player=PLAYER)
    assert a.moves and a.best in [m.move for m in a.moves]
    best = next(m for m in a.moves if m.move == a.best)
    assert best.share.wins == max(m.share.wins for m in a.moves) <= a.winnable.wins
    for m in a.moves:
        assert m.share.wins - best.share.wins == m.only - m.only_best
        assert m.diff_low <= m.diff <= m.diff_high
    rec = next(m for m in a.moves if m.move == a.recommended)
    assert not rec.clearly_below and a.recommended == a.best
    tops = [m.move for m in a.moves if m.share.wins == best.share.wins]
    tuned = _fair_move(position, 3, "tuned")
    assert a.best == (tuned if tuned in tops else tops[0])
    d = a.to_dict()
    assert d["recommended"]["move"] == str(a.recommended) and d["best"] == str(a.best)
    assert all("clearly_below" in m["vs_best"] for m in d["legal_moves"])
    assert "recommended:" in format_partial(a)
