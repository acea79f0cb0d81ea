"""The solver's Python API (solver/portfolio/search.py): ``solve`` and its helpers.

Verdicts on known deals, winning lines replayed through the reference engine, the
budget, inputs of every kind, and verdicts on small positions checked against
exhaustive search with the engine.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import brute_force, make_layout, pack

from halfmoon import Game, parse_layout, write_layout
from halfmoon.game.deal import Deal
from halfmoon.game.moves import Move
from solver import solve_cpsat
from solver.depth_first.pruning import ALL_RULES, NO_RULES
from solver.mirror.convert import deal_arrays, delta_to_move
from solver.mirror.table import Table
from solver.portfolio.search import DEFAULT_BUDGET, Result, solve

ROOT = Path(__file__).resolve().parents[3]

WINNABLE_LAYOUT = ({1: "5s", 3: "Kh", 5: "Qh", 8: "Jc 6d"}, "Ah 10c")
LOST_LAYOUT = ({1: "Ac 10c 5h", 2: "6h", 3: "Jc Qc Kc"}, "")  # the A lies under its only 10


def layout(piles: dict, reserve: str = "") -> Deal:
    return parse_layout(make_layout(piles, reserve))


def replay(deal: Deal, moves) -> Game:
    game = Game(deal)
    for move in moves:
        game.play(move)
    return game


def position_deal(deal: Deal, pos: int) -> Deal:
    """The packed position ``pos`` of ``deal`` as a Deal."""
    piles = [pile[: (pos >> (4 * i)) & 15] for i, pile in enumerate(deal.piles)]
    reserve = [c if pos >> (48 + r) & 1 else None for r, c in enumerate(deal.reserve)]
    return Deal(piles=piles, reserve=reserve)


# --- known deals ---------------------------------------------------------------------------

@pytest.mark.parametrize("number, verdict", [(0, "win"), (1, "win"), (13, "win"), (55, "loss"),
                                             (58, "loss"), (92, "loss"), (262, "loss"),
                                             (454, "loss")])
def test_known_deals(number, verdict):
    r = solve(number, budget=1_000_000)
    assert isinstance(r, Result)
    assert r.verdict == verdict and r.solved
    assert r.code == Deal.from_number(number).code
    assert r.nodes >= 1 and r.seconds >= 0
    if verdict == "win":
        assert len(r.moves) == 48
        game = replay(Deal.from_number(number), r.moves)
        assert game.is_won and game.score == 520
    else:
        assert r.moves is None


def test_win_lines_replay():
    wins = 0
    for number in range(100, 160):
        r = solve(number, budget=200_000)
        if r.verdict == "win":
            assert all(isinstance(m, Move) for m in r.moves)
            assert replay(Deal.from_number(number), r.moves).is_won
            wins += 1
    assert wins >= 50


def test_inputs_of_every_kind(tmp_path):
    deal = Deal.from_number(0)
    path = tmp_path / "deal0.txt"
    write_layout(deal, path)
    verdicts = [solve(x, budget=100_000) for x in (0, "HM1-N-AAAAAAA", " hm1-n-aaaaaaa ", "0",
                                                   deal, str(path))]
    assert {r.verdict for r in verdicts} == {"win"}
    assert {r.code for r in verdicts} == {"HM1-N-AAAAAAA"}


def test_the_same_deal_twice():
    """Entries of an earlier search never leak into a later one (generations)."""
    first = [solve(n, budget=100_000).verdict for n in (55, 0, 92, 1)]
    second = [solve(n, budget=100_000).verdict for n in (0, 55, 1, 92)]
    assert first == ["loss", "win", "loss", "win"]
    assert second == ["win", "loss", "win", "loss"]


def test_own_tables():
    t, p = Table(1), Table(1)
    assert solve(262, budget=300_000, table=t, projection_table=p).verdict == "loss"
    assert solve(0, budget=100_000, table=t, projection_table=p).verdict == "win"
    assert t.generation == 2 and p.generation == 2


# --- the budget ---------------------------------------------------------------------------------

@pytest.mark.parametrize("budget", [1, 2, 10, 100, 1000, 5000])
def test_budget_bounds_the_positions(budget):
    r = solve(129, budget=budget)  # a hard win: nowhere near settled in 5,000 positions
    assert r.verdict == "unresolved" and not r.solved
    assert r.moves is None
    assert 1 <= r.nodes <= budget


def test_budget_one_on_an_easy_deal():
    r = solve(0, budget=1)
    assert r.verdict == "unresolved" and r.nodes <= 1


@pytest.mark.parametrize("budget", [0, -1, -1000])
def test_bad_budget(budget):
    with pytest.raises(ValueError, match="budget"):
        solve(0, budget=budget)


def test_default_budget():
    assert DEFAULT_BUDGET >= 1_000_000


# --- positions from layouts ---------------------------------------------------------------------

def test_small_winnable_layout():
    deal = layout(*WINNABLE_LAYOUT)
    r = solve(deal)
    assert r.verdict == "win" and r.code is None
    assert len(r.moves) == 3  # two pairs and one triplet
    assert replay(deal, r.moves).is_won


def test_small_lost_layout():
    deal = layout(*LOST_LAYOUT)
    game = Game(deal)
    assert not brute_force(game)[pack(game)]
    for rules in (ALL_RULES, NO_RULES):
        r = solve(deal, rules=rules)
        assert r.verdict == "loss" and r.moves is None


def test_the_empty_position_is_won():
    empty = layout({})
    for rules in (ALL_RULES, NO_RULES):
        r = solve(empty, rules=rules)
        assert r.verdict == "win"
        assert r.moves == ()


def test_a_dead_end_is_lost():
    r = solve(layout({1: "Ac 10c", 2: "As 10s"}))
    assert r.verdict == "loss"


def test_positions_reached_in_a_game():
    """``remaining_deal()`` after part of a winning line is won, and the new line
    finishes the game."""
    full = solve(3, budget=200_000)
    for k in (1, 10, 24, 40, 47):
        game = replay(Deal.from_number(3), full.moves[:k])
        r = solve(game.remaining_deal(), budget=200_000)
        assert r.verdict == "win" and len(r.moves) == 48 - k
        for move in r.moves:
            game.play(move)
        assert game.is_won


def small_games():
    rng = random.Random(31)
    for number in range(20, 28):
        r = solve(number, budget=200_000)
        game = Game(number)
        for move in r.moves[:34]:
            game.play(move)
        for _ in range(rng.randint(0, 3)):
            if game.legal_moves:
                game.push(rng.choice(list(game.legal_moves)))
        while game.cards_left() > 26 and game.legal_moves:
            game.push(rng.choice(list(game.legal_moves)))
        yield game


def test_verdicts_on_small_positions_match_exhaustive_search():
    """On a sample of the positions reachable from small positions (half of them
    lost), solve() with all rules and with none gives the engine's verdict."""
    rng = random.Random(32)
    checked = {"win": 0, "loss": 0}
    for game in small_games():
        memo = brute_force(game)
        sample = rng.sample(sorted(memo), min(60, len(memo)))
        for pos in sample:
            deal = position_deal(game.deal, pos)
            for rules in (ALL_RULES, NO_RULES):
                r = solve(deal, budget=1_000_000, rules=rules)
                expected = "win" if memo[pos] else "loss"
                assert r.verdict == expected, (game.deal.code, hex(pos), rules)
                if r.verdict == "win":
                    assert replay(deal, r.moves).is_won
            checked[expected] += 1
    assert checked["win"] >= 50 and checked["loss"] >= 50, checked


