"""The bandit player: capped solves, one candidate a kind of move, decisions that never see
the hidden cards, whole games that replay and repeat."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import make_layout

from halfmoon.game.codes import random_numbers
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.layouts import parse_layout
from solver import solve
from solver.mirror.convert import deal_arrays, delta_to_move
from solver.mirror.position import (
    MAX_MOVES,
    MAX_PLY,
    NPILES,
    all_moves,
    initial_position,
    pile_count,
)
from solver.players.bandit import (
    B_BATCH,
    B_CAP,
    B_FLAGS,
    B_HOPELESS,
    B_LEAD,
    B_TOTAL,
    B_Z,
    SEARCHES,
    bandit_choice,
    bandit_decide,
    bandit_game,
    candidates,
    capped_win,
    new_solver,
)
from solver.players.fair import base_choice, move_signature, sample_layout, view_layout
from solver.players.roster import player_named
from solver.players.simple import GREEDY, TUNED, play_game


def _params(**settings):
    """The bandit's settings array, small by default (``settings`` by roster key)."""
    name = "bandit@" + ",".join(f"{k}={v}" for k, v in {"cap": 200, "lead": 20, "total": 200,
                                                        **settings}.items())
    return player_named(name).params()


def _positions(number, plies, every):
    """Positions along the greedy player's game on a deal: (piles, reserve, positions)."""
    piles, reserve = deal_arrays(Deal.from_number(number))
    pos = initial_position(piles, reserve)
    line = np.zeros(MAX_PLY, np.uint64)
    n, _ = play_game(piles, reserve, pos, GREEDY, np.zeros(1, np.uint64), line, 2)
    out = []
    for k in range(min(n, plies)):
        if k % every == 0:
            out.append(pos)
        pos = pos - line[k]
    return piles, reserve, out


def _shuffle_hidden(piles, pos, rng):
    """The deal with the cards under the tops at ``pos`` put in other places."""
    out = piles.copy()
    places = [(i, k) for i in range(NPILES) for k in range(pile_count(pos, i) - 1)]
    cards = [piles[i, k] for i, k in places]
    rng.shuffle(cards)
    for (i, k), r in zip(places, cards):
        out[i, k] = r
    return out


def _decisions(rng, deals=5):
    """(layout, the same with its hidden cards shuffled, reserve, position, moves, m) where
    there is a choice along greedy games."""
    moves = np.empty(MAX_MOVES, np.uint64)
    for number in random_numbers(deals, seed=17):
        piles, reserve, positions = _positions(number, 44, 4)
        for pos in positions:
            m = all_moves(piles, reserve, pos, moves)
            if m >= 2:
                yield piles, _shuffle_hidden(piles, pos, rng), reserve, pos, moves.copy(), m


def test_a_capped_solve_finds_the_solvers_wins_and_only_within_its_cap():
    number = 3
    piles, reserve = deal_arrays(Deal.from_number(number))
    root = initial_position(piles, reserve)
    verdict = solve(number, 200_000).verdict
    for flags in sorted(set(SEARCHES.values())):
        big = new_solver(piles, reserve, 200_000)
        assert capped_win(piles, reserve, root, 1, flags, big) == 0  # one position: no line
        if verdict == "loss":
            assert capped_win(piles, reserve, root, 200_000, flags, big) == 0
    assert capped_win(piles, reserve, np.uint64(0), 1, SEARCHES["plain"], big) == 1


def test_a_solve_forgets_what_the_layout_before_it_proved_lost():
    """The solves share a table, a generation each: a position proved lost in one sampled
    layout may be won in the next, so each sample must be judged as a fresh table judges
    it."""
    rng = np.random.default_rng(5)
    shared_checks = 0
    for number in random_numbers(3, seed=41):
        piles, reserve, positions = _positions(number, 60, 15)
        shared = new_solver(piles, reserve, 300)
        view = np.zeros_like(piles)
        sample = np.zeros_like(piles)
        state = np.array([rng.integers(1, 2**62)], np.uint64)
        for pos in positions:
            view_layout(piles, pos, view)
            for _ in range(12):
                sample_layout(view, pos, state, sample)
                fresh = capped_win(sample, reserve, pos, 300, SEARCHES["order"],
                                   new_solver(piles, reserve, 300))
                assert capped_win(sample, reserve, pos, 300, SEARCHES["order"], shared) == fresh
                shared_checks += fresh
    assert shared_checks > 0  # some found wins, so the comparison saw both answers


