"""Tiny results datasets for the statistics, report and notebook tests.

They follow the results schema of :mod:`halfmoon.batch.results` but are written by hand,
so that the tests know every figure in them without running the solver.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Sequence

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from halfmoon.batch.results import SCHEMA_V1, rows_to_table
from halfmoon.game.codes import number_to_code


def make_rows(verdicts: Sequence[str], *, start: int = 0, budget: int = 1000) -> list[dict]:
    """One row per verdict, for deals ``start``, ``start + 1``, …; the other columns vary
    with the deal number in a fixed, known way."""
    rows = []
    for i, verdict in enumerate(verdicts):
        n = start + i
        rows.append(
            {
                "deal": n,
                "code": number_to_code(n),
                "verdict": verdict,
                "nodes": budget if verdict == "unresolved" else 10 * (i + 1) ** 2 % budget + 48,
                "seconds": 0.001 * (i + 1),
                "line": "P1+P8 P8+P5+P3" if verdict == "win" else None,
                "solver_version": "1",
                "budget": budget,
                "start_moves": 10 + i % 5,
                "reserve_faces": i % 3,
                "top_faces": i % 4,
                "free_classes": 3 + i % 2,
            }
        )
    return rows


def write_results(directory: Path, rows: list[dict], chunk_rows: int = 0, fmt: int = 2) -> Path:
    """Write rows as chunk files ``part-NNNNNN.parquet`` (one file unless ``chunk_rows``), in
    results format ``fmt``: 2 as halfmoon writes now, 1 as it wrote before."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    size = chunk_rows or max(len(rows), 1)
    for k in range(0, max(len(rows), 1), size):
        part = rows[k : k + size]
        table = rows_to_table(part) if fmt == 2 else pa.Table.from_pylist(part, schema=SCHEMA_V1)
        pq.write_table(table, directory / f"part-{k // size:06d}.parquet")
    return directory


def assert_same_summary(streamed: dict, loaded: dict) -> None:
    """Counts, versions and order statistics equal; means and totals to rounding (the sums
    are taken in another order)."""
    assert streamed.pop("format") in (1, 2)
    assert streamed.keys() == loaded.keys()
    for key, want in loaded.items():
        got = streamed[key]
        if isinstance(want, dict):
            for k, v in want.items():
                if k in ("mean", "total"):
                    assert got[k] == pytest.approx(v, rel=1e-12), (key, k)
                else:
                    assert got[k] == v or (math.isnan(v) and math.isnan(got[k])), (key, k)
        elif isinstance(want, float) and math.isnan(want):
            assert math.isnan(got)
        else:
            assert got == want, key
