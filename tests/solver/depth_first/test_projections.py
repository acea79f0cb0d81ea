"""Dead-end detection by projections (solver/projections.py).

A projection keeps the cards of some classes; a win of the position is a win of each
projection, so a projection that cannot be won proves the position lost.  Checked
here: the projected games are the position with the other cards left out, their
verdicts agree with CP-SAT on the projected cards, and a position called dead is lost.
"""

from __future__ import annotations

import random

import numpy as np
import pytest
from conftest import brute_force, games_near_the_end, make_layout, pack

from halfmoon import Game, parse_layout
from halfmoon.game.cards import rank_class
from halfmoon.game.deal import Deal
from solver.check.cpsat import solve_cpsat
from solver.depth_first.bounds import NCARDS, bounds_dead, partner_table
from solver.depth_first.projections import (
    NPROJ,
    NPROJ_ALL,
    PROJ_BUDGET,
    PROJECTION_MASKS,
    project,
    projection_arrays,
    projection_verdict,
    projections_dead,
)
from solver.mirror.convert import deal_arrays
from solver.mirror.position import initial_position
from solver.mirror.table import Table
from solver.portfolio.search import solve
from solver.verdicts import LOSS, UNRESOLVED, WIN

# Losses proved at the start by a projection onto faces + one class, though not by the
# bounds (454), or by both (459, 150).
DEAD_AT_START = (454, 459, 150)


def classes(p: int) -> set:
    return {c for c in range(6) if PROJECTION_MASKS[p] >> c & 1}


class Projections:
    """The projections of one deal, with their own table."""

    def __init__(self, deal: Deal, table: Table) -> None:
        self.deal = deal
        self.piles, self.reserve = deal_arrays(deal)
        self.arrays = projection_arrays(self.piles, self.reserve, PROJECTION_MASKS)
        self.table = table
        self.gen = np.uint32(table.next_generation())

    @property
    def targs(self):
        t = self.table
        return t.slots, self.gen, t.bits

    def project(self, pos: int, p: int) -> int:
        _, preserve, _, count, _ = self.arrays
        return int(project(np.uint64(pos), p, preserve, count))

    def verdict(self, pos: int, p: int, budget: int = PROJ_BUDGET) -> int:
        _, _, ptops, _, pws = self.arrays
        return int(projection_verdict(ptops, pws, p,
                                      np.uint64(self.project(pos, p)), *self.targs, budget))

    def dead(self, pos: int, first: int = 0, last: int = NPROJ) -> bool:
        return bool(projections_dead(np.uint64(pos), *self.arrays, *self.targs, first, last,
                                     PROJ_BUDGET))

    def projected_ranks(self, p: int):
        """The projected game of the start position, as rank lists for CP-SAT."""
        ppiles, preserve, _, _, _ = self.arrays
        piles = [[int(r) for r in ppiles[p, i] if r] for i in range(12)]
        reserve = [int(r) if r else None for r in preserve[p]]
        return piles, reserve


@pytest.fixture
def table():
    return Table(8)


def keep(deal: Deal, wanted: set) -> Deal:
    """The deal with only the cards of the classes ``wanted``, each pile in order."""
    piles = [[c for c in pile if rank_class(c.rank) in wanted] for pile in deal.piles]
    reserve = [c if c is not None and rank_class(c.rank) in wanted else None for c in deal.reserve]
    return Deal(piles=piles, reserve=reserve)


# --- the projected games ---------------------------------------------------------------------

def test_projection_masks():
    assert NPROJ == 5 and NPROJ_ALL == 15
    assert [classes(p) for p in range(NPROJ)] == [{5, c} for c in range(5)]
    assert sorted(map(sorted, (classes(p) for p in range(NPROJ, NPROJ_ALL)))) == sorted(
        sorted({5, a, b}) for a in range(5) for b in range(a + 1, 5))


