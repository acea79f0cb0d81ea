"""The worker's protocol, run in this process on text streams."""

from __future__ import annotations

import io
import json
import signal

import solver
from halfmoon.bench.worker import serve


def talk(*requests) -> list[dict]:
    inp = io.StringIO("".join(json.dumps(r) + "\n" for r in requests) + "\n")
    out = io.StringIO()
    before = signal.getsignal(signal.SIGINT)
    try:  # a worker process ignores Ctrl-C (its parent stops it): this test's process must not
        assert serve(inp, out) == 0
    finally:
        signal.signal(signal.SIGINT, before)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_it_says_ready_then_answers_each_block_with_its_rows():
    hello, solved, plain = talk({"engine": "solver", "numbers": [3, 1, 2], "budget": 0},
                                {"engine": "plain", "numbers": [5], "budget": 2_000_000})
    assert hello["ready"] and hello["solver_version"] == str(solver.SOLVER_VERSION)
    assert [r[0] for r in solved["rows"]] == [3, 1, 2] and solved["wall"] > 0
    for number, verdict, nodes, seconds, whole, by in solved["rows"]:
        ref = solver.solve(number)
        assert (verdict, nodes, by) == (ref.verdict, ref.nodes, ref.settled_by)
        assert 0 <= seconds <= whole
    (row,) = plain["rows"]
    assert row[1] == solver.solve(5).verdict and row[5] in ("plain", None)


def test_an_empty_line_ends_it():
    assert len(talk()) == 1
