"""What the answers say of a game: lines settle every position along them, verdicts
follow along the moves, a lost game finds the move that lost it by a binary search,
and the hint, the marks, the analysis and the line read as they should."""

from __future__ import annotations

from board_helpers import EXAMPLE, TRAP
from conftest import make_game

from halfmoon.board.games import deal_key
from halfmoon.board.jobs import solve_job
from halfmoon.board.opinion import (
    Verdicts,
    deal_at,
    fair_view,
    hint_view,
    line_view,
    opinion_view,
    read_game,
)
from halfmoon.game.engine import Game
from halfmoon.game.layouts import format_layout
from halfmoon.game.moves import Move

KEY = "k"
WIN_LINE = ["P1+P8", "P3+P5+P8", "R1+R2"]


def record(verdicts: Verdicts, game: Game, ply: int, answer: dict) -> None:
    verdicts.record(KEY, deal_at(game, ply), answer)


def played(deal, *moves) -> Game:
    game = Game(deal)
    for move in moves:
        game.play(move)
    return game


def test_a_winning_line_settles_every_position_along_it():
    verdicts = Verdicts()
    verdicts.record(KEY, EXAMPLE, {"verdict": "win", "moves": WIN_LINE, "nodes": 7})
    game = Game(EXAMPLE)
    for k, move in enumerate(WIN_LINE):
        found = verdicts.get((KEY, game.position))
        assert found.verdict == "win" and [str(m) for m in found.line] == WIN_LINE[k:]
        game.play(move)
    assert len(verdicts) == 3


def test_a_line_that_does_not_replay_is_not_believed():
    verdicts = Verdicts()
    verdicts.record(KEY, EXAMPLE, {"verdict": "win", "moves": ["P1+P8", "R1+R2"]})
    found = verdicts.get((KEY, Game(EXAMPLE).position))
    assert found.verdict == "unresolved" and "did not replay" in found.reason
    verdicts.record(KEY, EXAMPLE, {"error": "the solver process stopped"})
    assert verdicts.get((KEY, Game(EXAMPLE).position)).reason == "the solver process stopped"


def test_the_verdicts_are_bounded():
    verdicts = Verdicts(capacity=2)
    verdicts.record(KEY, EXAMPLE, {"verdict": "win", "moves": WIN_LINE})
    assert len(verdicts) == 2
    assert verdicts.get((KEY, Game(EXAMPLE).position)) is None  # the oldest went first


def test_verdicts_follow_along_the_moves():
    """A position before a winnable one is winnable; one after a lost one is lost."""
    game = played(TRAP, "P3+P4", "R1+R2", "P5+P6", "P7+P8")
    verdicts = Verdicts()
    record(verdicts, game, 1, {"verdict": "win",
                               "moves": ["P1+R1", "R2+P1", "P5+P6", "P7+P8", "P9+P10"]})
    record(verdicts, game, 3, {"verdict": "loss"})
    reading = read_game(game, KEY, verdicts)
    assert reading.verdicts == ["win", "win", None, "loss", "loss"]
    assert reading.now == "loss" and reading.wanted() == [2]  # the one still open


def test_the_position_on_the_board_is_wanted_first():
    game = played(EXAMPLE, "P1+P8")
    reading = read_game(game, KEY, Verdicts())
    assert reading.verdicts == [None, None] and reading.wanted() == [1]
    assert opinion_view(reading, Verdicts())["light"] == "pending"


def test_a_lost_game_finds_the_move_that_lost_it_in_a_few_solves():
    """The trap sprung at move 2 of 4: asked only what the reading wants, the solver
    finds it in 1 + ceil(log2(4)) solves (the position on the board, then the search)."""
    game = played(TRAP, "P3+P4", "R1+R2", "P5+P6", "P7+P8")
    asked = []
    verdicts = Verdicts()
    while True:
        wanted = read_game(game, KEY, verdicts).wanted()
        if not wanted:
            break
        asked.append(wanted[0])
        record(verdicts, game, wanted[0],
               solve_job(format_layout(deal_at(game, wanted[0])), 10_000))
    assert asked[0] == 4 and len(asked) <= 3
    reading = read_game(game, KEY, verdicts)
    assert reading.verdicts == ["win", "win", "loss", "loss", "loss"]
    hint = hint_view(reading)
    assert hint["kind"] == "lost" and hint["undo"] == 3 and hint["lost_by"] == 2
    assert hint["text"] == ("Lost. Undo 3 moves to be winnable again: move 2 "
                            "(A♦ R1 + 10♦ R2) lost it.")
    marks = [m["mark"] for m in opinion_view(reading, verdicts)["moves"]]
    assert marks == [None, "??", None, None]


