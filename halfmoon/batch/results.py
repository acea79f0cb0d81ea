"""Rows of batch results: the Parquet formats, per-deal features, and reading a results directory.

A results directory (written by :mod:`halfmoon.batch`) holds chunk files
``part-NNNNNN.parquet`` that all follow one format, and ``_manifest.json`` with the run's
parameters (its ``format`` names the files').  Format 2 (:data:`SCHEMA`, written now) is
compact: about 7 bytes a deal without the winning lines, 66 with them.  Format 1
(:data:`SCHEMA_V1`, written before) stored the rows as :data:`ROW_SCHEMA` has them, the
line as text.  Readers see every file as :data:`ROW_SCHEMA` (:func:`read_chunk`,
:func:`load_results`), whatever its format; :mod:`halfmoon.research.scan` streams the
columns of a dataset of any size.  Names starting with ``.`` or ``_`` are not data (the
manifest, temporary files, the lock), so ``pandas.read_parquet(DIR)`` reads the stored
columns too.
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
from halfmoon.game.moves import MOVE_COUNT, move_from_number, move_number
from halfmoon.game.notation import format_move, parse_moves

from .errors import BatchError

FORMAT_VERSION = 2
MANIFEST_NAME = "_manifest.json"
CHUNK_RE = re.compile(r"^part-(\d+)\.parquet$")
# The values of the verdict column and the keys of the manifest's counts: the file format's
# names (a row takes its verdict from the solver's result: solver.VERDICTS names them alike)
VERDICTS = ("win", "loss", "unresolved")
LINE_MODES = ("all", "none")
ROW_GROUP_ROWS = 1 << 16  # tables are gathered into row groups of at least this many rows
MAX_MICROSECONDS = (1 << 32) - 1  # about 71.6 minutes: a solve's time is stored up to this

# The rows as every reader sees them, whatever the file's format: format 1 stored exactly
# this; format 2 stores it compactly (SCHEMA) and read_chunk gives it back in this form.
ROW_SCHEMA = pa.schema(
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
    ]
)
COLUMNS = tuple(ROW_SCHEMA.names)
SCHEMA_V1 = ROW_SCHEMA.with_metadata({"halfmoon.results": "1"})

# Format 2, as stored: no code and no features of the start (the deal number gives them:
# numbers_to_codes, start_features), the line packed (encode_line: 11 bits a move), the
# time in whole microseconds, every column as narrow as its values; rows sorted by deal
# within a file.
SCHEMA = pa.schema(
    [
        pa.field("deal", pa.int64(), nullable=False),
        pa.field("verdict", pa.dictionary(pa.int8(), pa.string()), nullable=False),
        pa.field("nodes", pa.uint32(), nullable=False),
        pa.field("microseconds", pa.uint32(), nullable=False),
        pa.field("line", pa.binary(), nullable=True),
        pa.field("solver_version", pa.dictionary(pa.int8(), pa.string()), nullable=False),
        pa.field("budget", pa.uint32(), nullable=False),
    ],
    metadata={"halfmoon.results": str(FORMAT_VERSION)},
)
# The start's features as the rows name them: names of the file format (format 1 stores
# these columns), computed from solver.DEAL_FEATURES of the same names.
FEATURES = ("start_moves", "reserve_faces", "top_faces", "free_classes")
# The stored columns each row column is made from, in format 2: the code and the start's
# features are the deal number's (computed when read), the seconds are whole microseconds.
_SOURCES_V2 = {"code": ("deal",), "seconds": ("microseconds",), **{f: ("deal",) for f in FEATURES}}
# Dictionary columns: the file stores no arrow schema (a kilobyte a file), so the reader
# asks for them as dictionaries.
_DICTIONARIES = [f.name for f in SCHEMA if pa.types.is_dictionary(f.type)]
MAX_BUDGET = (1 << 32) - 1  # nodes and budget are stored as 32-bit counts


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
    """One row (the columns of :data:`ROW_SCHEMA`) for deal ``number`` solved as ``result`` (a
    solver :class:`~solver.Result`)."""
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
            f"workers run solver version {', '.join(sorted(versions))}, this run is version"
            f" {solver_version}: install the same halfmoon on every worker"
        )


def piece_rows(piece, budget: int) -> list[dict]:
    """The rows (as :func:`result_row` makes them) of a piece of deals solved by
    :func:`solver.solve_numbers`: the same rows as :func:`result_row` gives for each deal,
    with no work of the reference engine."""
    from solver import DEAL_FEATURES, SOLVER_VERSION, VERDICT_NAMES

    text = _MOVE_TEXT.__getitem__
    rows = []
    lines, nline = piece.lines.tolist(), piece.nline.tolist()
    features = piece.features[:, [DEAL_FEATURES.index(f) for f in FEATURES]].tolist()
    for k, (number, code, verdict, nodes, seconds, f) in enumerate(zip(
            piece.numbers.tolist(), numbers_to_codes(piece.numbers), piece.verdicts.tolist(),
            piece.nodes.tolist(), piece.seconds.tolist(), features)):
        verdict = VERDICT_NAMES[verdict]
        row = {
            "deal": number,
            "code": code,
            "verdict": verdict,
            "nodes": nodes,
            "seconds": seconds,
            "line": " ".join(map(text, lines[k][: nline[k]])) if verdict == "win" else None,
            "solver_version": SOLVER_VERSION,
            "budget": int(budget),
        }
        row.update(zip(FEATURES, f))
        rows.append(row)
    return rows


def numbers_to_codes(numbers) -> list[str]:
    """Deal codes of many numbers at once (:func:`halfmoon.game.codes.number_to_code`)."""
    nums = np.asarray(numbers, dtype=np.int64)
    letters = (nums[:, None] // _PLACES) % 26 + ord("A")
    texts = letters.astype(np.uint8).view(f"S{_PLACES.size}").ravel().astype(str).tolist()
    return [_CODE_PREFIX + s for s in texts]


class _MoveTexts(dict):
    """One of the solver's move numbers (:func:`solver.move_of`) as the results write it
    (``P5+P6``), made on first use: at most 1,330 moves."""

    def __missing__(self, number: int) -> str:
        from solver import move_of

        text = self[number] = str(move_of(number))
        return text


_MOVE_TEXT = _MoveTexts()
_PLACES = 26 ** np.arange(DIGITS - 1, -1, -1, dtype=np.int64)
_CODE_PREFIX = f"{PREFIX}-N-"


def encode_line(text: Optional[str]) -> Optional[bytes]:
    """A winning line (in the notation of :mod:`halfmoon.game.notation`) packed as results files
    store it: each move's number (:func:`~halfmoon.game.moves.move_number`) in 11 bits, most
    significant first, the last byte padded with zeros; 66 bytes for the 48 moves of a win."""
    if text is None:
        return None
    numbers = np.array([move_number(m) for m in parse_moves(text)], dtype=">u2")
    bits = np.unpackbits(numbers.view(np.uint8)).reshape(-1, 16)[:, 16 - _MOVE_BITS:]
    return np.packbits(bits.ravel()).tobytes()


def line_text(blob: Optional[bytes]) -> Optional[str]:
    """The text of a line stored by :func:`encode_line` (None stays None)."""
    if blob is None:
        return None
    moves = len(blob) * 8 // _MOVE_BITS
    bits = (np.unpackbits(np.frombuffer(blob, np.uint8))[: moves * _MOVE_BITS]
            .reshape(moves, _MOVE_BITS))
    numbers = bits.astype(np.int64) @ _MOVE_WEIGHTS
    try:
        return " ".join(_NUMBER_TEXT[k] for k in numbers.tolist())
    except IndexError:
        raise ResultsError(f"a stored line names no move ({max(numbers.tolist())})") from None


_MOVE_BITS = (MOVE_COUNT - 1).bit_length()  # 11
_MOVE_WEIGHTS = 1 << np.arange(_MOVE_BITS - 1, -1, -1, dtype=np.int64)
_NUMBER_TEXT = [format_move(move_from_number(k)) for k in range(MOVE_COUNT)]


def rows_to_table(rows: list[dict], lines: bool = True) -> pa.Table:
    """The table of :data:`SCHEMA` (format 2, as stored) of rows as :func:`result_row`
    makes them, sorted by deal; without the winning lines if ``lines`` is false."""
    rows = sorted(rows, key=lambda row: row["deal"])
    col = {name: [row[name] for row in rows] for name in COLUMNS if name not in ("code", *FEATURES)}
    micros = np.rint(np.asarray(col.pop("seconds"), dtype=np.float64) * 1e6)
    col["microseconds"] = np.clip(micros, 0, MAX_MICROSECONDS).astype(np.uint32)
    col["line"] = [encode_line(t) for t in col["line"]] if lines else [None] * len(rows)
    try:
        return pa.Table.from_pydict({f.name: _array(col[f.name], f.type) for f in SCHEMA},
                                    schema=SCHEMA)
    except (pa.ArrowInvalid, OverflowError) as exc:
        raise BatchError(f"rows do not fit the results schema ({error_text(exc)})") from None


def _array(values, type_: pa.DataType) -> pa.Array:
    if pa.types.is_dictionary(type_):
        return pa.array(values, pa.string()).dictionary_encode().cast(type_)
    return pa.array(values, type_)


def write_options() -> dict:
    """How pyarrow's ParquetWriter writes a chunk file of :data:`SCHEMA`: the deal numbers
    delta-coded (rows are sorted by deal), dictionaries for the few distinct values."""
    return dict(compression="zstd", compression_level=9, store_schema=False,
                use_dictionary=["verdict", "solver_version", "budget"],
                column_encoding={"deal": "DELTA_BINARY_PACKED", "line": "PLAIN"},
                write_statistics=["deal"])


def file_format(schema: pa.Schema) -> Optional[int]:
    """The results format (1 or 2) a Parquet file's arrow schema follows, or None.  A file
    of format 2 stores no arrow schema: its dictionaries read as plain strings, unless asked
    for as dictionaries (either way here)."""
    meta = schema.metadata or {}
    schema = _undictionaried(schema)
    if schema.equals(SCHEMA_V1, check_metadata=False):
        return 1
    if meta.get(b"halfmoon.results") == b"2" and schema.equals(_undictionaried(SCHEMA),
                                                               check_metadata=False):
        return 2
    return None


def _undictionaried(schema: pa.Schema) -> pa.Schema:
    """``schema`` with each dictionary column as a column of its values."""
    return pa.schema([pa.field(f.name,
                               f.type.value_type if pa.types.is_dictionary(f.type) else f.type,
                               f.nullable) for f in schema])


def stored_columns(version: int, columns=None) -> list[str]:
    """The stored columns of a file of format ``version`` that make the row ``columns``."""
    names = COLUMNS if columns is None else columns
    unknown = [c for c in names if c not in COLUMNS]
    if unknown:
        raise ResultsError(f"no column {unknown[0]!r} in results "
                           f"(expected some of {', '.join(COLUMNS)})")
    if version == 1:
        return list(names)
    return list(dict.fromkeys(s for c in names for s in _SOURCES_V2.get(c, (c,))))


def to_rows(table: pa.Table, version: int, columns=None) -> pa.Table:
    """The columns ``columns`` (all if None) of ``table``, read from a file of format
    ``version``, as :data:`ROW_SCHEMA` has them."""
    names = COLUMNS if columns is None else columns
    if version == 1:
        return table.select(list(names))
    out = []
    features = None
    for name in names:
        if name in FEATURES:
            if features is None:
                features = start_features(table.column("deal").to_numpy())
            out.append(pa.array(features[:, FEATURES.index(name)], ROW_SCHEMA.field(name).type))
        elif name == "code":
            out.append(pa.array(numbers_to_codes(table.column("deal").to_numpy()), pa.string()))
        elif name == "seconds":
            out.append(pa.array(table.column("microseconds").to_numpy().astype(np.float64) / 1e6))
        elif name == "line":
            out.append(pa.array([line_text(b) for b in table.column("line").to_pylist()],
                                pa.string()))
        else:
            out.append(table.column(name).cast(ROW_SCHEMA.field(name).type))
    return pa.Table.from_arrays(out, schema=pa.schema([ROW_SCHEMA.field(n) for n in names]))


def start_features(numbers) -> np.ndarray:
    """The features of :func:`deal_features` of many deal numbers, in plain numpy (nothing
    compiled: reading results never waits for the solver): an int64 array with a column per
    name of :data:`FEATURES`."""
    from halfmoon.batch.deal_arrays import START_FEATURES
    from halfmoon.batch.deal_arrays import start_features as features

    out = features(np.asarray(numbers, dtype=np.int64))
    return out[:, [START_FEATURES.index(f) for f in FEATURES]]


def chunk_files(path: Union[str, Path]) -> dict[int, Path]:
    """The finished chunk files of a results directory, by chunk index."""
    out = {}
    for entry in Path(path).iterdir():
        m = CHUNK_RE.match(entry.name)
        if m and entry.is_file():
            out[int(m.group(1))] = entry
    return dict(sorted(out.items()))


def open_chunk(path: Union[str, Path], filesystem=None,
               dictionaries: bool = False) -> tuple[pq.ParquetFile, int]:
    """A chunk file open for reading, and its format; :class:`ResultsError` if it is unusable.
    ``filesystem``: an fsspec or pyarrow filesystem holding ``path``, if not the local one;
    ``dictionaries``: the verdict and the solver version read as dictionaries (in either
    format)."""
    try:
        f = pq.ParquetFile(str(path) if filesystem is not None else path, filesystem=filesystem,
                           read_dictionary=_DICTIONARIES if dictionaries else None)
    except (OSError, pa.ArrowException) as exc:
        raise ResultsError(f"{path}: unreadable chunk file ({error_text(exc)})") from None
    version = file_format(f.schema_arrow)
    if version is None:
        f.close()
        raise ResultsError(f"{path}: chunk file does not follow the results schema")
    return f, version


def chunk_format(path: Union[str, Path], filesystem=None) -> int:
    """The results format of a chunk file (from its footer only)."""
    f, version = open_chunk(path, filesystem)
    f.close()
    return version


def read_chunk(path: Union[str, Path], columns=None, filesystem=None) -> pa.Table:
    """Read one chunk file of either format as :data:`ROW_SCHEMA`'s columns (only ``columns``
    if given; from ``filesystem``, an fsspec or pyarrow filesystem, if given), checking its
    schema; :class:`ResultsError` if it is unusable."""
    f, version = open_chunk(path, filesystem)
    try:
        with f:
            table = f.read(columns=stored_columns(version, columns))
    except (OSError, pa.ArrowException) as exc:
        raise ResultsError(f"{path}: unreadable chunk file ({error_text(exc)})") from None
    return to_rows(table, version, columns)


def check_one_format(formats: dict, where) -> Optional[int]:
    """The one format of a dataset's files (``formats``: file name -> format), or None if it has
    none; :class:`ResultsError` if they mix formats (written by two versions of halfmoon)."""
    found = sorted(set(formats.values()))
    if len(found) > 1:
        first = {v: next(n for n, fv in formats.items() if fv == v) for v in found}
        raise ResultsError(
            f"{where} mixes results formats {' and '.join(map(str, found))} "
            f"({', '.join(f'{first[v]} is format {v}' for v in found)}): a dataset is written by"
            " one version of halfmoon; solve it again into a new directory")
    return found[0] if found else None


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
    """The results in a directory (or one chunk file) of either format as a pandas DataFrame
    with :data:`ROW_SCHEMA`'s columns, sorted by deal.

    Only finished chunk files are read (temporary files and the manifest are not data).
    An unreadable chunk raises :class:`ResultsError` naming it: rerunning the batch
    command that wrote the directory solves its deals again.  So does a directory whose
    files mix formats.
    """
    p = Path(path)
    if p.is_file():
        files = [p]
    elif p.is_dir():
        files = list(chunk_files(p).values())
    else:
        raise ResultsError(f"no results at {str(path)!r}: not a directory or a file")
    check_one_format({f.name: chunk_format(f) for f in files}, p)
    tables = [read_chunk(f) for f in files]
    table = pa.concat_tables(tables) if tables else ROW_SCHEMA.empty_table()
    df = table.to_pandas()
    return df.sort_values("deal", kind="stable").reset_index(drop=True)


def error_text(exc: BaseException) -> str:
    """An exception's message on one line."""
    return " ".join(str(exc).split()) or type(exc).__name__
