"""The batch progress bar: counts by verdict, and silence off a terminal."""

from __future__ import annotations

import io
from collections import Counter

from halfmoon.batch.progress import LogLines, Progress


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_off_a_terminal_a_line_now_and_then_never_a_bar():
    now = [0.0]
    stream = io.StringIO()
    with Progress(100, Counter(win=20), stream=stream, clock=lambda: now[0]) as bar:
        now[0] = 5.0
        bar.update(["win"] * 10)  # 10 % more, but only 5 s: no line
        assert stream.getvalue() == ""
        now[0] = 20.0
        bar.update(["loss"] * 10)  # 20 s and 20 % since the start: a line
    assert not bar.enabled
    assert bar.counts == Counter(win=30, loss=10, unresolved=0)
    lines = stream.getvalue().splitlines()
    # resumed deals count as done but not in the rate: 20 new deals in 20 s
    assert lines == ["halfmoon batch: 40 of 100 deals (40 %), 1 deals/s, 20 s, about 60 s left"]
    assert "\r" not in stream.getvalue()


def test_a_line_at_the_end_when_more_was_done_since_the_last():
    now = [0.0]
    stream = io.StringIO()
    with Progress(10, stream=stream, clock=lambda: now[0]) as bar:
        now[0] = 2.0
        bar.update(["win", "loss"])
    assert stream.getvalue() == (
        "halfmoon batch: 2 of 10 deals (20 %), 1 deals/s, 2 s, about 8 s left\n")


def test_silent_when_asked_off_a_terminal():
    stream = io.StringIO()
    with Progress(10, stream=stream, enabled=False) as bar:
        bar.update(["win", "loss"])
    assert stream.getvalue() == ""


def test_log_lines_wait_for_ten_seconds_and_five_percent_whichever_is_later():
    now = [0.0]
    log = io.StringIO()
    p = LogLines("players", 1000, "games", stream=log, clock=lambda: now[0])
    for t, k in [(1, 100),   # 10 %, 1 s: too soon
                 (12, 1),    # 10.1 %, 12 s: a line (10 s and 5 % since the start)
                 (13, 100),  # 20.1 %, 1 s after it: too soon
                 (60, 10),   # 21.1 %, 48 s after it but 11 % since it: a line
                 (200, 40),  # 4 % since the last line, after minutes: none
                 (201, 10)]: # 5 %: a line
        now[0] = t
        p.update(k)
    now[0] = 300
    p.update(739)
    p.close()
    p.close()  # once only
    lines = log.getvalue().splitlines()
    assert [line.split(" of ")[0] for line in lines] == [
        "halfmoon players: 101", "halfmoon players: 211", "halfmoon players: 261",
        "halfmoon players: 1,000"]
    assert lines[0] == "halfmoon players: 101 of 1,000 games (10 %), 8.42 games/s, 12 s," \
        " about 1.8 min left"
    assert lines[-1] == "halfmoon players: 1,000 of 1,000 games (100 %), 3.33 games/s, 5.0 min"


def test_log_lines_with_nothing_done_name_no_rate():
    now = [0.0]
    log = io.StringIO()
    p = LogLines("findings recheck", 4, "pieces", stream=log, clock=lambda: now[0])
    now[0] = 30.0
    p.line(now[0])
    assert log.getvalue() == "halfmoon findings recheck: 0 of 4 pieces (0 %), 30 s\n"


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


def test_no_last_line_when_the_run_is_cut_short():
    now = [0.0]
    stream = io.StringIO()
    try:
        with Progress(10, stream=stream, clock=lambda: now[0]) as bar:
            now[0] = 2.0
            bar.update(["win", "loss"])
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert stream.getvalue() == ""


def test_one_chooser_for_players_and_findings(monkeypatch):
    """``counter``: nothing with quiet, a bar on a terminal, plain lines in a log."""
    import sys

    from tqdm import tqdm

    from halfmoon.batch.progress import counter

    monkeypatch.setattr(sys, "stderr", io.StringIO())
    silent = counter("players", 10, "games", quiet=True)
    silent.update(10)
    silent.close()
    assert sys.stderr.getvalue() == ""
    lines = counter("players", 10, "games")
    assert isinstance(lines, LogLines)
    lines.update(10)
    lines.close()
    assert sys.stderr.getvalue().startswith("halfmoon players: 10 of 10 games (100 %)")
    monkeypatch.setattr(sys, "stderr", _Terminal())
    bar = counter("players", 10, "games")
    assert isinstance(bar, tqdm)
    bar.close()


def test_no_time_left_while_compiling_and_the_rate_from_the_deals_after():
    """A cold cache: 150 s of compiling, then 100 deals in 10 s.  The old line priced the
    900 left at the rate of the whole 160 s (about 24 min left); at the pace after, 1.5 min."""
    now = [0.0]
    stream = io.StringIO()
    with Progress(1000, stream=stream, clock=lambda: now[0]) as bar:
        bar.compiling()
        now[0] = 60.0
        bar._lines.line(now[0])  # a line while compiling: no rate, no time left
        now[0] = 150.0
        bar.solving()
        now[0] = 160.0
        bar.update(["win"] * 100)
    lines = stream.getvalue().splitlines()
    assert lines[0] == ("halfmoon batch: 0 of 1,000 deals (0 %), 60 s,"
                        " compiling the solver's kernels")
    assert lines[1] == "halfmoon batch: 100 of 1,000 deals (10 %), 10 deals/s, 2.7 min," \
        " about 1.5 min left"
    assert "left" not in lines[0]


def test_deals_resumed_before_the_compile_are_not_in_the_rate():
    now = [0.0]
    log = io.StringIO()
    p = LogLines("batch", 100, "deals", initial=40, stream=log, clock=lambda: now[0])
    p.compiling()
    now[0] = 100.0
    p.solving()
    now[0] = 120.0
    p.update(20)
    assert log.getvalue() == ("halfmoon batch: 60 of 100 deals (60 %), 1 deals/s, 2.0 min,"
                              " about 40 s left\n")


def test_a_bar_says_it_is_compiling_then_counts_the_deals():
    stream = _Terminal()
    with Progress(10, stream=stream) as bar:
        bar.compiling()
        assert "compiling the solver's kernels" in stream.getvalue()
        bar.solving()
        bar.update(["win"])
    assert "win 1 loss 0 unresolved 0" in stream.getvalue()


def test_a_run_of_some_chunks_is_counted_against_the_chunks_asked(tmp_path, capsys):
    """``--chunks 1:2`` of a 10-deal run in chunks of 4: its progress is 4 of 4 deals (the
    old line said 4 of 10, 40 %, and priced the time left on the 6 deals not asked)."""
    from halfmoon.batch import parse_range, run_batch

    run_batch(parse_range("0:10"), tmp_path / "r", budget=2_000, workers=1, chunk_size=4,
              chunks=range(1, 2), log=lambda message: None)
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1].startswith("halfmoon batch: 4 of 4 deals (100 %)"), lines
    # resumed, with chunk 1 done: chunks 0 to 1 are 8 deals, 4 of them done before
    run_batch(parse_range("0:10"), tmp_path / "r", budget=2_000, workers=1, chunk_size=4,
              chunks=range(0, 2), log=lambda message: None)
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1].startswith("halfmoon batch: 8 of 8 deals (100 %)"), lines
