"""The fork server of a local run loads the solver once, before it forks the workers."""

from __future__ import annotations

import subprocess
import sys

import pytest

from halfmoon.batch import backends, preload

# In a fresh process (this one's fork server may have been started by another test): the
# cache made ready, then a pool of two workers asked whether the solver is loaded in them
# before they were given any deal.
PROBE = """
from solver import warm_up
warm_up(out=None)
from halfmoon.batch.backends import Pool
pool = Pool(2)
ask = "__import__('halfmoon.batch.backends').batch.backends._warm"
print(sorted({pool.submit(eval, ask).result() for _ in range(4)}))
pool.close(cancel=False)
"""


def test_workers_forked_from_the_server_start_with_the_solver_loaded():
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["[True]"]


def test_nothing_is_loaded_or_compiled_while_the_cache_is_not_ready(monkeypatch):
    import solver

    monkeypatch.setattr(solver, "is_ready", lambda group: False)
    monkeypatch.setattr(backends, "warm_up", _must_not_run)
    assert preload._load() is False


def test_loading_never_fails_the_server(monkeypatch):
    import solver

    def broken(group):
        raise OSError("no cache directory")

    monkeypatch.setattr(solver, "is_ready", broken)
    assert preload._load() is False


def test_it_loads_when_the_cache_is_ready(monkeypatch):
    import solver

    called = []
    monkeypatch.setattr(solver, "is_ready", lambda group: True)
    monkeypatch.setattr(backends, "warm_up", lambda: called.append(True))
    assert preload._load() is True and called == [True]


def _must_not_run():
    pytest.fail("the solver was loaded on a cache that is not ready")
