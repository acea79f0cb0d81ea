"""The results schema, per-deal features and reading a results directory."""

from __future__ import annotations

import json
from itertools import combinations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from halfmoon.game.cards import rank_class
from halfmoon.game.codes import MAX_NUMBER
from halfmoon.game.deal import Deal
from halfmoon.game.moves import Move
from halfmoon.batch.results import (
    MANIFEST_NAME,
    SCHEMA,
    ResultsError,
    deal_features,
    load_manifest,
    load_results,
    read_chunk,
    result_row,
    rows_to_table,
)
from solver import SOLVER_VERSION, Result


def test_schema_has_the_agreed_names_and_types():
    expected = [
        ("deal", pa.int64()), ("code", pa.string()), ("verdict", pa.string()),
        ("nodes", pa.int64()), ("seconds", pa.float64()), ("line", pa.string()),
        ("solver_version", pa.string()), ("budget", pa.int64()), ("start_moves", pa.int16()),
        ("reserve_faces", pa.int8()), ("top_faces", pa.int8()), ("free_classes", pa.int8()),
    ]
    assert [(f.name, f.type) for f in SCHEMA] == expected
    assert [f.name for f in SCHEMA if f.nullable] == ["line"]
    # files written by every version carry the same key: readers may look for it
    assert SCHEMA.metadata == {b"halfmoon.results": b"1"}


def test_features_of_deal_0_counted_by_hand():
    # Tops: 7d Kd Js 9c 2d 8h 6d 4s Qs 3s Kh 10h; reserve: As 8h 10s 9s Kc 5s Qd 10h.
    # Pairs: A+10 1x3, 2+9 1x2, 3+8 1x2, 4+7 1x1, 5+6 1x1 = 9; triplets: 1 J x 2 Q x 3 K = 6.
    assert deal_features(Deal.from_number(0)) == {
        "start_moves": 15, "reserve_faces": 2, "top_faces": 4, "free_classes": 6,
    }


def _naive_features(deal: Deal) -> dict:
    """The same features by brute force over the playable cards, without the engine."""
    cards = [p[-1] for p in deal.piles if p] + [c for c in deal.reserve if c is not None]
    pairs = [(a, b) for a, b in combinations(cards, 2)
             if not a.is_face and not b.is_face and a.rank + b.rank == 11]
    trios = [t for t in combinations([c for c in cards if c.is_face], 3)
             if sorted(c.rank for c in t) == [11, 12, 13]]
    return {
        "start_moves": len(pairs) + len(trios),
        "reserve_faces": sum(c.is_face for c in deal.reserve if c is not None),
        "top_faces": sum(p[-1].is_face for p in deal.piles if p),
        "free_classes": len({rank_class(m[0].rank) for m in pairs + trios}),
    }


@settings(max_examples=60, deadline=None)
@given(st.integers(0, MAX_NUMBER))
def test_features_agree_with_a_brute_force_count(number):
    deal = Deal.from_number(number)
    assert deal_features(deal) == _naive_features(deal)


def test_result_row_of_a_win_joins_the_moves():
    moves = (Move.parse("P1+P8"), Move.parse("P8 P5 P3"))
    row = result_row(0, Result("win", moves, 1234, 0.5, "HM1-N-AAAAAAA"), 20_000)
    assert row["line"] == "P1+P8 P3+P5+P8"
    assert row["deal"] == 0 and row["code"] == "HM1-N-AAAAAAA"
    assert row["verdict"] == "win" and row["nodes"] == 1234 and row["seconds"] == 0.5
    assert row["solver_version"] == SOLVER_VERSION and row["budget"] == 20_000
    assert list(row) == SCHEMA.names


def test_result_row_without_a_line_is_null():
    row = result_row(1, Result("unresolved", None, 20_000, 0.1, "HM1-N-AAAAAAB"), 20_000)
    table = rows_to_table([row])
    assert table.schema.equals(SCHEMA)
    assert table.column("line").null_count == 1
    assert table.column("code").to_pylist() == ["HM1-N-AAAAAAB"]


def _write(path, numbers, verdict="win"):
    rows = [result_row(n, Result(verdict, None, 10, 0.01, None), 100) for n in numbers]
    pq.write_table(rows_to_table(rows), path)


