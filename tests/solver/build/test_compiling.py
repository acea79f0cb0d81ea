"""numba compiling the solver more cheaply: the inliner's copy sharing one memo, calls between
the solver's kernels with plain argument types; the code made is the same.  And a tuple
returned to Python that cannot be made (a Ctrl-C raised while it is boxed) raises instead of
crashing.

The cases that compile run a fresh process on an empty ``NUMBA_CACHE_DIR`` and small kernels
(a second or two each)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from numba.core import compiler, ir

from solver.build import compiling

ROOT = Path(__file__).resolve().parents[3]

# all_moves inlines the position helpers (inline="always"); luby is called with a literal
SCRIPT = """
import hashlib, json
import numpy as np
from numba import njit
import solver
from solver.build.compiling import install
from solver.grouping.state import luby
from solver.mirror.convert import sample_arrays
from solver.mirror.position import MAX_MOVES, all_moves, initial_position

@njit
def first_lubys():
    return luby(1) + luby(2) + luby(3)

piles, reserve = sample_arrays()
n = all_moves(piles, reserve, initial_position(piles, reserve), np.empty(MAX_MOVES, np.uint64))
ir = "".join(all_moves.inspect_llvm().values())
print(json.dumps({"installed": install(), "moves": int(n), "lubys": int(first_lubys()),
                  "luby": [str(s) for s in luby.signatures],
                  "ir": hashlib.sha256(ir.encode()).hexdigest()}))
"""


def _run(tmp_path: Path, as_is: bool) -> dict:
    cache = tmp_path / ("as-is" if as_is else "changed")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), HALFMOON_NUMBA_AS_IS="1" if as_is else "")
    out = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_install_is_in_place_once_the_solver_is_imported():
    import solver  # noqa: F401

    assert compiling.install() == {"inliner": True, "plain arguments": True,
                                   "boxing checked": True}
    assert compiling.install() == compiling.install()  # once a process


def test_the_changes_make_the_same_code_with_one_compilation_a_helper(tmp_path):
    changed, as_is = _run(tmp_path, as_is=False), _run(tmp_path, as_is=True)
    assert changed["installed"] == {"inliner": True, "plain arguments": True,
                                    "boxing checked": True}
    assert as_is["installed"] == {"inliner": False, "plain arguments": False,
                                  "boxing checked": False}
    assert changed["moves"] == as_is["moves"] > 0 and changed["lubys"] == as_is["lubys"] == 4
    assert changed["ir"] == as_is["ir"]  # the inlined kernel's LLVM code, the same
    # three literal calls: three compilations of luby as numba has it, one here
    assert changed["luby"] == ["(int64,)"]
    assert len(as_is["luby"]) == 3 and all("Literal" in s for s in as_is["luby"])


def _inlined(x):
    a = x + 1
    if a > 2:
        b = a * 2
    else:
        b = a - 2
    return b


def test_one_copy_shares_one_scope_as_the_original_does():
    func_ir = compiler.run_frontend(_inlined)
    blocks = list(func_ir.blocks.values())
    assert len(blocks) > 1 and all(b.scope is blocks[0].scope for b in blocks)
    shim = compiling._SharedMemoCopy(ir.Block)
    copies = [shim.deepcopy(b) for b in blocks]
    scope = copies[0].scope
    assert all(c.scope is scope for c in copies) and scope is not blocks[0].scope
    assert scope == blocks[0].scope  # the same variables
    assert [[str(s) for s in c.body] for c in copies] == [[str(s) for s in b.body] for b in blocks]
    shim.memos.clear()
    again = shim.deepcopy(blocks[0])  # a new copy after the memo is cleared
    assert again is not copies[0] and again.scope is not scope


def _kernel_of(module: str, func):
    from numba import njit

    func.__module__ = module
    return njit(func)


def test_a_kernel_that_needs_the_constant_still_gets_it_and_others_keep_numbas_rule():
    from numba import njit

    import solver  # noqa: F401  (installs the changes)

    def pick(t, i):  # a tuple of two types indexed by i: typed only for a constant i
        return t[i]

    def twice(x, k):
        return x * k

    def thrice(x, k):
        return x * k + x

    pick = _kernel_of("solver._case", pick)
    twice_here = _kernel_of("solver._case", twice)
    twice_there = _kernel_of("elsewhere", thrice)

    @njit
    def caller():
        return pick((1, 2.5), 1) + twice_here(1, 3) + twice_there(1, 3)

    assert caller() == 9.5
    assert [str(s) for s in twice_here.signatures] == ["(int64, int64)"]
    assert [str(s) for s in twice_there.signatures] == ["(Literal[int](1), Literal[int](3))"]
    assert "Literal[int](1)" in str(pick.signatures)


# A kernel that gets SIGINT while it runs (raise(), from compiled code) and returns named
# tuples of arrays, as the grouping search returns its model: Python's handler runs at the
# first Python code after, which is inside the boxing of the result (numba unpickles each
# class there); numba's own boxing then calls a NULL class and the process dies of SIGSEGV.
INTERRUPTED = """
import ctypes, signal, sys
from typing import NamedTuple
import numpy as np
from numba import njit
if sys.argv[1] == "solver":
    import solver  # noqa: F401  (installs the changes)

class Inner(NamedTuple):
    a: np.ndarray
    n: int

class Outer(NamedTuple):
    inner: Inner
    b: np.ndarray

interrupt = ctypes.CDLL(None)["raise"]
interrupt.argtypes = [ctypes.c_int]
interrupt.restype = ctypes.c_int

@njit
def kernel(given, stop):
    if stop:
        interrupt(signal.SIGINT)
    n = given.size
    return n, Outer(Inner(np.arange(n), n), np.ones(n))

@njit
def given_back(given, stop):  # the arrays it was given: numba's boxing returns them as they
    if stop:                  # were, the exception set
        interrupt(signal.SIGINT)
    return given, Outer(Inner(given, 1), given)

print(kernel(np.zeros(3), False)[1].inner.n, given_back(np.zeros(2), False)[0].size, flush=True)
for f in (kernel, kernel, given_back, given_back):
    try:
        f(np.zeros(3), True)
        print("returned", flush=True)
    except KeyboardInterrupt:
        print("KeyboardInterrupt", flush=True)
print(kernel(np.zeros(4), False)[1].inner.n, flush=True)
"""


def test_a_ctrl_c_while_a_kernel_runs_is_a_keyboard_interrupt_not_a_crash(tmp_path):
    if not hasattr(signal, "SIGINT") or sys.platform == "win32":
        pytest.skip("raise() from the C library")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", INTERRUPTED, "solver"], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["3", "2"] + ["KeyboardInterrupt"] * 4 + ["4"]
