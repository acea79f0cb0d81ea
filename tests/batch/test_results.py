"""The results schema, per-deal features and reading a results directory."""

from __future__ import annotations

import json
from itertools import combinations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from halfmoon.batch.results import (
    FORMAT_VERSION,
    MANIFEST_NAME,
    ROW_SCHEMA,
    SCHEMA,
    SCHEMA_V1,
    ResultsError,
    chunk_format,
    deal_features,
    load_manifest,
    load_results,
    read_chunk,
    result_row,
    rows_to_table,
    to_rows,
)
from halfmoon.game.cards import rank_class
from halfmoon.game.codes import MAX_NUMBER
from halfmoon.game.deal import Deal
from halfmoon.game.moves import Move
from solver import SOLVER_VERSION, Result


def test_the_rows_have_the_agreed_names_and_types():
    expected = [
        ("deal", pa.int64()), ("code", pa.string()), ("verdict", pa.string()),
        ("nodes", pa.int64()), ("seconds", pa.float64()), ("line", pa.string()),
        ("solver_version", pa.string()), ("budget", pa.int64()), ("start_moves", pa.int16()),
        ("reserve_faces", pa.int8()), ("top_faces", pa.int8()), ("free_classes", pa.int8()),
    ]
    assert [(f.name, f.type) for f in ROW_SCHEMA] == expected
    # format 1 stored exactly the rows; every format carries the same key: readers look for it
    assert SCHEMA_V1.remove_metadata().equals(ROW_SCHEMA)
    assert SCHEMA_V1.metadata == {b"halfmoon.results": b"1"}


def test_format_2_stores_the_rows_compactly():
    stored = {f.name: f.type for f in SCHEMA}
    assert "code" not in stored and "seconds" not in stored
    assert stored["line"] == pa.binary() and stored["microseconds"] == pa.uint32()
    assert stored["nodes"] == pa.uint32() and stored["budget"] == pa.uint32()
    assert stored["verdict"] == pa.dictionary(pa.int8(), pa.string())
    assert [f.name for f in SCHEMA if f.nullable] == ["line"]
    assert SCHEMA.metadata == {b"halfmoon.results": b"2"} and FORMAT_VERSION == 2


def test_the_files_name_the_verdicts_and_features_as_the_solver_does():
    """The file format keeps its own names; the solver's must stay the same words (a row
    takes its verdict from a result, its features by name from the solver's columns)."""
    import solver
    from halfmoon.batch.results import FEATURES, VERDICTS

    assert set(VERDICTS) == set(solver.VERDICTS) == set(solver.VERDICT_NAMES.values())
    assert set(FEATURES) == set(solver.DEAL_FEATURES)
    assert list(FEATURES) == [f.name for f in ROW_SCHEMA][-len(FEATURES):]


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
    assert list(row) == ROW_SCHEMA.names


def test_result_row_without_a_line_is_null():
    row = result_row(1, Result("unresolved", None, 20_000, 0.1, "HM1-N-AAAAAAB"), 20_000)
    table = rows_to_table([row])
    assert table.schema.equals(SCHEMA)
    assert table.column("line").null_count == 1
    assert to_rows(table, 2).column("code").to_pylist() == ["HM1-N-AAAAAAB"]


def _write(path, numbers, verdict="win", fmt=2):
    rows = [result_row(n, Result(verdict, None, 10, 0.01, None), 100) for n in numbers]
    table = rows_to_table(rows) if fmt == 2 else pa.Table.from_pylist(rows, schema=SCHEMA_V1)
    pq.write_table(table, path)


