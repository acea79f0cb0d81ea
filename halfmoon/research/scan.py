"""Summaries of a results dataset of any size, streamed: a row group at a time, only the
columns needed, from a local directory or any fsspec URL the batch writes to.

:func:`summarize` gives what :func:`halfmoon.research.stats.summarize` gives on the whole
dataset loaded in pandas, the same numbers, in memory bounded by a row group and a few
histograms, however many rows there are.  Quantiles are exact (numpy's linear method, as
pandas computes them): the order statistics they need are found by radix selection on the
values' bit patterns, 16 bits a pass, the values left in the chosen bins gathered and
sorted once they are few.  A dataset of format 2 takes two passes; one of format 1
(float64 times) up to four.
"""

from __future__ import annotations

import math
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Optional, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from halfmoon.batch.results import (
    CHUNK_RE,
    ResultsError,
    check_one_format,
    chunk_format,
    error_text,
    open_chunk,
    stored_columns,
)
from halfmoon.game.errors import HalfMoonError

from .stats import QUANTILES, VERDICTS, Z95, summary_of

if TYPE_CHECKING:
    import pandas as pd

BITS = 16  # bits of a key resolved by each pass
GATHER = 1 << 22  # values at most gathered and sorted in one pass (32 MiB of keys)
THREADS = 2  # files read at once: pyarrow decompresses while numpy counts


# --- the files ----------------------------------------------------------------------
@dataclass
class Dataset:
    """The finished chunk files of a results dataset, local or at an fsspec URL, and their
    format."""

    where: object  # a halfmoon.batch.store location
    names: list[str]
    format: int

    def label(self) -> str:
        return str(self.where)

    def row_groups(self, columns: list[str]) -> Iterator[pa.Table]:
        """The stored ``columns`` of every row group, file after file (:data:`THREADS` files
        read ahead), each a table of its own."""

        def read(name):
            path, fs = self.where.file(name)
            f, _ = open_chunk(path, fs, dictionaries=True)
            try:
                with f:
                    return [f.read_row_group(i, columns=columns) for i in range(f.num_row_groups)]
            except (OSError, pa.ArrowException) as exc:
                raise ResultsError(f"{self.where.label(name)}: unreadable chunk file "
                                   f"({error_text(exc)})") from None

        with ThreadPoolExecutor(THREADS) as pool:
            pending = []
            names = iter(self.names)
            for name in names:
                pending.append(pool.submit(read, name))
                if len(pending) >= THREADS:
                    break
            while pending:
                groups = pending.pop(0).result()
                nxt = next(names, None)
                if nxt is not None:
                    pending.append(pool.submit(read, nxt))
                yield from groups


def open_dataset(path: Union[str, Path]) -> Dataset:
    """The results dataset at ``path`` (a directory, ``file://…`` or an fsspec URL);
    :class:`HalfMoonError` if there is none there or its files mix formats."""
    from halfmoon.batch.errors import BatchError
    from halfmoon.batch.store import location

    try:
        where = location(path)
        if where.is_local and not where.path.is_dir():
            what = "a file, not a results directory" if where.path.exists() else "no such directory"
            raise HalfMoonError(f"no results at {str(path)!r}: {what}")
        names = sorted(n for n in where.names() if CHUNK_RE.match(n))
    except BatchError as exc:
        raise HalfMoonError(str(exc)) from None
    except HalfMoonError:
        raise
    except Exception as exc:  # an object store's own errors
        raise HalfMoonError(f"cannot read {path}: {error_text(exc)}") from None
    if not names:
        raise HalfMoonError(f"no results in {str(path)!r}: it holds no finished chunk file")

    def fmt(name):
        return name, chunk_format(*where.file(name))

    with ThreadPoolExecutor(8) as pool:  # footers only; an object store answers slowly
        formats = dict(pool.map(fmt, names))
    return Dataset(where, names, check_one_format(formats, path))