def test_a_dead_end_is_lost_without_asking_the_solver():
    game = played(TRAP, "R1+R2", "P3+P4", "P5+P6", "P7+P8", "P9+P10")
    assert game.is_dead_end
    reading = read_game(game, KEY, Verdicts())
    assert reading.now == "loss" and reading.ply not in reading.wanted()


def test_the_hint_in_every_case():
    game = Game(EXAMPLE)
    verdicts = Verdicts()
    assert hint_view(read_game(game, KEY, verdicts))["kind"] == "pending"
    record(verdicts, game, 0, {"verdict": "win", "moves": WIN_LINE})
    hint = hint_view(read_game(game, KEY, verdicts))
    assert hint == {"kind": "move", "move": "P1+P8", "sources": ["P1", "P8"],
                    "text": "Play 5♠ P1 + 6♦ P8"}
    unknown = Verdicts()
    record(unknown, game, 0, {"verdict": "unresolved", "reason": "time limit of 1 s"})
    reading = read_game(game, KEY, unknown)
    assert hint_view(reading)["kind"] == "unknown"
    assert opinion_view(reading, unknown)["says"] == "Not known (time limit of 1 s)"
    lost = Verdicts()
    record(lost, Game(TRAP), 0, {"verdict": "loss"})  # not true, but what it was told
    assert hint_view(read_game(Game(TRAP), KEY, lost))["text"] == \
        "Lost from the start: no line of play wins this deal."
    for move in WIN_LINE:
        game.play(move)
    won = read_game(game, KEY, verdicts)
    assert hint_view(won)["kind"] == "won" and opinion_view(won, verdicts)["light"] == "won"


def test_a_boundary_the_solver_could_not_settle_is_said_so():
    game = played(TRAP, "P3+P4", "R1+R2", "P5+P6")
    verdicts = Verdicts()
    record(verdicts, game, 0, {"verdict": "win",
                               "moves": ["P1+R1", "R2+P1", "P3+P4", "P5+P6", "P7+P8", "P9+P10"]})
    record(verdicts, game, 1, {"verdict": "unresolved"})
    record(verdicts, game, 2, {"verdict": "unresolved"})
    record(verdicts, game, 3, {"verdict": "loss"})
    reading = read_game(game, KEY, verdicts)
    assert reading.wanted() == []
    assert hint_view(reading)["text"] == (
        "Lost. Undo 3 moves to be winnable again; the win was lost by one of moves 1–3 "
        "(the solver could not settle the positions between).")
    assert opinion_view(reading, verdicts, budget=1000)["says"] == "Lost"


def test_the_line_step_by_step():
    game = Game(EXAMPLE)
    verdicts = Verdicts()
    assert line_view(read_game(game, KEY, verdicts)) is None
    record(verdicts, game, 0, {"verdict": "win", "moves": WIN_LINE})
    game.play("P1+P8")  # on the line: the rest is known without a new solve
    steps = line_view(read_game(game, KEY, verdicts))
    assert [s["cards"] for s in steps] == ["K♥ P3 + Q♥ P5 + J♣ P8", "A♥ R1 + 10♣ R2"]
    assert steps[0]["sources"] == ["P3", "P5", "P8"] and steps[1]["n"] == 2


def test_the_analysis_marks_every_legal_move():
    game = Game(TRAP)
    verdicts = Verdicts()
    reading = read_game(game, KEY, verdicts)
    children = reading.children(verdicts)
    assert [str(m) for m, _, v, _ in children] == ["P1+R1", "P3+P4", "P5+P6", "P7+P8", "P9+P10",
                                                   "R1+R2"]
    assert all(v is None for _, _, v, _ in children)
    for move, _, _, _ in children:
        after = played(TRAP, str(move)).remaining_deal()
        verdicts.record(KEY, after, solve_job(format_layout(after), 10_000))
    out = opinion_view(read_game(game, KEY, verdicts), verdicts, analysis=True)
    says = {a["move"]: a["verdict"] for a in out["analysis"]}
    assert says == {"P1+R1": "win", "P3+P4": "win", "P5+P6": "win", "P7+P8": "win",
                    "P9+P10": "win", "R1+R2": "loss"}
    assert out["analysis"][0]["cards"] == "10♣ P1 + A♦ R1"


