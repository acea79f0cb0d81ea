"""A solved piece of deals as the columns of a results file, straight from the solver's arrays.

:func:`solver.solve_numbers` gives a piece as columns (verdict codes, positions, seconds,
each win's moves as the solver's move numbers); :func:`piece_table` turns them into the
table of :data:`.results.SCHEMA` that a chunk file stores, with no Python object per deal:
the moves are renumbered as the files number them (:func:`halfmoon.game.moves.move_number`)
through a small table of the moves seen so far, and packed 11 bits a move by numpy.  The
table is the one :func:`.results.rows_to_table` makes of the same deals' rows (the tests hold
the two together), so the files are the same, byte for byte.
"""

from __future__ import annotations

import functools
from typing import NamedTuple, Sequence

import numpy as np
import pyarrow as pa

from halfmoon.game.moves import move_number

from .errors import BatchError
from .results import MAX_BUDGET, MAX_MICROSECONDS, ROW_GROUP_ROWS, SCHEMA, VERDICTS

_MOVE_BITS = 11  # as encode_line packs a move


class _MoveNumbers:
    """The files' move number of each of the solver's move numbers, learnt as they come (at
    most 1,330 moves, each looked up once: :func:`solver.move_of`)."""

    def __init__(self) -> None:
        self.keys = np.zeros(0, np.uint64)  # the solver's numbers, sorted
        self.values = np.zeros(0, np.uint16)  # the files' numbers of the same moves

    def __call__(self, moves: np.ndarray) -> np.ndarray:
        """The files' numbers of the solver's ``moves`` (an array of any shape)."""
        moves = np.asarray(moves, np.uint64)
        at = np.searchsorted(self.keys, moves)
        known = at < self.keys.size
        known[known] = self.keys[at[known]] == moves[known]
        if not known.all():
            self._learn(np.unique(moves[~known]))
            at = np.searchsorted(self.keys, moves)
        return self.values[at]

    def _learn(self, moves: np.ndarray) -> None:
        from solver import move_of

        keys = np.concatenate([self.keys, moves])
        values = np.concatenate([self.values, np.array([move_number(move_of(int(m)))
                                                        for m in moves], np.uint16)])
        order = np.argsort(keys)
        self.keys, self.values = keys[order], values[order]


_move_numbers = _MoveNumbers()


