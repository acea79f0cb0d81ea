"""The census recheck: wins replayed through the engine, losses put to the CP-SAT model."""

from __future__ import annotations

import pandas as pd
import pytest

from halfmoon.game.errors import HalfMoonError
from halfmoon.research.recheck import model_verdict, recheck, recheck_counts, replays
from solver import solve, solve_cpsat


def line_of(number: int) -> str:
    r = solve(number, budget=200_000)
    assert r.verdict == "win"
    return " ".join(str(m) for m in r.moves)


def test_a_winning_line_replays_and_a_broken_one_does_not():
    line = line_of(0)
    assert replays(0, line)
    moves = line.split()
    assert not replays(0, " ".join(moves[:-1]))  # one move short: cards are left
    assert not replays(0, " ".join(moves[1:] + moves[:1]))  # out of order: an illegal move
    assert not replays(1, line)  # another deal's line
    assert not replays(0, None)


def test_recheck_confirms_losses_and_catches_a_false_one():
    loss = next(n for n in range(200) if solve(n, budget=200_000).verdict == "loss")
    win = 0
    rows = pd.DataFrame({"deal": [win, loss, win, 7],
                         "verdict": ["win", "loss", "loss", "unresolved"],
                         "line": [line_of(win), None, None, None]})
    checked = recheck(rows, limit=60)
    assert checked["check"].tolist() == ["replayed", "confirmed", "disagrees", "unresolved"]
    assert recheck_counts(checked) == {
        "wins replayed": 1, "wins not replayed": 0, "losses confirmed": 1,
        "losses not confirmed within the limit": 0, "disagreements": 1, "unresolved": 1}


def test_a_bad_limit_is_refused():
    with pytest.raises(ValueError, match="time limit"):
        recheck(pd.DataFrame({"deal": [0], "verdict": ["win"], "line": [""]}), limit=0)


def test_both_views_of_the_model_settle_a_loss_and_a_win():
    loss = next(n for n in range(200) if solve(n, budget=200_000).verdict == "loss")
    assert model_verdict(loss, 60)[0] == model_verdict(loss, 60, counting=False)[0] == "loss"
    r = solve_cpsat(0, 60, counting=True)
    assert r.verdict == "win" and r.settled_by == "cpsat"
    assert replays(0, " ".join(map(str, r.moves)))
    with pytest.raises(HalfMoonError, match="time limit"):
        solve_cpsat(0, 0, counting=True)
    with pytest.raises(HalfMoonError, match="expected a Deal"):
        solve_cpsat(1.5, counting=True)