def test_after_a_lost_position_every_move_is_lost_without_solving():
    game = played(TRAP, "R1+R2")
    verdicts = Verdicts()
    record(verdicts, game, 1, {"verdict": "loss"})
    children = read_game(game, KEY, verdicts).children(verdicts)
    assert children and all(v == "loss" for _, _, v, _ in children)


def test_two_games_of_one_deal_share_the_answers():
    a, b = Game(EXAMPLE), make_game({1: "5s", 3: "Kh", 5: "Qh", 8: "Jc 6d"}, "Ah 10c")
    assert deal_key(a.deal) == deal_key(b.deal)
    verdicts = Verdicts()
    verdicts.record(deal_key(a.deal), a.deal, {"verdict": "win", "moves": WIN_LINE})
    assert read_game(b, deal_key(b.deal), verdicts).now == "win"


def test_a_deal_lost_from_the_start_says_why():
    lost = Game(TRAP)
    lost.play("R1+R2")  # the aces under the tens: lost
    deal = lost.remaining_deal()
    answer = solve_job(format_layout(deal), 10_000, True)
    assert answer["verdict"] == "loss"
    assert answer["why"] == ("the A\u201310 cards can never all be cleared, whatever else is "
                             "played (smallest deadlocked set)")
    assert "why" not in solve_job(format_layout(deal), 10_000)  # asked only for a start
    verdicts = Verdicts()
    game = Game(deal)
    record(verdicts, game, 0, answer)
    hint = hint_view(read_game(game, KEY, verdicts))
    assert hint["why"] == answer["why"]
    assert hint["text"] == ("Lost from the start: no line of play wins this deal. Why: "
                            + answer["why"] + ".")


def fair_answer(keeps: dict, samples: int, chosen: str) -> dict:
    return {"move": chosen, "samples": samples,
            "moves": [{"move": m, "keeps": k} for m, k in keeps.items()]}


def _four_pairs():
    """A game whose four legal moves are the pairs of 5♠ 5♥ (P1, P2) with 6♦ 6♣ (P8, P9),
    and those moves as text."""
    game = make_game({1: "5s", 2: "5h", 8: "6d", 9: "6c"})
    return game, [str(m) for m in game.legal_moves]


def test_the_fair_hint_gives_each_share_its_interval_and_owns_its_choice():
    game, moves = _four_pairs()
    assert moves == ["P1+P8", "P1+P9", "P2+P8", "P2+P9"]
    assert len(moves) == 4
    keeps = dict(zip(moves, [237, 238, 240, 100]))
    view = fair_view(game, fair_answer(keeps, 256, moves[0]), 1024)
    shares = [m["share"] for m in view["moves"]]
    assert shares == sorted(shares, reverse=True)
    for m in view["moves"]:
        assert 0 <= m["low"] < m["share"] < m["high"] <= 1
    # 237, 238 and 240 of 256 are not told apart; 100 is
    assert [m["tied"] for m in view["moves"]] == [True, True, True, False]
    # the player's move is third by share: the text says its choice is its own
    assert view["text"] == ("A fair player plays 5♠ P1 + 6♦ P8 (its own choice by roll-outs; "
                            "its share is 3rd of 4 here, within the 3 not told apart from the "
                            "best)")
    assert "roll-outs" in view["note"] and "Wilson" in view["note"]
    best = fair_view(game, fair_answer(keeps, 256, moves[2]), 1024)
    assert best["text"] == "A fair player plays 5♥ P2 + 6♦ P8"


def paired_answer(rows: dict, samples: int, chosen: str, tie: str = "") -> dict:
    """A paired answer: ``rows[move]`` is the list of layouts (0..samples-1) won after it;
    ``chosen`` the fair player's move, ``tie`` the tuned player's (the rule's tie-break)."""
    import numpy as np

    from halfmoon.research.stats import paired_difference

    won = {m: np.isin(np.arange(samples), list(r)).astype(float) for m, r in rows.items()}
    best = max(won, key=lambda m: (won[m].sum(), m == tie))
    moves = []
    for m, w in won.items():
        _, low, high = paired_difference(w, won[best])
        moves.append({"move": m, "keeps": int(w.sum()), "unresolved": 0,
                      "only": int(((w == 1) & (won[best] == 0)).sum()),
                      "only_best": int(((w == 0) & (won[best] == 1)).sum()),
                      "diff_low": low, "diff_high": high})
    rec = best  # the board's rule: the largest share
    any_won = set().union(*rows.values())
    return {"move": chosen, "samples": samples, "best": best, "recommended": rec,
            "position_wins": len(any_won), "position_open": 0, "moves": moves}


