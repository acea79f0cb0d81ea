"""Dead-end detection by removal-time bounds (solver/bounds.py).

The intervals are necessary conditions on every win, so along a winning line each
card's actual removal step must lie inside its interval, and a position the test
calls dead must be lost (checked against exhaustive search and CP-SAT).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import brute_force, games_near_the_end, make_layout, pack

from halfmoon import Game, parse_layout
from halfmoon.game.deal import Deal
from solver.check.cpsat import solve_cpsat
from solver.depth_first.bounds import NCARDS, bounds_dead, partner_table
from solver.mirror.convert import deal_arrays
from solver.mirror.position import initial_position
from solver.portfolio.search import solve

LOST_AT_START = (55, 58, 92)  # losses the bounds prove with no search at all
# The 24 losses among deals 0..999 (checked by CP-SAT in test_cpsat_agreement.py).
LOSSES = (55, 58, 92, 111, 150, 193, 262, 278, 401, 422, 454, 459, 495, 503, 598, 599,
          629, 717, 724, 748, 828, 858, 863, 971)


class Bounds:
    """The bounds test on the positions of one deal."""

    def __init__(self, deal: Deal) -> None:
        self.deal = deal
        self.piles, self.reserve = deal_arrays(deal)
        self.part, self.npart = partner_table(self.piles, self.reserve)
        self.alive = np.zeros(NCARDS, np.bool_)
        self.pinned = np.zeros((48, 14), np.int64)

    def __call__(self, pos: int, parent=None):
        """(dead, lo, hi) of ``pos``, warm-started from ``parent`` = (lo, hi) if given."""
        lo = np.zeros(NCARDS, np.int64)
        hi = np.zeros(NCARDS, np.int64)
        plo, phi = parent if parent is not None else (lo, hi)
        dead = bounds_dead(self.piles, self.reserve, self.part, self.npart, np.uint64(pos),
                           lo, hi, plo, phi, parent is not None, self.alive, self.pinned)
        return bool(dead), lo, hi


def card_id(game: Game, source: str) -> int:
    """The bounds' id of the playable card at ``source``: 8 i + height, or 96 + slot."""
    i = int(source[1:]) - 1
    return 8 * i + game.counts[i] - 1 if source[0] == "P" else 96 + i


def start(number: int) -> tuple[Bounds, int]:
    deal = Deal.from_number(number)
    piles, reserve = deal_arrays(deal)
    return Bounds(deal), int(initial_position(piles, reserve))


# --- the partner table -------------------------------------------------------------------

