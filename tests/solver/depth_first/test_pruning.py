"""Move pruning and ordering (solver/pruning.py), and every rule switched on and off.

- Each rule fires where it should: FREE_CARDS keeps the covering card, CLASS_IN_VIEW
  leaves one move, ORDERING puts the fullest piles first.
- The pruned moves are legal, and on every position reachable from small positions
  they keep a win whenever one exists (checked against exhaustive search).
- ``solve`` gives the same verdicts with each of the six rules on and off, on at
  least 200 deals settled both ways and on positions from random play (where
  losses are common), and every winning line replays through the engine.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from conftest import brute_force, make_layout, near_end, pack

from halfmoon import Game, parse_layout
from halfmoon.game.cards import rank_class
from halfmoon.game.deal import SOURCES, Deal
from solver.depth_first.pruning import (
    ALL_RULES,
    BOUNDS,
    CLASS_IN_VIEW,
    COMMUTING,
    COUNTING,
    EMPTY_MASKS,
    FREE_CARDS,
    FREE_MASKS,
    GROUPING,
    NO_RULES,
    ORDERING,
    PROJECTIONS,
    TOP_APART,
    TOP_COVERED,
    TOP_MIXED,
    TOP_VIEW,
    VIEW_BITS,
    move_key,
    new_workspace,
    search_moves,
    top_table,
)
from solver.mirror.convert import deal_arrays
from solver.mirror.position import all_moves, delta_sources
from solver.portfolio.search import solve

BUFFER = 1024  # larger than any position's move count


def sources_of(delta) -> frozenset:
    out = np.empty(3, np.int64)
    n = delta_sources(np.uint64(delta), out)
    return frozenset(SOURCES[out[k]] for k in range(n))


class Mirror:
    """A deal's arrays for the kernels."""

    def __init__(self, deal: Deal) -> None:
        self.piles, self.reserve = deal_arrays(deal)
        self.tops = top_table(self.piles, self.reserve)
        self.out = np.empty(BUFFER, np.uint64)
        self.keys = np.empty(BUFFER, np.int64)
        self.ws = new_workspace()

    def deltas(self, pos: int, flags: int) -> list[int]:
        m = search_moves(self.tops, np.uint64(pos), flags,
                         self.out, self.keys, self.ws)
        return [int(self.out[k]) for k in range(m)]

    def moves(self, pos: int, flags: int) -> list[frozenset]:
        return [sources_of(d) for d in self.deltas(pos, flags)]

    def legal(self, pos: int) -> set:
        m = all_moves(self.piles, self.reserve, np.uint64(pos), self.out)
        return {sources_of(self.out[k]) for k in range(m)}


def layout_game(piles: dict, reserve: str = "") -> Game:
    return Game(parse_layout(make_layout(piles, reserve)))


def at_start(piles: dict, reserve: str = ""):
    game = layout_game(piles, reserve)
    return Mirror(game.deal), pack(game)


def S(*names) -> frozenset:
    return frozenset(names)


# --- each rule fires --------------------------------------------------------------------

# 5c covers the A on pile 1; the 5s and 5h in the reserve are free, and so are the 6d
# and 6s alone on their piles.  The 6h under the 10h keeps 5+6 out of full view.
FREE_LAYOUT = ({1: "Ah 5c", 2: "6d", 3: "6h 10h", 4: "6s"}, "5s 5h")


def test_free_cards_keeps_the_covering_card():
    mirror, pos = at_start(*FREE_LAYOUT)
    unpruned = mirror.moves(pos, NO_RULES)
    assert len(unpruned) == 6 and set(unpruned) == mirror.legal(pos)
    pruned = mirror.moves(pos, FREE_CARDS)
    assert pruned == [S("P1", "P2")]  # the covering 5c, and one free 6 (the first)
    assert mirror.moves(pos, ALL_RULES) == [S("P1", "P2")]
    assert len(mirror.moves(pos, ALL_RULES & ~FREE_CARDS)) == 6


def test_free_cards_keeps_one_free_card_per_rank():
    # no 5 covers anything: of the free 5c (pile) and 5s (reserve) only the first stays
    mirror, pos = at_start({1: "5c", 2: "6d", 5: "Ac 10c 5d 6c"}, "5s 6s")
    assert len(mirror.moves(pos, NO_RULES)) == 6
    assert mirror.moves(pos, FREE_CARDS) == [S("P1", "P5")]


