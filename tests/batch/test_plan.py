"""The plan of a run: chunk and piece sizes chosen for the range and the backend, chunks and
pieces made lazily, and the dry run of the whole code space in bounded memory."""

from __future__ import annotations

import re

import pytest
from batch_helpers import BUDGET, batch_args, peak_rss_mib

from halfmoon.batch import BatchError, parse_chunks, parse_range
from halfmoon.batch.plan import (
    CHUNK_SIZE,
    Calibration,
    DryRun,
    Plan,
    choose_chunk_size,
    choose_piece_size,
    cut,
    duration,
    nice_up,
)
from halfmoon.cli.main import main
from halfmoon.game.codes import DEAL_COUNT

FULL = f"0:{DEAL_COUNT}"  # the whole code space: 8,031,810,176 deals


def test_nice_numbers_round_up():
    assert [nice_up(n) for n in (1, 2, 3, 24, 26, 250, 251, 803_182, 1_000_001)] == \
        [1, 2, 5, 25, 50, 250, 500, 1_000_000, 2_000_000]


def test_chunk_sizes_are_chosen_for_the_range_and_the_backend():
    # a short local run keeps files of 250 deals
    assert choose_chunk_size(2000, cluster=False, cores=2) == CHUNK_SIZE
    # the whole code space: tens of thousands of files here, thousands on a cluster
    local = choose_chunk_size(DEAL_COUNT, cluster=False, cores=2)
    census = choose_chunk_size(DEAL_COUNT, cluster=True, cores=100)
    assert (local, -(-DEAL_COUNT // local)) == (100_000, 80_319)
    assert (census, -(-DEAL_COUNT // census)) == (1_000_000, 8_032)
    # a short run on a cluster is cut so that every core has tasks
    assert choose_chunk_size(40, cluster=True, cores=2) == 5
    assert choose_piece_size(census, cluster=True) == 10_000
    assert choose_piece_size(CHUNK_SIZE, cluster=False) == 16
    assert choose_piece_size(5, cluster=True) == 5


def test_local_pieces_grow_with_the_run_and_stay_powers_of_two():
    from halfmoon.batch.plan import MAX_PIECE_SIZE, PIECE_SIZE
    from halfmoon.batch.results import ROW_GROUP_ROWS

    # a short run keeps small pieces, so that each worker gets many
    assert choose_piece_size(250, cluster=False, count=2000, workers=2) == PIECE_SIZE
    # a long one sends larger pieces: fewer messages to the main process
    assert choose_piece_size(5000, cluster=False, count=100_000, workers=2) == MAX_PIECE_SIZE
    assert choose_piece_size(5000, cluster=False, count=200_000, workers=16) == 256
    # each worker still gets about 32 pieces
    assert choose_piece_size(5000, cluster=False, count=8192, workers=2) == 128
    assert choose_piece_size(5000, cluster=False, count=8191, workers=2) == 64
    # never more than a chunk
    assert choose_piece_size(100, cluster=False, count=100_000, workers=2) == 100
    for count in (0, 1000, 3000, 10_000, 10**6):
        size = choose_piece_size(100_000, cluster=False, count=count, workers=2)
        assert PIECE_SIZE <= size <= MAX_PIECE_SIZE and ROW_GROUP_ROWS % size == 0


def test_a_plan_of_the_whole_code_space_is_made_from_indices():
    plan = Plan(parse_range(FULL), 1_000_000, 10_000)
    assert plan.nchunks == 8_032
    assert plan.chunk(0) == range(0, 1_000_000)
    assert plan.chunk(8_031) == range(8_031_000_000, DEAL_COUNT)
    assert plan.chunk_len(8_031) == 810_176
    assert plan.deals_in(plan.chunks) == DEAL_COUNT
    assert plan.pieces_in(plan.chunks) == 8_031 * 100 + 82
    first = next(plan.pieces(plan.chunks))
    assert (first.chunk, first.k, first.count, first.numbers) == (0, 0, 100, range(0, 10_000))


def test_pieces_cover_each_chunk_once_in_order_and_counts_agree():
    plan = Plan(parse_range("3:40"), 7, 3)
    pieces = list(plan.pieces(plan.chunks))
    assert [n for p in pieces for n in p.numbers] == list(range(3, 40))
    assert all(len(p.numbers) <= 3 and p.count == plan.npieces(p.chunk) for p in pieces)
    assert len(pieces) == plan.pieces_in(plan.chunks) == plan.pieces_in(list(plan.chunks))
    assert plan.deals_in(range(1, 6)) == plan.deals_in([1, 2, 3, 4, 5]) == 37 - 7
    assert [list(p) for p in cut(range(10), 4)] == [[0, 1, 2], [3, 4, 5, 6], [7, 8, 9]]


def test_selected_chunks_and_bad_sizes():
    plan = Plan(parse_range("0:100"), 10, 4, parse_chunks("8:20"))
    assert plan.chunks == range(8, 10)
    assert parse_chunks("0:3") == range(0, 3)
    for bad in ("3:3", "5:2", "a:b", "1", "-1:3"):
        with pytest.raises(BatchError, match="bad --chunks"):
            parse_chunks(bad)
    with pytest.raises(BatchError, match="the run has 10 chunks"):
        Plan(parse_range("0:100"), 10, 4, range(10, 12))
    with pytest.raises(BatchError, match="bad piece size"):
        Plan(parse_range("0:100"), 10, 0)


def test_the_estimate_is_the_deals_to_do_at_the_sampled_speed():
    plan = Plan(parse_range(FULL), 1_000_000, 10_000)
    dry = DryRun(plan=plan, out="s3://bucket/census", budget=BUDGET, cluster=True, cores=100,
                 workers=1, resumed=False, present=0, todo_deals=DEAL_COUNT,
                 todo_pieces=plan.pieces_in(plan.chunks),
                 calibration=Calibration(deals=100, seconds=0.5, spread=0.1, bytes_per_deal=9.5,
                                         file_bytes=2000), lines_mode="none")
    assert dry.seconds == pytest.approx(DEAL_COUNT * 0.005 / 100)
    assert dry.bytes == pytest.approx(DEAL_COUNT * 9.5 + 8032 * 2000)
    text = "\n".join(dry.lines())
    assert "output: about 9.5 bytes a deal with --lines none" in text and "76.3 GB to write" in text
    assert "8,032 files of 1,000,000 deals (the last 810,176)" in text
    assert "8,032 on the cluster, one a chunk" in text
    assert "about 4.6 days [4.2 days to 5.1 days] on 100 cores" in text
    assert "a chunk takes about 1.4 hours" in text
    assert [duration(s) for s in (4.2, 42, 300, 7200, 400_000)] == \
        ["4.2 s", "42 s", "5.0 min", "2.0 hours", "4.6 days"]


def test_dry_run_prints_the_plan_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "results"
    assert main(batch_args(out, "--range", FULL, "--dry-run", "--sample", "5",
                           "--workers", "2", "--cores", "100")) == 0
    text = capsys.readouterr().out
    assert text.startswith(f"plan for {out}: 8,031,810,176 deals (--range {FULL})")
    assert "80,319 files of 100,000 deals" in text and "a new run" in text
    assert "sample: 5 deals spread over the run" in text and "on 100 cores" in text
    # the tests' budget is not the tail model's: the sample's mean, said to be that
    assert "the sample's mean" in text and "no model of the slow deals" in text
    assert "ms (95 %)" in text
    assert not out.exists()


def test_cores_alone_price_a_cluster_and_a_seed_draws_another_sample(tmp_path, capsys):
    """``--cores 100`` without a scheduler: a cluster's plan (a chunk a task), no cluster
    asked; ``--sample-seed`` draws the sample at random."""
    out = tmp_path / "results"
    assert main(batch_args(out, "--range", FULL, "--dry-run", "--sample", "5",
                           "--cores", "100", "--sample-seed", "3")) == 0
    text = capsys.readouterr().out
    assert "a cluster's plan: a chunk a task" in text
    assert "8,032 files of 1,000,000 deals" in text and "8,032 on the cluster, one a chunk" in text
    assert "sample: 5 deals drawn at random (--sample-seed 3)" in text
    assert re.search(r"time: +about [\d.]+ \w+ \[[\d.]+ \w+ to [\d.]+ \w+\] on 100 cores", text)
    assert re.search(r"output: about [\d.]+ bytes a deal with --lines all .*, "
                     r"[\d.]+ [kMGT]B to write", text)
    assert not out.exists()


def test_the_dry_run_prices_the_bytes_as_the_run_writes_them(tmp_path, capsys):
    from halfmoon.batch.plan import price_rows
    from halfmoon.batch.results import result_row
    from solver import solve

    rows = [result_row(n, solve(n, BUDGET), BUDGET) for n in range(0, 4000, 100)]
    out = tmp_path / "results"
    for lines, mode in ((True, "all"), (False, "none")):
        per_deal, empty = price_rows(rows, lines, range(0, 40))
        assert main(batch_args(out / mode, "--range", "0:40", "--workers", "1",
                               "--lines", mode)) == 0
        written = (out / mode / "part-000000.parquet").stat().st_size
        # the sample's rows are other deals than the run's: its price is near, not exact
        assert written == pytest.approx(empty + 40 * per_deal, rel=0.15)
    assert price_rows(rows, True)[0] > 66 > 12 > price_rows(rows, False)[0]


def test_dry_run_of_a_started_run_counts_its_files_and_refuses_another(tmp_path, capsys):
    out = tmp_path / "results"
    assert main(batch_args(out, "--range", "0:30", "--chunk-size", "10", "--workers", "1",
                           "--chunks", "0:2")) == 0
    assert "10 deals still to do" in capsys.readouterr().out
    assert main(batch_args(out, "--range", "0:30", "--dry-run", "--sample", "2")) == 0
    text = capsys.readouterr().out
    assert "3 files of 10 deals" in text and "to do:  10 deals; 2 of 3 chunk files present" in text
    assert main(batch_args(out, "--range", "0:31", "--dry-run", "--sample", "2")) == 2
    assert "holds another run's results" in capsys.readouterr().err
    assert main(batch_args(out, "--range", "0:30", "--cores", "4")) == 2
    assert "--cores, --sample and --sample-seed go with --dry-run" in capsys.readouterr().err


def test_the_whole_code_space_is_planned_in_the_memory_of_a_short_range(tmp_path):
    args = ["--dry-run", "--sample", "5", "--workers", "1"]
    short = peak_rss_mib(batch_args(tmp_path / "a", "--range", "0:100", *args))
    full = peak_rss_mib(batch_args(tmp_path / "b", "--range", FULL, *args))
    # listing the deals would take 64 GB; the plan is a few numbers (the solver, compiling
    # its kernels on a machine's first run, takes most of the memory measured)
    assert full < short + 50, (short, full)
    assert full < 2048, full
