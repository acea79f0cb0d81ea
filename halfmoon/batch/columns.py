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

import numpy as np
import pyarrow as pa

from halfmoon.game.moves import move_number

from .errors import BatchError
from .results import MAX_BUDGET, MAX_MICROSECONDS, SCHEMA, error_text

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


def piece_table(piece, budget: int, solver_version: str, lines: bool = True) -> pa.Table:
    """The table of :data:`.results.SCHEMA` (format 2, as stored) of a piece solved by
    :func:`solver.solve_numbers`, sorted by deal; without the winning lines if ``lines`` is
    false.  :class:`.errors.BatchError` if a count does not fit the file's columns."""
    from solver import VERDICT_NAMES

    order = np.argsort(piece.numbers, kind="stable")
    n = order.size
    codes = np.asarray(piece.verdicts)[order]
    win = next(c for c, name in VERDICT_NAMES.items() if name == "win")
    nodes = np.asarray(piece.nodes)[order]
    if n and (nodes.min() < 0 or nodes.max() > MAX_BUDGET or not 0 <= budget <= MAX_BUDGET):
        raise BatchError(f"rows do not fit the results schema (positions or budget over"
                         f" {MAX_BUDGET:,})")
    micros = np.rint(np.asarray(piece.seconds, np.float64)[order] * 1e6)
    columns = {
        "deal": pa.array(np.asarray(piece.numbers, np.int64)[order]),
        "verdict": _verdicts(codes, VERDICT_NAMES),
        "nodes": pa.array(nodes.astype(np.uint32)),
        "microseconds": pa.array(np.clip(micros, 0, MAX_MICROSECONDS).astype(np.uint32)),
        "line": _lines(piece, order, codes == win) if lines else pa.nulls(n, pa.binary()),
        "solver_version": pa.DictionaryArray.from_arrays(pa.array(np.zeros(n, np.int8)),
                                                         pa.array([solver_version])),
        "budget": pa.array(np.full(n, budget, np.uint32)),
    }
    try:
        return pa.Table.from_pydict(columns, schema=SCHEMA)
    except (pa.ArrowInvalid, OverflowError) as exc:  # pragma: no cover - checked above
        raise BatchError(f"rows do not fit the results schema ({error_text(exc)})") from None


def _verdicts(codes: np.ndarray, names: dict) -> pa.DictionaryArray:
    """The verdict column: a dictionary of the names in the order they first appear (as
    ``dictionary_encode`` makes it), so that the files come out the same."""
    found, first = np.unique(codes, return_index=True)
    seen = found[np.argsort(first)]
    index = np.zeros(codes.size, np.int8)
    for k, code in enumerate(seen.tolist()):
        index[codes == code] = k
    try:
        dictionary = pa.array([names[c] for c in seen.tolist()], pa.string())
    except KeyError as exc:
        raise BatchError(f"the solver gave an unknown verdict code {exc.args[0]}") from None
    return pa.DictionaryArray.from_arrays(pa.array(index), dictionary)


def _lines(piece, order: np.ndarray, won: np.ndarray) -> pa.Array:
    """The line column: each win's moves packed (:func:`pack_lines`), null for the others."""
    n = order.size
    rows = order[won]
    counts = np.zeros(n, np.int64)
    counts[won] = np.asarray(piece.nline)[rows]
    width = int(counts.max()) if n else 0
    numbers = np.zeros((n, width), np.uint16)
    if rows.size and width:
        moves = np.asarray(piece.lines)[rows, :width]
        played = np.arange(width) < counts[won][:, None]
        some = np.zeros(moves.shape, np.uint16)
        some[played] = _move_numbers(moves[played])
        numbers[won] = some
    offsets, data = pack_lines(numbers, counts)
    validity = pa.py_buffer(np.packbits(won, bitorder="little"))
    return pa.Array.from_buffers(pa.binary(), n, [validity, pa.py_buffer(offsets),
                                                  pa.py_buffer(data)],
                                 null_count=int(n - won.sum()))
