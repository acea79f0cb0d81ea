"""The difficulty measure: each deal's games by the measure's players, resumable files."""

from __future__ import annotations

import json

import pytest

from halfmoon.research import difficulty as dm
from solver import solve

LOST = 1022758351  # a deal the solver proves lost (found by the measure's own run)


@pytest.fixture
def cheap(monkeypatch):
    # the sampled players at a small sample count, so that a test plays in seconds
    monkeypatch.setattr(dm, "SAMPLED", (("rollout@2", 2),))
    monkeypatch.setattr(dm, "MEASURE", (*((n, 1) for n in dm.SIMPLE),
                                        *((f"undo-greedy@{m}", 1) for m in dm.UNDO_LIMITS),
                                        ("rollout@2", 2)))


def test_a_lost_deal_is_not_played(cheap):
    assert solve(LOST).verdict == "loss"
    (row,) = dm.measure_deals([LOST], seed=1)
    assert row == {"number": LOST, "verdict": "loss"}


def test_won_deals_get_games_within_their_counts(cheap):
    rows = dm.measure_deals([100, 101, 102], seed=1)
    assert [r["number"] for r in rows] == [100, 101, 102]
    for r in rows:
        assert r["verdict"] == solve(r["number"]).verdict == "win"
        assert set(r["wins"]) == {name for name, _ in dm.MEASURE}
        for name, games in dm.MEASURE:
            assert 0 <= r["wins"][name] <= games
        # one undo game read at growing patiences: a win within fewer moves is one within more
        within = [r["wins"][f"undo-greedy@{m}"] for m in dm.UNDO_LIMITS]
        assert within == sorted(within)
        assert (r["moves"] <= dm.UNDO_LIMITS[0]) == bool(within[0])


def test_the_measure_is_reproducible_and_does_not_depend_on_the_other_deals(cheap):
    a = dm.measure_deals([101, 102], seed=7)
    b = dm.measure_deals([102], seed=7)
    assert a[1] == b[0]


def test_a_measure_file_is_resumed(cheap, tmp_path):
    path = tmp_path / "m.jsonl"
    assert dm.measure_file([100, LOST], path, seed=3, out=None) == 2
    with path.open("a") as f:
        f.write('{"number": 5, "verd')  # a line cut short by an interrupted run
    assert dm.measure_file([100, LOST, 101], path, seed=3, out=None) == 1
    rows = dm.read_measure(path)
    assert sorted(r["number"] for r in rows) == [100, 101, LOST]
    head = json.loads(path.read_text().splitlines()[0])
    assert head["seed"] == 3 and "solver_version" in head
    assert dm.read_header(path) == head and dm.read_header(tmp_path / "none.jsonl") == {}


def test_a_bad_part_is_refused():
    with pytest.raises(ValueError, match="bad --part"):
        dm.main(["--random", "10", "--out", "x.jsonl", "--part", "2/2"])
