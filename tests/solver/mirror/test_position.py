"""The bit-packed mirror (solver/mirror/position.py) against the reference engine.

OpenSpiel-style consistency: on many positions reached by random play, and on every
position reachable from positions with few cards left, the mirror's unpruned legal
moves, card count, dead ends, wins and successor positions must be exactly the
engine's.  A few of the checks run again with ``NUMBA_DISABLE_JIT=1`` in a
subprocess, so that the kernels' Python code runs (and coverage sees it).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from conftest import make_layout, near_end, pack

from halfmoon import Game, parse_layout
from halfmoon.game.codes import random_numbers
from halfmoon.game.deal import SOURCES, Deal
from halfmoon.game.moves import Move
from solver.mirror.convert import deal_arrays
from solver.mirror.position import (
    MAX_MOVES,
    MAX_PLY,
    NPILES,
    NSOURCES,
    RESERVE_SHIFT,
    all_moves,
    cards_left,
    delta_sources,
    initial_position,
    pile_count,
    position_arrays,
    reserve_full,
    source_delta,
)
from solver.players.simple import GREEDY, play_game
from solver.portfolio.search import solve

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parents[2]
FULL_DEAL = 0x00FF_8888_8888_8888  # every pile holds 8 cards, every reserve slot is full


# --- helpers (also used by the NUMBA_DISABLE_JIT subprocess) -----------------------

def sources_of(delta) -> frozenset:
    out = np.empty(3, np.int64)
    n = delta_sources(np.uint64(delta), out)
    return frozenset(SOURCES[out[k]] for k in range(n))


def mirror_moves(piles, reserve, pos: int) -> dict:
    """The mirror's legal moves as {source set: delta}; no move may appear twice."""
    out = np.empty(1024, np.uint64)  # room for any position (see test_max_moves_...)
    m = all_moves(piles, reserve, np.uint64(pos), out)
    moves = {}
    for k in range(m):
        s = sources_of(out[k])
        assert s not in moves, f"move {sorted(s)} generated twice at {pos:#x}"
        moves[s] = int(out[k])
    return moves


def engine_moves(game: Game) -> set:
    return {frozenset(m.sources) for m in game.legal_moves}


def compare(game: Game, piles, reserve) -> dict:
    """Compare one position in both; returns the mirror's moves."""
    pos = pack(game)
    where = f"deal {game.deal.code}, after {' '.join(map(str, game.stack)) or 'no move'}"
    assert cards_left(np.uint64(pos)) == game.cards_left(), where
    for i, n in enumerate(game.counts):
        assert pile_count(np.uint64(pos), i) == n, where
    for r, full in enumerate(game.reserve_full):
        assert bool(reserve_full(np.uint64(pos), r)) == full, where
    moves = mirror_moves(piles, reserve, pos)
    assert set(moves) == engine_moves(game), where
    assert (not moves and pos != 0) == game.is_dead_end, where
    assert (pos == 0) == game.is_won, where
    return moves


def step(game: Game, moves: dict, move: Move) -> None:
    """Play ``move`` in both and check that the positions agree."""
    before = pack(game)
    delta = moves[frozenset(move.sources)]
    assert delta == sum(int(source_delta(SOURCES.index(s))) for s in move.sources)
    game.push(move)
    assert before - delta == pack(game), f"{move} from {before:#x}"


def random_play(numbers, seed: int, follow_solver: bool = True) -> int:
    """Random games on the deals ``numbers``; each first follows the solver's winning
    line for a random number of moves (with ``follow_solver``), then plays random
    legal moves to the end.  Returns the number of positions compared."""
    rng = random.Random(seed)
    compared = 0
    for number in numbers:
        game = Game(number)
        piles, reserve = deal_arrays(game.deal)
        assert initial_position(piles, reserve) == np.uint64(FULL_DEAL)
        result = solve(number, budget=20_000) if follow_solver else None
        line = list(result.moves) if result and result.verdict == "win" else []
        follow = rng.randint(0, len(line))
        while True:
            moves = compare(game, piles, reserve)
            compared += 1
            if not moves:
                break
            if len(game.stack) < follow:
                move = line[len(game.stack)]
            else:
                move = rng.choice(list(game.legal_moves))
            step(game, moves, move)
    return compared


def walk(game: Game) -> tuple[int, int, int]:
    """Compare every position reachable from the game's position; returns the numbers
    of positions, wins and dead ends seen."""
    piles, reserve = deal_arrays(game.deal)
    seen = set()
    wins = dead = 0

    def visit():
        nonlocal wins, dead
        pos = pack(game)
        if pos in seen:
            return
        seen.add(pos)
        moves = compare(game, piles, reserve)
        if pos == 0:
            wins += 1
        elif not moves:
            dead += 1
        for move in list(game.legal_moves):
            step(game, moves, move)
            visit()
            game.pop()

    visit()
    return len(seen), wins, dead


