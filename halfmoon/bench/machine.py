"""The machine a benchmark ran on, and whether it was quiet enough for its figures to mean
anything: what it is (processor, cores, Python, numba, the commit), how loaded it was before
and after, how much of it other processes used meanwhile, and how fast the reference
workload (:class:`solver.Reference`) ran between the parts.

A figure measured while other work shares the cores is slower by an amount nobody knows;
so a run says in one line when the machine was busy and marks its result: more other work
than the cores the benchmark left free, during the run or in the second before it, or the
reference workload's timings spread by more than :data:`SPREAD` (the machine changed speed).
The load average is reported beside them but decides nothing: it is a minute's decaying
average, still high a minute after the work that raised it has ended.
"""

from __future__ import annotations

import os
import platform
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from halfmoon.batch.estimate import solver_digest

SPREAD = 1.25  # the reference workload's slowest over fastest timing that still counts as steady
SLACK = 0.25  # cores of other work tolerated beyond those the benchmark leaves free


def cpu_model() -> str:
    """The processor's name, as the system gives it ("" when it does not)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _busy_seconds() -> Optional[float]:
    """Seconds of CPU the whole machine has spent busy since it started (None off Linux)."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except (OSError, IndexError):
        return None
    ticks = [int(x) for x in fields[:8]]
    idle = ticks[3] + ticks[4]  # idle, iowait
    return (sum(ticks) - idle) / os.sysconf("SC_CLK_TCK")


def _own_seconds() -> float:
    """CPU seconds of this process and of its children that have ended."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _others_over(seconds: float) -> Optional[float]:
    """Cores other processes used, on average, over the next ``seconds`` (None off Linux)."""
    busy0, own0 = _busy_seconds(), _own_seconds()
    t0 = time.perf_counter()
    time.sleep(seconds)
    busy1, own1 = _busy_seconds(), _own_seconds()
    if busy0 is None or busy1 is None:
        return None
    return round(max(0.0, (busy1 - busy0 - (own1 - own0)) / (time.perf_counter() - t0)), 2)


def load() -> Optional[float]:
    try:
        return round(os.getloadavg()[0], 2)
    except (OSError, AttributeError):
        return None


def revision(root: Path) -> dict:
    """The commit of the checkout at ``root`` and whether its tracked files differ from it."""
    from halfmoon.research.provenance import checkout

    commit, dirty = checkout(root)
    return {"commit": commit, "dirty": dirty}


def describe(root: Path) -> dict:
    """What the machine and the software are: the facts a figure is read with."""
    import numba
    import numpy

    import halfmoon
    import solver

    cores = os.cpu_count() or 1
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = cores
    return {"cpu": cpu_model(), "cores": cores, "usable_cores": usable,
            "system": f"{platform.system()} {platform.release()}",
            "python": platform.python_version(), "numba": numba.__version__,
            "numpy": numpy.__version__, "halfmoon": halfmoon.__version__,
            "solver_version": str(solver.SOLVER_VERSION), "solver_digest": solver_digest(),
            **revision(root)}


@dataclass
class Watch:
    """The machine watched over a run: load, other processes' CPU, the reference timings."""

    workers: int  # the most cores the benchmark itself keeps busy
    reference: object = None  # a solver.Reference, made on start
    timings: list = field(default_factory=list)  # (label, ns a generation)
    load_before: Optional[float] = None
    load_after: Optional[float] = None
    others: Optional[float] = None  # other processes' cores, on average
    others_before: Optional[float] = None  # the same, in the second before the run
    wall: float = 0.0
    _t0: float = 0.0
    _busy0: Optional[float] = None
    _own0: float = 0.0

    def start(self) -> "Watch":
        from solver import Reference

        self.load_before = load()
        self.others_before = _others_over(1.0)
        self.reference = Reference()
        self.mark("before")
        self._t0, self._busy0, self._own0 = time.perf_counter(), _busy_seconds(), _own_seconds()
        return self

    def mark(self, label: str) -> float:
        ns = float(self.reference.time())
        self.timings.append((label, round(ns, 2)))
        return ns

    def stop(self) -> None:
        """Call once every worker process has ended (their CPU is counted when reaped)."""
        self.wall = time.perf_counter() - self._t0
        busy = _busy_seconds()
        if busy is not None and self._busy0 is not None and self.wall > 0:
            mine = _own_seconds() - self._own0
            self.others = round(max(0.0, (busy - self._busy0 - mine) / self.wall), 2)
        self.mark("after")
        self.load_after = load()

    def reasons(self, cores: int) -> list[str]:
        """Why the run's figures are not to be trusted ([] when the machine was quiet)."""
        out = []
        free = max(0, cores - self.workers)
        if self.others is not None and self.others > free + SLACK:
            out.append(f"other processes used {self.others:.1f} cores on average while the "
                       f"benchmark kept {self.workers} of {cores} busy")
        if self.others_before is not None and self.others_before > free + SLACK:
            out.append(f"other processes used {self.others_before:.1f} cores in the second "
                       f"before it started")
        ns = [t for _, t in self.timings]
        if len(ns) > 1 and max(ns) > SPREAD * min(ns):
            out.append(f"the reference workload ran at {min(ns):.0f} to {max(ns):.0f} ns "
                       f"({max(ns) / min(ns):.2f}x apart): the machine changed speed")
        return out

    def as_dict(self, cores: int) -> dict:
        reasons = self.reasons(cores)
        ns = [t for _, t in self.timings]
        return {"load_before": self.load_before, "load_after": self.load_after,
                "other_processes_cores": self.others,
                "other_processes_cores_before": self.others_before,
                "reference_ns": dict(self.timings),
                "reference_spread": round(max(ns) / min(ns), 3) if ns else None,
                "busy": bool(reasons), "busy_reasons": reasons}