def test_projected_games_keep_the_cards_of_their_classes(table):
    for number in (0, 92, 454):
        deal = Deal.from_number(number)
        proj = Projections(deal, table)
        for p in range(NPROJ_ALL):
            expected = keep(deal, classes(p))
            piles, reserve = proj.projected_ranks(p)
            assert piles == [[c.rank for c in pile] for pile in expected.piles]
            assert reserve == [None if c is None else c.rank for c in expected.reserve]


def test_project_matches_the_projected_position(table):
    """``project`` of positions from random play is the packed position of the game
    with the other classes' cards left out."""
    rng = random.Random(8)
    checked = 0
    for number in range(5):
        deal = Deal.from_number(number)
        proj = Projections(deal, table)
        game = Game(deal)
        while game.legal_moves:
            pos = pack(game)
            for p in range(NPROJ_ALL):
                projected = keep(game.remaining_deal(), classes(p))
                assert proj.project(pos, p) == int(initial_position(*deal_arrays(projected)))
            checked += 1
            game.push(rng.choice(list(game.legal_moves)))
    assert checked >= 25
    assert proj.project(0, 0) == 0


@pytest.mark.parametrize("number", [0, 92, 454, 828])
def test_projection_verdicts_agree_with_cpsat(number, table):
    """Each settled projected game of the start position gets CP-SAT's verdict."""
    proj = Projections(Deal.from_number(number), table)
    names = {WIN: "win", LOSS: "loss"}
    settled = 0
    for p in range(NPROJ_ALL):
        v = proj.verdict(int(initial_position(proj.piles, proj.reserve)), p)
        if v == UNRESOLVED:
            continue
        piles, reserve = proj.projected_ranks(p)
        expected = solve_cpsat(piles, reserve, time_limit=60).verdict
        assert names[v] == expected, (number, sorted(classes(p)))
        settled += 1
    assert settled >= 10


def test_projection_verdicts_are_remembered(table):
    proj = Projections(Deal.from_number(459), table)
    pos = int(initial_position(proj.piles, proj.reserve))
    first = [proj.verdict(pos, p) for p in range(NPROJ)]
    assert LOSS in first
    assert [proj.verdict(pos, p, budget=1) for p in range(NPROJ)] == first  # from the table
    proj.gen = np.uint32(table.next_generation())
    assert proj.verdict(0, 3) == WIN  # the empty position


def test_a_projected_search_that_gives_up_is_not_repeated(table):
    """Deal 495's faces + 2/9 + 4/7 needs thousands of positions: with a budget of 10
    the search gives up, leaves a mark, and the same question later is answered
    'unknown' from the table even with a budget that would settle it."""
    proj = Projections(Deal.from_number(495), table)
    pos = int(initial_position(proj.piles, proj.reserve))
    p = [q for q in range(NPROJ_ALL) if classes(q) == {1, 3, 5}][0]
    assert proj.verdict(pos, p, budget=10) == UNRESOLVED
    assert proj.verdict(pos, p) == UNRESOLVED  # not searched a second time
    proj.gen = np.uint32(table.next_generation())  # a new search forgets the mark
    assert proj.verdict(pos, p) == LOSS


def test_only_projections_holding_the_move_class_are_checked(table):
    """Deal 459 is dead at the start by some faces + one class projection: asked with
    the class of a move that none of its lost projections holds, the check skips them
    (they are the parent's, already checked); with the faces, every one is checked."""
    proj = Projections(Deal.from_number(459), table)
    pos = np.uint64(initial_position(proj.piles, proj.reserve))
    lost = {q for q in range(NPROJ) if proj.verdict(int(pos), q) == LOSS}
    assert lost and lost != set(range(NPROJ))
    args = (pos, *proj.arrays, *proj.targs, 0, NPROJ, PROJ_BUDGET)
    for a in range(5):
        assert bool(projections_dead(*args, a)) == (a in lost)
    assert projections_dead(*args, 5)  # a triplet changes them all
    assert projections_dead(*args, -1)


# --- the test fires, and is sound ----------------------------------------------------------------

