"""The app's player with undo: it wins winnable deals by its own search, its counts add up,
and it never uses a card it has not seen."""

from __future__ import annotations

import random

import pytest

import solver
from halfmoon.game.codes import random_numbers
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.errors import HalfMoonError

CHEAP = {"samples": 2, "review": 2, "rollouts": 4, "budget": 5_000, "max_moves": 400}


def _winnable(count: int, seed: int) -> list[int]:
    return [n for n in random_numbers(count, seed) if solver.solve(n).verdict == "win"]


@pytest.mark.parametrize("policy", solver.UNDO_POLICIES)
def test_the_counts_add_up_and_a_won_game_replays(policy):
    for number in _winnable(3, 61)[:2]:
        g = solver.undo_game(number, policy, seed=4, **CHEAP)
        assert g.moves_made - g.undos == len(g.line) and g.moves_made <= CHEAP["max_moves"]
        assert g.dead_ends <= g.moves_made
        if policy == "greedy":  # no advice: no solve
            assert g.solves == 0
        elif policy == "fair":  # solves in its reviews only
            assert (g.solves > 0) == (g.dead_ends > 0)
        else:
            assert g.solves > 0
        game = Game(number)
        for delta in g.line:
            game.play(solver.move_of(delta))  # raises on an illegal move
        assert game.is_won == g.won
        if g.won:
            assert not g.unseen  # every card was seen on the way to the win
        again = solver.undo_game(number, policy, seed=4, **CHEAP)
        assert (again.line, again.moves_made, again.dead_ends) == (g.line, g.moves_made,
                                                                   g.dead_ends)


def test_greedy_with_undo_wins_a_deal_by_its_own_search():
    won = [solver.undo_game(n, "greedy", max_moves=5_000).won for n in _winnable(6, 62)]
    assert any(won)


@pytest.mark.parametrize("policy", ["board", "share", "greedy"])
def test_the_cards_never_seen_do_not_change_the_game(policy):
    """With the cards the player never saw put in other places, it plays the same game: it
    knows them only as the multiset left."""
    rng = random.Random(9)
    checked = 0
    for number in random_numbers(6, 63):
        settings = {**CHEAP, "max_moves": 60}  # stopped early: many cards stay unseen
        g = solver.undo_game(number, policy, seed=2, **settings)
        if len(g.unseen) < 2:
            continue
        deal = Deal.from_number(number)
        piles = [list(p) for p in deal.piles]
        cards = [piles[i][k] for i, k in g.unseen]
        while len(set(cards)) > 1 and [piles[i][k] for i, k in g.unseen] == cards:
            rng.shuffle(cards)
        for (i, k), c in zip(g.unseen, cards):
            piles[i][k] = c
        other = Deal(piles=piles, reserve=deal.reserve)
        h = solver.undo_game(other, policy, seed=2, **settings)
        assert (h.line, h.moves_made, h.undos, h.dead_ends, h.unseen) == (
            g.line, g.moves_made, g.undos, g.dead_ends, g.unseen)
        checked += 1
    assert checked >= 3


def test_a_bad_policy_or_setting_is_named():
    with pytest.raises(HalfMoonError, match="unknown policy 'best'"):
        solver.undo_game(1, "best")
    with pytest.raises(HalfMoonError, match="samples must be a whole number of at least 1"):
        solver.undo_game(1, "board", samples=0)