# --- helpers ------------------------------------------------------------------------------------

def test_deal_arrays():
    deal = Deal.from_number(0)
    piles, reserve = deal_arrays(deal)
    assert piles.shape == (12, 8) and piles.dtype == np.int8
    assert reserve.shape == (8,) and reserve.dtype == np.int8
    assert [[int(r) for r in row] for row in piles] == [[c.rank for c in p] for p in deal.piles]
    assert [int(r) for r in reserve] == [c.rank for c in deal.reserve]
    small = layout({2: "5s 6s"}, "-- Ac 10c")
    piles, reserve = deal_arrays(small)
    assert list(piles[1]) == [5, 6, 0, 0, 0, 0, 0, 0] and not piles[0].any()
    assert list(reserve) == [0, 1, 10, 0, 0, 0, 0, 0]


def test_delta_to_move():
    assert delta_to_move((1 << 0) + (1 << 28)) == Move.parse("P1+P8")
    assert delta_to_move((1 << 44) + (1 << 48) + (1 << 55)) == Move.parse("P12+R1+R8")
    assert str(delta_to_move((1 << 52) + (1 << 16))) == "P5+R5"


def test_solve_cpsat():
    win = solve_cpsat(0, time_limit=60)
    assert win.verdict == "win" and replay(Deal.from_number(0), win.moves).is_won
    loss = solve_cpsat("HM1-N-AAAAACD", time_limit=60)  # deal 55
    assert loss.code == Deal.from_number(55).code and loss.verdict == "loss"
    assert solve_cpsat(layout({})).verdict == "win"