def test_the_fair_hint_recommends_one_move_and_says_why():
    game, moves = _four_pairs()
    rows = {moves[0]: range(0, 60), moves[1]: range(0, 62), moves[2]: range(0, 64),
            moves[3]: range(0, 20)}
    # the move of largest share is recommended (64 layouts: the last stage here); the fair
    # player's (62 of 64) is beside it, not told apart from it
    view = fair_view(game, paired_answer(rows, 64, moves[1]), 64)
    assert view["move"] == view["best"] == moves[2] and view["fair_move"] == moves[1]
    assert view["sources"] == ["P2", "P8"]
    assert view["position"]["share"] == 1.0
    assert all(m["share"] <= view["position"]["share"] for m in view["moves"])
    fair = next(m for m in view["moves"] if m["move"] == moves[1])
    assert fair["tied"] and not fair["clearly_below"] and fair["diff"] == -2 / 64
    assert fair["diff_low"] < fair["diff"] < fair["diff_high"]
    assert view["text"].startswith("Play 5♥ P2 + 6♦ P8: the largest share (100 % of 64 "
                                   "layouts); the fair player's move, 5♠ P1 + 6♣ P9, is not "
                                   "told apart from it (−3.1 points")
    assert view["why"] in view["text"] and "the tuned" in view["rule"]
    # the fair player's move (20 of 64) clearly below: said so
    view = fair_view(game, paired_answer(rows, 64, moves[3]), 64)
    assert view["move"] == moves[2] and view["fair_move"] == moves[3]
    low = next(m for m in view["moves"] if m["move"] == moves[3])
    assert low["clearly_below"] and not low["tied"] and low["diff_high"] < 0
    assert "is clearly below it" in view["text"]
    # the fair player's move is the largest share
    view = fair_view(game, paired_answer(rows, 64, moves[2]), 64)
    assert view["text"] == "Play 5♥ P2 + 6♦ P8: the largest share (100 % of 64 layouts); the " \
                           "fair player's move too"
    # two moves of the largest share: the tuned player's among them is recommended
    even = {**rows, moves[0]: range(0, 64)}
    view = fair_view(game, paired_answer(even, 64, moves[3], tie=moves[0]), 64)
    assert view["move"] == moves[0]
    assert "tied with 1 other move (a tie goes to the tuned player's move" in view["text"]
    # never a highlighted move below the best, whichever the fair player's
    for chosen in moves:
        v = fair_view(game, paired_answer(rows, 64, chosen), 64)
        shown = next(m for m in v["moves"] if m["move"] == v["move"])
        assert shown["share"] == max(m["share"] for m in v["moves"])
        assert not shown["clearly_below"]


def test_an_answer_is_provisional_until_its_leader_is_clear_or_its_last_stage():
    game, moves = _four_pairs()
    # 62 of 64 against 64 of 64: the leader is not clear of the runner-up (2 layouts apart)
    rows = {moves[0]: range(0, 40), moves[1]: range(0, 62), moves[2]: range(0, 64),
            moves[3]: range(0, 20)}
    answer = paired_answer(rows, 64, moves[1])
    runner_up = next(m for m in answer["moves"] if m["move"] == moves[1])
    assert runner_up["diff_high"] >= 0  # not clearly below the leader
    view = fair_view(game, answer, 384)  # 64 of 384 layouts: more to come
    assert view["kind"] == "provisional" and not view["settled"] and view["more"]
    assert view["move"] is None and view["sources"] == [] and view["why"] is None
    assert view["leaning"] == moves[2] and view["rival"] == moves[1]
    assert view["text"].startswith("Leaning to 5♥ P2 + 6♦ P8, still counting (64 of 384 "
                                   "layouts): not yet clear of 5♠ P1 + 6♣ P9 (−3.1 points")
    assert "Play" not in view["text"]
    # the same answer as the last stage: settled, the move outlined and "Play" said
    last = fair_view(game, answer, 64)
    assert last["kind"] == "move" and last["settled"] and not last["more"]
    assert last["move"] == moves[2] and last["sources"] == ["P2", "P8"]
    assert last["text"].startswith("Play 5♥ P2 + 6♦ P8")
    # a stage that stopped (an error, a time-out) is never drawn as settled: where it
    # stopped, why, and the leader not settled
    cut = fair_view(game, {**answer, "stop": "time limit of 10 s"}, 384)
    assert cut["kind"] == "stopped" and not cut["settled"] and not cut["more"]
    assert cut["move"] is None and cut["sources"] == [] and cut["leaning"] == moves[2]
    assert cut["stopped"]["text"] == ("Stopped at 64 of 384 layouts: the machine is busy (a "
                                      "solve ran past its time limit of 10 s)")
    assert cut["text"].startswith("Leaning to 5♥ P2 + 6♦ P8, not settled: Stopped at 64 of 384")
    assert "Play" not in cut["text"]


