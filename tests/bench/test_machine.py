"""The machine a benchmark ran on, and when it was too busy for its figures."""

from __future__ import annotations

import subprocess
import sys
import time

from test_layers import ROOT

from halfmoon.bench.machine import Watch, cpu_model, describe, revision


def test_describe_names_the_machine_and_the_software():
    d = describe(ROOT)
    assert d["cores"] >= 1 and 1 <= d["usable_cores"] <= d["cores"]
    assert d["cpu"] == cpu_model() and d["cpu"]
    import solver

    assert d["solver_version"] == str(solver.SOLVER_VERSION)
    assert d["numba"] and d["python"].count(".") == 2
    assert d["commit"] is None or len(d["commit"]) == 40


def test_revision_outside_a_repository_is_unknown(tmp_path):
    assert revision(tmp_path) == {"commit": None, "dirty": None}


def test_a_quiet_watch_gives_no_reason_whatever_the_lagging_load():
    w = Watch(workers=1)
    w.timings = [("before", 100.0), ("after", 110.0)]
    w.others, w.others_before, w.load_before = 0.0, 1.1, 5.0
    assert w.reasons(cores=2) == []
    assert w.as_dict(2)["busy"] is False


def test_other_work_a_high_load_or_a_changed_speed_each_mark_it_busy():
    w = Watch(workers=2)
    w.timings = [("before", 100.0), ("random", 180.0)]
    w.others, w.others_before, w.load_before = 1.2, 0.9, 3.5
    reasons = w.reasons(cores=2)
    assert len(reasons) == 3
    assert "other processes used 1.2 cores" in reasons[0]
    assert "used 0.9 cores in the second before" in reasons[1]
    assert "1.80x apart" in reasons[2]
    assert w.as_dict(2)["busy"] is True


def test_a_watch_counts_a_second_job_running_beside_it_as_other_work():
    w = Watch(workers=1).start()
    spin = subprocess.Popen([sys.executable, "-c",
                             "import time\nt=time.time()\nwhile time.time()-t<5: pass"])
    try:
        time.sleep(1.5)
        w.stop()  # the spinner still runs: not this process's
    finally:
        spin.kill()
        spin.wait()
    assert w.others is not None and w.others > 0.5
    assert [label for label, _ in w.timings] == ["before", "after"]
    assert any("other processes" in r for r in w.reasons(cores=1))