def test_the_candidates_are_one_move_of_each_signature_the_base_moves_first():
    piles = np.zeros((NPILES, 8), np.int8)
    piles[0, :3] = [1, 2, 5]  # P1 and P2: three cards, a 5 on top
    piles[1, :3] = [3, 4, 5]
    piles[2, :2] = [7, 5]  # P3: two cards, a 5 on top
    reserve = np.array([6, 6, 9, 0, 0, 0, 0, 0], np.int8)
    pos = initial_position(piles, reserve)
    moves = np.empty(MAX_MOVES, np.uint64)
    m = all_moves(piles, reserve, pos, moves)
    view = np.zeros_like(piles)
    view_layout(piles, pos, view)
    sigs = [move_signature(view, reserve, pos, moves[j]) for j in range(m)]
    out = np.empty(MAX_MOVES, np.int64)
    for b in range(m):
        n = candidates(view, reserve, pos, moves, m, b, out)
        assert out[0] == b and n == len(set(sigs)) < m
        assert len({sigs[j] for j in out[:n]}) == n


@pytest.mark.parametrize("search", sorted(SEARCHES))
def test_the_bandits_moves_do_not_depend_on_the_hidden_cards(search):
    """At positions along real games, with the same random numbers, the deal with its hidden
    cards shuffled gets the same move (and the same solves), though the samples would differ
    if the player looked."""
    checked = changed = 0
    params = _params(search=search)
    for piles, shuffled, reserve, pos, moves, m in _decisions(np.random.default_rng(7)):
        changed += not np.array_equal(shuffled, piles)
        got = []
        for layout in (piles, shuffled):
            stats = np.zeros(1, np.int64)
            k = bandit_decide(layout, reserve, pos, moves, m, TUNED, params,
                              np.array([99], np.uint64), new_solver(layout, reserve, 200), stats,
                              np.zeros_like(piles))
            got.append((int(k), int(stats[0])))
        assert got[0] == got[1], hex(int(pos))
        checked += 1
    assert checked >= 20 and changed >= checked // 2


def test_a_peeking_bandit_would_be_caught():
    """The test above can fail: the bandit handed the true layout instead of the view (its
    samples then start from where the cards really are) changes its move or its solves when
    the hidden cards move, somewhere along these games."""
    params = _params()
    differ = 0
    for piles, shuffled, reserve, pos, moves, m in _decisions(np.random.default_rng(3)):
        got = []
        for layout in (piles, shuffled):
            stats = np.zeros(1, np.int64)
            k = bandit_choice(layout, reserve, pos, moves, m, TUNED, params,
                              np.array([99], np.uint64), new_solver(layout, reserve, 200), stats)
            got.append((int(k), int(stats[0])))
        differ += got[0] != got[1]
    assert differ > 0


def test_the_bandit_stops_at_its_leaders_plays_its_total_or_when_hopeless():
    piles, reserve, positions = _positions(int(random_numbers(1, seed=8)[0]), 10, 1)
    moves = np.empty(MAX_MOVES, np.uint64)
    for pos in positions:
        m = all_moves(piles, reserve, pos, moves)
        view = np.zeros_like(piles)
        view_layout(piles, pos, view)
        n = candidates(view, reserve, pos, moves, m, 0, np.empty(MAX_MOVES, np.int64))
        if n < 3:
            continue
        runs = {}
        for key, params in (("lead", _params(lead=30, total=0, batch=10)),
                            ("total", _params(lead=10**6, total=50, batch=10)),
                            ("hopeless", _params(cap=1, hopeless=40, batch=10))):
            stats = np.zeros(1, np.int64)
            k = bandit_choice(view, reserve, pos, moves, m, TUNED, params,
                              np.array([1], np.uint64), new_solver(view, reserve, 200), stats)
            runs[key] = (int(k), int(stats[0]))
        assert runs["total"][1] == 50 and runs["hopeless"][1] == 40
        assert runs["lead"][1] >= 30 + 10 * (n - 1) and runs["lead"][1] % 10 == 0
        # no sample won within a cap of one position: the tuned player's move
        assert runs["hopeless"][0] == base_choice(view, reserve, pos, moves, m, TUNED)
        return
    pytest.fail("no position with three kinds of move")


