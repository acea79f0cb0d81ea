"""Ctrl-C in a command: KeyboardInterrupt as usual, but never in the middle of an import
(nor of a ``__del__`` or a callback from LLVM, where it would be dropped).

Raised amid an import, KeyboardInterrupt does harm beyond the import: a compiled module's
loader may turn it into an ImportError (a wrong message and exit status, or a Ctrl-C lost
where the import was optional); and raised inside the ``exec`` with which dataclasses and
named tuples make their methods, CPython counts it as never caught, so that ``python -m``
kills itself with SIGINT at exit, after the command said "interrupted" and chose exit
status 130.  A command loads its heavy modules lazily (a batch run: numpy, pyarrow, the
solver, for a second or more): a Ctrl-C amid them waits here until the import is done.
"""

from __future__ import annotations

import _thread
import signal
import sys
import threading
import time

_IMPORT_SYSTEM = ("importlib._bootstrap", "importlib._bootstrap_external")


def importing(frame) -> bool:
    """Whether ``frame`` runs inside an import (some frame under it is the import system's)."""
    while frame is not None:
        if frame.f_globals.get("__name__") in _IMPORT_SYSTEM:
            return True
        frame = frame.f_back
    return False


def finalizing(frame) -> bool:
    """Whether ``frame`` runs inside a ``__del__``: an exception raised there is printed as
    "Exception ignored" and dropped, so a Ctrl-C raised there would be lost (the command
    going on to its end, exit 0; seen while llvmlite frees the objects of the kernels it
    loads)."""
    while frame is not None:
        if frame.f_code.co_name == "__del__":
            return True
        frame = frame.f_back
    return False


def in_llvm(frame) -> bool:
    """Whether ``frame`` runs inside llvmlite (numba compiling a kernel, or loading one from
    the cache): LLVM calls back into Python there (the object cache's notice), and an
    exception raised in such a callback is printed as "Exception ignored" and dropped, LLVM
    going on with a state it did not expect ("no compiled object yet")."""
    while frame is not None:
        if str(frame.f_globals.get("__name__", "")).startswith("llvmlite."):
            return True
        frame = frame.f_back
    return False


def _hold_here(frame) -> bool:
    return importing(frame) or finalizing(frame) or in_llvm(frame)


class CtrlC:
    """The SIGINT handler of a command, in the main thread within ``with``: KeyboardInterrupt,
    or amid an import (or a ``__del__``, or llvmlite's code), a Ctrl-C held (``held``) and
    raised once the import is done.

    A thread watches the main thread while one is held and, once it has left the import,
    sends it SIGINT again (a real signal: it also ends a wait that has begun meanwhile).
    On entering, SIGINT is unblocked: ``python -m halfmoon`` blocks it while the command
    line loads, and a Ctrl-C meanwhile comes then."""

    poll = 0.01  # seconds between the watcher's looks at the main thread

    def __init__(self) -> None:
        self.held = False
        self._resent = False  # a SIGINT sent by the watcher, not handled yet
        self._open = False
        self._lock = threading.Lock()
        self._before = None
        self._main = threading.main_thread().ident

    def __enter__(self) -> "CtrlC":
        if threading.current_thread() is threading.main_thread():
            self._before = signal.signal(signal.SIGINT, self)
            self._open = True
            if hasattr(signal, "pthread_sigmask"):
                try:
                    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
                except KeyboardInterrupt:  # a Ctrl-C that waited: no block to leave by
                    self._open = False
                    signal.signal(signal.SIGINT, self._before)
                    raise
        return self

    def __call__(self, signum, frame) -> None:
        self._resent = False
        if self._open and _hold_here(frame):
            self.held = True
            threading.Thread(target=self._resend_after_import, daemon=True).start()
            return
        self.held = False
        raise KeyboardInterrupt

    def _resend_after_import(self) -> None:
        while True:
            time.sleep(self.poll)
            frame = sys._current_frames().get(self._main)
            if frame is None or not _hold_here(frame):
                break
        with self._lock:
            if self._open and self.held and not self._resent:
                # the command may have set a handler of its own meanwhile (the board's, while
                # it serves): the Ctrl-C is that one's, and nothing more is waited for here
                self._resent = signal.getsignal(signal.SIGINT) is self
                self.held = self._resent
                if hasattr(signal, "pthread_kill"):
                    signal.pthread_kill(self._main, signal.SIGINT)
                else:  # pragma: no cover - Windows: a wait under way is not ended
                    _thread.interrupt_main(signal.SIGINT)

    def __exit__(self, kind, value, traceback) -> None:
        if not self._open:
            return
        with self._lock:
            self._open = False  # the watcher sends nothing from now on
        deadline = time.monotonic() + 1.0
        try:  # one sent already: handled here, by this handler (a moment at most)
            while self._resent and time.monotonic() < deadline \
                    and signal.getsignal(signal.SIGINT) is self:
                time.sleep(self.poll)
        except KeyboardInterrupt:
            self.held = True
        signal.signal(signal.SIGINT, self._before)
        if self.held and kind is None:  # came amid the command's last import
            self.held = False
            raise KeyboardInterrupt
