"""halfmoon players: a line a player, JSON, bad input."""

from __future__ import annotations

import json

from cli_helpers import assert_one_line_error, run


def test_players_prints_a_line_a_player_and_json(capsys):
    status, out, err = run(capsys, "players", "--random", "12", "--seed", "3",
                           "--players", "greedy,fair", "--samples", "2", "--workers", "1")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("12 deals (--random 12 --seed 3), seed 3")
    assert [line.split()[0] for line in lines[1:]] == ["greedy", "fair"]
    assert "vs greedy +0.00" in lines[1] and "vs lookahead" in lines[2]
    assert "s a game (2 layouts a decision)" in lines[2]
    status, out, err = run(capsys, "players", "--range", "0:6", "--players", "lookahead,rollout",
                           "--samples", "2", "--workers", "1", "--json")
    assert status == 0, err
    data = json.loads(out)
    assert data["deals"] == 6 and [p["player"] for p in data["players"]] == ["lookahead", "rollout"]
    for p in data["players"]:
        assert {"player", "deals", "won", "win_rate", "vs_greedy", "vs_lookahead",
                "seconds_per_game"} <= set(p)
        assert p["deals"] == 6 and 0 <= p["won"] <= 6
    assert data["players"][0]["vs_lookahead"] == {"mean": 0.0, "low": 0.0, "high": 0.0}


def test_players_bad_input_is_one_line(capsys):
    assert_one_line_error(capsys, ["players", "--random", "5", "--players", "wise"],
                          "unknown player 'wise'")
    assert_one_line_error(capsys, ["players", "--random", "0"], "--random must be at least 1")
    assert_one_line_error(capsys, ["players", "--random", "5", "--samples", "0"],
                          "--samples must be at least 1")
    assert_one_line_error(capsys, ["players", "--range", "9:3"], "bad range")
    assert_one_line_error(capsys, ["players", "--random", "5", "--players", ","],
                          "--players names no player")
    assert_one_line_error(capsys, ["players", "--random", "5", "--workers", "0"],
                          "--workers must be at least 1")
    assert_one_line_error(capsys, ["players"], "one of the arguments")
    assert_one_line_error(capsys, ["players", "--random", "5", "--players", "bandit@cap=-4"],
                          "cap='-4' is out of range")


def test_players_takes_a_bandit_with_settings(capsys):
    status, out, err = run(capsys, "players", "--random", "3", "--seed", "4", "--players",
                           "tuned,bandit@cap=100,lead=10,total=60", "--workers", "1")
    assert status == 0, err
    lines = out.splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["tuned", "bandit@cap=100,lead=10,total=60"]
    assert "(leader 10 plays, cap 100 positions (order search), batches of 10, C = 2, at most 60" \
        " samples)" in lines[2]
