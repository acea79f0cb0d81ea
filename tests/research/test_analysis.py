"""Position analysis: every legal move, its verdict, and the position's own verdict."""

from __future__ import annotations

import json

import pytest

from halfmoon.cli.main import main
from halfmoon.game.engine import Game
from halfmoon.game.layouts import parse_layout
from halfmoon.research.analysis import analyse, format_analysis

EMPTY_PILES = "".join(f"P{p}:\n" for p in range(2, 13))
# 10c + Ad leaves Ac and 10d (a win); Ad + 10d leaves 10c over the last Ace (lost).
TRAP = "P1: Ac 10c\n" + EMPTY_PILES + "R: Ad 10d -- -- -- -- -- --\n"
# The only move, 2c + 9c, leaves both Aces under the 10s: lost.
LOST = "P1: Ac 10c\nP2: Ad 10d\n" + EMPTY_PILES[4:] + "R: 2c 9c -- -- -- -- -- --\n"
# No move at all: a dead end.
DEAD = "P1: Ac 10c\nP2: Ad 10d\n" + EMPTY_PILES[4:] + "R: -- -- -- -- -- -- -- --\n"


def verdicts(a):
    return {str(m.move): m.verdict for m in a.moves}


def test_trap_position():
    a = analyse(parse_layout(TRAP), budget=1000)
    assert verdicts(a) == {"P1+R1": "win", "R1+R2": "loss"}
    assert a.verdict == "win" and a.cards_left == 4
    assert [str(m) for m in a.winning_moves] == ["P1+R1"]
    assert a.moves[0].cards == ("10♣", "A♦")


def test_position_where_every_move_loses():
    a = analyse(parse_layout(LOST), budget=1000)
    assert verdicts(a) == {"R1+R2": "loss"} and a.verdict == "loss"


def test_dead_end_and_won_positions():
    a = analyse(parse_layout(DEAD), budget=1000)
    assert a.moves == () and a.verdict == "loss"
    game = Game(parse_layout("P1: 10c\n" + EMPTY_PILES + "R: Ac -- -- -- -- -- -- --\n"))
    game.play("P1+R1")
    won = analyse(game, budget=10)
    assert won.cards_left == 0 and won.verdict == "win" and won.moves == ()


def test_every_legal_move_of_a_deal_is_listed():
    a = analyse("HM1-N-AAAAAAA", budget=20_000)
    assert [m.move for m in a.moves] == list(Game(0).legal_moves)
    assert a.code == "HM1-N-AAAAAAA" and a.cards_left == 104
    # deal 0 is a win, so some first move keeps it winnable
    assert a.verdict == "win" and a.winning_moves


def test_unresolved_when_the_budget_is_tiny():
    a = analyse(0, budget=1)
    assert {m.verdict for m in a.moves} <= {"win", "unresolved"}
    assert "unresolved" in {m.verdict for m in a.moves}


def test_analyse_a_game_in_progress():
    game = Game(0)
    first = next(iter(game.legal_moves))
    game.play(first)
    a = analyse(game, budget=20_000)
    assert a.cards_left == 104 - len(first)
    assert [m.move for m in a.moves] == list(game.legal_moves)


def test_format_analysis_lists_each_move():
    a = analyse(parse_layout(TRAP), budget=1000)
    text = format_analysis(a)
    lines = text.splitlines()
    assert lines[0] == "position: 4 cards left, 2 legal moves"
    assert "10♣ P1 + A♦ R1" in lines[1] and "stays winnable" in lines[1]
    assert " R1 + " in lines[2] and " R2 " in lines[2] and "lost" in lines[2]
    assert lines[-1] == "position: winnable (1 of 2 moves keep it winnable)"


def test_analyse_command_on_a_layout_file(tmp_path, capsys):
    f = tmp_path / "trap.txt"
    f.write_text(TRAP)
    assert main(["analyse", str(f), "--budget", "1000"]) == 0
    assert "stays winnable" in capsys.readouterr().out
    assert main(["analyse", str(f), "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["verdict"] == "win"
    assert [m["verdict"] for m in obj["legal_moves"]] == ["win", "loss"]


@pytest.mark.parametrize("args", [["analyse", "HM1-X-AAAAAAA"], ["analyse", "0", "--budget", "0"],
                                  ["analyse", "no-such-file.txt"]])
def test_analyse_command_bad_input(args, capsys):
    assert main(args) == 2
    assert capsys.readouterr().err.startswith("halfmoon: error:")


def test_analyse_help(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["analyse", "--help"])
    assert exc.value.code == 0 and "usage: halfmoon analyse" in capsys.readouterr().out
