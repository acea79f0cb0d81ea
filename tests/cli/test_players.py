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
    assert_one_line_error(capsys, ["players", "--random", "5", "--workers", "-1"],
                          "--workers must be at least 1")
    assert_one_line_error(capsys, ["players"], "one of the arguments")
    assert_one_line_error(capsys, ["players", "--random", "5", "--players", "bandit@cap=-4"],
                          "cap='-4' is out of range")


def test_players_says_how_far_it_is_in_a_log(capsys):
    """stderr not a terminal (a log): a line at the end (and now and then before), never a
    bar's carriage returns."""
    status, out, err = run(capsys, "players", "--random", "4", "--players", "greedy",
                           "--workers", "1")
    assert status == 0, err
    assert err.splitlines()[-1].startswith("halfmoon players: 8 of 8 games (100 %), ")
    assert "\r" not in err


def test_log_progress_writes_a_line_now_and_then():
    import io

    from halfmoon.cli.players import LogProgress

    now = [0.0]
    log = io.StringIO()
    p = LogProgress(100, stream=log, every=60, quiet=5, clock=lambda: now[0])
    p.update(5)  # 5 %: no tenth crossed
    now[0] = 1.0
    p.update(10)  # 15 %: a tenth crossed, but only a second after the start
    now[0] = 6.0
    p.update(5)  # 20 %: a tenth crossed, 6 s after the last line
    now[0] = 70.0
    p.update(1)  # 21 %: no tenth crossed, but a minute without a line
    now[0] = 80.0
    p.update(79)
    p.close()
    p.close()  # once only
    lines = log.getvalue().splitlines()
    assert [line.split(" of ")[0] for line in lines] == [
        "halfmoon players: 20", "halfmoon players: 21", "halfmoon players: 100"]
    assert lines[0] == "halfmoon players: 20 of 100 games (20 %), 6 s, about 24 s left"
    assert lines[-1] == "halfmoon players: 100 of 100 games (100 %), 80 s"


def test_players_help_names_every_player_the_solver_takes(capsys):
    import pytest

    from halfmoon.cli.main import main
    from solver import FAIR_PLAYERS

    with pytest.raises(SystemExit):
        main(["players", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert all(name in text for name in FAIR_PLAYERS) and "NAME@K" in text
    assert ", ".join(FAIR_PLAYERS) in text


def test_players_takes_a_bandit_with_settings(capsys):
    status, out, err = run(capsys, "players", "--random", "3", "--seed", "4", "--players",
                           "tuned,bandit@cap=100,lead=10,total=60", "--workers", "1")
    assert status == 0, err
    lines = out.splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["tuned", "bandit@cap=100,lead=10,total=60"]
    assert "(leader 10 plays, cap 100 positions (order search), batches of 10, C = 2, at most 60" \
        " samples)" in lines[2]
