"""halfmoon players: a line a player, JSON, bad input."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
from cli_helpers import assert_one_line_error, run
from process_groups import ctrl_c_as_on_a_terminal, wait_for_no_live_members


def test_players_prints_a_line_a_player_and_json(capsys, tmp_path):
    status, out, err = run(capsys, "players", "--random", "12", "--seed", "3",
                           "--players", "greedy,fair", "--samples", "2", "--workers", "1")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("12 deals (--random 12 --seed 3), seed 3")
    # the named players, then the references they are compared with, played too, then the
    # ceiling (not a player)
    assert [line.split()[0] for line in lines[1:]] == ["greedy", "fair", "lookahead", "ceiling"]
    assert "vs greedy" not in lines[1] and "vs lookahead" in lines[1]
    assert "vs greedy" in lines[2] and "vs lookahead" in lines[2]
    assert " ms a game (2 layouts a decision)" in lines[2]
    assert lines[3].endswith("[reference]") and "vs lookahead" not in lines[3]
    per_deal = tmp_path / "games.parquet"
    status, out, err = run(capsys, "players", "--range", "0:6", "--players", "lookahead,rollout",
                           "--against", "lookahead", "--samples", "2", "--workers", "1",
                           "--json", "--per-deal", str(per_deal))
    assert status == 0, err
    data = json.loads(out)
    assert data["deals"] == 6 and data["against"] == ["lookahead"]
    assert [p["player"] for p in data["players"]] == ["lookahead", "rollout"]
    assert [p["reference"] for p in data["players"]] == [False, False]
    for p in data["players"]:
        assert {"player", "deals", "won", "win_rate", "vs", "seconds_per_game"} <= set(p)
        assert p["deals"] == 6 and 0 <= p["won"] <= 6
    # comparisons only with the players played, never a player with itself
    assert data["players"][0]["vs"] == {} and set(data["players"][1]["vs"]) == {"lookahead"}
    games = pd.read_parquet(per_deal)
    assert data["per_deal"] == str(per_deal) and len(games) == 12
    assert set(games["player"]) == {"lookahead", "rollout"}
    assert sorted(games["deal"].unique()) == list(range(6))
    wins = games.groupby("player")["won"].sum()
    assert {p["player"]: p["won"] for p in data["players"]} == wins.to_dict()
    # the paired difference is the one of the per-deal outcomes
    wide = games.pivot(index="deal", columns="player", values="won").astype(int)
    assert data["players"][1]["vs"]["lookahead"]["mean"] == pytest.approx(
        (wide["rollout"] - wide["lookahead"]).mean())


def test_players_names_a_codes_file_as_given(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "deals.txt").write_text("3\n5\n")
    status, out, err = run(capsys, "players", "--codes", "deals.txt", "--players", "greedy",
                           "--against", "none", "--workers", "1")
    assert status == 0, err
    assert out.splitlines()[0].startswith("2 deals (--codes deals.txt), seed 0")


def test_players_against_none_plays_only_the_named(capsys):
    status, out, err = run(capsys, "players", "--range", "0:4", "--players", "greedy",
                           "--against", "none", "--workers", "1", "--json")
    assert status == 0, err
    data = json.loads(out)
    assert [p["player"] for p in data["players"]] == ["greedy"] and data["players"][0]["vs"] == {}
    assert err.splitlines()[-1].startswith("halfmoon players: 4 of 4 games (100 %)")


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
    assert_one_line_error(capsys, ["players", "--random", "5", "--seed", "-3"],
                          "argument --seed: a seed is 0 or more, got -3")
    assert_one_line_error(capsys, ["players", "--random", "5", "--against", "wise"],
                          "unknown player 'wise'")
    assert_one_line_error(capsys, ["players", "--random", "5", "--per-deal", "/no/such/g.pq"],
                          "--per-deal /no/such/g.pq: no such directory")
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
    status, out, err = run(capsys, "players", "--random", "4", "--players", "greedy",
                           "--workers", "1", "--quiet")
    assert status == 0 and err == ""


def test_players_help_names_every_player_the_solver_takes(capsys):
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
    assert [line.split()[0] for line in lines[1:3]] == ["tuned", "bandit@cap=100,lead=10,total=60"]
    assert "(leader 10 plays, cap 100 positions (order search), batches of 10, C = 2, at most 60" \
        " samples)" in lines[2]


@pytest.mark.parametrize("after", [1.0, 8.0])
def test_ctrl_c_stops_players_and_their_workers_at_once(tmp_path, after):
    """Ctrl-C while the workers start and while they play: the run stops (it does not play
    the games left first), says so in one line, exit 130, no worker left."""
    cmd = [sys.executable, "-m", "halfmoon", "players", "--random", "400", "--seed", "5",
           "--players", "fair", "--against", "none", "--workers", "2", "--quiet"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True,
                            preexec_fn=ctrl_c_as_on_a_terminal)
    time.sleep(after)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole process group
    try:
        out, err = proc.communicate(timeout=90)  # the 400 games would take minutes
    finally:  # the resource tracker leaves after its parent
        left = wait_for_no_live_members(proc.pid, 10)
    assert proc.returncode == 130, err
    assert err.splitlines() == ["halfmoon: interrupted"] and out == ""
    assert left == []


def test_players_name_the_unit_the_ceiling_and_times_in_ms(capsys):
    """The old lines: "vs lookahead -25.00 [-69.94, +28.08]" (no unit), no ceiling, "0.0073 s a
    game".  Now points, a ceiling row (the solver's verdicts on the same deals, named as not a
    player) and ms, the JSON with the same ceiling."""
    import re

    import solver

    status, out, err = run(capsys, "players", "--range", "0:4", "--players", "greedy",
                           "--against", "lookahead", "--workers", "1", "--quiet")
    assert status == 0, err
    lines = out.splitlines()
    assert "differences in points (percentage points)" in lines[0]
    assert re.search(r"vs lookahead [+-]\d+\.\d\d points \[[+-]\d+\.\d\d, [+-]\d+\.\d\d\]",
                     lines[1]), lines[1]
    assert re.search(r"  \d[\d,.]* ms a game", lines[1]) and " s a game" not in out
    wins = sum(v == 1 for v in solver.solve_numbers(range(4)).verdicts)
    assert lines[-1].startswith(f"ceiling    4 deals  won {wins}  {100 * wins / 4:.2f} % [")
    assert "not a player: the solver's verdicts" in lines[-1]
    status, out, err = run(capsys, "players", "--range", "0:4", "--players", "greedy",
                           "--against", "lookahead", "--workers", "1", "--json")
    assert status == 0, err
    ceiling = json.loads(out)["ceiling"]
    assert ceiling["deals"] == 4 and ceiling["won"] == wins and ceiling["unresolved"] == 0
    assert ceiling["budget"] == solver.DEFAULT_BUDGET
    assert ceiling["win_rate"] == wins / 4 and ceiling["ci_low"] <= wins / 4 <= ceiling["ci_high"]


def test_a_ceiling_names_its_unresolved_deals_as_not_won():
    from halfmoon.cli.players import ceiling_line

    line = ceiling_line({"deals": 10, "won": 7, "unresolved": 2, "win_rate": 0.7, "ci_low": 0.4,
                         "ci_high": 0.9, "budget": 1000}, 9)
    assert line.startswith("ceiling    10 deals  won 7  70.00 % [40.00, 90.00]  (not a player")
    assert line.endswith("2 unresolved at 1,000 positions counted as not won)")


@pytest.mark.parametrize("seconds, text", [(0.0001, "0.1"), (0.000023, "0.023"),
                                           (0.0073, "7.3"), (0.0765, "76.5"), (1.2345, "1,234")])
def test_times_a_game_in_ms(seconds, text):
    from halfmoon.cli.players import milliseconds

    assert milliseconds(seconds) == text
