"""The processes a command under test leaves: its process group, read from /proc."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def ctrl_c_as_on_a_terminal() -> None:
    """A shell runs background jobs with SIGINT ignored, and Python then keeps it
    ignored; the run under test gets Ctrl-C as it would on a terminal."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def members(pgid: int, session: bool = False) -> dict[int, int]:
    """Running (not zombie) processes of a process group (with ``session``, of the session
    it leads: its other groups' too): pid -> parent pid."""
    out = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3 if session else 2]) == pgid and fields[0] != "Z":
            out[int(stat.parent.name)] = int(fields[1])
    return out


def wait_for_no_live_members(pgid: int, seconds: float, session: bool = False) -> list[int]:
    """The members still running after up to ``seconds``, killed (so that none outlives
    a failed test)."""
    deadline = time.monotonic() + seconds
    while members(pgid, session) and time.monotonic() < deadline:
        time.sleep(0.1)
    live = sorted(members(pgid, session))
    for pid in live:
        os.kill(pid, signal.SIGKILL)
    return live
