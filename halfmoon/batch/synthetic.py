"""Large results datasets made up quickly: rows in the real format, not solved.

For testing and measuring what reads a census (``halfmoon stats`` on a hundred million rows)
without solving one: :func:`write_synthetic` writes a results directory of format 2, chunk
files and manifest as ``halfmoon batch`` writes them, whose rows look like a census's (97 %
wins, positions and times spread over orders of magnitude, a packed line for every win if
asked) but are drawn at random.  Its manifest says so (``"synthetic": true``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from halfmoon.game.moves import MOVE_COUNT

from .directory import chunk_name, write_tables
from .results import FORMAT_VERSION, MANIFEST_NAME, SCHEMA
from .store import location

MOVES_IN_A_WIN = 48
MOVE_BITS = (MOVE_COUNT - 1).bit_length()
LINE_BYTES = -(-MOVES_IN_A_WIN * MOVE_BITS // 8)  # 66


def synthetic_table(start: int, count: int, rng: np.random.Generator, *, lines: bool = False,
                    budget: int = 5_000_000, solver_version: str = "synthetic") -> pa.Table:
    """``count`` made-up rows of :data:`SCHEMA` for deals ``start`` … ``start + count - 1``."""
    deal = np.arange(start, start + count, dtype=np.int64)
    u = rng.random(count)
    verdict = np.where(u < 0.971, 0, np.where(u < 0.9999, 1, 2)).astype(np.int8)
    nodes = (np.minimum(np.exp(rng.normal(5.0, 2.5, count)), budget - 1).astype(np.uint32)
             + np.uint32(1))
    nodes[verdict == 2] = budget
    micros = (nodes.astype(np.float64) * rng.uniform(0.3, 1.5, count)).astype(np.uint32)
    if lines:
        moves = rng.integers(0, MOVE_COUNT, (count, MOVES_IN_A_WIN), dtype=np.uint16)
        bits = (moves[:, :, None] >> np.arange(MOVE_BITS - 1, -1, -1, dtype=np.uint16)) & 1
        # as encode_line packs
        blobs = np.packbits(bits.reshape(count, -1).astype(np.uint8), axis=1)
        line = pa.FixedSizeBinaryArray.from_buffers(pa.binary(LINE_BYTES), count,
                                                    [None, pa.py_buffer(blobs.tobytes())])
        line = line.cast(pa.binary())
        mask = pa.array(verdict != 0)
        line = pc.if_else(mask, pa.nulls(count, pa.binary()), line)
    else:
        line = pa.nulls(count, pa.binary())
    return pa.Table.from_arrays([
        pa.array(deal),
        pa.DictionaryArray.from_arrays(pa.array(verdict), pa.array(["win", "loss", "unresolved"])),
        pa.array(nodes),
        pa.array(micros),
        line,
        pa.DictionaryArray.from_arrays(pa.array(np.zeros(count, np.int8)),
                                       pa.array([solver_version])),
        pa.array(np.full(count, budget, np.uint32)),
    ], schema=SCHEMA)


def write_synthetic(out: Union[str, Path], rows: int, *, chunk_rows: int = 1_000_000, seed: int = 0,
                    lines: bool = False, piece_rows: int = 100_000) -> Path:
    """Write a results directory of ``rows`` made-up rows (deals 0 … rows-1) at ``out`` (a path
    or an fsspec URL), ``chunk_rows`` a file; the same rows for the same ``seed``."""
    where = location(out)
    where.make()
    rng = np.random.default_rng(seed)
    nchunks = -(-rows // chunk_rows)
    for index in range(nchunks):
        lo, hi = index * chunk_rows, min(rows, (index + 1) * chunk_rows)
        tables = (synthetic_table(a, min(piece_rows, hi - a), rng, lines=lines)
                  for a in range(lo, hi, piece_rows))
        where.write(chunk_name(index), lambda f: write_tables(f, tables))
    manifest = {"format": FORMAT_VERSION, "synthetic": True, "seed": seed,
                "lines": "all" if lines else "none", "chunk_size": chunk_rows,
                "deals": {"count": rows}, "status": "complete"}
    data = (json.dumps(manifest, indent=2) + "\n").encode("utf-8")
    where.write(MANIFEST_NAME, lambda f: f.write(data))
    return Path(str(out)) if where.is_local else out