def test_load_results_reads_chunks_sorted_and_ignores_the_rest(tmp_path):
    _write(tmp_path / "part-000001.parquet", [7, 5])
    _write(tmp_path / "part-000000.parquet", [3, 1])
    _write(tmp_path / ".part-000002.parquet.99.tmp", [100])  # a temporary file
    (tmp_path / ".part-000003.parquet.98.tmp").write_bytes(b"PAR1 half written")
    (tmp_path / MANIFEST_NAME).write_text(json.dumps({"budget": 100}))
    (tmp_path / "notes.txt").write_text("not data")
    df = load_results(tmp_path)
    assert df["deal"].tolist() == [1, 3, 5, 7]
    assert list(df.columns) == ROW_SCHEMA.names
    assert df["start_moves"].dtype == "int16" and df["free_classes"].dtype == "int8"


def test_load_results_of_one_file_and_of_an_empty_directory(tmp_path):
    _write(tmp_path / "part-000000.parquet", [2, 1])
    assert load_results(tmp_path / "part-000000.parquet")["deal"].tolist() == [1, 2]
    empty = tmp_path / "empty"
    empty.mkdir()
    df = load_results(empty)
    assert len(df) == 0 and list(df.columns) == ROW_SCHEMA.names


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
    """The batch's hot path (solver.solve_numbers) writes the same rows as the engine's
    path, but for the timings."""
    from halfmoon.batch.results import piece_rows
    from halfmoon.game.codes import random_numbers
    from solver import solve, solve_numbers

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
    table = read_chunk(str(tmp_path / "part-000000.parquet"), columns=["deal", "verdict", "code"],
                       filesystem=fs)
    assert table.column_names == ["deal", "verdict", "code"]
    assert table.column("deal").to_pylist() == [1, 3]
    assert table.column("code").to_pylist() == ["HM1-N-AAAAAAB", "HM1-N-AAAAAAD"]
    assert table.schema.field("verdict").type == pa.string()


def test_codes_of_many_numbers_at_once():
    from halfmoon.batch.results import numbers_to_codes
    from halfmoon.game.codes import number_to_code, random_numbers

    numbers = [0, 1, 25, 26, MAX_NUMBER] + random_numbers(3000, seed=22)
    assert numbers_to_codes(numbers) == [number_to_code(n) for n in numbers]


# --- the formats --------------------------------------------------------------------
WIN_LINE = ("P1+P8 P3+P5+P8 R7+R8 P12+R1+R8 " * 12).strip()  # 48 moves


def test_a_line_is_packed_in_11_bits_a_move_and_given_back():
    from halfmoon.batch.results import encode_line, line_text

    blob = encode_line(WIN_LINE)
    assert len(blob) == 66 and line_text(blob) == WIN_LINE
    assert encode_line(None) is None and line_text(None) is None
    assert line_text(encode_line("P1+P2")) == "P1+P2" and len(encode_line("P1+P2")) == 2


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 1329), min_size=1, max_size=60))
def test_every_line_of_moves_comes_back_as_it_went(numbers):
    from halfmoon.batch.results import encode_line, line_text
    from halfmoon.game.moves import move_from_number

    text = " ".join(str(move_from_number(k)) for k in numbers)
    assert line_text(encode_line(text)) == text


def test_move_numbers_are_fixed_forever():
    from halfmoon.game.moves import MOVE_COUNT, move_from_number, move_number

    assert MOVE_COUNT == 1330
    assert [str(move_from_number(k)) for k in (0, 1, 18, 19, 189, 190, 1329)] == [
        "P1+P2", "P1+P3", "P1+R8", "P2+P3", "R7+R8", "P1+P2+P3", "R6+R7+R8"]
    assert all(move_number(move_from_number(k)) == k for k in range(MOVE_COUNT))


def test_both_formats_read_as_the_same_rows(tmp_path):
    moves = (Move.parse("P1+P8"), Move.parse("P8 P5 P3"))
    rows = [result_row(n, Result(v, moves if v == "win" else None, 1000 + n, 0.001234 * (n + 1),
                                 None), 5000)
            for n, v in zip((40, 7, 9), ("win", "loss", "unresolved"))]
    pq.write_table(pa.Table.from_pylist(rows, schema=SCHEMA_V1), tmp_path / "old.parquet")
    pq.write_table(rows_to_table(rows), tmp_path / "new.parquet")
    old, new = load_results(tmp_path / "old.parquet"), load_results(tmp_path / "new.parquet")
    assert old.equals(new)  # seconds to the microsecond: 0.001234 (n + 1) has no finer digit
    assert new["deal"].tolist() == [7, 9, 40] and new["line"].isna().tolist() == [True, True, False]
    assert new["line"].iloc[2] == "P1+P8 P3+P5+P8" and new["code"].iloc[2] == "HM1-N-AAAAABO"
    assert chunk_format(tmp_path / "old.parquet") == 1
    assert chunk_format(tmp_path / "new.parquet") == 2


