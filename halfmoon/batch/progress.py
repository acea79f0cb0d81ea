"""A progress bar for batch runs: deals per second and running win / loss / unresolved counts.

It draws only on a terminal: when the stream is a file or a pipe it stays silent.
"""

from __future__ import annotations

import sys
from collections import Counter
from typing import Iterable, Mapping, Optional, TextIO

from .results import VERDICTS


class Progress:
    """Counts of deals done by verdict, drawn with tqdm when ``enabled``.

    ``initial`` counts deals already done before this run (resumed), by verdict.
    ``enabled=None`` means: draw only if ``stream`` is a terminal.
    """

    def __init__(
        self,
        total: int,
        initial: Optional[Counter] = None,
        *,
        enabled: Optional[bool] = None,
        stream: Optional[TextIO] = None,
    ) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.counts: Counter = Counter({v: 0 for v in VERDICTS})
        self.counts.update(initial or {})
        if enabled is None:
            enabled = _isatty(self.stream)
        self.enabled = enabled
        self._bar = None
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

    def update(self, verdicts: Iterable[str]) -> None:
        """Record deals just finished, given their verdicts."""
        verdicts = list(verdicts)
        self.counts.update(verdicts)
        if self._bar is not None:
            self._bar.set_postfix_str(self.postfix(), refresh=False)
            self._bar.update(len(verdicts))

    def add(self, counts: Mapping[str, int]) -> None:
        """Record deals just finished, given their counts by verdict (a chunk of a cluster's)."""
        self.counts.update(counts)
        if self._bar is not None:
            self._bar.set_postfix_str(self.postfix(), refresh=False)
            self._bar.update(sum(counts.values()))

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _isatty(stream) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False