SMALL_LAYOUTS = [
    # (piles, reserve): winnable and lost, triplets, empty piles and slots
    ({1: "5s", 3: "Kh", 5: "Qh", 8: "Jc 6d"}, "Ah 10c"),
    ({1: "Ah 10h", 2: "10c Ac"}, ""),
    ({1: "Ac 10c 5h", 2: "6h"}, ""),  # lost: the A lies under its only partner
    ({1: "Ac 10c", 2: "As 10s"}, ""),  # a dead end at once
    ({1: "Jc Qd Kh", 2: "Kc Jd Qh", 3: "Qc Kd Jh"}, ""),
    ({1: "Jc Qd Kh", 2: "Kc Jd Qh", 3: "Qc Kd Jh"}, "5s 6s"),
    ({1: "2c 9d", 2: "9c 2d", 3: "Kh"}, "Jc Qs 3h 8h"),
    ({1: "Ac 10d 4h", 2: "7c Kd", 4: "10s Js 7d", 6: "As 4s Qs"}, "Jh Qh Kh -- -- 5c 6c"),
    ({2: "6h 5h 6d 5d", 7: "Jd Qd", 9: "Kd"}, "-- Ks Qs Js 5s 6s"),
]


def small_games():
    return [Game(parse_layout(make_layout(p, r))) for p, r in SMALL_LAYOUTS]


# --- initial_position, delta_sources, source_delta ------------------------------------

def test_initial_position_of_full_deals():
    for number in (0, 1, 55, 123_456, 8_031_810_175):
        piles, reserve = deal_arrays(Deal.from_number(number))
        assert initial_position(piles, reserve) == np.uint64(FULL_DEAL)


def test_initial_position_of_layouts_matches_the_engine():
    for game in small_games():
        piles, reserve = deal_arrays(game.deal)
        assert int(initial_position(piles, reserve)) == pack(game)
    empty = Game(parse_layout(make_layout({})))
    assert initial_position(*deal_arrays(empty.deal)) == np.uint64(0)
    game = Game(parse_layout(make_layout({3: "5s 6s", 12: "Jc Qc Kc Jd Qd Kd 5h 6h"},
                                         "-- -- Ac 10c")))
    expected = (2 << 8) | (8 << 44) | (1 << 50) | (1 << 51)
    assert initial_position(*deal_arrays(game.deal)) == np.uint64(expected)


def test_initial_position_of_reached_positions():
    """``remaining_deal()`` of a game in progress packs to the game's position."""
    rng = random.Random(7)
    checked = 0
    for number in random_numbers(20, seed=11):
        game = Game(number)
        while game.legal_moves:
            game.push(rng.choice(list(game.legal_moves)))
            piles, reserve = deal_arrays(game.remaining_deal())
            assert int(initial_position(piles, reserve)) == pack(game)
            checked += 1
    assert checked >= 100


def test_source_delta_and_delta_sources_round_trip():
    out = np.empty(3, np.int64)
    for s in range(NSOURCES):
        delta = source_delta(s)
        expected = 1 << (4 * s) if s < 12 else 1 << (RESERVE_SHIFT + s - 12)
        assert int(delta) == expected
        assert delta_sources(delta, out) == 1 and out[0] == s
    for k in (2, 3):
        for combo in combinations(range(NSOURCES), k):
            delta = sum(int(source_delta(s)) for s in combo)
            n = delta_sources(np.uint64(delta), out)
            assert tuple(out[:n]) == combo  # piles by number, then reserve slots


def test_delta_sources_names_the_moves_of_the_engine():
    game = Game(parse_layout(make_layout(*SMALL_LAYOUTS[0])))
    piles, reserve = deal_arrays(game.deal)
    moves = mirror_moves(piles, reserve, pack(game))
    assert set(moves) == {frozenset({"P1", "P8"}), frozenset({"R1", "R2"})}
    assert moves[frozenset({"P1", "P8"})] == (1 << 0) + (1 << 28)
    assert moves[frozenset({"R1", "R2"})] == (1 << 48) + (1 << 49)


def test_cards_left():
    assert cards_left(np.uint64(FULL_DEAL)) == 104
    assert cards_left(np.uint64(0)) == 0
    assert cards_left(np.uint64((3 << 20) | (1 << 55))) == 4


# --- consistency with the engine ------------------------------------------------------

def test_random_play_matches_the_engine():
    """At least 1,000 positions from random play on 60 seeded random deals."""
    compared = random_play(random_numbers(60, seed=2024), seed=1)
    assert compared >= 1000


def test_random_play_from_known_deals_matches_the_engine():
    compared = random_play(range(40), seed=5)
    assert compared >= 600


@pytest.mark.parametrize("number", [0, 2, 3, 5, 8, 12, 21, 34, 77, 100, 200, 300, 404, 777, 999])
def test_every_position_near_the_end_matches_the_engine(number):
    """Every position reachable from a winnable position with at most 22 cards."""
    game = near_end(number, 22)
    assert game.cards_left() <= 22
    positions, wins, dead = walk(game)
    assert wins == 1 and positions > 1


def test_every_position_of_small_layouts_matches_the_engine():
    totals = [walk(game) for game in small_games()]
    assert sum(w for _, w, _ in totals) >= 3  # some are won ...
    assert sum(d for _, _, d in totals) >= 3  # ... and some positions are dead ends
    assert all(p >= 1 for p, _, _ in totals)