def test_one_layout_only_is_solved_once_a_candidate():
    """With every hidden card of one rank there is one layout: a solve a candidate, and the
    move whose child the search wins (Ah + 10d uncovers the 10 for Ad: won; Ad + 10d leaves
    Ah over the last 10: lost)."""
    piles, reserve = deal_arrays(parse_layout(make_layout({1: "10c Ah", 2: "Ad", 3: "10d"})))
    pos = initial_position(piles, reserve)
    moves = np.empty(MAX_MOVES, np.uint64)
    m = all_moves(piles, reserve, pos, moves)
    stats = np.zeros(1, np.int64)
    k = bandit_choice(piles, reserve, pos, moves, m, TUNED, _params(), np.array([1], np.uint64),
                      new_solver(piles, reserve, 200), stats)
    assert m == 2 and stats[0] == 2
    game = Game(parse_layout(make_layout({1: "10c Ah", 2: "Ad", 3: "10d"})))
    game.play(delta_to_move(int(moves[k])))
    assert solve(game.remaining_deal(), 10_000).verdict == "win"


def test_bandit_games_replay_through_the_engine_and_repeat_from_their_seed():
    params = _params(cap=100, lead=10, total=60, hopeless=40)
    for number in random_numbers(3, seed=23):
        piles, reserve = deal_arrays(Deal.from_number(number))
        root = initial_position(piles, reserve)
        runs = []
        for _ in range(2):
            line = np.zeros(MAX_PLY, np.uint64)
            stats = np.zeros(1, np.int64)
            n, final = bandit_game(piles, reserve, root, TUNED, params, np.uint64(77), line, stats)
            runs.append((line[:n].tolist(), int(final), int(stats[0])))
        assert runs[0] == runs[1] and runs[0][2] > 0
        game = Game(number)
        for delta in runs[0][0]:
            game.play(delta_to_move(int(delta)))  # raises on an illegal move
        assert game.is_over and game.is_won == (runs[0][1] == 0)


def test_the_settings_array_reads_the_roster():
    p = _params(cap=123, lead=45, batch=6, total=789, hopeless=12, search="plain", z=1.5)
    assert (p[B_CAP], p[B_LEAD], p[B_BATCH], p[B_TOTAL], p[B_HOPELESS], p[B_FLAGS], p[B_Z]) == (
        123, 45, 6, 789, 12, SEARCHES["plain"], 1.5)


def test_with_a_bound_the_base_move_is_kept_unless_clearly_beaten():
    """lonelybot's rule plays the leader (here some leaders are not the tuned move); with a
    bound of a billion standard errors, every move is the tuned player's."""
    plain = bound = 0
    for piles, _, reserve, pos, moves, m in _decisions(np.random.default_rng(1), deals=3):
        view = np.zeros_like(piles)
        view_layout(piles, pos, view)
        b = base_choice(view, reserve, pos, moves, m, TUNED)
        for z, count in ((0.0, "plain"), (1e9, "bound")):
            k = bandit_choice(view, reserve, pos, moves, m, TUNED, _params(z=z),
                              np.array([5], np.uint64), new_solver(view, reserve, 200),
                              np.zeros(1, np.int64))
            if count == "plain":
                plain += k != b
            else:
                bound += k != b
    assert plain > 0 and bound == 0
