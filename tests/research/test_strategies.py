"""The simple players' API: games that replay through the engine, batches, comparisons
(the kernel against its naive twins is tested in tests/solver/players/test_simple.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import make_layout, naive_random
from results_samples import make_rows

from halfmoon.game.cards import Card
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.layouts import parse_layout
from halfmoon.research.strategies import (
    STRATEGIES,
    compare_players,
    game_seed,
    play,
    play_many,
    random_games,
)


@pytest.mark.parametrize("strategy", ["random", "greedy", "lookahead", "lookahead3"])
def test_every_move_is_accepted_by_the_engine(strategy):
    """Replay the kernels' games through the checked entry point of the engine."""
    for number in range(200):
        p = play(number, strategy, seed=3)
        game = Game(number)
        for move in p.moves:
            game.play(move)  # raises IllegalMoveError on any illegal move
        assert p.won == game.is_won
        assert p.cards_left == game.cards_left()
        assert game.is_over  # a player stops only when won or stuck
        assert len(p.moves) == 48 or not p.won


def test_play_many_matches_single_games_and_is_reproducible():
    df = play_many(range(30), "random", seed=11)
    assert list(df.columns) == ["deal", "won", "moves_made", "cards_left"]
    assert df.dtypes.to_dict() == {
        "deal": np.dtype("int64"), "won": np.dtype("bool"),
        "moves_made": np.dtype("int16"), "cards_left": np.dtype("int16"),
    }
    for n in (0, 17, 29):
        p = play(n, "random", seed=11)
        row = df.iloc[n]
        assert ((row["won"], row["moves_made"], row["cards_left"])
                == (p.won, len(p.moves), p.cards_left))
    pd.testing.assert_frame_equal(df, play_many(range(30), "random", seed=11))
    # a deal's game does not depend on the other deals of the run
    assert play_many([17], "random", seed=11).iloc[0].to_dict() == df.iloc[17].to_dict()
    assert not play_many(range(30), "random", seed=12)["moves_made"].equals(df["moves_made"])


def test_moves_made_and_cards_left_add_up():
    for strategy in ("random", "greedy", "lookahead"):
        df = play_many(range(300), strategy)
        removed = 104 - df["cards_left"]
        assert ((df["moves_made"] * 2 <= removed) & (removed <= df["moves_made"] * 3)).all()
        assert (df["won"] == (df["cards_left"] == 0)).all()
        assert (df.loc[df["won"], "moves_made"] == 48).all()


def test_greedy_beats_random():
    greedy = play_many(range(300), "greedy")["won"].mean()
    random = play_many(range(300), "random")["won"].mean()
    assert greedy > random + 0.05


def test_greedy_avoids_the_reserve_trap():
    trap = parse_layout(
        "P1: Ac 10c\nP2:\nP3:\nP4:\nP5:\nP6:\nP7:\nP8:\nP9:\nP10:\nP11:\nP12:\n"
        "R: Ad 10d -- -- -- -- -- --\n"
    )
    p = play(trap, "greedy")
    assert p.won and [str(m) for m in p.moves] == ["P1+R1", "P1+R2"]


def test_play_a_game_position():
    game = Game(0)
    game.play(next(iter(game.legal_moves)))
    position = game.remaining_deal()
    p = play(position, "greedy")
    replay = Game(position)
    for move in p.moves:
        replay.play(move)
    assert replay.is_over and p.cards_left == replay.cards_left() < position.card_count()


def test_unknown_strategy():
    with pytest.raises(HalfMoonError, match="unknown strategy 'clever'"):
        play_many(range(3), "clever")
    with pytest.raises(HalfMoonError):
        play(0, "clever")
    with pytest.raises(HalfMoonError, match=r"unknown strategy 'lookahead4' \(expected one of "
                                            r"random, greedy, lookahead, lookahead3, tuned\)"):
        play(0, "lookahead4")
    with pytest.raises(HalfMoonError, match="unknown strategy 'clever'"):
        compare_players(pd.DataFrame(make_rows(["win", "loss"])), players=("greedy", "clever"))


def test_the_lookahead_players_are_named_with_their_depth():
    assert STRATEGIES["lookahead"][1] == 2 and STRATEGIES["lookahead3"][1] == 3
    assert (STRATEGIES["lookahead"][0] == STRATEGIES["lookahead3"][0]
            not in (STRATEGIES["greedy"][0], STRATEGIES["random"][0]))


@pytest.mark.parametrize("strategy", ["lookahead", "lookahead3"])
def test_lookahead_is_deterministic(strategy):
    df = play_many(range(60), strategy)
    pd.testing.assert_frame_equal(df, play_many(range(60), strategy, seed=99))  # no seed is used
    pd.testing.assert_frame_equal(df.iloc[::-1].reset_index(drop=True),
                                  play_many(range(59, -1, -1), strategy))
    for n in (0, 7, 59):
        p, q = play(n, strategy), play(n, strategy)
        assert p == q
        assert (len(p.moves), p.cards_left) == (df.iloc[n]["moves_made"], df.iloc[n]["cards_left"])