def test_load_results_reads_chunks_sorted_and_ignores_the_rest(tmp_path):
    _write(tmp_path / "part-000001.parquet", [7, 5])
    _write(tmp_path / "part-000000.parquet", [3, 1])
    _write(tmp_path / ".part-000002.parquet.99.tmp", [100])  # a temporary file
    (tmp_path / ".part-000003.parquet.98.tmp").write_bytes(b"PAR1 half written")
    (tmp_path / MANIFEST_NAME).write_text(json.dumps({"budget": 100}))
    (tmp_path / "notes.txt").write_text("not data")
    df = load_results(tmp_path)
    assert df["deal"].tolist() == [1, 3, 5, 7]
    assert list(df.columns) == SCHEMA.names
    assert df["start_moves"].dtype == "int16" and df["free_classes"].dtype == "int8"


def test_load_results_of_one_file_and_of_an_empty_directory(tmp_path):
    _write(tmp_path / "part-000000.parquet", [2, 1])
    assert load_results(tmp_path / "part-000000.parquet")["deal"].tolist() == [1, 2]
    empty = tmp_path / "empty"
    empty.mkdir()
    df = load_results(empty)
    assert len(df) == 0 and list(df.columns) == SCHEMA.names


def test_unreadable_chunk_is_named(tmp_path):
    _write(tmp_path / "part-000000.parquet", [1, 2, 3])
    data = (tmp_path / "part-000000.parquet").read_bytes()
    (tmp_path / "part-000000.parquet").write_bytes(data[: len(data) // 2])
    with pytest.raises(ResultsError, match=r"part-000000\.parquet: unreadable chunk file"):
        load_results(tmp_path)


def test_chunk_with_another_schema_is_refused(tmp_path):
    pq.write_table(pa.table({"deal": [1, 2]}), tmp_path / "part-000000.parquet")
    with pytest.raises(ResultsError, match="does not follow the results schema"):
        read_chunk(tmp_path / "part-000000.parquet")


def test_missing_results_and_bad_manifest(tmp_path):
    with pytest.raises(ResultsError, match="no results at"):
        load_results(tmp_path / "nowhere")
    assert load_manifest(tmp_path) is None
    (tmp_path / MANIFEST_NAME).write_text("{not json")
    with pytest.raises(ResultsError, match="unreadable manifest"):
        load_manifest(tmp_path)


def test_rows_of_a_compiled_piece_are_those_of_result_row():
    """The batch's hot path (solver.pieces) writes the same rows as the engine's path,
    but for the timings."""
    from halfmoon.batch.results import piece_rows
    from halfmoon.game.codes import random_numbers
    from solver import solve
    from solver.pieces import solve_numbers

    numbers = random_numbers(60, seed=21) + [38]
    budget = 200_000
    rows = piece_rows(solve_numbers(numbers, budget), budget)
    expected = [result_row(n, solve(n, budget), budget) for n in numbers]
    drop = lambda row: {k: v for k, v in row.items() if k != "seconds"}  # noqa: E731
    assert [drop(r) for r in rows] == [drop(r) for r in expected]
    assert all(r["seconds"] > 0 for r in rows)
    assert rows_to_table(rows).num_rows == len(numbers)


def test_rows_of_other_deals_or_another_solver_are_refused():
    from halfmoon.batch import BatchError
    from halfmoon.batch.results import check_rows

    rows = [result_row(n, Result("loss", None, 10, 0.01, None), 100) for n in (4, 5)]
    check_rows(rows, range(4, 6), SOLVER_VERSION)
    with pytest.raises(BatchError, match=r"other deals than 4\.\.6"):
        check_rows(rows, [4, 5, 6], SOLVER_VERSION)
    with pytest.raises(BatchError, match="install the same halfmoon on every worker"):
        check_rows(rows, [4, 5], "0")


def test_a_chunk_is_read_by_columns_from_a_filesystem(tmp_path):
    import fsspec

    _write(tmp_path / "part-000000.parquet", [3, 1])
    fs = fsspec.filesystem("file")
    table = read_chunk(str(tmp_path / "part-000000.parquet"), columns=["deal", "verdict"], filesystem=fs)
    assert table.column_names == ["deal", "verdict"] and table.column("deal").to_pylist() == [3, 1]


def test_codes_of_many_numbers_at_once():
    from halfmoon.batch.results import numbers_to_codes
    from halfmoon.game.codes import number_to_code, random_numbers

    numbers = [0, 1, 25, 26, MAX_NUMBER] + random_numbers(3000, seed=22)
    assert numbers_to_codes(numbers) == [number_to_code(n) for n in numbers]
