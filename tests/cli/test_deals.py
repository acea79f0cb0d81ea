"""show, solve and analyse on one deal: output formats, bad deals and files."""

from __future__ import annotations

import json

import pytest
from cli_helpers import DEAL1_LAYOUT, assert_one_line_error, run
from conftest import make_layout

from halfmoon import Deal, Game, Move
from halfmoon.cli.output import SCHEMA
from halfmoon.game.layouts import format_layout


@pytest.mark.parametrize("arg", ["HM1-N-AAAAAAB", "hm1-n-aaaaaab", " HM1-N-AAAAAAB ", "1"])
def test_show_layout_prints_the_spec_layout(capsys, arg):
    status, out, err = run(capsys, "show", arg, "--format", "layout")
    assert status == 0 and err == ""
    assert out == DEAL1_LAYOUT
    assert out.splitlines()[0] == "# HM1-N-AAAAAAB"


def test_show_json(capsys):
    status, out, err = run(capsys, "show", "HM1-N-AAAAAAB", "--format", "json")
    assert status == 0 and err == ""
    data = json.loads(out)
    assert list(data) == ["schema", "code", "piles", "reserve"] and data["schema"] == SCHEMA
    assert data["code"] == "HM1-N-AAAAAAB"
    assert len(data["piles"]) == 12
    assert data["piles"][0] == ["6h", "7h", "Jc", "8c", "Ks", "7d", "6s", "8c"]
    assert data["piles"][1][3] == "10h"  # written form: 10, not T or ♥
    assert data["reserve"] == ["10d", "Kd", "Jd", "10c", "Jd", "Ac", "4h", "7s"]


def test_show_text_is_the_diagram(capsys):
    status, out, err = run(capsys, "show", "HM1-N-AAAAAAA")
    assert status == 0 and err == ""
    assert out.splitlines()[0] == "HM1-N-AAAAAAA"
    assert "12:8" in out and "R8:1" in out
    assert out == str(Deal("HM1-N-AAAAAAA"))


def test_show_reveal(capsys):
    _, plain, _ = run(capsys, "show", "0")
    status, revealed, _ = run(capsys, "show", "0", "--reveal")
    assert status == 0
    assert len(revealed.splitlines()) > len(plain.splitlines())
    assert (revealed.count("♣") + revealed.count("♦") + revealed.count("♥")
            + revealed.count("♠")) == 104


def test_show_layout_file(capsys, tmp_path):
    text = make_layout({1: "10c Ah", 2: "5s", 3: "6d"}, "Kh -- Qs Jd")
    path = tmp_path / "position.txt"
    path.write_text(text, encoding="utf-8")
    status, out, err = run(capsys, "show", str(path), "--format", "layout")
    assert status == 0 and err == ""
    assert out == text
    status, out, _ = run(capsys, "show", str(path), "--format", "json")
    data = json.loads(out)
    assert data["code"] is None
    assert data["piles"][0] == ["10c", "Ah"] and data["piles"][4] == []
    assert data["reserve"][:4] == ["Kh", None, "Qs", "Jd"]
    status, out, _ = run(capsys, "show", str(path))
    assert status == 0 and out.splitlines()[0] == "position" and "1:2" in out


def test_show_layout_file_of_a_deal_keeps_the_code(capsys, tmp_path):
    path = tmp_path / "deal.txt"
    path.write_text(format_layout(Deal("HM1-N-AKKEEKB")), encoding="utf-8")
    status, out, _ = run(capsys, "show", str(path), "--format", "json")
    assert status == 0 and json.loads(out)["code"] == "HM1-N-AKKEEKB"


@pytest.mark.parametrize(
    "code, fragment",
    [
        ("HM2-N-AAAAAAB", "prefix"),
        ("HM1-X-AAAAAAB", "family"),
        ("HM1-N-AAAAB", "length"),
        ("HM1-N-AAAA1AB", "not a letter"),
    ],
)
def test_bad_code(capsys, code, fragment):
    assert_one_line_error(capsys, ["show", code], fragment, code)


def test_deal_number_out_of_range(capsys):
    assert_one_line_error(capsys, ["show", str(26**7)], "8031810176")


def test_missing_file(capsys, tmp_path):
    missing = str(tmp_path / "nowhere.txt")
    assert_one_line_error(capsys, ["show", missing], "no such file", "nowhere.txt")
    assert_one_line_error(capsys, ["solve", str(tmp_path)], "is a directory")


@pytest.mark.parametrize("command", ["show", "solve"])
def test_a_png_that_cannot_be_written_is_refused_before_any_work(capsys, tmp_path, command):
    # nothing printed first: the check comes before the deal is solved or shown
    assert_one_line_error(capsys, [command, "3", "--png", str(tmp_path / "no" / "x.png")],
                          "--png", "no such directory")
    assert_one_line_error(capsys, [command, "3", "--png", str(tmp_path)], "is a directory")


