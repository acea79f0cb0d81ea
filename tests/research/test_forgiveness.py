"""Forgiveness walks: the walk against the reference engine's analysis and the players' games,
fatal moves proved, the summaries by hand, workers, errors (the walk's solver side:
tests/solver/portfolio/test_positions.py)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from halfmoon.game.engine import Game
from halfmoon.game.errors import HalfMoonError
from halfmoon.research import strategies
from halfmoon.research.analysis import analyse
from halfmoon.research.forgiveness import (
    GAME_COLUMNS,
    POSITION_COLUMNS,
    clustered_mean,
    fatal_points,
    forgiveness,
    keep_share_by_cards_left,
    random_move_loses,
    walk,
)
from halfmoon.research.stats import wilson_interval
from solver import solve

BUDGET = 200_000


def _engine_after(number, moves):
    game = Game(number)
    for move in moves:
        game.play(move)
    return game


@pytest.mark.parametrize("number,player", [(0, "random"), (5, "random"), (0, "greedy")])
def test_walk_counts_match_the_reference_analysis(number, player):
    """Each position of the walk, reached through the engine, analysed move by move by
    halfmoon.research.analysis (a fresh solve of each child)."""
    w = walk(number, player, budget=BUDGET)
    assert w.start == "win" and w.positions and not w.unresolved
    moves = strategies.play(number, player).moves
    for ply, cards, legal, keep, lose, unresolved, chosen_keeps, chosen_loses in w.positions:
        game = _engine_after(number, moves[:ply])
        a = analyse(game, budget=BUDGET)
        verdicts = [m.verdict for m in a.moves]
        assert (cards, legal) == (game.cards_left(), len(verdicts))
        assert (keep, lose, unresolved) == (verdicts.count("win"), verdicts.count("loss"), 0)
        chosen = {m.move: m.verdict for m in a.moves}[moves[ply]]
        assert (chosen_keeps, chosen_loses) == (chosen == "win", chosen == "loss")


@pytest.mark.parametrize("player", ["random", "greedy"])
def test_the_walk_follows_the_players_game(player):
    numbers = [0, 2, 5, 6, 7]
    positions, games = forgiveness(numbers, [player], seed=4, budget=BUDGET)
    many = strategies.play_many(numbers, player, seed=4)
    assert games["won"].tolist() == many["won"].tolist()
    assert games["moves_made"].tolist() == many["moves_made"].tolist()
    for number in numbers:
        p = strategies.play(number, player, seed=4)
        rows = positions[positions["deal"] == number]
        assert rows["ply"].tolist() == list(range(len(rows)))  # every position, in order
        game = Game(number)
        for ply, move in enumerate(p.moves[: len(rows)]):
            assert rows["cards_left"].iloc[ply] == game.cards_left()
            game.play(move)
        g = games[games["deal"] == number].iloc[0]
        if g["won"]:  # never lost: every position of the game is walked
            assert len(rows) == 48 and rows["chosen_keeps"].all() and g["fatal_ply"] == -1


def test_a_fatal_move_is_proved_lost_after_moves_that_kept_it_winnable():
    positions, games = forgiveness(range(8), ["random", "greedy"], seed=1, budget=BUDGET)
    fatal = games[games["fatal_ply"] >= 0]
    assert len(fatal) >= 5
    for g in fatal.itertuples():
        moves = strategies.play(g.deal, g.player, seed=1).moves
        rows = positions[(positions["deal"] == g.deal) & (positions["player"] == g.player)]
        assert len(rows) == g.fatal_ply + 1 and not g.won and not g.unresolved
        assert rows["chosen_keeps"].iloc[:-1].all() and not rows["chosen_keeps"].iloc[-1]
        assert rows["chosen_loses"].tolist() == [False] * g.fatal_ply + [True]
        assert rows["cards_left"].iloc[-1] == g.fatal_cards_left
        before = _engine_after(g.deal, moves[: g.fatal_ply])
        assert before.cards_left() == g.fatal_cards_left
        assert solve(before.remaining_deal(), budget=BUDGET).verdict == "win"
        before.play(moves[g.fatal_ply])
        assert solve(before.remaining_deal(), budget=BUDGET).verdict == "loss"


def test_a_small_budget_leaves_children_unresolved_and_never_guesses():
    stopped = 0
    for number in range(8):
        small = walk(number, "random", budget=300)
        big = walk(number, "random", budget=BUDGET)
        assert big.start == "win" and not big.unresolved
        if small.start != "win":
            assert small.start == "unresolved" and small.unresolved and not small.positions
            continue
        assert len(small.positions) <= len(big.positions)
        for s, b in zip(small.positions, big.positions):
            assert s[:3] == b[:3] and s[3] + s[4] + s[5] == s[2]
            assert s[3] <= b[3] and s[4] <= b[4]
            assert s == b or s[5] > 0  # what the small budget settled, it settled right
        last = small.positions[-1]
        if small.unresolved:  # stopped on an unresolved chosen child, neither kept nor lost
            assert last[5] >= 1 and not last[6] and not last[7] and small.fatal_ply == -1
            stopped += 1
        else:
            assert len(small.positions) == len(big.positions)
            assert small.fatal_ply == big.fatal_ply
            assert small.fatal_cards_left == big.fatal_cards_left
    assert stopped >= 1
    assert walk(2, "random", budget=1).start == "unresolved"


def test_a_lost_deal_is_not_walked():
    positions, games = forgiveness([55, 0], budget=BUDGET)
    lost = games[games["deal"] == 55]
    assert lost["start"].tolist() == ["loss", "loss"]
    assert lost["player"].tolist() == ["random", "greedy"]
    assert (lost["fatal_ply"] == -1).all()
    assert not lost["won"].any() and not lost["unresolved"].any()
    assert 55 not in set(positions["deal"]) and 0 in set(positions["deal"])
    assert walk(55, "greedy", budget=BUDGET).start == "loss"


def test_frames_have_their_schema_and_workers_do_not_change_them():
    numbers = [3, 0, 55, 9, 4, 12]
    one = forgiveness(numbers, budget=50_000, seed=2)
    two = forgiveness(numbers, budget=50_000, seed=2, workers=2)
    for a, b in zip(one, two):
        pd.testing.assert_frame_equal(a, b)
    positions, games = one
    assert positions.dtypes.astype(str).to_dict() == POSITION_COLUMNS
    assert games.dtypes.astype(str).to_dict() == GAME_COLUMNS
    assert games["deal"].tolist() == [n for n in numbers for _ in range(2)]
    settled = positions["keep"] + positions["lose"] + positions["unresolved"]
    assert (settled == positions["legal"]).all()
    assert (games["solves"] >= 1).all()
    # a walk depends on that walk alone, its start's solve included
    for number in (3, 55):
        g = games[(games["deal"] == number) & (games["player"] == "greedy")].iloc[0]
        w = walk(number, "greedy", seed=2, budget=50_000)
        assert (w.solves, w.nodes, w.won, w.moves_made, w.fatal_ply) == \
            (g["solves"], g["nodes"], g["won"], g["moves_made"], g["fatal_ply"])
        assert w.positions == [tuple(r) for r in positions[(positions["deal"] == number) & (
            positions["player"] == "greedy")].iloc[:, 2:].itertuples(index=False)]


def _hand_positions():
    rows = [  # deal, player, ply, cards_left, legal, keep, lose, unresolved, keeps, loses
        (1, "random", 0, 104, 4, 3, 1, 0, True, False),
        (1, "random", 1, 100, 2, 1, 1, 0, False, True),
        (2, "random", 0, 104, 5, 5, 0, 0, True, False),
        (2, "random", 1, 101, 4, 2, 1, 1, False, False),
        (1, "greedy", 0, 104, 4, 3, 1, 0, True, False),
        (1, "greedy", 1, 90, 2, 2, 0, 0, True, False),
    ]
    return pd.DataFrame(rows, columns=list(POSITION_COLUMNS)).astype(POSITION_COLUMNS)


def test_keep_share_by_cards_left_by_hand():
    t = keep_share_by_cards_left(_hand_positions()).set_index(["player", "cards_left"])
    # random, 104-96: shares 3/4, 1/2 (deal 1) and 1, 1/2 (deal 2): mean 11/16; deal sums of
    # deviations -1/8 (5/4 - 11/8) and 1/8: se = sqrt(2 * 2 / 64) / 4 = 1/16
    r = t.loc[("random", "104–96")]
    assert (r["positions"], r["deals"]) == (4, 2)
    assert r["keep_share"] == pytest.approx(11 / 16)
    assert r["ci_low"] == pytest.approx(11 / 16 - 1.96 / 16)
    assert r["ci_high"] == pytest.approx(11 / 16 + 1.96 / 16)
    assert r["unresolved_share"] == pytest.approx(1 / 16)
    g = t.loc[("greedy", "95–80")]
    assert g["keep_share"] == 1.0 and math.isnan(g["ci_low"])  # one deal: no interval
    a = t.loc[("all", "104–96")]
    assert a["positions"] == 5 and a["keep_share"] == pytest.approx((11 / 4 + 3 / 4) / 5)
    exact = keep_share_by_cards_left(_hand_positions(), buckets=None)
    assert exact[exact["player"] == "random"]["cards_left"].tolist() == ["104", "101", "100"]


def test_clustered_mean_by_hand():
    mean, low, high = clustered_mean([0.0, 1.0, 1.0, 1.0], [1, 1, 2, 2])
    # deviations by deal: -0.75 + 0.25 = -0.5 and 0.5; se = sqrt(2 * 0.5) / 4 = 0.25
    assert mean == 0.75 and low == pytest.approx(0.75 - 1.96 * 0.25) and high == 1.0


def test_random_move_loses_by_hand():
    t = random_move_loses(_hand_positions()).set_index(["player", "measure"])
    u = t.loc[("random", "uniform move")]
    assert u["n"] == 4 and u["loses"] == pytest.approx((1 / 4 + 1 / 2 + 0 + 1 / 4) / 4)
    assert u["ci_low"] < u["loses"] < u["ci_high"]
    own = t.loc[("random", "own move")]  # 1 fatal move of 3 settled ones (one unresolved)
    assert (own["n"], own["loses"]) == (3, pytest.approx(1 / 3))
    assert (own["ci_low"], own["ci_high"]) == pytest.approx(wilson_interval(1, 3))
    assert t.loc[("greedy", "own move"), "loses"] == 0.0
    assert t.loc[("all", "uniform move"), "n"] == 6


def test_fatal_points_by_hand():
    rows = [  # deal, player, start, won, moves, fatal_ply, fatal_cards_left, unresolved
        (1, "random", "win", False, 20, 0, 104), (2, "random", "win", False, 30, 3, 97),
        (3, "random", "win", False, 25, 10, 70), (4, "random", "win", False, 25, 5, 85),
        (5, "random", "loss", False, 10, -1, -1), (6, "random", "win", True, 48, -1, -1),
        (7, "random", "win", False, 30, -1, -1), (1, "greedy", "win", True, 48, -1, -1),
    ]
    games = pd.DataFrame([r[:7] + (r[0] == 7, 1, 1) for r in rows], columns=list(GAME_COLUMNS))
    t = fatal_points(games.astype(GAME_COLUMNS)).set_index(["player", "outcome", "cards_left"])
    r = t.loc["random"]
    assert r.loc[("fatal", "104–96"), "games"] == 2 and r.loc[("fatal", "95–80"), "games"] == 1
    assert r.loc[("fatal", "79–64"), "share"] == pytest.approx(1 / 6)  # deal 5 is not walked
    assert r.loc[("fatal", "104–96"), "share_of_fatal"] == pytest.approx(2 / 4)
    assert r.loc[("fatal", "15–1"), "games"] == 0
    assert r.loc[("never lost", ""), "games"] == 1 and r.loc[("unresolved", ""), "games"] == 1
    assert (r.loc[("never lost", ""), "ci_low"], r.loc[("never lost", ""), "ci_high"]) == \
        pytest.approx(wilson_interval(1, 6))
    assert t.loc[("greedy", "never lost", ""), "share"] == 1.0
    assert r["games"].sum() == 6


@pytest.mark.parametrize("call,error,text", [
    (lambda: forgiveness([3, -1]), HalfMoonError, "non-negative, got -1"),
    (lambda: walk(-5, "random"), HalfMoonError, "non-negative, got -5"),
    (lambda: forgiveness([1], ["random", "clever"]), HalfMoonError, "unknown strategy 'clever'"),
    (lambda: walk(1, "clever"), HalfMoonError, "unknown strategy 'clever'"),
    (lambda: forgiveness([1], budget=0), ValueError, "budget must be at least 1"),
    (lambda: walk(1, "random", budget=-3), ValueError, "budget must be at least 1"),
    (lambda: forgiveness([1, 1]), HalfMoonError, "distinct"),
    (lambda: forgiveness([1], workers=0), HalfMoonError, "workers must be at least 1"),
    (lambda: forgiveness([8_031_810_176]), HalfMoonError, "8031810176"),
])
def test_bad_input_is_a_one_line_error(call, error, text):
    with pytest.raises(error) as info:
        call()
    assert text in str(info.value) and "\n" not in str(info.value)


def _fresh_counts(number, player):
    """(ply, keep, lose) along the player's game, every child of the engine's positions
    solved afresh as a Deal of its own."""
    game = Game(number)
    rows = []
    for ply, move in enumerate(strategies.play(number, player).moves):
        verdicts = {}
        for m in list(game.legal_moves):
            game.push(m)
            verdicts[m] = "win" if game.cards_left() == 0 else \
                solve(game.remaining_deal(), budget=BUDGET).verdict
            game.pop()
        rows.append((ply, list(verdicts.values()).count("win"),
                     list(verdicts.values()).count("loss")))
        if verdicts[move] != "win":
            return rows
        game.push(move)
    return rows


def test_verdicts_known_without_a_solve_are_the_solvers():
    """The winning lines and lost children carried from ply to ply, and the table shared by
    a walk's solves, give the counts of a fresh solve of every child."""
    for number in range(10):
        for player in ("random", "greedy"):
            w = walk(number, player, budget=BUDGET)
            assert [(p[0], p[3], p[4]) for p in w.positions] == _fresh_counts(number, player)
            assert w.solves < sum(p[2] for p in w.positions)  # some children were not solved
