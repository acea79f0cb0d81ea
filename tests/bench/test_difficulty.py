"""The difficulty suite: its part's rows and figures, its deals."""

from __future__ import annotations

from halfmoon.batch.difficulty import estimate_numbers
from halfmoon.bench.difficulty import difficulty_line, difficulty_part
from halfmoon.bench.suites import DIFFICULTY_DEALS, SUITES, deal_set, part_numbers
from solver import solve


def test_the_part_times_each_deal_and_counts_its_levels():
    numbers = [100, 55, 101, 102, 103]
    said = []
    rows, fig = difficulty_part(numbers, said.append)
    assert [r.number for r in rows] == numbers
    assert [r.verdict for r in rows] == [solve(n).verdict for n in numbers]
    assert all(r.whole > 0 and r.solve > 0 for r in rows)
    levels = [e.level for e in estimate_numbers(numbers, [r.verdict for r in rows])]
    assert fig["difficulty"]["levels"] == {k: levels.count(k) for k in sorted(set(levels))}
    q = fig["difficulty"]["ms_a_deal"]
    assert 0 < q["p50"] <= q["p90"] <= q["p99"] <= q["max"]
    assert fig["deals"] == 5 and fig["counts"]["loss"] == 1
    line = difficulty_line(fig)
    assert line.startswith("difficulty: 5 deals") and "cannot be won 1" in line


def test_the_suite_takes_the_first_deals_of_the_quick_set():
    spec = SUITES["difficulty"]
    assert [p.engine for p in spec.parts] == ["difficulty"]
    numbers = part_numbers("difficulty", "difficulty")
    assert numbers == [r.number for r in deal_set("quick")][:DIFFICULTY_DEALS]
    assert len(numbers) == DIFFICULTY_DEALS
