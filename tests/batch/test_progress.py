"""The batch progress bar: counts by verdict, and silence off a terminal."""

from __future__ import annotations

import io
from collections import Counter

from halfmoon.batch.progress import Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_silent_when_the_stream_is_not_a_terminal():
    stream = io.StringIO()
    with Progress(10, stream=stream) as bar:
        bar.update(["win", "loss"])
    assert not bar.enabled
    assert stream.getvalue() == ""
    assert bar.counts == Counter(win=1, loss=1, unresolved=0)


def test_draws_rate_and_running_counts_on_a_terminal():
    stream = _Terminal()
    with Progress(10, Counter(win=3), stream=stream) as bar:
        bar.update(["win", "unresolved"])
        bar.update(["loss"])
    text = stream.getvalue()
    assert bar.enabled
    assert "3/10" in text and "win 3 loss 0 unresolved 0" in text  # resumed, on the first draw
    assert "6/10" in text and "win 4 loss 1 unresolved 1" in text
    assert "deals/s" in text


def test_can_be_forced_off_on_a_terminal():
    stream = _Terminal()
    with Progress(5, enabled=False, stream=stream) as bar:
        bar.update(["win"])
    assert stream.getvalue() == ""


def test_a_chunk_of_a_cluster_is_added_by_its_counts():
    stream = _Terminal()
    with Progress(1000, stream=stream) as bar:
        bar.add(Counter(win=600, loss=40))
    assert bar.counts == Counter(win=600, loss=40, unresolved=0)
    assert "640/1000" in stream.getvalue() and "win 600 loss 40 unresolved 0" in stream.getvalue()