def test_free_cards_falls_back_to_free_cards():
    # only free cards of both ranks: one move, with the first of each
    mirror, pos = at_start({1: "Ac 9c", 2: "5c", 3: "6d", 4: "2d 10d"}, "6s 5s")
    assert len(mirror.moves(pos, NO_RULES)) == 4
    assert mirror.moves(pos, FREE_CARDS) == [S("P2", "P3")]


# 5+6 is in full view; A+10 is not (the A lies under the 5c); 2+9 has a move but two of
# its cards are covered.
CLASS_LAYOUT = ({1: "Ac 5c", 2: "6d", 3: "2c 9h", 4: "9c 2h"}, "10s")


def test_class_in_view_leaves_one_move():
    mirror, pos = at_start(*CLASS_LAYOUT)
    assert set(mirror.moves(pos, NO_RULES)) == {S("P1", "P2"), S("P3", "P4")}
    assert mirror.moves(pos, CLASS_IN_VIEW) == [S("P1", "P2")]
    assert mirror.moves(pos, ALL_RULES) == [S("P1", "P2")]


def test_class_in_view_with_several_moves_of_the_class():
    piles, reserve = CLASS_LAYOUT
    mirror, pos = at_start({**piles, 5: "5h", 6: "6h"}, reserve)
    assert len(mirror.moves(pos, NO_RULES)) == 5
    kept = mirror.moves(pos, CLASS_IN_VIEW)
    assert len(kept) == 1 and kept[0] <= {"P1", "P2", "P5", "P6"}


def test_class_in_view_of_the_faces():
    mirror, pos = at_start({1: "Jc", 2: "Qc", 3: "Kc", 4: "Jd", 5: "2c 9c 2d 9d"}, "Qd Kd")
    assert len(mirror.moves(pos, NO_RULES)) == 8  # 2 J x 2 Q x 2 K
    kept = mirror.moves(pos, CLASS_IN_VIEW)
    assert len(kept) == 1 and len(kept[0]) == 3


def test_no_class_in_view():
    mirror, pos = at_start(*FREE_LAYOUT)
    assert set(mirror.moves(pos, CLASS_IN_VIEW)) == set(mirror.moves(pos, NO_RULES))


ORDER_LAYOUT = ({1: "5c", 2: "Ah 6d", 3: "2h 9h 8h 6s"}, "10s 3s 5h")


def test_ordering_puts_the_fullest_piles_first():
    mirror, pos = at_start(*ORDER_LAYOUT)
    plain = mirror.moves(pos, NO_RULES)
    ordered = mirror.moves(pos, ORDERING)
    assert plain[:2] == [S("P1", "P2"), S("P1", "P3")]
    assert ordered == [S("P1", "P3"), S("P3", "R3"), S("P1", "P2"), S("P2", "R3")]
    deltas = mirror.deltas(pos, ORDERING)
    keys = [move_key(np.uint64(pos), np.uint64(d)) for d in deltas]
    assert keys == [10, 8, 6, 4]


def test_ordering_keeps_the_same_moves():
    rng = random.Random(4)
    for number in range(10):
        game = Game(number)
        mirror = Mirror(game.deal)
        while game.legal_moves:
            pos = pack(game)
            for flags in (NO_RULES, FREE_CARDS, CLASS_IN_VIEW, FREE_CARDS | CLASS_IN_VIEW):
                plain = mirror.moves(pos, flags)
                ordered = mirror.moves(pos, flags | ORDERING)
                assert sorted(map(sorted, plain)) == sorted(map(sorted, ordered))
                keys = [move_key(np.uint64(pos), np.uint64(d))
                        for d in mirror.deltas(pos, flags | ORDERING)]
                assert keys == sorted(keys, reverse=True)
            game.push(rng.choice(list(game.legal_moves)))


