"""A solved piece straight into a results file's columns: the same table, and the same file
bytes, as the rows of the same deals made it; and a run's files the same as those written
before the columns went straight through (a committed run of the old writer)."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from batch_helpers import BUDGET, quiet_run
from hypothesis import given, settings
from hypothesis import strategies as st

from halfmoon.batch import BatchError, deals_from_random, parse_range
from halfmoon.batch.columns import chunk_tables, pack_lines, piece_table, solved, verdict_counts
from halfmoon.batch.directory import write_tables
from halfmoon.batch.results import SCHEMA, encode_line, piece_rows, rows_to_table
from halfmoon.game.codes import random_numbers
from halfmoon.game.moves import move_from_number
from solver import SOLVER_VERSION, solve_numbers

# written by the rows' writer at 6d36432, the solver's columns then replaced by version 15's
FIXTURES = Path(__file__).parent / "fixtures" / "written-at-6d36432-v15"


def _file(tables) -> bytes:
    f = io.BytesIO()
    write_tables(f, tables)
    return f.getvalue()


@pytest.fixture(scope="module")
def pieces():
    numbers = random_numbers(96, seed=41) + [38, 0, 1]
    return [solve_numbers(numbers[a:a + 11], BUDGET) for a in range(0, len(numbers), 11)]


@pytest.mark.parametrize("lines", [True, False])
def test_a_pieces_columns_are_the_table_of_its_rows(pieces, lines):
    new = [piece_table(p, BUDGET, SOLVER_VERSION, lines) for p in pieces]
    old = [rows_to_table(piece_rows(p, BUDGET), lines) for p in pieces]
    assert all(n.equals(o) for n, o in zip(new, old))
    assert {v for p in pieces for v in p.verdicts.tolist()} == {-1, 0, 1}  # every verdict seen
    assert _file(new) == _file(old)  # the chunk file, byte for byte


def test_a_chunks_pieces_in_any_order_make_the_row_groups_of_their_tables(pieces, monkeypatch):
    """Pieces of random deals come in the list's order, not the deals': the rows' writer
    sorted each piece, unified the dictionaries in the pieces' order and sorted each row
    group; the columns made in one go for the chunk give the same file."""
    import halfmoon.batch.columns as columns
    import halfmoon.batch.directory as directory

    monkeypatch.setattr(columns, "ROW_GROUP_ROWS", 25)  # a few row groups of a few pieces
    monkeypatch.setattr(directory, "ROW_GROUP_ROWS", 25)
    shuffled = pieces[::-1]
    old = [rows_to_table(piece_rows(p, BUDGET)) for p in shuffled]
    new = chunk_tables([solved(p) for p in shuffled], BUDGET, SOLVER_VERSION)
    assert len(new) == 3 and _file(new) == _file(old)  # 9 pieces of 11: 3 groups of 33
    assert pq.ParquetFile(io.BytesIO(_file(new))).metadata.num_row_groups == 3
    plain = chunk_tables([solved(p, lines=False) for p in shuffled], BUDGET, SOLVER_VERSION)
    assert _file(plain) == _file([rows_to_table(piece_rows(p, BUDGET), False) for p in shuffled])


def test_the_counts_of_a_piece(pieces):
    for p in pieces:
        v = p.verdicts.tolist()
        assert verdict_counts(solved(p)) == (v.count(1), v.count(0), v.count(-1))


def test_an_empty_piece_is_an_empty_table(pieces):
    p = pieces[0]
    empty = type(p)(*(getattr(p, f)[:0] for f in ("numbers", "verdicts", "nodes", "seconds",
                                                  "lines", "nline", "features")), [])
    assert piece_table(empty, BUDGET, SOLVER_VERSION).equals(rows_to_table([]))


def test_a_count_over_32_bits_is_refused(pieces):
    p = pieces[0]
    p.nodes[0] += 1 << 32
    try:
        with pytest.raises(BatchError, match="do not fit the results schema"):
            piece_table(p, BUDGET, SOLVER_VERSION)
    finally:
        p.nodes[0] -= 1 << 32


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.integers(0, 1329), max_size=50), min_size=1, max_size=6))
def test_lines_are_packed_as_encode_line_packs_each(lines):
    width = max(len(line) for line in lines)
    numbers = np.zeros((len(lines), width), np.uint16)
    for k, line in enumerate(lines):
        numbers[k, :len(line)] = line
        numbers[k, len(line):] = 1329  # beyond a line's moves: never read
    offsets, data = pack_lines(numbers, [len(line) for line in lines])
    for k, line in enumerate(lines):
        want = encode_line(" ".join(str(move_from_number(m)) for m in line)) if line else b""
        assert data[offsets[k]:offsets[k + 1]].tobytes() == want


def _stored(path: Path) -> pa.Table:
    """A chunk file's stored columns but the time, which differs from run to run."""
    return pq.read_table(path).drop(["microseconds"])


@pytest.mark.parametrize("name, deals, kwargs", [
    ("random", deals_from_random(60, seed=41), dict(chunk_size=25)),
    ("range-nolines", parse_range("0:30"), dict(chunk_size=16, lines="none")),
])
def test_a_runs_files_are_those_the_rows_writer_wrote(tmp_path, name, deals, kwargs):
    """The same deals solved by the rows' writer (the committed files): the same columns
    but the times, the same metadata, and no more bytes once the times are the same."""
    before = FIXTURES / name
    quiet_run(deals, tmp_path / name, workers=1, **kwargs)
    files = sorted(p.name for p in before.glob("part-*.parquet"))
    assert sorted(p.name for p in (tmp_path / name).glob("part-*.parquet")) == files
    for f in files:
        old, new = pq.ParquetFile(before / f), pq.ParquetFile(tmp_path / name / f)
        assert _stored(tmp_path / name / f).equals(_stored(before / f))
        assert new.schema_arrow.metadata == old.schema_arrow.metadata
        assert new.metadata.num_row_groups == old.metadata.num_row_groups
        # the old rows with the new times, written as before: the new file, byte for byte
        table = pq.read_table(before / f, read_dictionary=["verdict", "solver_version"])
        times = pq.read_table(tmp_path / name / f)["microseconds"]
        table = table.set_column(table.schema.get_field_index("microseconds"), "microseconds",
                                 times).cast(SCHEMA)
        assert _file([table]) == (tmp_path / name / f).read_bytes()