def pack_lines(numbers: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The lines of ``numbers`` (a row a line, the files' move numbers; row ``k`` has
    ``counts[k]`` moves) packed as :func:`.results.encode_line` packs one: (offsets of each
    line's bytes, int32, one more than the lines; the bytes, uint8)."""
    n, width = numbers.shape
    counts = np.asarray(counts, np.int64)
    if n == 0 or width == 0:
        return np.zeros(n + 1, np.int32), np.zeros(0, np.uint8)
    keep = np.arange(width) < counts[:, None]
    big = np.where(keep, numbers, 0).astype(">u2")
    bits = np.unpackbits(big.view(np.uint8).reshape(n, width, 2), axis=2)[:, :, 16 - _MOVE_BITS:]
    packed = np.packbits(bits.reshape(n, width * _MOVE_BITS), axis=1)
    nbytes = (counts * _MOVE_BITS + 7) // 8
    offsets = np.zeros(n + 1, np.int32)
    np.cumsum(nbytes, out=offsets[1:])
    return offsets, packed[np.arange(packed.shape[1]) < nbytes[:, None]]


class Solved(NamedTuple):
    """A solved piece as a worker sends it: a few arrays, one row a deal, in the piece's
    order (no Python object per deal)."""

    numbers: np.ndarray  # int64
    verdicts: np.ndarray  # the solver's verdict codes (solver.VERDICT_NAMES), int8
    nodes: np.ndarray  # int64
    seconds: np.ndarray  # float64
    nline: np.ndarray  # moves of each win's line (0 for the others), int64
    lines: np.ndarray  # the wins' lines, the solver's move numbers: a row a win, uint64

    def to_bytes(self) -> bytes:
        """The arrays as one string of bytes (what a worker sends: one object to pickle)."""
        head = np.array([self.numbers.size, *self.lines.shape], np.int64)
        return b"".join(a.tobytes() for a in (head, self.numbers, self.verdicts, self.nodes,
                                               self.seconds, self.nline, self.lines))

    @classmethod
    def from_bytes(cls, data: bytes) -> "Solved":
        """The arrays of :meth:`to_bytes`'s bytes."""
        n, wins, width = np.frombuffer(data[:24], np.int64).tolist() if len(data) >= 24 \
            else (0, 0, -1)
        sizes = [n if count is None else wins * width for _, count in _LAYOUT]
        want = 24 + sum(k * np.dtype(t).itemsize for k, (t, _) in zip(sizes, _LAYOUT))
        if min(n, wins, width) < 0 or len(data) != want:
            raise BatchError(f"a solved piece of {len(data)} bytes does not hold its arrays")
        at, out = 24, []
        for (dtype, _), size in zip(_LAYOUT, sizes):
            out.append(np.frombuffer(data, dtype, size, at))
            at += size * np.dtype(dtype).itemsize
        return cls(*out[:-1], out[-1].reshape(wins, width))


# the arrays of Solved as to_bytes lays them out: (type, None for one a deal)
_LAYOUT = ((np.int64, None), (np.int8, None), (np.int64, None), (np.float64, None),
           (np.int64, None), (np.uint64, "lines"))


def solved(piece, lines: bool = True) -> Solved:
    """The arrays of a piece solved by :func:`solver.solve_numbers` that a results file
    needs; without the winning lines if ``lines`` is false."""
    from solver import VERDICT_NAMES

    codes = np.asarray(piece.verdicts)
    won = codes == _code_of(VERDICT_NAMES, "win")
    if lines:
        nline = np.where(won, piece.nline, 0).astype(np.int64)
        moves = np.asarray(piece.lines, np.uint64)[won, :int(nline.max()) if nline.size else 0]
    else:
        nline, moves = np.zeros(codes.size, np.int64), np.zeros((0, 0), np.uint64)
    return Solved(np.asarray(piece.numbers, np.int64), codes.astype(np.int8),
                  np.asarray(piece.nodes, np.int64), np.asarray(piece.seconds, np.float64),
                  nline, moves)


def verdict_counts(part: Solved) -> tuple[int, ...]:
    """Deals of each verdict (in the order of :data:`.results.VERDICTS`) of a solved piece."""
    counts = tuple(int(np.count_nonzero(part.verdicts == code)) for code in _verdict_codes())
    if sum(counts) != part.verdicts.size:
        bad = sorted(set(part.verdicts.tolist()) - set(_verdict_codes()))
        raise BatchError(f"the solver gave an unknown verdict code {bad[0]}")
    return counts


@functools.lru_cache(maxsize=1)
def _verdict_codes() -> tuple[int, ...]:
    """The solver's codes of :data:`.results.VERDICTS`, in that order."""
    from solver import VERDICT_NAMES

    return tuple(_code_of(VERDICT_NAMES, name) for name in VERDICTS)


def _code_of(names: dict, name: str) -> int:
    return next(c for c, n in names.items() if n == name)


def piece_table(piece, budget: int, solver_version: str, lines: bool = True) -> pa.Table:
    """The table of :data:`.results.SCHEMA` (format 2, as stored) of a piece solved by
    :func:`solver.solve_numbers`, sorted by deal; without the winning lines if ``lines`` is
    false.  :class:`.errors.BatchError` if a count does not fit the file's columns."""
    return chunk_tables([solved(piece, lines)], budget, solver_version)[0]


def chunk_tables(parts: Sequence[Solved], budget: int, solver_version: str) -> list[pa.Table]:
    """The tables of :data:`.results.SCHEMA` of a chunk's solved pieces ``parts`` (in the
    chunk's order), one per row group of its file: the row groups, their order by deal and
    their dictionaries exactly as :func:`.directory.write_tables` makes them of the pieces'
    own tables, built in one go for many pieces."""
    from solver import VERDICT_NAMES

    groups, group, rows = [], [], 0
    for part in parts:  # write_tables closes a row group once it holds ROW_GROUP_ROWS rows
        group.append(part)
        rows += part.numbers.size
        if rows >= ROW_GROUP_ROWS:
            groups.append(group)
            group, rows = [], 0
    if group or not groups:
        groups.append(group)
    return [_group_table(g, budget, solver_version, VERDICT_NAMES) for g in groups]


def _group_table(parts: Sequence[Solved], budget: int, solver_version: str,
                 names: dict) -> pa.Table:
    numbers = _cat([p.numbers for p in parts], np.int64)
    codes = _cat([p.verdicts for p in parts], np.int8)
    nodes = _cat([p.nodes for p in parts], np.int64)
    n = numbers.size
    if n and (nodes.min() < 0 or nodes.max() > MAX_BUDGET or not 0 <= budget <= MAX_BUDGET):
        raise BatchError(f"rows do not fit the results schema (positions or budget over"
                         f" {MAX_BUDGET:,})")
    # a piece's table is sorted by deal, and the dictionaries of the pieces' tables unified in
    # the pieces' order: the verdicts' dictionary is in the order they first appear so
    seen = _cat([p.verdicts[np.argsort(p.numbers, kind="stable")] for p in parts], np.int8)
    order = np.argsort(numbers, kind="stable")
    micros = np.rint(_cat([p.seconds for p in parts], np.float64)[order] * 1e6)
    columns = [
        pa.array(numbers[order]),
        _verdicts(codes[order], seen, names),
        pa.array(nodes[order].astype(np.uint32)),
        pa.array(np.clip(micros, 0, MAX_MICROSECONDS).astype(np.uint32)),
        _lines(parts, order),
        pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int8)),
                                       pa.array([solver_version])),
        pa.array(np.full(n, budget, np.uint32)),
    ]
    return pa.Table.from_arrays(columns, schema=SCHEMA)


