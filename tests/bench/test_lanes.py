"""Worker processes pinned to cores, solving blocks of deals."""

from __future__ import annotations

import pytest

import solver
from halfmoon.bench.errors import BenchError
from halfmoon.bench.lanes import Lane, open_lanes, run_parallel, usable_cores


def test_lanes_solve_every_deal_once_in_order_with_the_solvers_verdicts():
    numbers = list(range(40, 0, -1))
    lanes = open_lanes(2)
    try:
        assert all(lane.solver_version == str(solver.SOLVER_VERSION) for lane in lanes)
        seen = []
        rows, wall = run_parallel(lanes, numbers, 7, on_block=seen.append, engine="solver",
                                  budget=solver.DEFAULT_BUDGET)
    finally:
        for lane in lanes:
            lane.close()
    assert [r.number for r in rows] == numbers and sum(seen) == 40 and wall > 0
    for r in rows[:5]:
        ref = solver.solve(r.number)
        assert (r.verdict, r.nodes, r.settled_by) == (ref.verdict, ref.nodes, ref.settled_by)
        assert 0 <= r.solve <= r.whole


def test_a_lane_is_pinned_to_its_core():
    import os

    core = usable_cores()[-1]
    with Lane(core) as lane:
        assert os.sched_getaffinity(lane.proc.pid) == {core}


def test_a_lane_whose_worker_dies_says_so_in_one_line():
    lane = Lane()
    lane.proc.kill()
    lane.proc.wait()
    with pytest.raises(BenchError, match="benchmark worker stopped"):
        lane.run([1, 2])
    lane.close()


def test_closing_at_once_stops_a_block_under_way():
    lane = Lane()
    lane.send(list(range(100_000)))
    lane.close(kill=True)
    assert lane.proc.poll() is not None