def test_partner_table():
    for number in (0, 55, 999):
        deal = Deal.from_number(number)
        b = Bounds(deal)
        ranks = [c.rank for p in deal.piles for c in p] + [c.rank for c in deal.reserve]
        pile = [c // 8 for c in range(96)] + [-1 - r for r in range(8)]
        for c in range(NCARDS):
            rc = ranks[c]
            groups = [list(b.part[c, g, : b.npart[c, g]]) for g in range(2)]  # in card order
            if rc <= 10:
                expected = [p for p in range(NCARDS) if ranks[p] == 11 - rc and pile[p] != pile[c]]
                assert groups == [expected, []]
            else:
                others = [r for r in (11, 12, 13) if r != rc]
                assert groups == [
                    [p for p in range(NCARDS) if ranks[p] == others[g] and pile[p] != pile[c]]
                    for g in range(2)
                ]


def test_partner_table_of_a_layout():
    deal = parse_layout(make_layout({1: "Ac 10c", 2: "10d"}, "-- Ad"))
    part, npart = partner_table(*deal_arrays(deal))
    assert list(npart[0]) == [1, 0] and part[0, 0, 0] == 8  # Ac: the 10d, not the 10c above it
    assert list(npart[1]) == [1, 0] and part[1, 0, 0] == 97  # 10c: the Ad in slot R2
    assert sorted(part[8, 0, : npart[8, 0]]) == [0, 97]  # 10d: both aces
    assert npart[2, 0] == 0 and npart[96, 0] == 0  # empty places


# --- the test fires --------------------------------------------------------------------------

@pytest.mark.parametrize("number", LOST_AT_START)
def test_dead_at_the_start_of_a_lost_deal(number):
    bounds, pos = start(number)
    dead, _, _ = bounds(pos)
    assert dead
    assert solve(number, budget=10).verdict == "loss"  # settled at the root


@pytest.mark.parametrize("number", range(21))
def test_not_dead_at_the_start_of_a_winnable_deal(number):
    assert solve(number, budget=200_000).verdict == "win"
    bounds, pos = start(number)
    dead, lo, hi = bounds(pos)
    assert not dead
    assert bool(np.all(lo[:104] <= hi[:104]))


def test_losses_proved_at_the_start_are_losses():
    """Of the 24 losses among deals 0..999, the bounds alone prove most at the start
    (16 when written); each is a loss for CP-SAT too."""
    proved = [n for n in LOSSES if start(n)[0](start(n)[1])[0]]
    assert set(LOST_AT_START) <= set(proved) and len(proved) >= 12, proved
    for n in proved[:6]:
        deal = Deal.from_number(n)
        r = solve_cpsat([[c.rank for c in p] for p in deal.piles], [c.rank for c in deal.reserve],
                        time_limit=60)
        assert r.verdict == "loss", n


def test_a_small_lost_layout():
    # the A lies under its only partner: no interval fits
    deal = parse_layout(make_layout({1: "Ac 10c", 2: "5h 6h"}))
    b = Bounds(deal)
    assert b(int(initial_position(*deal_arrays(deal))))[0]
    assert solve(deal).verdict == "loss"


# --- soundness ---------------------------------------------------------------------------------

def replay_steps(deal: Deal, moves) -> list[dict]:
    """For each position of a winning line: card id -> the step (from that position)
    at which the line removes it."""
    game = Game(deal)
    removal = {}
    for ply, move in enumerate(moves):
        for s in move.sources:
            removal[card_id(game, s)] = ply
        game.play(move)
    assert game.is_won
    return [{c: s - t for c, s in removal.items() if s >= t} for t in range(len(moves))]


@pytest.mark.parametrize("chunk", range(4))
def test_winning_lines_lie_inside_the_intervals(chunk):
    """Along the solver's winning lines of deals 0..99, no position is dead (cold or
    warm-started from the parent's intervals), and each card's removal step lies in
    its interval."""
    checked = 0
    for number in range(25 * chunk, 25 * chunk + 25):
        result = solve(number, budget=200_000)
        if result.verdict != "win":
            continue
        deal = Deal.from_number(number)
        bounds = Bounds(deal)
        game = Game(deal)
        parent = None
        for t, steps in enumerate(replay_steps(deal, result.moves)):
            pos = pack(game)
            runs = [bounds(pos)] + ([bounds(pos, parent)] if parent else [])
            for dead, lo, hi in runs:  # cold, then warm as in the search
                assert not dead, (number, t)
                for c, step in steps.items():
                    assert lo[c] <= step <= hi[c], (number, t, c, step, lo[c], hi[c])
            parent = runs[-1][1:]
            game.play(result.moves[t])
            checked += 1
    assert checked >= 20 * 48


def small_games():
    return games_near_the_end(12, 38, 2)


def test_dead_positions_are_lost():
    """Every position reachable from small positions: cold, and warm-started from
    each parent's intervals, the test only calls lost positions dead."""
    positions = lost = cold_dead = warm_dead = 0
    for game in small_games():
        bounds = Bounds(game.deal)
        memo = brute_force(game)
        mirror_game = Game(game.deal)
        for pos, winnable in memo.items():
            dead, lo, hi = bounds(pos)
            assert not (dead and winnable), f"{game.deal.code}: {pos:#x} is won but called dead"
            positions += 1
            lost += not winnable
            cold_dead += dead
            if dead or not pos:
                continue
            # warm starts: each child from this position's intervals
            for k in range(12):
                mirror_game.counts[k] = (pos >> (4 * k)) & 15
            for r in range(8):
                mirror_game.reserve_full[r] = bool(pos >> (48 + r) & 1)
            for move in mirror_game.legal_moves:
                mirror_game.push(move)
                child = pack(mirror_game)
                mirror_game.pop()
                child_dead = bounds(child, (lo, hi))[0]
                assert not (child_dead and memo[child]), (
                    f"{game.deal.code}: {child:#x} is won but called dead warm from {pos:#x}")
                warm_dead += child_dead
    assert positions > 5000 and lost > 1000, (positions, lost)
    assert cold_dead > 100 and warm_dead > 100, (cold_dead, warm_dead)  # the test fires
