"""Ctrl-C in a command (halfmoon/cli/ctrl_c.py): KeyboardInterrupt, but not amid an import.

The modules imported here send SIGINT to the main thread from inside their own import, so
that the Ctrl-C comes at a known moment."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from cli_helpers import ROOT
from process_groups import ctrl_c_as_on_a_terminal

from halfmoon.cli.ctrl_c import CtrlC, importing

# sends SIGINT to the main thread, then goes on with its import for a while
SIGNALLING = """
import signal, threading, time
signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
time.sleep({seconds})
done = True
"""


@pytest.fixture
def modules(tmp_path, monkeypatch):
    """Write a module into a folder on the path: ``modules(name, source)``, its name."""
    monkeypatch.syspath_prepend(str(tmp_path))
    written = []

    def write(name: str, source: str) -> str:
        (tmp_path / f"{name}.py").write_text(source)
        written.append(name)
        return name

    yield write
    for name in written:
        sys.modules.pop(name, None)


def test_importing_is_true_within_an_import_only(modules):
    name = modules("ctrl_c_probe", "import sys\nfrom halfmoon.cli.ctrl_c import importing\n"
                                   "inside = importing(sys._getframe())\n")
    assert __import__(name).inside is True
    assert importing(sys._getframe()) is False


def test_a_ctrl_c_amid_an_import_comes_once_the_import_is_done(modules):
    name = modules("ctrl_c_slow_import", SIGNALLING.format(seconds=0.3))
    before = signal.getsignal(signal.SIGINT)
    module = None
    with pytest.raises(KeyboardInterrupt):
        with CtrlC() as ctrl_c:
            module = __import__(name)
            started = time.monotonic()
            time.sleep(10)  # the Ctrl-C ends this wait: a real signal, sent again
    assert module is not None and module.done  # the import went to its end
    assert time.monotonic() - started < 5
    assert not ctrl_c.held
    assert signal.getsignal(signal.SIGINT) is before
    time.sleep(0.1)  # and nothing more comes


def test_a_ctrl_c_amid_the_last_import_is_raised_on_leaving(modules):
    name = modules("ctrl_c_last_import", SIGNALLING.format(seconds=0))
    before = signal.getsignal(signal.SIGINT)
    for _ in range(20):  # left at once, or once the watcher has sent it again
        sys.modules.pop(name, None)
        with pytest.raises(KeyboardInterrupt):
            with CtrlC():
                __import__(name)
        assert signal.getsignal(signal.SIGINT) is before
    time.sleep(0.1)


class _Freed:
    """An object whose ``__del__`` gets a Ctrl-C, as llvmlite's objects do when a
    kernel's code is freed: raised there, Python would print "Exception ignored" and drop
    it."""

    def __del__(self):
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        time.sleep(0.2)
        _Freed.finished = True


def test_a_ctrl_c_amid_a_del_is_not_dropped_but_comes_after(capsys):
    _Freed.finished = False
    with pytest.raises(KeyboardInterrupt):
        with CtrlC():
            _Freed()  # freed at once
            time.sleep(10)  # the Ctrl-C ends this wait
    assert _Freed.finished and "Exception ignored" not in capsys.readouterr().err


def test_a_ctrl_c_held_goes_to_the_handler_the_command_set_meanwhile(modules):
    """As the board does: an import (held Ctrl-C), then a handler of its own while it serves.
    The Ctrl-C is that handler's, once; leaving does not wait for it nor raise it again."""
    name = modules("ctrl_c_then_own_handler", SIGNALLING.format(seconds=0.2))
    got = []
    started = time.monotonic()
    with CtrlC():
        __import__(name)
        before = signal.signal(signal.SIGINT, lambda signum, frame: got.append(signum))
        try:
            deadline = time.monotonic() + 5
            while not got and time.monotonic() < deadline:
                time.sleep(0.01)
        finally:
            signal.signal(signal.SIGINT, before)
    assert got == [signal.SIGINT]
    assert time.monotonic() - started < 3


# code of llvmlite's (by its module's name), as LLVM calls back into it while numba compiles
LLVM_CALLBACK = """
import signal, threading, time
def notify(seconds):
    signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
    time.sleep(seconds)
    return "done"
"""


def test_a_ctrl_c_amid_llvmlite_s_code_comes_after_it():
    space = {"__name__": "llvmlite.binding.callbacks"}
    exec(compile(LLVM_CALLBACK, "<llvmlite callback>", "exec"), space)
    said = []
    with pytest.raises(KeyboardInterrupt):
        with CtrlC():
            said.append(space["notify"](0.2))
            time.sleep(10)  # the Ctrl-C ends this wait
    assert said == ["done"]


def test_a_ctrl_c_elsewhere_is_a_keyboard_interrupt_at_once():
    with pytest.raises(KeyboardInterrupt):
        with CtrlC():
            signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
            time.sleep(10)
    with CtrlC():  # none comes: none is held
        time.sleep(0.05)


def test_a_ctrl_c_blocked_before_comes_on_entering():
    before = signal.getsignal(signal.SIGINT)
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        with pytest.raises(KeyboardInterrupt):
            with CtrlC():
                pytest.fail("the block ran")
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    assert signal.getsignal(signal.SIGINT) is before


# the command: a module loaded lazily whose import is interrupted inside an exec, as a
# dataclass's methods are made; "interrupted", exit status 130
COMMAND = """
import sys
from contextlib import nullcontext
from halfmoon.cli.ctrl_c import CtrlC

def main():
    try:
        with (CtrlC() if sys.argv[1] == "held" else nullcontext()):
            import victim
            import time; time.sleep(10)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    return 0

sys.exit(main())
"""
VICTIM = """
import os, signal
exec("os.kill(os.getpid(), signal.SIGINT); x = 1")
done = True
"""


@pytest.mark.parametrize("how, status", [("held", 130), ("raised", -signal.SIGINT)])
def test_python_dash_m_exits_130_only_with_a_ctrl_c_held_out_of_imports(tmp_path: Path, how,
                                                                       status):
    """Raised inside an exec, even caught, a KeyboardInterrupt makes ``python -m`` kill itself
    with SIGINT at exit (CPython takes it for one never caught): the command's exit status
    130 is lost.  Held until the import is done, it is not."""
    (tmp_path / "command.py").write_text(COMMAND)
    (tmp_path / "victim.py").write_text(VICTIM)
    result = subprocess.run([sys.executable, "-m", "command", how], cwd=tmp_path,
                            capture_output=True, text=True, timeout=60,
                            env=dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}"),
                            preexec_fn=ctrl_c_as_on_a_terminal)  # the suite run in background
    assert result.stderr == "interrupted\n"
    assert result.returncode == status
