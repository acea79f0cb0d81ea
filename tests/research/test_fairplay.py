"""Fair players from Python: the registry, games that match the simple players and the
kernels, the ladder's intervals and paired differences."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from halfmoon.game.codes import random_numbers
from halfmoon.game.engine import Game
from halfmoon.game.errors import HalfMoonError
from halfmoon.research.fairplay import FAIR, ladder, play_players, player_list, players
from halfmoon.research.stats import paired_difference, wilson_interval
from halfmoon.research.strategies import game_seed, play_many
from solver import line_moves, player_games


def test_the_registry_and_fair():
    names = [p.name for p in players(["greedy", "fair", "uct"])]
    assert names == ["greedy", "fair", "uct"]
    fair, best = players(["fair", FAIR])
    assert fair.code == best.code and fair.samples == best.samples and fair.base == best.base
    assert players(["rollout"], samples=7)[0].samples == 7
    # a player that does not sample keeps none
    assert players(["greedy"], samples=7)[0].samples == 0
    with pytest.raises(HalfMoonError, match="unknown player 'wise'"):
        players(["wise"])
    with pytest.raises(HalfMoonError, match="--samples must be at least 1"):
        players(["rollout"], samples=0)


def test_simple_players_play_as_in_strategies_and_fair_ones_replay():
    nums = random_numbers(30, seed=41)
    games = play_players(nums, ["greedy", "lookahead", "rollout", "uct", "pimc"], seed=2, samples=3,
                         workers=1)
    assert list(games.columns) == ["deal", "player", "won", "moves_made", "cards_left", "seconds",
                                   "evaluations"]
    for name in ("greedy", "lookahead"):
        mine = games[games["player"] == name].set_index("deal")
        theirs = play_many(nums, name).set_index("deal")
        assert (mine["won"] == theirs["won"]).all()
        assert (mine["cards_left"] == theirs["cards_left"]).all()
    assert (games[games["player"].isin(["rollout", "uct", "pimc"])]["evaluations"] > 0).all()
    again = play_players(nums[:5], ["rollout"], seed=2, samples=3, workers=1)
    first = games[(games["player"] == "rollout")
                  & games["deal"].isin(nums[:5])].reset_index(drop=True)
    pd.testing.assert_frame_equal(again.drop(columns="seconds"), first.drop(columns="seconds"))


def test_the_fatal_move_is_where_the_forgiveness_walk_finds_it():
    """Bisection along a game against the walk that settles every child of every position."""
    from halfmoon.research.forgiveness import forgiveness

    nums = random_numbers(24, seed=43)
    mine = play_players(nums, ["random", "greedy"], seed=4, workers=1, fatal_budget=1_000_000)
    assert list(mine.columns)[-4:] == ["start", "fatal_ply", "fatal_cards_left", "unresolved"]
    _, walks = forgiveness(nums, strategies=("random", "greedy"), seed=4)
    both = mine.merge(walks, on=["deal", "player"], suffixes=("", "_walk"))
    assert len(both) == 48 and (both["start"] == both["start_walk"]).all()
    assert (both["fatal_ply"] >= 0).sum() > 10  # enough fatal moves to compare
    walked = both[~both["unresolved_walk"]]
    assert (walked["fatal_ply"] == walked["fatal_ply_walk"]).all()
    assert (walked["fatal_cards_left"] == walked["fatal_cards_left_walk"]).all()
    assert (both.loc[both["won"], "fatal_ply"] == -1).all()


def test_no_fatal_move_on_a_lost_deal():
    # deal 55: the solver proves it lost (tests/solver/portfolio/test_search.py)
    row = play_players([55], ["greedy"], seed=1, workers=1, fatal_budget=1_000_000).iloc[0]
    assert not row["won"]
    fatal = (row["start"], row["fatal_ply"], row["fatal_cards_left"], row["unresolved"])
    assert fatal == ("loss", -1, -1, False)


def test_a_pimc_game_is_legal_all_the_way_and_seeded_per_deal():
    (p,) = players(["pimc"], samples=2)
    g = player_games([12345], p, [9])
    game = Game(12345)
    for move in line_moves(g.lines[0, :g.moves_made[0]]):
        game.play(move)
    assert game.is_over and game.is_won == g.won[0] and g.evaluations[0] > 0
    row = play_players([12345], ["pimc"], seed=3, samples=2, workers=1).iloc[0]
    h = player_games([12345], p, [game_seed(3, 12345)])
    assert (row["moves_made"], row["cards_left"], row["evaluations"]) == (
        h.moves_made[0], h.cards_left[0], h.evaluations[0])


def test_workers_give_the_same_games():
    nums = random_numbers(12, seed=43)
    one = play_players(nums, ["greedy", "rollout"], seed=1, samples=2, workers=1)
    counted = []
    two = play_players(nums, ["greedy", "rollout"], seed=1, samples=2, workers=2,
                       progress=counted.append)
    pd.testing.assert_frame_equal(one.drop(columns="seconds"), two.drop(columns="seconds"))
    # rows by player, then deal, whatever order the pieces finished in
    assert list(two["player"]) == ["greedy"] * 12 + ["rollout"] * 12
    assert list(two["deal"]) == [int(n) for n in nums] * 2
    # progress counts every game, a piece at a time
    assert sum(counted) == 24 and len(counted) > 2


def test_the_ladder_by_hand():
    g = pd.DataFrame({"deal": [1, 2, 3, 4] * 3,
                      "player": ["greedy"] * 4 + ["lookahead"] * 4 + ["fair"] * 4,
                      "won": [1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0], "moves_made": 0, "cards_left": 0,
                      "seconds": [0.1] * 8 + [1.0, 2.0, 3.0, 4.0],
                      "evaluations": 0}).astype({"won": bool})
    t = ladder(g).set_index("player")
    assert t.loc["fair", "won"] == 3 and t.loc["fair", "win_rate"] == 0.75
    assert (t.loc["fair", "ci_low"], t.loc["fair", "ci_high"]) == pytest.approx(
        wilson_interval(3, 4))
    assert t.loc["fair", "vs_greedy"] == pytest.approx(0.5)  # differences 0, 1, 1, 0
    fair, greedy = (g[g["player"] == p]["won"].to_numpy() for p in ("fair", "greedy"))
    assert (t.loc["fair", "vs_greedy_low"], t.loc["fair", "vs_greedy_high"]) == pytest.approx(
        paired_difference(fair, greedy)[1:])  # Newcombe's interval, inside -1..1
    assert -1 < t.loc["fair", "vs_greedy_low"] < 0.5 < t.loc["fair", "vs_greedy_high"] <= 1
    assert t.loc["fair", "vs_lookahead"] == pytest.approx(0.25)
    assert t.loc["fair", "seconds_per_game"] == pytest.approx(2.5)
    assert paired_difference(np.array([1.0]), np.array([0.0]))[0] == 1.0


def test_bad_input():
    with pytest.raises(HalfMoonError, match="outside"):
        play_players([-1], ["greedy"], workers=1)
    with pytest.raises(HalfMoonError, match="no deals"):
        play_players([], ["greedy"], workers=1)
    with pytest.raises(HalfMoonError, match="--workers"):
        play_players([1], ["greedy"], workers=0)


def test_a_player_at_other_samples():
    (p,) = players(["rollout@64"])
    assert p.name == "rollout@64" and p.samples == 64 and p.code == players(["rollout"])[0].code
    for bad in ("greedy@4", "rollout@0", "rollout@x"):
        with pytest.raises(HalfMoonError, match="NAME@SAMPLES"):
            players([bad])


def test_a_list_of_players_keeps_the_bandits_settings():
    assert player_list("tuned, bandit@cap=100,lead=30,fair,bandit@lead=5,total=50,") == [
        "tuned", "bandit@cap=100,lead=30", "fair", "bandit@lead=5,total=50"]
    assert player_list(",") == []
    with pytest.raises(HalfMoonError, match="unknown player 'lead=3'"):
        players(player_list("greedy,lead=3"))  # a setting with no bandit before it


def test_bandit_games_through_the_research_layer_are_seeded_per_deal():
    nums = random_numbers(3, seed=44)
    name = "bandit@cap=100,lead=10,total=60,hopeless=30"
    games = play_players(nums, [name], seed=5, workers=1)
    again = play_players(nums[1:], [name], seed=5, workers=1)
    assert (games["evaluations"] > 0).all()
    first = games[games["deal"].isin(nums[1:])].reset_index(drop=True)
    pd.testing.assert_frame_equal(again.drop(columns="seconds"), first.drop(columns="seconds"))