def test_rows_without_lines_keep_the_verdicts():
    rows = [result_row(0, Result("win", (Move.parse("P1+P8"),), 10, 0.5, None), 100)]
    table = rows_to_table(rows, lines=False)
    assert table.column("line").null_count == 1 and table.column("verdict").to_pylist() == ["win"]


def test_a_directory_that_mixes_formats_is_refused(tmp_path):
    _write(tmp_path / "part-000000.parquet", [1, 2], fmt=1)
    _write(tmp_path / "part-000001.parquet", [3, 4], fmt=2)
    with pytest.raises(ResultsError,
                       match=r"mixes results formats 1 and 2 \(part-000000.parquet is format 1"):
        load_results(tmp_path)


def test_a_time_or_a_count_too_big_for_the_format():
    from halfmoon.batch import BatchError

    # two hours: kept as 71.6 minutes
    row = result_row(0, Result("loss", None, 10, 7200.0, None), 100)
    assert to_rows(rows_to_table([row]), 2)["seconds"].to_pylist() == [pytest.approx(4294.967295)]
    row = result_row(0, Result("loss", None, 1 << 32, 0.1, None), 100)
    with pytest.raises(BatchError, match="do not fit the results schema"):
        rows_to_table([row])


_READ_ONLY = """
import json, sys
from numba.core.dispatcher import Dispatcher
from halfmoon.batch.results import load_results
from halfmoon.cli.main import main
from halfmoon.research.census import count_census
path = sys.argv[1]
df = load_results(path)
rc = main(["stats", path])
census = count_census(path, players_deals=5, forgiveness_deals=5, recheck_share=0.1)
import solver  # imported by now or not: its kernels must be untouched either way
kernels = {f"{name}.{attr}": bool(obj.overloads) for name, mod in list(sys.modules.items())
           if name.split(".")[0] == "solver" for attr, obj in vars(mod).items()
           if isinstance(obj, Dispatcher)}
print(json.dumps({"rc": rc, "rows": len(df), "census": census.summary["deals"],
                  "kernels": len(kernels), "compiled": sorted(k for k, v in kernels.items() if v),
                  "seconds": solver.compile_seconds()}))
"""


def test_reading_a_dataset_compiles_nothing(tmp_path):
    """load_results, ``halfmoon stats`` and the census's counting pass, in a fresh process
    whose numba cache is empty: no kernel of the solver compiled or even loaded."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    import solver
    from halfmoon.batch import parse_range, run_batch

    out = tmp_path / "results"
    run_batch(parse_range("0:20"), out, budget=20_000, workers=1, progress=False)
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache),
               PYTHONPATH=os.pathsep.join([root, os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, "-c", _READ_ONLY, str(out)], capture_output=True,
                          text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.splitlines()[-1])
    assert got["rc"] == 0 and got["rows"] == 20 and got["census"] == 20
    assert got["kernels"] > 50, "the check sees the solver's kernels"
    assert got["compiled"] == [] and got["seconds"] == 0.0
    # importing the solver stamps its sources in the cache; no kernel is stored there
    assert [p.name for p in cache.rglob("*.nb[ic]")] == []
    # and what was read is what the compiled solver counts
    df = load_results(out)
    features = solver.deal_features(df["deal"].to_numpy())
    for i, name in enumerate(solver.DEAL_FEATURES):
        assert df[name].tolist() == features[:, i].tolist()