def test_lookahead_never_wins_a_deal_the_solver_proves_lost():
    from solver import solve

    numbers = range(300)
    verdicts = {n: solve(n, budget=200_000).verdict for n in numbers}
    lost = [n for n, v in verdicts.items() if v == "loss"]
    assert len(lost) >= 5  # the check has deals to bite on
    for strategy in ("lookahead", "lookahead3"):
        df = play_many(numbers, strategy)
        won = df.loc[df["won"], "deal"].tolist()
        assert not set(won) & set(lost)
        assert all(verdicts[n] == "win" for n in won)


def test_lookahead_avoids_the_dead_end_greedy_walks_into():
    """Pile 1 holds 6h under 5c under Js; pile 5 holds 5c over 2d; 6c on pile 3, Qh, 9d;
    Ks 3s 8h in the reserve.  Greedy first plays 6c + 5c (it uncovers the most), and the 5c
    that Js covers then comes up with its only partner, 6h, under it: a dead end.  The
    lookahead (depth 2) sees, over the cards in view only, that the line triplet + 3s 8h
    uncovers 1 card and leaves 6c, 9d and 5c in view, partners for all 3 hidden cards
    (score 1 x 3), while lines with 6c + 5c score 2 x 1 (only 2d would be playable) and
    1 x 1; so it plays the triplet first and keeps 6c for the 5c it uncovers.

    (Greedy never walks into an immediate dead end that the cards in view show: moves of
    different classes leave each other playable, and two moves of one class leave the
    same ranks in view; so the dead end the lookahead can avoid is one that the hidden
    cards make, by keeping partners in view for them.)"""
    layout = parse_layout(make_layout({1: "6h 5c Js", 2: "Qh", 3: "6c", 4: "9d", 5: "2d 5c"},
                                      "Ks 3s 8h"))
    greedy, lookahead = play(layout, "greedy"), play(layout, "lookahead")
    assert [str(m) for m in greedy.moves[:2]] == ["P3+P5", "P1+P2+R1"]
    game = Game(layout)
    for move in greedy.moves:
        game.play(move)
    assert game.is_dead_end and game.cards_left() == 2
    assert game.playable() == {"P1": Card.parse("5c")}
    assert str(lookahead.moves[0]) == "P1+P2+R1"
    replay = Game(layout)
    for move in lookahead.moves:
        replay.play(move)
    assert lookahead.won and replay.is_won


def test_lookahead_wins_at_least_as_many_deals_as_greedy():
    """The counts documented in solver/players/simple.py and halfmoon/research/strategies.py."""
    wins = {s: int(play_many(range(2000), s)["won"].sum())
            for s in ("greedy", "lookahead", "lookahead3")}
    assert wins == {"greedy": 420, "lookahead": 431, "lookahead3": 424}
    assert wins["lookahead"] >= wins["greedy"] and wins["lookahead3"] >= wins["greedy"]


def test_compare_players_on_a_results_sample():
    rows = make_rows(["win"] * 18 + ["loss"] + ["unresolved"])
    table = compare_players(pd.DataFrame(rows), seed=0)
    assert list(table.index) == ["solver", "greedy", "random"]
    assert table.loc["solver", "wins"] == 18 and table.loc["solver", "unresolved"] == 1
    greedy = play_many(range(20), "greedy")
    assert table.loc["greedy", "wins"] == greedy["won"].sum()
    for player in table.index:
        r = table.loc[player]
        assert r["ci_low"] <= r["win_rate"] <= r["ci_high"]


def test_compare_players_with_the_lookahead():
    rows = make_rows(["win"] * 18 + ["loss"] + ["unresolved"])
    table = compare_players(pd.DataFrame(rows), seed=0, players=("greedy", "lookahead", "random"))
    assert list(table.index) == ["solver", "greedy", "lookahead", "random"]
    assert table.loc["lookahead", "wins"] == play_many(range(20), "lookahead")["won"].sum()
    one = compare_players(pd.DataFrame(rows), seed=0, players="lookahead3")
    assert list(one.index) == ["solver", "lookahead3"]
    assert one.loc["lookahead3", "wins"] == play_many(range(20), "lookahead3")["won"].sum()


def test_random_games_on_one_deal():
    df = random_games(0, 200, seed=5)
    assert list(df["game"]) == list(range(200))
    first = naive_random(Deal.from_number(0), game_seed(5, 0))
    assert df.iloc[0]["moves_made"] == len(first)
    assert df["moves_made"].nunique() > 1  # different games, not one game repeated
    assert (df["won"] == (df["cards_left"] == 0)).all()
    with pytest.raises(HalfMoonError):
        random_games(0, 0)