# --- exact order statistics in passes -----------------------------------------------
@dataclass
class _Column:
    """One numeric column being summarized: its keys are unsigned integers in the order of
    its values (the values themselves, or a float's bit pattern)."""

    name: str
    count: int = 0
    total: float = 0  # the values' sum (an exact int for whole numbers)
    top: int = -1  # the largest key
    # per wanted rank: (lo, width bits, rank within [lo, lo + 2**width))
    targets: dict = field(default_factory=dict)
    found: dict = field(default_factory=dict)  # rank -> key
    hist: dict = field(default_factory=dict)  # (lo, width) -> counts of its sub-bins
    gathered: dict = field(default_factory=dict)  # (lo, width) -> list of key arrays
    sizes: dict = field(default_factory=dict)  # (lo, width) -> keys counted there by the last pass


def _keys(array: np.ndarray) -> np.ndarray:
    """Unsigned keys in the order of ``array``'s values (values >= 0)."""
    if array.dtype.kind == "f":
        # -0.0 -> 0.0; positive floats sort as their bits
        return (array.astype(np.float64) + 0.0).view(np.uint64)
    if array.dtype.kind == "u" and array.dtype.itemsize <= 4:
        return array  # 32-bit counts stay 32-bit: half the memory traffic
    return array.astype(np.uint64, copy=False)


def _value(key: int, kind: str, scale: float) -> float:
    if kind == "f":
        return float(np.array([key], np.uint64).view(np.float64)[0])
    return key / scale if scale != 1 else float(key)


class _Selector:
    """The order statistics of some columns, found in passes over their row groups."""

    def __init__(self, widths: dict[str, int]):
        """``widths``: per column, the bits of its keys if known in advance (32 for a 32-bit
        column: its top bits are counted in the first pass), else 0."""
        self.cols = {n: _Column(n) for n in widths}
        for n, w in widths.items():
            if w:
                self.cols[n].hist[(0, w)] = np.zeros(1 << min(w, BITS), np.int64)

    def first(self, name: str, keys: np.ndarray, values_sum: float) -> None:
        c = self.cols[name]
        c.count += keys.size
        c.total += values_sum
        if keys.size:
            c.top = max(c.top, int(keys.max()))
            self.scan(name, keys)

    def want(self, ranks: dict[str, set[int]]) -> None:
        """After the first pass: the ranks (0-based) of each column to find."""
        for name, rs in ranks.items():
            c = self.cols[name]
            counted = next(iter(c.hist), None)
            width = counted[1] if counted else max(1, int(c.top).bit_length())
            for r in rs:
                c.targets[r] = (0, width, r)
            if counted:
                self._settle(c)

    def pending(self) -> bool:
        return any(c.targets for c in self.cols.values())

    def plan(self) -> None:
        """Before a pass: for each range holding a wanted rank, gather its keys if the last
        pass counted few enough there, else count them in up to 2**BITS sub-bins."""
        for c in self.cols.values():
            c.hist, c.gathered = {}, {}
            for lo, width, _ in c.targets.values():
                if (lo, width) in c.hist or (lo, width) in c.gathered:
                    continue
                if c.sizes.get((lo, width), math.inf) <= GATHER:
                    c.gathered[(lo, width)] = []
                else:
                    c.hist[(lo, width)] = np.zeros(1 << min(width, BITS), np.int64)

    def scan(self, name: str, keys: np.ndarray) -> None:
        c = self.cols[name]
        if not (len(c.hist) > 1 and len({w for _, w in c.hist}) == 1
                and self._scan_together(c, keys)):
            self._count_each(c, keys)
        for (lo, width), parts in c.gathered.items():
            sel = _within(keys, lo, width)
            if sel.size:
                parts.append(sel.astype(np.uint64))

    @staticmethod
    def _count_each(c: _Column, keys: np.ndarray) -> None:
        """Count the sub-bins of each range, one range at a time."""
        for (lo, width), h in c.hist.items():
            sub = width - min(width, BITS)
            sel = _within(keys, lo, width)
            h += np.bincount(_ints((sel - lo if lo else sel) >> sub), minlength=h.size)

    @staticmethod
    def _scan_together(c: _Column, keys: np.ndarray) -> bool:
        """Count the sub-bins of several ranges of one width in one go: each key's range is
        looked up in a table of the ranges' numbers (they are below 2**(BITS + 1) after the
        first narrowing, where most keys are); False, counting nothing, where they are not."""
        ranges = list(c.hist)
        width = ranges[0][1]
        ids = [lo >> width for lo, _ in ranges]
        if max(ids) >= 1 << (BITS + 1) or width > 63:
            return False
        table = np.full(1 << (BITS + 1), -1, np.intp)
        table[ids] = np.arange(len(ids))
        rid = keys >> width
        if c.top >> width < table.size:  # every key's range is in the table
            slot = table[rid]
        else:
            inside = rid < table.size
            slot = np.full(keys.size, -1, np.intp)
            slot[inside] = table[rid[inside]]
        mine = slot >= 0
        sub = width - min(width, BITS)
        bins = 1 << min(width, BITS)
        low = _ints((keys[mine] & ((1 << width) - 1)) >> sub)
        counts = np.bincount(slot[mine] * bins + low,
                             minlength=len(ids) * bins).reshape(len(ids), bins)
        for k, key in enumerate(ranges):
            c.hist[key] += counts[k]
        return True

    def settle(self) -> None:
        """After a pass: narrow each wanted rank to a sub-bin, or read it off the gathered keys."""
        for c in self.cols.values():
            self._settle(c)

    @staticmethod
    def _settle(c: _Column) -> None:
        sizes = {}
        for r, (lo, width, rank) in list(c.targets.items()):
            if (lo, width) in c.gathered:
                parts = c.gathered[(lo, width)]
                c.found[r] = int(np.sort(np.concatenate(parts))[rank])
                del c.targets[r]
                continue
            h = c.hist[(lo, width)]
            cum = np.cumsum(h)
            b = int(np.searchsorted(cum, rank, side="right"))
            before = int(cum[b - 1]) if b else 0
            sub = width - min(width, BITS)
            if sub == 0:  # a bin is one key
                c.found[r] = lo + b
                del c.targets[r]
            else:
                c.targets[r] = (lo + (b << sub), sub, rank - before)
                sizes[(lo + (b << sub), sub)] = int(h[b])
        c.sizes = sizes
        c.hist, c.gathered = {}, {}