def bounds_fire(deal: Deal) -> bool:
    piles, reserve = deal_arrays(deal)
    part, npart = partner_table(piles, reserve)
    lo, hi = np.zeros(NCARDS, np.int64), np.zeros(NCARDS, np.int64)
    return bool(bounds_dead(piles, reserve, part, npart, initial_position(piles, reserve),
                            lo, hi, lo, hi, False, np.zeros(NCARDS, np.bool_),
                            np.zeros((48, 14), np.int64)))


@pytest.mark.parametrize("number", DEAD_AT_START)
def test_dead_at_the_start_of_a_lost_deal(number, table):
    deal = Deal.from_number(number)
    proj = Projections(deal, table)
    assert proj.dead(int(initial_position(proj.piles, proj.reserve)))
    r = solve_cpsat([[c.rank for c in p] for p in deal.piles], [c.rank for c in deal.reserve],
                    time_limit=60)
    assert r.verdict == "loss"
    if number == 454:
        assert not bounds_fire(deal)  # the projections prove what the bounds do not
        assert solve(number, budget=10, quick_phase=0).verdict == "loss"  # at the root


def test_losses_among_the_first_thousand_deals(table):
    """Scan the start of the 24 losses of deals 0..999: the ones a projection onto
    faces + one class proves dead are losses for CP-SAT."""
    losses = (55, 58, 92, 111, 150, 193, 262, 278, 401, 422, 454, 459, 495, 503, 598, 599,
              629, 717, 724, 748, 828, 858, 863, 971)
    quick = [n for n in losses if n not in (55, 92, 111, 401, 503)]  # slow projected games
    dead = []
    for n in quick:
        proj = Projections(Deal.from_number(n), table)
        if proj.dead(int(initial_position(proj.piles, proj.reserve))):
            dead.append(n)
    assert set(DEAD_AT_START) <= set(dead) and len(dead) >= 6, dead
    for n in dead:
        deal = Deal.from_number(n)
        r = solve_cpsat([[c.rank for c in p] for p in deal.piles], [c.rank for c in deal.reserve],
                        time_limit=60)
        assert r.verdict == "loss", n


def test_deal_495_falls_to_faces_and_two_classes(table):
    """Deal 495: faces + 2/9 + 4/7 is lost although each faces + one class is not."""
    proj = Projections(Deal.from_number(495), table)
    pos = int(initial_position(proj.piles, proj.reserve))
    assert not proj.dead(pos)
    two_nine_four_seven = [p for p in range(NPROJ_ALL) if classes(p) == {1, 3, 5}]
    assert proj.verdict(pos, two_nine_four_seven[0]) == LOSS
    assert proj.dead(pos, NPROJ, NPROJ_ALL)


def test_never_dead_along_winning_lines(table):
    checked = 0
    for number in range(25):
        result = solve(number, budget=200_000)
        if result.verdict != "win":
            continue
        proj = Projections(Deal.from_number(number), table)
        game = Game(number)
        for move in result.moves:
            assert not proj.dead(pack(game), 0, NPROJ_ALL), (number, len(game.stack))
            game.play(move)
            checked += 1
    assert checked >= 20 * 48


def small_games():
    yield from games_near_the_end(21, 36, 3)
    yield Game(parse_layout(make_layout({1: "Jc Qd Kh", 2: "Kc Jd Qh", 3: "Qc Kd Jh"}, "5s 6s")))


def test_dead_positions_are_lost(table):
    """Every position reachable from small positions: called dead only when lost."""
    positions = lost = dead = 0
    for game in small_games():
        proj = Projections(game.deal, table)
        for pos, winnable in brute_force(game).items():
            d = proj.dead(pos, 0, NPROJ_ALL)
            assert not (d and winnable), f"{game.deal.code}: {pos:#x} can be won but is called dead"
            positions += 1
            lost += not winnable
            dead += d
    assert positions > 5000 and lost > 1000
    assert dead > 100, dead  # the test really fires