def _cat(arrays: list, dtype) -> np.ndarray:
    return np.concatenate(arrays).astype(dtype, copy=False) if arrays else np.zeros(0, dtype)


def _verdicts(codes: np.ndarray, seen: np.ndarray, names: dict) -> pa.DictionaryArray:
    """The verdict column of ``codes``, its dictionary in the order the codes first appear in
    ``seen`` (as ``dictionary_encode`` and ``unify_dictionaries`` make it)."""
    found, first = np.unique(seen, return_index=True)
    ordered = found[np.argsort(first)]
    lookup = np.zeros(256, np.int8)
    lookup[ordered.astype(np.uint8)] = np.arange(ordered.size, dtype=np.int8)
    try:
        dictionary = pa.array([names[c] for c in ordered.tolist()], pa.string())
    except KeyError as exc:
        raise BatchError(f"the solver gave an unknown verdict code {exc.args[0]}") from None
    return pa.DictionaryArray.from_arrays(pa.array(lookup[codes.astype(np.uint8)]), dictionary)


def _lines(parts: Sequence[Solved], order: np.ndarray) -> pa.Array:
    """The line column: each win's moves packed (:func:`pack_lines`), null for the others."""
    n = order.size
    counts = _cat([p.nline for p in parts], np.int64)
    won = counts > 0
    width = max((p.lines.shape[1] for p in parts), default=0)
    moves = np.zeros((int(won.sum()), width), np.uint64)
    at = 0
    for p in parts:  # the pieces' lines, each as wide as its longest
        moves[at:at + p.lines.shape[0], :p.lines.shape[1]] = p.lines
        at += p.lines.shape[0]
    numbers = np.zeros((n, width), np.uint16)
    if moves.size:
        played = np.arange(width) < counts[won][:, None]
        some = np.zeros(moves.shape, np.uint16)
        some[played] = _move_numbers(moves[played])
        numbers[won] = some
    counts, numbers, won = counts[order], numbers[order], won[order]
    offsets, data = pack_lines(numbers, counts)
    validity = pa.py_buffer(np.packbits(won, bitorder="little"))
    return pa.Array.from_buffers(pa.binary(), n, [validity, pa.py_buffer(offsets),
                                                  pa.py_buffer(data)],
                                 null_count=int(n - won.sum()))