def test_unpruned_search_moves_are_the_legal_moves():
    rng = random.Random(5)
    for number in range(10, 20):
        game = Game(number)
        mirror = Mirror(game.deal)
        while game.legal_moves:
            pos = pack(game)
            plain = mirror.moves(pos, NO_RULES)
            assert len(plain) == len(set(plain))
            assert set(plain) == {frozenset(m.sources) for m in game.legal_moves}
            game.push(rng.choice(list(game.legal_moves)))


def test_top_table_describes_each_source():
    """Each word of the table: where the playable card's source goes among the rank
    masks (free cards apart or not), the classes it covers and its class's count; and
    summed over a position's sources, the cards of each class in view."""

    def fields(w):
        w = int(w)
        return ((w >> TOP_APART) & 63, (w >> TOP_MIXED) & 63, (w >> TOP_COVERED) & 255,
                w >> TOP_VIEW)

    rng = random.Random(6)
    for number in (0, 1, 55):
        deal = Deal.from_number(number)
        piles, reserve = deal_arrays(deal)
        tops = top_table(piles, reserve)
        for i, pile in enumerate(deal.piles):
            empty = (EMPTY_MASKS + i, EMPTY_MASKS + i, 0, 0)
            assert fields(tops[i, 0]) == empty and all(fields(tops[i, n]) == empty
                                                       for n in range(9, 16))
            for n in range(1, 9):
                r = pile[n - 1].rank
                below = sum({1 << rank_class(c.rank) for c in pile[:n - 1]})
                view = 1 << (VIEW_BITS * rank_class(r))
                assert fields(tops[i, n]) == (r + FREE_MASKS * (n == 1), r, below, view)
        for s, card in enumerate(deal.reserve):
            assert fields(tops[12 + s, 0]) == (EMPTY_MASKS + 12 + s, EMPTY_MASKS + 12 + s, 0, 0)
            view = 1 << (VIEW_BITS * rank_class(card.rank))
            assert fields(tops[12 + s, 1]) == (card.rank + FREE_MASKS, card.rank, 0, view)
        game = Game(deal)
        while game.legal_moves:
            pos = pack(game)
            view = 0
            for i in range(12):
                view += int(tops[i, (pos >> (4 * i)) & 15]) >> TOP_VIEW
            for s in range(8):
                view += int(tops[12 + s, (pos >> (48 + s)) & 1]) >> TOP_VIEW
            in_view = list(game.playable().values())
            for c in range(6):
                expected = sum(rank_class(card.rank) == c for card in in_view)
                assert (view >> (VIEW_BITS * c)) & 31 == expected
            game.push(rng.choice(list(game.legal_moves)))


# --- soundness against exhaustive search ---------------------------------------------------


def small_games():
    yield from (near_end(n, 26) for n in range(12))
    yield layout_game(*FREE_LAYOUT)
    yield layout_game(*CLASS_LAYOUT)
    yield layout_game(*ORDER_LAYOUT)
    yield layout_game({1: "Ac 10c 5h", 2: "6h"})
    yield layout_game({1: "Jc Qd Kh", 2: "Kc Jd Qh", 3: "Qc Kd Jh"}, "5s 6s")


@pytest.mark.parametrize("flags", [FREE_CARDS, CLASS_IN_VIEW, ORDERING,
                                   FREE_CARDS | CLASS_IN_VIEW | ORDERING])
def test_pruned_moves_keep_a_win(flags):
    """On every position reachable from small positions, the pruned moves are legal,
    and if the position can be won, one of them leads to a position that can be won."""
    positions = wins = pruned_away = 0
    for game in small_games():
        mirror = Mirror(game.deal)
        memo = brute_force(game)
        for pos, winnable in memo.items():
            kept = mirror.deltas(pos, flags)
            legal = mirror.legal(pos)
            assert {sources_of(d) for d in kept} <= legal
            assert len(kept) == len(set(kept))
            if winnable and pos:
                assert any(memo[pos - d] for d in kept), (
                    f"{game.deal.code}: position {pos:#x} can be won, but no move kept by "
                    f"flags {flags} leads to a win ({[sorted(sources_of(d)) for d in kept]})")
            positions += 1
            wins += winnable
            pruned_away += len(legal) - len(kept)
    assert positions > 10_000 and 1000 < wins < positions
    if flags != ORDERING:
        assert pruned_away > 1000  # the rule really fired
    else:
        assert pruned_away == 0