def test_walks_meet_wins_and_dead_ends():
    """The exhaustive walks near the end of random games see both outcomes."""
    rng = random.Random(3)
    wins = dead = 0
    for number in random_numbers(6, seed=99):
        result = solve(number, budget=50_000)
        if result.verdict != "win":
            continue
        game = Game(number)
        for move in result.moves[: rng.randint(38, 44)]:
            game.play(move)
        _, w, d = walk(game)
        wins += w
        dead += d
    assert wins >= 1 and dead >= 1


# The most legal moves a position can have: 20 playable cards, 7 J, 7 Q and 6 K in
# view make 7 * 7 * 6 = 294 triplets (the seventh K lies under a Q on pile 1).
CROWDED = (
    {1: "Ks Qd", 2: "Qc", 3: "Qc", 4: "Qd", 5: "Qh", 6: "Qh", 7: "Kc", 8: "Kc", 9: "Kd",
     10: "Kd", 11: "Kh", 12: "Kh"},
    "Jc Jc Jd Jd Jh Jh Js Qs",
)


def test_crowded_position_matches_the_engine():
    """All 294 moves, then random descents to the end (the full walk is too big)."""
    rng = random.Random(0)
    for _ in range(5):
        game = Game(parse_layout(make_layout(*CROWDED)))
        piles, reserve = deal_arrays(game.deal)
        assert len(compare(game, piles, reserve)) == 294
        while True:
            moves = compare(game, piles, reserve)
            if not moves:
                break
            step(game, moves, rng.choice(list(game.legal_moves)))
        assert game.cards_left() in (0, 3)  # won, or the K under the Q is stuck


def test_max_moves_holds_every_legal_move():
    """MAX_MOVES is the size of the search's move buffers; a position can have 294
    legal moves, so the buffers that all_moves and search_moves without FREE_CARDS
    fill must hold 294 (without the JIT, search_moves raises IndexError at 256)."""
    n = len(Game(parse_layout(make_layout(*CROWDED))).legal_moves)
    assert MAX_MOVES >= n, f"MAX_MOVES = {MAX_MOVES} < {n} legal moves of the CROWDED layout"


# --- the same checks with the JIT disabled ---------------------------------------------

NOJIT_SCRIPT = """
import sys
import test_position as t
from halfmoon import Game
from halfmoon.game.codes import random_numbers
n = t.random_play(random_numbers(4, seed=8), seed=4, follow_solver=False)
game = Game(0)
for move in sys.argv[1:]:
    game.play(move)
positions, wins, dead = t.walk(game)
assert wins == 1, wins
for g in t.small_games():
    t.walk(g)
t.test_source_delta_and_delta_sources_round_trip()
t.test_initial_position_of_layouts_matches_the_engine()
t.test_cards_left()
print("ok", n, positions)
"""


def test_kernels_in_pure_python():
    """A few of the checks above with NUMBA_DISABLE_JIT=1 (the kernels as Python)."""
    line = [str(m) for m in near_end(0, 16).stack]
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), str(TESTS.parents[1]), str(ROOT),
                                         env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-c", NOJIT_SCRIPT, *line], cwd=ROOT, env=env,
        capture_output=True, text=True, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    ok, compared, walked = proc.stdout.split()
    assert ok == "ok" and int(compared) >= 20 and int(walked) > 10


def test_position_arrays_round_trip_to_the_position():
    rng = np.random.default_rng(3)
    for number in (0, 1, 8_031_810_175):
        piles, reserve = deal_arrays(Deal.from_number(number))
        for _ in range(50):
            counts = rng.integers(0, 9, 12)
            full = rng.integers(0, 2, 8)
            pos = sum(int(c) << (4 * i) for i, c in enumerate(counts))
            pos += sum(int(f) << (48 + r) for r, f in enumerate(full))
            p, r = position_arrays(piles, reserve, pos)
            assert int(initial_position(p, r)) == pos
            for i, c in enumerate(counts):
                assert (p[i, :c] == piles[i, :c]).all() and (p[i, c:] == 0).all()
            assert (r[full == 0] == 0).all() and (r[full == 1] == reserve[full == 1]).all()
            assert p.dtype == piles.dtype and r.dtype == reserve.dtype


def test_position_arrays_along_a_game_are_its_positions():
    piles, reserve = deal_arrays(Deal.from_number(random_numbers(1, seed=71)[0]))
    pos = initial_position(piles, reserve)
    line = np.zeros(MAX_PLY, np.uint64)
    n, _ = play_game(piles, reserve, pos, GREEDY, np.zeros(1, np.uint64), line, 2)
    for k in range(n):
        pos = np.uint64(pos - line[k])
        p, r = position_arrays(piles, reserve, pos)
        assert initial_position(p, r) == pos  # the solver reads the same position from it
        for i in range(NPILES):
            c = pile_count(pos, i)
            assert np.array_equal(p[i, :c], piles[i, :c]) and not p[i, c:].any()
        assert [bool(r[j]) for j in range(8)] == [reserve_full(pos, j) for j in range(8)]
    assert piles.any()  # the deal's own arrays are left alone
