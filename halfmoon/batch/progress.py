"""Progress of long runs: on a terminal a bar (deals per second, running win / loss /
unresolved counts); in a log (a file, a pipe: a scheduler's, ``nohup``'s) a plain line now and
then (:class:`LogLines`: done of planned, rate, time left).  While the solver's kernels
compile (a cold cache's first run) no time left is said: the rate counts the deals solved
after (:meth:`Progress.compiling`, :meth:`Progress.solving`).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from typing import Callable, Iterable, Mapping, Optional, TextIO

from .results import VERDICTS


class LogLines:
    """Progress for a log: a plain line when both ``every`` seconds and a ``share`` of the
    planned work have passed since the last line (whichever comes later), and one on
    :meth:`close` if more was done since.  A line: ``halfmoon batch: 1,200 of 10,000 deals
    (12 %), 35 deals/s, 34 s, about 4.2 min left``; ``initial`` counts work done before this
    run (resumed: not in the rate).  Between :meth:`compiling` and :meth:`solving` a line
    says it is compiling, with no rate and no time left; after, the rate and the time left
    count only the work done since."""

    def __init__(self, label: str, total: int, unit: str, *, initial: int = 0,
                 stream: Optional[TextIO] = None, every: float = 10.0, share: float = 0.05,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.label, self.total, self.unit = label, total, unit
        self.initial = self.done = self.last_done = initial
        self.stream = sys.stderr if stream is None else stream
        self.every, self.step, self.clock = every, share * total, clock
        self.start = self.last = self.rate_start = clock()
        self.rate_initial = initial  # the work the rate counts from (compiling: not in it)
        self.in_compile = False

    def compiling(self) -> None:
        self.in_compile = True

    def solving(self) -> None:
        """Compiling is over: the rate counts from now."""
        self.in_compile = False
        self.rate_start, self.rate_initial = self.clock(), self.done

    def update(self, k: int = 1) -> None:
        self.done += k
        now = self.clock()
        if now - self.last >= self.every and self.done - self.last_done >= self.step:
            self.line(now)

    def close(self) -> None:
        if self.done > self.last_done:
            self.line(self.clock())
            self.last_done = self.done

    def line(self, now: float) -> None:
        from .plan import duration

        spent = now - self.start
        solving = now - self.rate_start
        new = self.done - self.rate_initial
        rate = new / solving if solving > 0 and not self.in_compile else 0.0
        text = (f"halfmoon {self.label}: {self.done:,} of {self.total:,} {self.unit}"
                f" ({100 * self.done / max(1, self.total):.0f} %)")
        if rate > 0:
            text += f", {rate:.3g} {self.unit}/s"
        text += f", {duration(spent)}"
        if self.in_compile:
            text += ", compiling the solver's kernels"
        elif rate > 0 and self.done < self.total:
            text += f", about {duration((self.total - self.done) / rate)} left"
        print(text, file=self.stream, flush=True)
        self.last, self.last_done = now, self.done


def counter(label: str, total: int, unit: str, *, quiet: bool = False):
    """Progress of ``total`` pieces of work counted with ``update(k)`` and ``close()``: a tqdm
    bar on a terminal, :class:`LogLines` in a log, nothing with ``quiet``."""
    if quiet:
        return _Silent()
    if _isatty(sys.stderr):
        from tqdm import tqdm

        return tqdm(total=total, desc=label, unit=f" {unit}", file=sys.stderr, dynamic_ncols=True)
    return LogLines(label, total, unit)


class _Silent:
    def update(self, k: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


class Progress:
    """Counts of deals done by verdict, drawn with tqdm when ``enabled``, else written as
    a line now and then (:class:`LogLines`) when ``lines``.

    ``initial`` counts deals already done before this run (resumed), by verdict.
    ``enabled=None`` means: draw only if ``stream`` is a terminal (and write lines if not).
    """

    def __init__(
        self,
        total: int,
        initial: Optional[Counter] = None,
        *,
        enabled: Optional[bool] = None,
        stream: Optional[TextIO] = None,
        lines: Optional[bool] = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.counts: Counter = Counter({v: 0 for v in VERDICTS})
        self.counts.update(initial or {})
        tty = _isatty(self.stream)
        if enabled is None:
            enabled = tty
            lines = not tty if lines is None else lines
        self.enabled = enabled
        self._bar = None
        self._lines = None
        if lines and not enabled:
            self._lines = LogLines("batch", total, "deals", initial=sum(self.counts.values()),
                                   stream=self.stream, clock=clock)
        if enabled:
            from tqdm import tqdm

            self._bar = tqdm(
                total=total,
                initial=sum(self.counts.values()),
                unit=" deals",
                file=self.stream,
                dynamic_ncols=True,
                smoothing=0.05,
                bar_format=("{l_bar}{bar}| {n_fmt}/{total_fmt} "
                            "[{elapsed}<{remaining}, {rate_fmt}{postfix}]"),
                postfix=self.postfix(),
            )

    def postfix(self) -> str:
        return " ".join(f"{v} {self.counts[v]}" for v in VERDICTS)

    def compiling(self) -> None:
        """The solver's kernels are being compiled: said instead of a time left."""
        if self._bar is not None:
            self._bar.set_postfix_str("compiling the solver's kernels")
        if self._lines is not None:
            self._lines.compiling()

    def solving(self) -> None:
        """Compiling is over: the rate and the time left count the deals solved from now."""
        if self._bar is not None:
            self._bar.unpause()  # the compiling time left out of the rate
            self._bar.set_postfix_str(self.postfix())
        if self._lines is not None:
            self._lines.solving()

    def update(self, verdicts: Iterable[str]) -> None:
        """Record deals just finished, given their verdicts."""
        verdicts = list(verdicts)
        self.counts.update(verdicts)
        if self._bar is not None:
            self._bar.set_postfix_str(self.postfix(), refresh=False)
            self._bar.update(len(verdicts))
        if self._lines is not None:
            self._lines.update(len(verdicts))

    def add(self, counts: Mapping[str, int]) -> None:
        """Record deals just finished, given their counts by verdict (a chunk of a cluster's)."""
        self.counts.update(counts)
        if self._bar is not None:
            self._bar.set_postfix_str(self.postfix(), refresh=False)
            self._bar.update(sum(counts.values()))
        if self._lines is not None:
            self._lines.update(sum(counts.values()))

    def close(self, last_line: bool = True) -> None:
        """Stop drawing; in a log, a last line if more was done since the last one (not
        when ``last_line`` is false: a run cut short says itself how far it got)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        if self._lines is not None:
            if last_line:
                self._lines.close()
            self._lines = None

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, kind, value, tb) -> None:
        self.close(last_line=kind is None)


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