def test_a_leader_clear_of_every_other_move_is_settled_before_the_last_stage():
    game, moves = _four_pairs()
    rows = {moves[0]: range(0, 30), moves[1]: range(0, 40), moves[2]: range(0, 64),
            moves[3]: range(0, 20)}
    answer = paired_answer(rows, 64, moves[1])
    assert all(m["diff_high"] < 0 for m in answer["moves"] if m["move"] != moves[2])
    view = fair_view(game, answer, 384)
    assert view["more"] and view["settled"] and view["kind"] == "move"
    assert view["move"] == moves[2] and view["sources"] == ["P2", "P8"]
    # one move a layout behind the leader: provisional, and that move named
    close = {**rows, moves[0]: range(0, 63)}
    view = fair_view(game, paired_answer(close, 64, moves[1]), 384)
    assert view["kind"] == "provisional" and view["rival"] == moves[0]
    # a tie at the top: never settled before the last stage
    tie = {**rows, moves[0]: range(0, 64)}
    view = fair_view(game, paired_answer(tie, 64, moves[1], tie=moves[0]), 384)
    assert view["kind"] == "provisional" and view["sources"] == []
    assert fair_view(game, paired_answer(tie, 64, moves[1], tie=moves[0]), 64)["kind"] == "move"


def test_a_position_share_well_above_the_best_moves_says_why():
    game, moves = _four_pairs()
    # the best move wins 0-43 (44 of 64, 69 %); two others win layouts it does not
    rows = {moves[0]: range(0, 44), moves[1]: range(30, 49), moves[2]: range(40, 47),
            moves[3]: range(0, 10)}
    view = fair_view(game, paired_answer(rows, 64, moves[1]), 64)
    assert view["position"]["wins"] == 49 and view["moves"][0]["keeps"] == 44
    gap = view["gap"]
    assert gap["layouts"] == 5 and abs(gap["points"] - 5 / 64) < 1e-9
    assert gap["text"] == ("Why 77 % for the position and 69 % for the best move: in 5 of the "
                           "64 layouts only other moves win (the position counts a layout when "
                           "any move wins it, and which move wins changes from layout to "
                           "layout).")
    # within a few points (here 1 layout of 64): nothing to explain
    near = {**rows, moves[1]: range(30, 45), moves[2]: range(40, 44)}
    assert fair_view(game, paired_answer(near, 64, moves[1]), 64)["gap"] is None


def test_a_leaders_twin_from_another_reserve_slot_is_not_its_rival():
    from halfmoon.board.opinion import twins

    # 5♠ on P1 pairs with the 6♦ of R1 and the 6♣ of R2 (twins: the same child), or with P9
    game = make_game({1: "5c 5h 5s", 9: "6h"}, "6d 6c")
    moves = [str(m) for m in game.legal_moves]
    assert moves == ["P1+P9", "P1+R1", "P1+R2"]
    assert twins(game, Move.parse("P1+R1")) == {"P1+R2"}
    assert twins(game, Move.parse("P1+P9")) == frozenset()
    rows = {"P1+P9": range(0, 20), "P1+R1": range(0, 64), "P1+R2": range(0, 64)}
    view = fair_view(game, paired_answer(rows, 64, "P1+P9", tie="P1+R1"), 384)
    assert view["kind"] == "move" and view["settled"] and view["move"] == "P1+R1"
    # a move of another pile is a rival however alike its counts
    game = make_game({1: "5h 5c 5s", 9: "6h", 10: "6s"}, "6d")
    rows = {"P1+P9": range(0, 64), "P1+P10": range(0, 64), "P1+R1": range(0, 20)}
    view = fair_view(game, paired_answer(rows, 64, "P1+R1", tie="P1+P9"), 384)
    assert view["kind"] == "provisional" and view["rival"] == "P1+P10"