def _distinct(column) -> list:
    """The distinct values of a column that nearly always has one (a budget, a version)."""
    chunks = column.chunks
    if len(chunks) == 1 and pa.types.is_dictionary(column.type) and len(chunks[0].dictionary) == 1:
        return chunks[0].dictionary.to_pylist() if len(column) else []
    if pa.types.is_integer(column.type):
        lo_hi = pc.min_max(column).as_py()
        if lo_hi["min"] is None:
            return []
        if lo_hi["min"] == lo_hi["max"]:
            return [lo_hi["min"]]
    return pc.unique(column).to_pylist()


def _ints(a: np.ndarray) -> np.ndarray:
    """Bins as bincount takes them: 32-bit unsigned as they are, wider ones as intp."""
    return a if a.dtype.itemsize <= 4 else a.astype(np.intp)


def _within(keys: np.ndarray, lo: int, width: int) -> np.ndarray:
    """The keys in [lo, lo + 2**width), ``lo`` a multiple of 2**width."""
    if width >= keys.dtype.itemsize * 8:
        return keys
    return keys[(keys >> width) == (lo >> width)]


def _quantile(stat: dict[int, float], n: int, q: float) -> float:
    """numpy's linear quantile from the order statistics ``stat`` (rank -> value)."""
    h = np.float64(n - 1) * np.float64(q)
    k = int(np.floor(h))
    gamma = h - np.floor(h)
    a = np.float64(stat[k])
    b = np.float64(stat[min(k + 1, n - 1)])
    diff = b - a
    return float(b - diff * (1 - gamma) if gamma >= 0.5 else a + diff * gamma)


def _ranks(n: int) -> set[int]:
    out = set()
    for q in QUANTILES:
        k = int(np.floor(np.float64(n - 1) * np.float64(q)))
        out.update({k, min(k + 1, n - 1)})
    return out