@pytest.mark.parametrize("arg", ["²", "١٢", "12a"])
def test_not_a_number_code_or_file(capsys, arg):
    # "²" passes str.isdigit() but not int(): it must still be a clean error.
    assert_one_line_error(capsys, ["show", arg], repr(arg))


def test_bad_layout(capsys, tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text(make_layout({1: "5s", 2: "6d Xx"}), encoding="utf-8")
    assert_one_line_error(capsys, ["show", str(path)], "bad.txt, line 2", "'Xx'")


def test_impossible_layout(capsys, tmp_path):
    path = tmp_path / "bad.txt"
    path.write_text(make_layout({1: "5s", 2: "6d 6d", 3: "6d 5h 5c"}), encoding="utf-8")
    assert_one_line_error(capsys, ["show", str(path)], "bad.txt", "6d", "3 times")


def test_unreadable_layout_file(capsys, tmp_path):
    path = tmp_path / "binary.txt"
    path.write_bytes(b"\xff\xfe\x81")
    assert_one_line_error(capsys, ["show", str(path)], "binary.txt", "cannot read")


def first_loss() -> int:
    from solver import solve

    return next(n for n in range(400) if solve(n, budget=200_000).verdict == "loss")


def test_solve_text_writes_the_line_in_the_move_notation(capsys):
    from halfmoon.game.notation import parse_moves

    status, out, err = run(capsys, "solve", "3")
    assert status == 0
    head, *line = out.splitlines()
    assert head.startswith("HM1-N-AAAAAAD: win in ") and "settled by quick" in head
    assert line[0].startswith(" 1. ") and " + " in line[0]
    assert any(suit in line[0] for suit in "♣♦♥♠")  # the cards with their suits' symbols
    # the printed line reads back and wins
    moves = parse_moves("\n".join(line), Deal.from_number(3))
    assert len(moves) == 48


def test_solve_json_says_what_settled_it_and_reads_back(capsys):
    from halfmoon.game.notation import parse_moves
    from solver import DEFAULT_BUDGET, SOLVER_VERSION

    status, out, err = run(capsys, "solve", "3", "7", "--json", "--budget", "300000")
    assert status == 0
    first, second = (json.loads(line) for line in out.splitlines())
    assert first["solver_version"] == SOLVER_VERSION and first["budget"] == 300_000
    assert first["settled_by"] in ("probe", "quick", "urgency", "engine order", "near-ties",
                                   "shuffled", "grouping")
    assert first["engine"] == "dfs" and first["why"] is None
    assert first["number"] == 3 and second["number"] == 7
    assert parse_moves(" ".join(m["text"] for m in first["moves"]), Deal.from_number(3))
    # the second solve of a process does not load the solver again
    assert second["setup_seconds"] == 0.0
    status, out, _ = run(capsys, "solve", "3", "--json")
    assert json.loads(out)["budget"] == DEFAULT_BUDGET


def test_a_winning_line_in_json_replays_through_analyse_moves(capsys):
    """Each move of ``solve --json`` in the notation ``analyse --moves`` reads, beside its
    text; fed back, the line replays to a won game."""
    from halfmoon.game.notation import format_move

    status, out, err = run(capsys, "solve", "3", "--json")
    line = json.loads(out)
    assert status == 0 and line["verdict"] == "win" and line["number"] == 3
    game = Game(Deal.from_number(3))
    for m in line["moves"]:
        assert set(m) == {"move", "text"} and "♥" not in m["move"]
        assert format_move(Move.parse(m["move"]), game) == m["text"]
        game.play(m["move"])
    assert game.is_won
    moves = " ".join(m["move"] for m in line["moves"])
    status, out, err = run(capsys, "analyse", "3", "--moves", moves, "--budget", "20000")
    assert status == 0, err
    assert "game: won" in out.splitlines() and out.splitlines()[-1] == "position: won"
    status, out, err = run(capsys, "analyse", "3", "--moves", moves, "--budget", "20000",
                           "--json")
    replay = json.loads(out)
    assert replay["number"] == 3 and replay["game"]["end"] == "win"
    assert [m["move"] for m in replay["game"]["moves"]] == moves.split()
    assert [m["text"] for m in replay["game"]["moves"]] == [m["text"] for m in line["moves"]]


def test_analyse_json_gives_each_move_in_the_notation_and_the_deal_number(capsys, tmp_path):
    status, out, err = run(capsys, "analyse", "3", "--budget", "20000", "--json")
    data = json.loads(out)
    assert status == 0 and data["number"] == 3 and data["code"] == "HM1-N-AAAAAAD"
    assert "moves" not in data  # not to be taken for a line to play (solve --json's)
    for m in data["legal_moves"]:
        assert Move.parse(m["move"]).sources == tuple(m["sources"])
        assert m["text"] == " + ".join(f"{c} {s}" for c, s in zip(m["cards"], m["sources"]))
    # a position (a layout with cards gone) has no deal number
    game = Game(Deal.from_number(3))
    game.play(data["legal_moves"][0]["move"])
    path = tmp_path / "position.txt"
    path.write_text(format_layout(game.remaining_deal()))
    status, out, err = run(capsys, "analyse", str(path), "--budget", "20000", "--json")
    assert status == 0, err
    assert json.loads(out)["number"] is None


def test_a_lost_deal_says_why(capsys):
    n = first_loss()
    status, out, err = run(capsys, "solve", str(n))
    assert status == 0
    lines = out.splitlines()
    assert ": loss in " in lines[0]
    assert lines[1].startswith("lost: the ") and "(smallest deadlocked set" in lines[1]
    status, out, err = run(capsys, "solve", str(n), "--json")
    why = json.loads(out)["why"]
    assert why["deadlock"] and why["kind"] != "unresolved" and why["seconds"] >= 0
    assert why["text"] in lines[1]
    status, out, err = run(capsys, "analyse", str(n), "--budget", "50000")
    assert status == 0 and "lost: " + why["text"] in out


def test_analyse_moves_marks_the_move_that_lost_the_win(capsys):
    from halfmoon.game.engine import Game
    from halfmoon.research.strategies import play
    from solver import solve

    deal = Deal.from_number(3)
    line = solve(deal).moves
    # three moves of the winning line, then the random player's game from there on
    game = Game(deal)
    for m in line[:3]:
        game.play(m)
    rest = next(g for s in range(10) for g in [play(game.remaining_deal(), "random", s)]
                if not g.won)
    played = (*line[:3], *rest.moves)
    moves = " ".join(str(m) for m in played)
    status, out, err = run(capsys, "analyse", "3", "--moves", moves, "--budget", "200000")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == f"HM1-N-AAAAAAD: {len(played)} moves replayed; at the start: winnable"
    marked = [k for k, text in enumerate(lines) if "?? lost the win" in text]
    assert len(marked) == 1 and marked[0] > 3  # the winning line's moves keep the win
    assert any(text.startswith("game: lost; move ") for text in lines)
    assert any(text.startswith("position: ") for text in lines)  # the position reached
    status, out, err = run(capsys, "analyse", "3", "--moves", moves, "--budget", "200000",
                           "--json")
    obj = json.loads(out)
    assert obj["game"]["fatal"] == marked[0]


@pytest.mark.parametrize("moves, fragment", [
    ("P1+P8 x", "cannot read 'x'"),
    ("P1", "must remove two or three cards"),
    ("P1+P2", "move 1 (P1+P2): illegal move"),
    ("9s P1 + 2h P8", "move 1 (P1+P8): P1 shows"),
])
def test_analyse_bad_moves_are_one_line(capsys, moves, fragment):
    assert_one_line_error(capsys, ["analyse", "3", "--moves", moves], fragment)
# --- a deal from the app: a partial layout -----------------------------------------------


def _partial_file(tmp_path, name="after P1+P8"):
    from spec_vectors import PARTIAL_VECTORS

    path = tmp_path / "app.txt"
    path.write_text(PARTIAL_VECTORS[name][0], encoding="utf-8")
    return path


def test_show_a_partial_layout_marks_the_unknown_cards(capsys, tmp_path):
    path = _partial_file(tmp_path)
    status, out, err = run(capsys, "show", str(path))
    assert status == 0 and err == ""
    assert out.splitlines()[0].startswith("position (partial: 83 cards not known yet")
    assert "??" in out and "10♣" in out  # P8 waits for its card; P1's 10c was entered
    _, layout, _ = run(capsys, "show", str(path), "--format", "layout")
    assert layout == path.read_text(encoding="utf-8")
    _, text, _ = run(capsys, "show", str(path), "--format", "json")
    data = json.loads(text)
    assert data["piles"][7] == ["??"] * 7 and data["piles"][0][-1] == "10c"
    assert data["unknown"] == 83 and data["removed"] == ["4s", "7d"]
    png = tmp_path / "app.png"
    assert run(capsys, "show", str(path), "--png", str(png))[0] == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_analyse_a_partial_layout(capsys, tmp_path):
    path = _partial_file(tmp_path, "start")
    status, out, err = run(capsys, "analyse", str(path), "--samples", "16", "--player", "fair@4",
                           "--seed", "3", "--games", "2")
    assert status == 0 and err == ""
    assert out.startswith("partial position: 104 cards left, 84 of them not known yet; 16 "
                          "layouts")
    assert "Winnable: the share of those layouts in which the game can be won by someone who " \
           "then sees every card" in out
    assert "P1+P8      7♦ + 4♠" in out and "the fair player's move" in out
    assert "against the best" in out and "recommended: " in out
    assert "The fair player (fair@4): its own chance of winning from here" in out
    assert "of 2 games" in out
    status, out, err = run(capsys, "analyse", str(path), "--samples", "16", "--player", "fair@4",
                           "--seed", "3", "--games", "2", "--json")
    data = json.loads(out)
    assert data["winnable"]["samples"] == 16 and len(data["legal_moves"]) == 15
    assert data["unknown"] == 84 and data["player"] == "fair@4"
    assert data["fair"]["samples"] == 2 and "sees every card" in data["winnable"]["question"]
    assert data["recommended"]["move"] in [m["move"] for m in data["legal_moves"]]
    assert all(m["wins"] <= data["winnable"]["wins"] for m in data["legal_moves"])


def test_analyse_a_partial_layout_bad_input(capsys, tmp_path):
    waiting = _partial_file(tmp_path)
    assert_one_line_error(capsys, ["analyse", str(waiting)], "P8: the top card is not known")
    start = _partial_file(tmp_path, "start")
    assert_one_line_error(capsys, ["analyse", str(start), "--samples", "0"], "--samples")
    assert_one_line_error(capsys, ["analyse", str(start), "--seconds", "0"], "--seconds")
    assert_one_line_error(capsys, ["analyse", str(start), "--games", "-1"], "--games")
    assert_one_line_error(capsys, ["analyse", str(start), "--player", "nobody"], "nobody")
    assert_one_line_error(capsys, ["solve", str(start)], "a partial deal (84 cards not known")
    # the same options are checked on a whole deal too, before any work
    assert_one_line_error(capsys, ["analyse", "3", "--samples", "0"], "--samples must be")
    assert_one_line_error(capsys, ["analyse", "3", "--games", "-1"], "--games must be at least 0")
    assert_one_line_error(capsys, ["solve", "-1"], "deal number -1 is outside 0..8031810175")


def test_solve_refuses_a_budget_for_the_constraint_model(capsys):
    assert_one_line_error(capsys, ["solve", "1", "--engine", "cpsat", "--budget", "5"],
                          "--budget goes with --engine dfs")
    assert_one_line_error(capsys, ["solve", "1", "--budget", "-5"], "--budget", "-5")
    assert_one_line_error(capsys, ["analyse", "1", "--budget", "0"], "bad budget 0")


def test_a_why_not_found_in_the_bounded_look_says_its_budget_and_how_to_look_further(capsys):
    """Deal 2013967131: the bounded look stops at 500,000 positions; the findings' deadlock
    stage (each projection the run's budget, no bound in all) finds that the loss needs all
    six classes, and --why-budget gives the same."""
    from halfmoon.research.deadlocks import deadlock
    from solver import WHY_TOTAL

    status, out, _ = run(capsys, "solve", "2013967131")
    why = out.splitlines()[1]
    assert status == 0 and why.startswith("lost: why is not known within the budget")
    assert (f"the bounded look stops at {WHY_TOTAL:,} positions in all: --why-budget N gives "
            "each smaller game N positions with no bound in all") in why
    status, out, _ = run(capsys, "solve", "2013967131", "--why-budget", "5000000")
    stage = deadlock(2013967131, 5_000_000)  # the findings' deadlock stage's look
    assert status == 0 and out.splitlines()[1].startswith(f"lost: {stage.text} [")
    assert stage.kind != "unresolved"


def test_a_why_budget_below_one_is_refused(capsys):
    assert_one_line_error(capsys, ["solve", "1", "--why-budget", "0"], "--why-budget must be")


def test_solve_counts_the_first_solves_loading_apart_from_the_deals_time(capsys):
    """The process's first solve pays for the kernels' first calls: an untimed solve of a
    small deal takes it, counted with the loading of the first deal, not with its time."""
    status, out, _ = run(capsys, "solve", "4", "4", "--json")
    first, second = (json.loads(line) for line in out.splitlines())
    assert status == 0 and first["setup_seconds"] > 0 and second["setup_seconds"] == 0
    assert first["nodes"] == second["nodes"] and first["verdict"] == second["verdict"]


def test_solve_cpsat_takes_a_time_limit_and_the_counting_model(capsys):
    pytest.importorskip("ortools")
    # a hard loss of the published set that CP-SAT confirmed in 60 s: not in 0.2 s
    status, out, _ = run(capsys, "solve", "5326448742", "--engine", "cpsat", "--counting",
                         "--time-limit", "0.2", "--json")
    assert status == 0 and json.loads(out)["verdict"] == "unresolved"
    assert_one_line_error(capsys, ["solve", "1", "--time-limit", "5"],
                          "--time-limit and --counting go with --engine cpsat")
    assert_one_line_error(capsys, ["solve", "1", "--engine", "cpsat", "--time-limit", "0"],
                          "--time-limit must be a positive number")
