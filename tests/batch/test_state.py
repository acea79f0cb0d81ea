"""Where a run stands for a reader: its plan, finished or not, and who is writing it."""

from __future__ import annotations

import fcntl
import json
import os

from halfmoon.batch.directory import Directory
from halfmoon.batch.state import RunState, run_state


def test_a_batch_writes_its_pid_in_the_lock_it_holds_and_the_lock_goes_with_it(tmp_path):
    d = Directory(tmp_path / "r", log=print)
    d.open()
    try:
        assert run_state(tmp_path / "r").writer == os.getpid()
        assert json.loads((tmp_path / "r" / ".lock").read_text()) == {"pid": os.getpid()}
    finally:
        d.close()
    # the file stays, with the pid of a run that is gone: not live
    assert (tmp_path / "r" / ".lock").exists() and run_state(tmp_path / "r").writer is None


def test_a_lock_held_without_a_pid_is_still_a_live_run(tmp_path):
    (tmp_path / ".lock").write_text("")
    with open(tmp_path / ".lock", "a+") as f:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert run_state(tmp_path).writer == 0
        assert run_state(tmp_path).lines(0)[0].startswith("a batch is writing this run now")


def test_no_manifest_no_plan(tmp_path):
    st = run_state(tmp_path)
    assert st.planned is None and st.manifest is None and not st.live
    assert st.lines(10) == []


def test_what_a_reader_is_told():
    done = RunState(20000, "complete", None, {})
    assert done.finished and done.lines(20000) == []
    cut = RunState(20000, "running", None, {})
    assert not cut.finished
    assert cut.lines(2500) == ["2,500 of 20,000 planned deals — the run is not finished (rerun "
                               "the batch to go on)"]
    live = RunState(20000, "running", 77, {})
    assert live.lines(2500) == ["a batch (process 77) is writing this run now: these statistics "
                                "are provisional", "2,500 of 20,000 planned deals so far"]