# --- the summary --------------------------------------------------------------------
def summarize(path: Union[str, Path], z: float = Z95, dataset: Optional[Dataset] = None) -> dict:
    """The summary :func:`halfmoon.research.stats.summarize` makes, streamed from the dataset
    at ``path`` (local or an fsspec URL) in bounded memory."""
    ds = open_dataset(path) if dataset is None else dataset
    seconds_col = "seconds" if ds.format == 1 else "microseconds"
    scale = 1.0 if ds.format == 1 else 1e6
    kind = {"seconds": "f" if ds.format == 1 else "u", "nodes": "u"}
    # format 2's counts are 32-bit: their top bits are counted in the first pass
    sel = _Selector({"seconds": 0 if ds.format == 1 else 32, "nodes": 0 if ds.format == 1 else 32})
    verdicts: Counter = Counter()
    budgets: set = set()
    versions: set = set()
    columns = stored_columns(ds.format, ["verdict", "nodes", "seconds", "budget", "solver_version"])
    for t in ds.row_groups(columns):
        for d in pc.value_counts(t["verdict"]).to_pylist():
            verdicts[d["values"]] += d["counts"]
        budgets.update(_distinct(t["budget"]))
        versions.update(_distinct(t["solver_version"]))
        secs = t[seconds_col].to_numpy()
        nodes = t["nodes"].to_numpy()
        # format 2's microseconds are summed exactly, as whole numbers (Python ints do not overflow)
        sel.first("seconds", _keys(secs), float(np.sum(secs, dtype=np.float64)) if scale == 1 else
                  int(np.sum(secs, dtype=np.uint64)))
        sel.first("nodes", _keys(nodes), float(np.sum(nodes.astype(np.float64))))
    unknown = set(verdicts) - set(VERDICTS)
    if unknown:
        raise HalfMoonError(f"unknown verdicts in results: {', '.join(sorted(map(str, unknown)))}")
    n = sel.cols["nodes"].count
    if n:
        sel.want({"seconds": _ranks(n), "nodes": _ranks(n)})
    while sel.pending():
        sel.plan()
        for t in ds.row_groups([seconds_col, "nodes"]):
            sel.scan("seconds", _keys(t[seconds_col].to_numpy()))
            sel.scan("nodes", _keys(t["nodes"].to_numpy()))
        sel.settle()

    def quantiles(name: str) -> dict:
        c = sel.cols[name]
        if not n:
            return {"mean": math.nan, **{f"p{round(q * 100)}": math.nan for q in QUANTILES},
                    "max": math.nan}
        stat = {r: _value(k, kind[name], scale if name == "seconds" else 1.0)
                for r, k in c.found.items()}
        total = c.total if name != "seconds" or scale == 1 else c.total / scale
        out = {"mean": total / n}
        for q in QUANTILES:
            out[f"p{round(q * 100)}"] = _quantile(stat, n, q)
        out["max"] = _value(c.top, kind[name], scale if name == "seconds" else 1.0)
        return out

    seconds = quantiles("seconds")
    seconds["total"] = sel.cols["seconds"].total / (1 if scale == 1 else scale)
    summary = summary_of({v: int(verdicts.get(v, 0)) for v in VERDICTS}, seconds,
                         quantiles("nodes"), budgets, versions, z)
    summary["format"] = ds.format
    return summary


RUN_ORDER = "the run's order (its chunks as the run lists them, each chunk's deals by number)"


def run_order(path: Union[str, Path]) -> np.ndarray:
    """The deal numbers of the results in ``path`` in the run's own order: its chunk files in
    order (each a slice of the run's list of deals: a range in order, a random sample as drawn),
    each file's rows as stored (by deal number).  The order in which the findings count the
    win rate as the sample grows, so that every chart of it draws the same curve."""
    from halfmoon.batch.results import stored_columns, to_rows

    ds = open_dataset(path)
    parts = [(to_rows(t, 2, ["deal"]) if ds.format == 2 else t)["deal"].to_numpy()
             for t in ds.row_groups(stored_columns(ds.format, ["deal"]))]
    return np.concatenate(parts).astype(np.int64) if parts else np.zeros(0, np.int64)


def in_run_order(df: pd.DataFrame, path: Union[str, Path]) -> pd.DataFrame:
    """The rows of ``df`` (results loaded from ``path``) in the run's own order
    (:func:`run_order`); rows of deals not in ``path`` after them, by deal."""
    import pandas as pd

    run = run_order(path)
    at = pd.Series(np.arange(len(run)), index=run).reindex(df["deal"].to_numpy())
    at = at.to_numpy(dtype=float)
    at[np.isnan(at)] = len(run) + np.arange(int(np.isnan(at).sum()))
    return df.iloc[np.argsort(at, kind="stable")].reset_index(drop=True)
