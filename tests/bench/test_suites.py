"""The suites and the published deal sets."""

from __future__ import annotations

import pytest

import solver
from halfmoon.bench.errors import BenchError
from halfmoon.bench.suites import (
    SCALING_DEALS,
    STANDARD_DEALS,
    STANDARD_SEED,
    SUITES,
    deal_set,
    part_numbers,
    scaling_steps,
    set_names,
    set_version,
    suite_seed,
)
from halfmoon.game.codes import DEAL_COUNT, code_to_number, random_numbers


def test_the_sets_are_published_with_codes_that_name_their_numbers():
    assert set_names() == ["hard", "quick"]
    quick, hard = deal_set("quick"), deal_set("hard")
    assert len(quick) == 10_000 and len(hard) == 500
    for r in quick[:50] + hard[:50]:
        assert code_to_number(r.code) == r.number and 0 <= r.number < DEAL_COUNT
        assert r.verdict in ("win", "loss") and r.cpsat in ("confirmed", "timed out", "not run")
    assert len({r.number for r in hard}) == 500
    # the hard set: the most positions of their sample, slowest first
    assert [r.positions for r in hard] == sorted((r.positions for r in hard), reverse=True)


@pytest.mark.parametrize("name", ["quick", "hard"])
def test_a_sets_verdicts_are_the_solvers(name):
    rows = deal_set(name)
    picks = rows[:3] + rows[-2:]
    got = solver.solve_numbers([r.number for r in picks])
    assert [solver.VERDICT_NAMES[int(v)] for v in got.verdicts] == [r.verdict for r in picks]
    if set_version(name) == str(solver.SOLVER_VERSION):
        assert list(got.nodes) == [r.positions for r in picks]


def test_an_unknown_set_is_refused_in_one_line():
    with pytest.raises(BenchError, match="no deal set 'easy'"):
        deal_set("easy")


def test_each_suite_names_its_deals():
    assert part_numbers("random", "quick") == [r.number for r in deal_set("quick")]
    assert len(part_numbers("random", "standard")) == STANDARD_DEALS
    assert part_numbers("plain", "standard") == part_numbers("random", "standard")[:2000]
    assert {p.name for p in SUITES["tail"].parts} == {"hard"}


def test_a_seed_draws_other_deals_of_the_whole_code_space():
    default = part_numbers("random", "standard")
    assert default == random_numbers(STANDARD_DEALS, STANDARD_SEED)
    mine = part_numbers("random", "standard", 20261207)
    assert mine == random_numbers(STANDARD_DEALS, 20261207) and len(mine) == STANDARD_DEALS
    assert len(set(mine) & set(default)) < 10  # 100,000 of 8 billion: nearly none shared
    assert part_numbers("workers", "standard", 20261207) == mine[:SCALING_DEALS]
    assert part_numbers("hard", "standard", 20261207) == part_numbers("hard", "tail")
    assert suite_seed("standard", None) == STANDARD_SEED and suite_seed("standard", 0) == 0
    assert suite_seed("quick", None) is None
    for suite in ("quick", "tail", "difficulty"):
        with pytest.raises(BenchError, match=f"the {suite} suite solves a published set"):
            suite_seed(suite, 5)
    with pytest.raises(BenchError, match="--seed must be 0 or more, got -1"):
        suite_seed("standard", -1)


def test_scaling_steps_double_up_to_every_core():
    assert scaling_steps(1) == [1]
    assert scaling_steps(2) == [1, 2]
    assert scaling_steps(16) == [1, 2, 4, 8, 16]
    assert scaling_steps(12) == [1, 2, 4, 8, 12]
