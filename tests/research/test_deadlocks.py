"""Deadlock sets of lost deals (the solver's search, applied to the census), against
projections built and searched by the reference engine."""

from __future__ import annotations

import random
from itertools import combinations

import pytest
from conftest import brute_force, engine_projection, make_game, near_end, pack

from halfmoon import Deal
from halfmoon.game.errors import HalfMoonError
from halfmoon.research.deadlocks import (
    CLASSES,
    class_table,
    deadlock,
    deadlocks,
    explain,
    kind_table,
    why_dict,
    why_lost,
)
from solver import solve


def brute_deadlock(deal: Deal):
    """(size, lost sets of that size) by exhaustive search of every projection."""
    for k in range(1, 7):
        lost = []
        for s in combinations(range(6), k):
            game = engine_projection(deal, set(s))
            if not brute_force(game)[pack(game)]:
                lost.append(set(s))
        if lost:
            return k, lost
    return 0, []


def lost_positions(count: int, seed: int):
    """Small lost positions: deals 0-39 near the end of a winning line, then random moves."""
    rng = random.Random(seed)
    found = []
    for number in range(40):
        game = near_end(number, 34)
        while game.legal_moves:
            game.push(rng.choice(list(game.legal_moves)))
            if game.legal_moves and not brute_force(game)[pack(game)]:
                found.append(game.remaining_deal())
                break
        if len(found) == count:
            break
    return found


def test_faces_alone_and_one_pair_class_alone():
    # one J, Q, K in one pile: the faces alone are stuck; the 5 and 6 pair from the reserve
    faces = make_game({1: "Jc Qd Kh"}, "5s 6h")
    d = deadlock(faces.remaining_deal())
    assert (d.classes, d.kind, d.minimal_sets) == (("J+Q+K",), "faces", 1)
    # a 5 under a 6 in one pile with no other 5 or 6: 5+6 alone is stuck
    pair = make_game({1: "5s 6h", 2: "Jc", 3: "Qd"}, "Kh")
    d = deadlock(pair.remaining_deal())
    assert (d.classes, d.kind) == (("5+6",), "pairs:1")


def test_a_winnable_position_has_no_deadlock():
    game = near_end(3, 20)
    d = deadlock(game.remaining_deal())
    assert (d.classes, d.kind, d.minimal_sets) == ((), "none", 0)


@pytest.mark.parametrize("seed", [1, 2])
def test_deadlocks_agree_with_exhaustive_search_of_every_projection(seed):
    positions = lost_positions(6, seed)
    assert len(positions) >= 4
    kinds = set()
    for deal in positions:
        d = deadlock(deal)
        size, lost = brute_deadlock(deal)
        assert size and len(d.classes) == size
        assert {CLASSES.index(c) for c in d.classes} in lost
        assert d.minimal_sets == len(lost)
        kinds.add(d.kind)
    assert len(kinds) >= 2  # not one kind throughout


def test_deadlocks_of_census_losses_are_lost_and_minimal():
    # real lost deals: each one's deadlock projection is lost, every smaller set wins
    losses = [n for n in range(400) if solve(n, budget=200_000).verdict == "loss"][:6]
    assert losses
    df = deadlocks(losses)
    assert df["deal"].tolist() == losses
    for n, text, size in zip(df["deal"], df["deadlock"], df["size"]):
        deal = Deal.from_number(n)
        classes = {CLASSES.index(c) for c in text.split()}
        assert len(classes) == size

        def verdict(s):  # the projection built by the engine's own classes, solved
            return solve(engine_projection(deal, set(s)).deal, budget=5_000_000).verdict

        assert verdict(classes) == "loss"
        for s in combinations(range(6), size - 1):
            if s:
                assert verdict(s) == "win"


def test_a_winnable_deal_and_bad_input():
    win = next(n for n in range(20) if solve(n, budget=200_000).verdict == "win")
    assert deadlock(win).kind == "none"
    with pytest.raises(HalfMoonError, match="non-negative"):
        deadlocks([-1])
    with pytest.raises(ValueError, match="budget"):
        deadlock(win, budget=0)


def test_why_lost_says_which_classes_in_words():
    faces = make_game({1: "Jc Qd Kh"}, "5s 6h").remaining_deal()
    d = why_lost(faces)
    assert d.classes == ("J+Q+K",)
    assert explain(d) == ("the J\u2013Q\u2013K cards can never all be cleared, whatever else is "
                          "played (smallest deadlocked set)")
    # two classes, each of which clears alone: the 5 under the J, the Q under the 6
    two = make_game({1: "5s Jc", 2: "Qd 6h"}, "Kh").remaining_deal()
    d = why_lost(two)
    assert set(d.classes) == {"J+Q+K", "5+6"} and len(d.classes) == 2
    assert explain(d).startswith("the J\u2013Q\u2013K and 5\u20136 classes can never all be "
                                 "cleared")
    assert why_dict(d)["deadlock"] == list(d.classes) and why_dict(d)["nodes"] == d.nodes


def test_why_lost_is_bounded_and_says_so():
    # a loss whose deadlock needs three classes or more: a total of one position settles
    # no smaller set, and the answer says it is not known rather than guess
    loss = next(n for n in range(2000) if solve(n, budget=200_000).verdict == "loss"
                and len(deadlock(n).classes) >= 3)
    d = why_lost(loss, budget=1, total=1)
    assert d.kind == "unresolved" and d.classes == ()
    assert d.nodes <= 1 + 1  # at most one solve of one position past the total
    assert explain(d).startswith("why is not known within the budget")
    full = why_lost(loss)
    assert full.classes == deadlock(loss).classes
    with pytest.raises(HalfMoonError, match="total"):
        why_lost(loss, total=0)


def test_tables_count_kinds_and_classes():
    import pandas as pd

    df = pd.DataFrame({"deal": [5, 3, 9, 7], "deadlock": ["J+Q+K", "J+Q+K 4+7", "J+Q+K", "5+6"],
                       "kind": ["faces", "faces+1", "faces", "pairs:1"]})
    k = kind_table(df)
    assert k["losses"].to_dict() == {"faces": 2, "faces+1": 1, "pairs:1": 1}
    assert k.loc["faces", "example"] == 5 and k.loc["faces", "share"] == 0.5
    assert (k["ci_low"] <= k["share"]).all() and (k["share"] <= k["ci_high"]).all()
    c = class_table(df)
    assert c.loc["J+Q+K", "losses"] == 3 and c.loc["4+7", "losses"] == 1
    assert c.loc["A+10", "losses"] == 0