# --- each rule on and off ------------------------------------------------------------------

RULES = {
    "FREE_CARDS": FREE_CARDS,
    "CLASS_IN_VIEW": CLASS_IN_VIEW,
    "ORDERING": ORDERING,
    "BOUNDS": BOUNDS,
    "PROJECTIONS": PROJECTIONS,
    "GROUPING": GROUPING,
    "COMMUTING": COMMUTING,
    "COUNTING": COUNTING,
}
BUDGET = 20_000
# Deals 0..299 without 38, 124 and 129, which plain search does not settle quickly.
DEALS = [n for n in range(300) if n not in (38, 124, 129)]


def random_positions(count: int, seed: int) -> list[Deal]:
    """Positions after 2..20 random moves on deals 0..count-1; about half are lost."""
    rng = random.Random(seed)
    out = []
    for number in range(count):
        game = Game(number)
        for _ in range(rng.randint(2, 20)):
            if not game.legal_moves:
                break
            game.push(rng.choice(list(game.legal_moves)))
        out.append(game.remaining_deal())
    return out


POSITIONS = random_positions(150, seed=1)


def check_line(deal: Deal, result) -> None:
    """A win's line replays through the engine to a won game, one move per group."""
    game = Game(deal)
    cards = deal.cards()
    faces = sum(c.is_face for c in cards)
    assert len(result.moves) == (len(cards) - faces) // 2 + faces // 3
    for move in result.moves:
        game.play(move)
    assert game.is_won


@pytest.fixture(scope="module", autouse=True)
def grouping_joins_within_the_budget():
    """The grouping search joins a deal after GROUPING_AFTER positions, more than BUDGET;
    here it joins after 5,000, so that switching GROUPING off changes the searches."""
    import solver.portfolio.search as search

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(search, "GROUPING_AFTER", 5_000)
        yield


@pytest.fixture(scope="module")
def all_rules():
    return (
        {n: solve(n, budget=BUDGET) for n in DEALS},
        [solve(d, budget=BUDGET) for d in POSITIONS],
    )


@pytest.mark.parametrize("name", list(RULES))
def test_same_verdicts_with_the_rule_on_and_off(name, all_rules):
    rules = ALL_RULES & ~RULES[name]
    on_deals, on_positions = all_rules
    off_deals = {n: solve(n, budget=BUDGET, rules=rules) for n in DEALS}
    off_positions = [solve(d, budget=BUDGET, rules=rules) for d in POSITIONS]

    settled = [n for n in DEALS if on_deals[n].solved and off_deals[n].solved]
    differ = [(n, on_deals[n].verdict, off_deals[n].verdict)
              for n in settled if on_deals[n].verdict != off_deals[n].verdict]
    assert not differ, f"deal, verdict with all rules, verdict without {name}: {differ}"
    assert len(settled) >= 200
    assert sum(on_deals[n].verdict == "loss" for n in settled) >= 3
    # the rule changed the searches somewhere
    assert any(on_deals[n].nodes != off_deals[n].nodes for n in DEALS)

    both = [k for k in range(len(POSITIONS)) if on_positions[k].solved and off_positions[k].solved]
    differ = [(POSITIONS[k].code, on_positions[k].verdict, off_positions[k].verdict)
              for k in both if on_positions[k].verdict != off_positions[k].verdict]
    assert not differ, f"positions of random play (deal, with, without {name}): {differ}"
    assert len(both) >= 100
    assert sum(on_positions[k].verdict == "loss" for k in both) >= 30

    for n in DEALS:
        for result in (on_deals[n], off_deals[n]):
            if result.verdict == "win":
                assert len(result.moves) == 48
                check_line(Deal.from_number(n), result)
    for deal, on, off in zip(POSITIONS, on_positions, off_positions):
        for result in (on, off):
            if result.verdict == "win":
                check_line(deal, result)


def test_no_rules_at_all():
    """The plain search agrees too, on deals it settles quickly."""
    for n in range(40):
        plain = solve(n, budget=BUDGET, rules=NO_RULES)
        full = solve(n, budget=BUDGET)
        if plain.solved and full.solved:
            assert plain.verdict == full.verdict, n
        if plain.verdict == "win":
            check_line(Deal.from_number(n), plain)
