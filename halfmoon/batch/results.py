"""Rows of batch results: the Parquet schema, per-deal features, and reading a results directory.

A results directory (written by :mod:`halfmoon.batch`) holds chunk files
``part-NNNNNN.parquet`` that all follow :data:`SCHEMA`, and ``_manifest.json``
with the run's parameters.  Names starting with ``.`` or ``_`` are not data (the
manifest, temporary files, the lock), so ``pandas.read_parquet(DIR)`` works too;
:func:`load_results` is the checked way to read one.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Optional, Union

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from halfmoon.game.cards import rank_class
from halfmoon.game.codes import DIGITS, PREFIX
from halfmoon.game.deal import Deal
from halfmoon.game.engine import Game
from halfmoon.game.errors import HalfMoonError

from .errors import BatchError

FORMAT_VERSION = 1
MANIFEST_NAME = "_manifest.json"
CHUNK_RE = re.compile(r"^part-(\d+)\.parquet$")
VERDICTS = ("win", "loss", "unresolved")

SCHEMA = pa.schema(
    [
        pa.field("deal", pa.int64(), nullable=False),
        pa.field("code", pa.string(), nullable=False),
        pa.field("verdict", pa.string(), nullable=False),  # "win" | "loss" | "unresolved"
        pa.field("nodes", pa.int64(), nullable=False),
        pa.field("seconds", pa.float64(), nullable=False),
        pa.field("line", pa.string(), nullable=True),  # winning moves joined by spaces
        pa.field("solver_version", pa.string(), nullable=False),
        pa.field("budget", pa.int64(), nullable=False),
        pa.field("start_moves", pa.int16(), nullable=False),
        pa.field("reserve_faces", pa.int8(), nullable=False),
        pa.field("top_faces", pa.int8(), nullable=False),
        pa.field("free_classes", pa.int8(), nullable=False),
    ],
    metadata={"halfmoon.results": str(FORMAT_VERSION)},
)
COLUMNS = tuple(SCHEMA.names)


class ResultsError(HalfMoonError):
    """A results directory or chunk file cannot be used."""


def deal_features(deal: Deal) -> dict:
    """Features of a deal's starting position, from the reference engine.

    ``start_moves``: legal moves; ``reserve_faces``: face cards in the reserve;
    ``top_faces``: face cards on show on the pile tops; ``free_classes``: how many of
    the six classes (A+10 … 5+6, J+Q+K) have at least one legal move.
    """
    game = Game(deal)
    moves = list(game.legal_moves)
    classes = {rank_class(game.card_at(move.sources[0]).rank) for move in moves}
    return {
        "start_moves": len(moves),
        "reserve_faces": sum(1 for c in deal.reserve if c is not None and c.is_face),
        "top_faces": sum(1 for p in deal.piles if p and p[-1].is_face),
        "free_classes": len(classes),
    }


def result_row(number: int, result, budget: int, deal: Optional[Deal] = None) -> dict:
    """One row of :data:`SCHEMA` for deal ``number`` solved as ``result`` (a solver Result)."""
    from solver import SOLVER_VERSION

    if deal is None:
        deal = Deal.from_number(number)
    line = None if result.moves is None else " ".join(str(m) for m in result.moves)
    row = {
        "deal": number,
        "code": deal.code,
        "verdict": result.verdict,
        "nodes": int(result.nodes),
        "seconds": float(result.seconds),
        "line": line,
        "solver_version": SOLVER_VERSION,
        "budget": int(budget),
    }
    row.update(deal_features(deal))
    return row


def check_rows(rows: list[dict], numbers, solver_version: str) -> None:
    """Refuse rows that are not those of ``numbers``, in order, by ``solver_version``."""
    if len(rows) != len(numbers) or any(row["deal"] != n for row, n in zip(rows, numbers)):
        raise BatchError(f"a worker returned rows for other deals than {numbers[0]}..{numbers[-1]}")
    versions = {row["solver_version"] for row in rows}
    if versions != {solver_version}:
        raise BatchError(
            f"workers run solver version {', '.join(sorted(versions))}, this run is version {solver_version}:"
            " install the same halfmoon on every worker"
        )


def piece_rows(piece, budget: int) -> list[dict]:
    """The rows of :data:`SCHEMA` of a piece of deals solved by
    :func:`solver.pieces.solve_numbers`: the same rows as :func:`result_row` gives for
    each deal, with no work of the reference engine."""
    from solver import SOLVER_VERSION
    from solver.pieces import OUTCOMES

    text = _MOVE_TEXT.__getitem__
    rows = []
    lines, nline = piece.lines.tolist(), piece.nline.tolist()
    for k, (number, code, verdict, nodes, seconds, f) in enumerate(zip(
            piece.numbers.tolist(), numbers_to_codes(piece.numbers), piece.verdicts.tolist(),
            piece.nodes.tolist(), piece.seconds.tolist(), piece.features.tolist())):
        verdict = OUTCOMES[verdict]
        rows.append({
            "deal": number,
            "code": code,
            "verdict": verdict,
            "nodes": nodes,
            "seconds": seconds,
            "line": " ".join(map(text, lines[k][: nline[k]])) if verdict == "win" else None,
            "solver_version": SOLVER_VERSION,
            "budget": int(budget),
            "start_moves": f[0],
            "reserve_faces": f[1],
            "top_faces": f[2],
            "free_classes": f[3],
        })
    return rows


def numbers_to_codes(numbers) -> list[str]:
    """Deal codes of many numbers at once (:func:`halfmoon.game.codes.number_to_code`)."""
    nums = np.asarray(numbers, dtype=np.int64)
    letters = (nums[:, None] // _PLACES) % 26 + ord("A")
    return [_CODE_PREFIX + s for s in letters.astype(np.uint8).view(f"S{_PLACES.size}").ravel().astype(str).tolist()]


class _MoveTexts(dict):
    """A move of the packed mirror (its delta) as the results write it (``P5+P6``),
    made on first use: at most 1,330 moves."""

    def __missing__(self, delta: int) -> str:
        from solver.search import delta_to_move

        text = self[delta] = str(delta_to_move(delta))
        return text


_MOVE_TEXT = _MoveTexts()
_PLACES = 26 ** np.arange(DIGITS - 1, -1, -1, dtype=np.int64)
_CODE_PREFIX = f"{PREFIX}-N-"


def rows_to_table(rows: list[dict]) -> pa.Table:
    """A table of :data:`SCHEMA` from rows (dicts with every column)."""
    return pa.Table.from_pylist(rows, schema=SCHEMA)


def chunk_files(path: Union[str, Path]) -> dict[int, Path]:
    """The finished chunk files of a results directory, by chunk index."""
    out = {}
    for entry in Path(path).iterdir():
        m = CHUNK_RE.match(entry.name)
        if m and entry.is_file():
            out[int(m.group(1))] = entry
    return dict(sorted(out.items()))


def read_chunk(path: Union[str, Path], columns=None, filesystem=None) -> pa.Table:
    """Read one chunk file (only ``columns`` if given; from ``filesystem``, an fsspec or
    pyarrow filesystem, if given), checking its schema; :class:`ResultsError` if it is unusable."""
    try:
        with pq.ParquetFile(str(path) if filesystem is not None else path, filesystem=filesystem) as f:
            if not f.schema_arrow.equals(SCHEMA, check_metadata=False):
                raise ResultsError(f"{path}: chunk file does not follow the results schema")
            return f.read(columns=columns)
    except (OSError, pa.ArrowException) as exc:
        raise ResultsError(f"{path}: unreadable chunk file ({error_text(exc)})") from None


def load_manifest(path: Union[str, Path]) -> Optional[dict]:
    """The manifest of a results directory, or None if it has none."""
    file = Path(path) / MANIFEST_NAME
    try:
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    return manifest_from_text(text, file)


def manifest_from_text(text: str, file) -> dict:
    """A manifest from its JSON text; :class:`ResultsError` naming ``file`` if it is not one."""
    try:
        manifest = json.loads(text)
    except ValueError as exc:
        raise ResultsError(f"{file}: unreadable manifest ({exc})") from None
    if not isinstance(manifest, dict):
        raise ResultsError(f"{file}: unreadable manifest (not a JSON object)")
    return manifest


def load_results(path: Union[str, Path]):
    """The results in a directory (or one chunk file) as a pandas DataFrame, sorted by deal.

    Only finished chunk files are read (temporary files and the manifest are not data).
    An unreadable chunk raises :class:`ResultsError` naming it: rerunning the batch
    command that wrote the directory solves its deals again.
    """
    p = Path(path)
    if p.is_file():
        tables = [read_chunk(p)]
    elif p.is_dir():
        tables = [read_chunk(f) for f in chunk_files(p).values()]
    else:
        raise ResultsError(f"no results at {str(path)!r}: not a directory or a file")
    table = pa.concat_tables(tables) if tables else SCHEMA.empty_table()
    df = table.to_pandas()
    return df.sort_values("deal", kind="stable").reset_index(drop=True)


def error_text(exc: BaseException) -> str:
    """An exception's message on one line."""
    return " ".join(str(exc).split()) or type(exc).__name__