# --- the move buffers ---------------------------------------------------------------------------

# 7 J, 7 Q and 6 K in view: 294 legal triplets, more than MAX_MOVES = 256.
CROWDED = (
    {1: "Ks Qd", 2: "Qc", 3: "Qc", 4: "Qd", 5: "Qh", 6: "Qh", 7: "Kc", 8: "Kc", 9: "Kd",
     10: "Kd", 11: "Kh", 12: "Kh"},
    "Jc Jc Jd Jd Jh Jh Js Qs",
)
CROWDED_SCRIPT = """
from conftest import make_layout
from halfmoon import parse_layout
from solver.depth_first.pruning import NO_RULES
from solver.portfolio.search import solve
from test_search import CROWDED
r = solve(parse_layout(make_layout(*CROWDED)), rules=NO_RULES)
print(r.verdict, len(r.moves))
"""


def test_crowded_position_without_free_cards():
    """Without the free-card rule the root has 294 moves; the search must not write
    past its move buffers (run as Python, where numba would not notice)."""
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    tests = ROOT / "tests"
    here = Path(__file__).resolve().parent  # for test_search's CROWDED
    env["PYTHONPATH"] = os.pathsep.join([str(here), str(tests), str(ROOT),
                                         env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-c", CROWDED_SCRIPT], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-1500:]
    assert proc.stdout.split() == ["win", "7"]


# --- the portfolio ------------------------------------------------------------------------------

def test_portfolio_members():
    from solver.depth_first.pruning import BOUNDS, FREE_CARDS
    from solver.portfolio.search import BOUNDS_DEPTH, URGENCY_DEPTH, Member, _portfolio

    members = _portfolio(ALL_RULES, quick_phase=2000)
    # the cheap search first, with every rule, the bounds test at the root only
    assert members[0].flags == ALL_RULES and members[0].depth == 1
    assert sum(m.restarts for m in members) == 1  # one search restarts
    assert len({m.seed for m in members if m.noise}) == 2  # the jittered ones have their own seeds
    assert _portfolio(ALL_RULES, quick_phase=0)[0].flags == ALL_RULES
    plain = Member(FREE_CARDS, 0, 0, URGENCY_DEPTH, False)
    assert _portfolio(FREE_CARDS, quick_phase=2000) == [plain]
    # the urgency-order search takes the bounds test deeper than the jittered ones
    assert members[1] == Member(flags=ALL_RULES, seed=0, noise=0, depth=URGENCY_DEPTH,
                                restarts=False)
    assert [m.depth for m in members[3:]] == [BOUNDS_DEPTH, BOUNDS_DEPTH] != [URGENCY_DEPTH] * 2
    assert all(not m.flags & BOUNDS or m.depth >= 1 for m in members)


def test_each_result_says_which_search_settled_it():
    from solver.portfolio.search import _portfolio, member_name

    names = [member_name(m) for m in _portfolio(ALL_RULES, quick_phase=2000)]
    assert names == ["quick", "urgency", "engine order", "near-ties", "shuffled"]
    assert solve(0).settled_by == "probe"  # most wins are found before the projections
    assert solve(1).settled_by == "quick"  # deal 1 needs more than the probe's positions
    assert solve(0, quick_phase=0).settled_by == "urgency"
    assert solve(0, budget=10).settled_by is None  # unresolved
    # deal 1413 is a loss only the grouping search proves
    hard = solve(1413)
    assert (hard.verdict, hard.settled_by) == ("loss", "grouping")


def test_the_grouping_share_falls_once_a_deal_is_hard():
    from solver.portfolio.search import (
        GROUPING_LATE,
        GROUPING_SHARE,
        GROUPING_SHARE_LATE,
        grouping_share,
    )

    assert GROUPING_SHARE_LATE < GROUPING_SHARE
    assert grouping_share(0) == grouping_share(GROUPING_LATE - 1) == GROUPING_SHARE
    assert grouping_share(GROUPING_LATE) == grouping_share(10 * GROUPING_LATE) \
        == GROUPING_SHARE_LATE


def test_the_late_share_gives_the_grouping_search_its_conflicts_sooner(monkeypatch):
    """Deal 6218469143, a loss only the grouping search proves (about 1,500 conflicts,
    several turns): with the late share from the start, its conflicts come after fewer
    positions of the depth-first searches (127,628 against 223,628 in version 14, whose
    default share is 120 positions a conflict, 60 the late one)."""
    import solver.portfolio.search as search

    default = solve(6218469143)
    monkeypatch.setattr(search, "GROUPING_LATE", 0)
    late = solve(6218469143)
    assert default.verdict == late.verdict == "loss"
    assert late.nodes < 0.65 * default.nodes


# 200 deals of random_numbers(100_000, 31337) still open after 30,000 positions of the
# depth-first searches: the 50 cheapest wins and 50 cheapest losses of those past 100,000
# positions, and the 100 cheapest settled between 30,000 and 100,000 (all wins)
JOIN_DEALS = (
    136673795, 142660483, 158042052, 170925231, 171623771, 176847368, 193532881,
    222636282, 234362162, 260856533, 379501300, 407060564, 502175333, 590732855,
    627366276, 634268137, 646189649, 724665152, 780791800, 789551590, 791104618,
    793748353, 819830225, 870579926, 875646098, 880574203, 923256471, 938844178,
    942199829, 975935965, 988917160, 1023932843, 1042075130, 1108706867, 1159068549,
    1164874901, 1211434529, 1220848771, 1233298316, 1245630837, 1250771589, 1272443440,
    1326135064, 1336190269, 1374181498, 1383984578, 1386909890, 1391297359, 1393954619,
    1399982928, 1401658688, 1411434850, 1478334383, 1497988175, 1514777422, 1515660037,
    1570810457, 1571665094, 1575084364, 1584581126, 1592883022, 1593278030, 1598860713,
    1600557647, 1652499434, 1676245876, 1719526921, 1743077689, 1754453274, 1765540931,
    1770122652, 1771827617, 1789921097, 1796673039, 1804716014, 1809247841, 1867325674,
    1881970634, 1882982517, 1896847660, 1904457570, 1925292373, 1932114415, 1971347328,
    1981053007, 2002632313, 2033665691, 2044827327, 2089139240, 2110676578, 2114035925,
    2121553354, 2138323853, 2139418958, 2153297972, 2153953502, 2161214942, 2237229447,
    2289070682, 2296801268, 2310921362, 2342063569, 2469644837, 2472128204, 2494034850,
    2542658346, 2642661159, 2669573213, 2682441413, 2727948285, 2748942408, 2811373554,
    2817903126, 2887553163, 2894755503, 3007020583, 3076427128, 3127664033, 3198842938,
    3222164028, 3222664712, 3226736306, 3237185685, 3265195902, 3268877651, 3274598407,
    3279211569, 3311960738, 3321642201, 3335855985, 3337050829, 3399660332, 3480819474,
    3561119768, 3605383171, 3617817449, 3702841096, 3703774908, 3724542206, 3743771817,
    3774477817, 3829179941, 3891549783, 3912327329, 3913810695, 3976346571, 3998583061,
    4012610644, 4317802660, 4333416859, 4418738025, 4484933599, 4662014096, 4665191000,
    4751979922, 4907009747, 5049412638, 5076476600, 5117093270, 5348538192, 5365581990,
    5381702871, 5416842446, 5523642550, 5532807860, 5549759444, 5580422999, 5826935320,
    5853087523, 6021286957, 6200590709, 6212739148, 6246368887, 6316016594, 6412174808,
    6428793554, 6439125255, 6459710679, 6661158184, 6696191356, 6748265819, 6762890184,
    6891612864, 6984727991, 7028370240, 7168282738, 7375563488, 7387959501, 7423265645,
    7432639092, 7460032306, 7554380798, 7579303054, 7589954796, 7617836296, 7671057135,
    7679068537, 7751011375, 7759352621, 7872839771,
)


def test_the_same_verdicts_whenever_the_grouping_search_joins(monkeypatch):
    """When the grouping search joins is a trade of time, not a rule: joining at 30,000
    positions (the default) or at 100,000 (version 13) gives the same verdicts on deals
    it reaches both ways, and the earlier join settles many of them before 100,000."""
    import solver.portfolio.search as search

    assert search.GROUPING_AFTER == 30_000
    early = [solve(n) for n in JOIN_DEALS]
    monkeypatch.setattr(search, "GROUPING_AFTER", 100_000)
    late = [solve(n) for n in JOIN_DEALS]
    assert [r.verdict for r in early] == [r.verdict for r in late]
    assert {r.verdict for r in early} == {"win", "loss"}
    before = [r for r in early if r.settled_by == "grouping" and r.nodes < 100_000]
    assert len(before) >= 100 and not any(r.settled_by == "grouping"
                                          for r in late if r.nodes < 100_000)
    for r, n in zip(early, JOIN_DEALS):
        if r.verdict == "win":
            assert replay(Deal.from_number(n), r.moves).is_won


def test_a_restarting_portfolio_finds_wins_the_fixed_orders_miss():
    """Deal 5913: the fixed orders wander for over 200,000 positions (checked without
    the restarting search); short runs in random orders find a win at once."""
    r = solve(5913, budget=200_000)
    assert r.verdict == "win"
    assert replay(Deal.from_number(5913), r.moves).is_won


@pytest.mark.parametrize("number", [4088, 8776])
def test_the_grouping_search_settles_losses_the_positions_search_cannot(number):
    """Deals 4088 and 8776 were unresolved after 5,000,000 positions of the depth-first
    searches alone; with the grouping search taking turns they are proved lost."""
    from solver.depth_first.pruning import GROUPING

    r = solve(number)
    assert r.verdict == "loss" and r.nodes < 2_000_000
    assert solve(number, budget=r.nodes, rules=ALL_RULES & ~GROUPING).verdict == "unresolved"


def test_a_win_found_by_the_grouping_search_replays(monkeypatch):
    """Deal 0 with the grouping search joining at once: its first turn finds the win
    (fewer conflicts than a turn allows, before any position is searched)."""
    import solver.portfolio.search as search
    from solver.depth_first.pruning import GROUPING

    monkeypatch.setattr(search, "GROUPING_AFTER", 0)
    r = solve(0, rules=GROUPING, quick_phase=0)
    assert r.verdict == "win" and r.nodes <= search.GROUPING_SLICE
    assert replay(Deal.from_number(0), r.moves).is_won


def test_the_probe_comes_first_without_the_projections():
    """The probe is the first member without the projected games, played once, for PROBE
    positions; a deal it leaves open goes on with the first turn on its table, and a
    budget smaller than the probe stops in it."""
    from solver.depth_first.pruning import PROJECTIONS
    from solver.portfolio.search import PROBE, Member, _probe

    assert _probe(ALL_RULES, 2000) == Member(ALL_RULES & ~PROJECTIONS, 0, 0, 1, False)
    assert _probe(ALL_RULES & ~PROJECTIONS, 2000) is None  # then the probe is the first turn
    assert _probe(ALL_RULES, 0) is None  # no first turn, no probe
    small = solve(1, budget=PROBE // 2)
    assert (small.verdict, small.nodes, small.settled_by) == ("unresolved", PROBE // 2, None)
    won = solve(1)
    assert won.verdict == "win" and won.nodes > PROBE and won.settled_by == "quick"
    # without the projections there is no probe: the first turn is the cheap search's
    alone = solve(1, rules=ALL_RULES & ~PROJECTIONS)
    assert alone.verdict == "win" and alone.settled_by == "quick"


def test_the_projections_are_made_only_for_a_search_that_uses_them(monkeypatch):
    """A solve the probe settles (no projections in its rules) makes none; one that goes on
    to the first turn makes them once; either way the verdict and the line are the same."""
    import solver.portfolio.search as search

    search._unused_projections()  # the empty stand-in, made once a process
    before = {n: solve(n) for n in (0, 1)}
    made = []
    real = search.projection_arrays
    monkeypatch.setattr(search, "projection_arrays", lambda *a: made.append(a) or real(*a))
    assert solve(0).settled_by == "probe" and made == []
    assert solve(1).settled_by == "quick" and len(made) == 1
    for n in (0, 1):
        again = solve(n)
        assert (again.verdict, again.moves, again.nodes) == (
            before[n].verdict, before[n].moves, before[n].nodes)
