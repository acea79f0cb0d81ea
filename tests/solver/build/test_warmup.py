"""Compiling once per installation: processes sharing a numba cache split the kernel groups
by lock files, the others load; stamps follow the sources; the message on a cold cache.

Each case runs fresh processes on an empty ``NUMBA_CACHE_DIR`` and the small "generator"
group (the deal generator's twin, a couple of seconds to compile), so nothing here costs the
solver's full compilation."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from process_groups import ctrl_c_as_on_a_terminal, members, wait_for_no_live_members

from solver.build import warmup

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = """
import json, sys
from solver.build.warmup import compile_seconds, prepare
done = prepare(sys.argv[1:], out=sys.stderr)
print(json.dumps({"done": done, "compile_seconds": compile_seconds()}))
"""


def _start(cache: Path, *groups: str) -> subprocess.Popen:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    return subprocess.Popen([sys.executable, "-c", SCRIPT, *groups], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _report(p: subprocess.Popen) -> tuple[dict, str]:
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0, err
    return json.loads(out.strip().splitlines()[-1]), err


def test_two_processes_on_one_cold_cache_compile_a_group_once(tmp_path):
    procs = [_start(tmp_path, "generator") for _ in range(2)]
    reports = [_report(p) for p in procs]
    states = sorted(r["done"]["generator"] for r, _ in reports)
    assert states == ["compiled", "loaded"]
    compiled = next(r for r, _ in reports if r["done"]["generator"] == "compiled")
    loaded = next(r for r, _ in reports if r["done"]["generator"] == "loaded")
    assert compiled["compile_seconds"] > 0
    assert loaded["compile_seconds"] == 0.0  # loaded from the other's cache, nothing compiled
    # the one that compiled said so, once, with what and that it happens once
    err = next(e for r, e in reports if r["done"]["generator"] == "compiled")
    assert "compiling the deal generator (first run only" in err
    # a third process later loads without a word
    third, err3 = _report(_start(tmp_path, "generator"))
    assert third == {"done": {"generator": "loaded"}, "compile_seconds": 0.0} and err3 == ""


def test_a_stamp_of_other_sources_is_not_ready(tmp_path, monkeypatch):
    monkeypatch.setattr(warmup, "numba_cache_dir", lambda package: tmp_path)
    assert not warmup.is_ready("generator")
    (tmp_path / "halfmoon-generator-0000000000000000.ready").write_text("old\n")
    assert not warmup.is_ready("generator")
    warmup._stamp(tmp_path, "generator").write_text("now\n")
    assert warmup.is_ready("generator")


def test_compiling_in_parallel_leaves_ready_groups_that_load(tmp_path):
    env_cache = tmp_path / "cache"
    script = ("import sys; from solver.build.warmup import compile_in_parallel, is_ready;"
              " s = compile_in_parallel(['generator'], processes=2);"
              " print(s > 0, is_ready('generator'), compile_in_parallel(['generator']))")
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True,
                         env=dict(os.environ, NUMBA_CACHE_DIR=str(env_cache)), timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["True", "True", "0.0"]
    # the line said when it starts, and one more when it is done (a log has no counter)
    said = [line for line in out.stderr.splitlines() if "compiling the solver's kernels" in line]
    assert said[0] == "halfmoon: compiling the solver's kernels in 1 process (first run only)..."
    assert re.fullmatch(re.escape(said[0]) + r" done in \d+ s", said[1]), said
    loaded, _ = _report(_start(env_cache, "generator"))
    assert loaded == {"done": {"generator": "loaded"}, "compile_seconds": 0.0}


def test_an_interrupted_compile_in_parallel_leaves_no_helper(tmp_path):
    """Ctrl-C to the process waiting for its helpers alone (they may ignore it, as the
    board's solver process has them do): the helpers are stopped with it."""
    script = ("from solver.build.warmup import compile_in_parallel;"
              " compile_in_parallel(['search', 'grouping'], processes=2)")
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path)),
                            start_new_session=True, preexec_fn=ctrl_c_as_on_a_terminal)
    try:
        assert "compiling the solver's kernels in 2 processes" in proc.stderr.readline()
        deadline = time.monotonic() + 30
        while len(members(proc.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        helpers = len(members(proc.pid)) - 1
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        left = wait_for_no_live_members(proc.pid, 5)
    assert helpers == 2 and "KeyboardInterrupt" in err
    assert left == []


def test_an_unknown_group_is_named():
    with pytest.raises(ValueError, match="no kernel group 'nope'"):
        warmup.prepare(["nope"], out=io.StringIO())


def test_solving_with_the_default_rules_never_calls_the_plain_search():
    """What solving warms up (:data:`warmup.SOLVER`) leaves the plain search's own compiled
    copy out: no member of the default portfolio searches with the free-card rule alone."""
    from solver.depth_first.dfs import dfs, search_kernel
    from solver.depth_first.pruning import ALL_RULES
    from solver.portfolio.search import QUICK_PHASE, _portfolio

    assert all(search_kernel(m.flags) is dfs for m in _portfolio(ALL_RULES, QUICK_PHASE))
    assert set(warmup.SOLVER) == {"search", "grouping"}


def test_the_message_gives_the_time_measured_here_or_no_figure(tmp_path):
    """A cold cache's message names no figure until this machine has measured one; the
    next time the group compiles (new sources), it gives the time taken the last time."""
    first, err = _report(_start(tmp_path, "generator"))
    assert first["done"]["generator"] == "compiled"
    assert "halfmoon: compiling the deal generator (first run only)..." in err.splitlines()
    (timing,) = tmp_path.rglob("halfmoon-generator.seconds")
    measured = float(timing.read_text())
    assert 0 < measured <= first["compile_seconds"] + 5
    for stamp in tmp_path.rglob("halfmoon-generator-*.ready"):  # as if the sources changed
        stamp.unlink()
    _, err = _report(_start(tmp_path, "generator"))
    assert (f"halfmoon: compiling the deal generator (first run only; {measured:.0f} s the last"
            " time here)...") in err.splitlines()
