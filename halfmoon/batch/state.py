"""Where a run stands, as a reader sees it: how many deals its manifest plans, whether it has
finished, and whether a batch process is writing it now.

A running batch holds an exclusive ``flock`` on the directory's lock file
(:mod:`.directory`) and writes its process id into it.  The kernel drops the lock when the
process ends, however it ends, so a crashed or killed run is never taken for a live one: a
reader asks for a shared lock without waiting, and only a refusal means a writer is there.
An object store has no lock: a run there is read as its manifest says.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

from .results import MANIFEST_NAME, ResultsError, manifest_from_text
from .sources import describe_source
from .store import location

LOCK_NAME = ".lock"  # the same file as directory.LOCK_NAME


@dataclass(frozen=True)
class RunState:
    """A results directory's plan and state (``planned`` is None without a manifest)."""

    planned: Optional[int]
    status: Optional[str]  # the manifest's: "running" until the last chunk, then "complete"
    writer: Optional[int]  # the process id of a batch writing it now (0: one, id unknown)
    manifest: Optional[dict]

    @property
    def live(self) -> bool:
        return self.writer is not None

    @property
    def finished(self) -> bool:
        return self.status == "complete" and not self.live

    def source(self) -> str:
        """How the run named its deals, as the batch command's option (``--range 0:2000``)."""
        return describe_source((self.manifest or {}).get("source", {}))

    def lines(self, done: int) -> list[str]:
        """What a reader of ``done`` deals of the run must be told, one sentence a line:
        nothing for a finished run."""
        out = []
        if self.live:
            who = f" (process {self.writer})" if self.writer else ""
            out.append(f"a batch{who} is writing this run now: these statistics are provisional")
        if self.planned is not None and (done < self.planned or self.status != "complete"):
            if self.live:
                out.append(f"{done:,} of {self.planned:,} planned deals so far")
            else:
                out.append(f"{done:,} of {self.planned:,} planned deals — the run is not finished"
                           " (rerun the batch to go on)")
        return out


def run_state(path: Union[str, Path]) -> RunState:
    """The state of the results directory at ``path`` (local or an fsspec URL)."""
    where = location(path)
    manifest = None
    try:
        text = where.read_text(MANIFEST_NAME)
        if text is not None:
            manifest = manifest_from_text(text, where.label(MANIFEST_NAME))
    except (ResultsError, OSError):
        manifest = None
    planned = None
    if manifest is not None:
        count = manifest.get("deals", {}).get("count")
        planned = int(count) if count is not None else None
    writer = _writer(where.absolute / LOCK_NAME) if where.is_local else None
    return RunState(planned, None if manifest is None else manifest.get("status"), writer,
                    manifest)


def _writer(lock: Path) -> Optional[int]:
    """The id of the process holding ``lock`` (0 if it wrote none), None if none holds it."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock to ask
        return None
    try:
        f = open(lock, "r")
    except OSError:
        return None
    with f:
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            try:
                return int(json.loads(f.read() or "{}").get("pid", 0))
            except (ValueError, AttributeError):
                return 0
        fcntl.flock(f.fileno(), fcntl.LOCK_UN)
        return None


def lock_text() -> str:
    """What a batch writes into the lock it holds: its process id."""
    return json.dumps({"pid": os.getpid()}) + "\n"
