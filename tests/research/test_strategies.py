"""The simple players' API: games that replay through the engine, batches, comparisons
(the kernel against its naive twins is tested in tests/solver/test_players.py)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from conftest import naive_random
from results_samples import make_rows

from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.errors import HalfMoonError
from halfmoon.game.layouts import parse_layout
from halfmoon.research.strategies import compare_players, game_seed, play, play_many, random_games


@pytest.mark.parametrize("strategy", ["random", "greedy"])
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
        assert (row["won"], row["moves_made"], row["cards_left"]) == (p.won, len(p.moves), p.cards_left)
    pd.testing.assert_frame_equal(df, play_many(range(30), "random", seed=11))
    # a deal's game does not depend on the other deals of the run
    assert play_many([17], "random", seed=11).iloc[0].to_dict() == df.iloc[17].to_dict()
    assert not play_many(range(30), "random", seed=12)["moves_made"].equals(df["moves_made"])


def test_moves_made_and_cards_left_add_up():
    for strategy in ("random", "greedy"):
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
        "P1: Ac 10c\nP2:\nP3:\nP4:\nP5:\nP6:\nP7:\nP8:\nP9:\nP10:\nP11:\nP12:\nR: Ad 10d -- -- -- -- -- --\n"
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


def test_random_games_on_one_deal():
    df = random_games(0, 200, seed=5)
    assert list(df["game"]) == list(range(200))
    first = naive_random(Deal.from_number(0), game_seed(5, 0))
    assert df.iloc[0]["moves_made"] == len(first)
    assert df["moves_made"].nunique() > 1  # different games, not one game repeated
    assert (df["won"] == (df["cards_left"] == 0)).all()
    with pytest.raises(HalfMoonError):
        random_games(0, 0)
