"""The findings' stages kept in pieces, each keyed by what it was made from.

A stage applies a function to its items (one row per deal: the deals it works on, with the
verdicts and whatever else of the run it draws from) a piece at a time, and keeps each
piece's frames under ``<work>/<stage>/``, so a stage cut off goes on where it stopped.

What the stage was made from is written beside its pieces (``_made_from.json``): the rows it
read (their count and a digest of them), the options that shaped it and the solver version.
Each piece records its own rows (a hash of each), so a later run of the stage

- on the same rows, with the same options and solver, reads every piece back;
- with other options or another solver, starts again from nothing;
- on rows that changed (the run grew, or was redone), keeps the results of the rows still
  asked for, does only the rows no piece holds, and drops the rest: a deal's results do not
  depend on the other deals of its piece, so the frames are those of the stage made afresh.

The frames come back in the order of the items (a deal's own rows in the order the function
gave them), whatever pieces they were made in.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from concurrent.futures import as_completed
from pathlib import Path
from typing import Callable, Optional

import numpy as np
import pandas as pd

from halfmoon.batch.backends import stoppable_pool

MADE_FROM = "_made_from.json"


def row_hashes(items: pd.DataFrame) -> np.ndarray:
    """A 64-bit hash of each row of ``items`` (its values, column by column)."""
    return pd.util.hash_pandas_object(items, index=False).to_numpy(np.uint64)


def made_from(items: pd.DataFrame, params: dict) -> dict:
    """What a stage made from ``items`` with ``params`` is made from: the rows (their count,
    their columns and a digest of them), the options and the solver version."""
    from solver import SOLVER_VERSION

    h = hashlib.sha256(json.dumps(list(map(str, items.columns))).encode())
    h.update(np.ascontiguousarray(row_hashes(items)).tobytes())
    return {"rows": len(items), "columns": list(map(str, items.columns)),
            "digest": h.hexdigest(), "params": json.loads(json.dumps(params)),
            "solver_version": SOLVER_VERSION}


def read_made_from(work: Path, stage: str) -> Optional[dict]:
    """What the stage kept in ``work`` was last made from (None: nothing kept, or unreadable)."""
    try:
        return json.loads((Path(work) / stage / MADE_FROM).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def rows_to_do(work: Path, stage: str, items: pd.DataFrame, params: dict) -> int:
    """How many rows of ``items`` a :func:`run_pieces` of the stage would work on now (the
    others are held by pieces made from the same options and solver), without touching
    anything: what the stage's cost is estimated from."""
    made = made_from(items, params)
    old = read_made_from(work, stage)
    if old is None or any(old.get(k) != made[k] for k in ("params", "solver_version", "columns")):
        return len(items)
    held = _held_rows(Path(work) / stage)
    return sum(int(h) not in held for h in row_hashes(items))


def _held_rows(d: Path) -> set[int]:
    """The rows' hashes the finished pieces in ``d`` hold (read only)."""
    rows: set[int] = set()
    for f in d.glob("piece-*.done"):
        try:
            rows.update(int(r) for r in json.loads(f.read_text())["rows"])
        except (OSError, ValueError, KeyError):
            continue
    return rows


def run_pieces(work: Path, stage: str, items: pd.DataFrame, fn: Callable, params: dict,
               piece: int, workers: int, progress: bool) -> dict[str, pd.DataFrame]:
    """Apply ``fn(items_piece, **params)`` (a dict of frames, each with a ``deal`` column) to
    ``items`` (a ``deal`` column, one row each) piece by piece, keeping each piece's frames
    under ``work/stage``; what pieces there hold is read back (see the module's notes)."""
    d = Path(work) / stage
    made = made_from(items, params)
    old = read_made_from(work, stage)
    if d.exists() and (old is None or any(old.get(k) != made[k]
                                          for k in ("params", "solver_version", "columns"))):
        shutil.rmtree(d)
    d.mkdir(parents=True, exist_ok=True)
    (d / MADE_FROM).write_text(json.dumps(made), encoding="utf-8")
    if len(items) == 0:  # nothing to do (a census without losses): the stage's empty frames
        return fn(items, **params)
    hashes = row_hashes(items)
    held = _held(d)
    claimed: dict[int, int] = {}  # row hash -> the piece whose results are used
    for k, rows in held.items():
        for r in rows:
            claimed.setdefault(r, k)
    todo = np.flatnonzero([int(h) not in claimed for h in hashes])
    first = max(held, default=-1) + 1
    new = {first + i: items.iloc[todo[s: s + piece]]
           for i, s in enumerate(range(0, len(todo), piece))}
    _make(d, stage, new, fn, params, workers, progress)
    for k, rows in new.items():
        for r in row_hashes(rows):
            claimed.setdefault(int(r), k)
    return _gather(d, items, hashes, claimed)


def _held(d: Path) -> dict[int, list[int]]:
    """The finished pieces in ``d`` and their rows' hashes; a piece cut off is removed."""
    held = {}
    for f in d.glob("piece-*.done"):
        try:
            held[int(f.name[6:12])] = [int(r) for r in json.loads(f.read_text())["rows"]]
        except (OSError, ValueError, KeyError):
            continue
    for f in d.glob("piece-*.parquet"):
        if int(f.name[6:12]) not in held:
            f.unlink()
    return dict(sorted(held.items()))


def _make(d: Path, stage: str, new: dict[int, pd.DataFrame], fn: Callable, params: dict,
          workers: int, progress: bool) -> None:
    """Make the pieces ``new`` (number -> rows), each kept as soon as it is done."""
    bar = None
    if progress and new:
        from halfmoon.batch.progress import counter

        bar = counter(f"findings {stage}", len(new), "pieces")

    def keep(k: int, frames: dict[str, pd.DataFrame]) -> None:
        for name, frame in frames.items():
            tmp = d / f".piece-{k:06d}.{name}.parquet"
            frame.to_parquet(tmp, index=False)
            os.replace(tmp, d / f"piece-{k:06d}.{name}.parquet")
        rows = {"rows": [str(r) for r in row_hashes(new[k])]}
        (d / f"piece-{k:06d}.done").write_text(json.dumps(rows), encoding="utf-8")
        if bar is not None:
            bar.update(1)

    if workers > 1 and len(new) > 1:
        with stoppable_pool(workers) as pool:  # Ctrl-C stops the workers too
            futures = {pool.submit(fn, rows, **params): k for k, rows in new.items()}
            for fut in as_completed(futures):
                keep(futures[fut], fut.result())
    else:
        for k, rows in new.items():
            keep(k, fn(rows, **params))
    if bar is not None:
        bar.close()


def _gather(d: Path, items: pd.DataFrame, hashes: np.ndarray,
            claimed: dict[int, int]) -> dict[str, pd.DataFrame]:
    """The frames of the rows asked for, each from the piece that holds it, in the items'
    order; pieces no row asked for any more are removed."""
    by_piece: dict[int, list[int]] = {}
    for deal, h in zip(items["deal"].to_numpy().tolist(), hashes.tolist()):
        by_piece.setdefault(claimed[int(h)], []).append(int(deal))
    for f in d.glob("piece-*"):
        if int(f.name[6:12]) not in by_piece:
            f.unlink()
    names = sorted({p.name.split(".")[1] for p in d.glob("piece-*.parquet")})
    order = pd.Series(np.arange(len(items)), index=items["deal"].to_numpy())
    out = {}
    for name in names:
        parts = []
        for k, deals in sorted(by_piece.items()):
            path = d / f"piece-{k:06d}.{name}.parquet"
            if path.exists():
                f = pd.read_parquet(path)
                parts.append(f[f["deal"].isin(deals)])
        frame = pd.concat(parts, ignore_index=True)
        at = np.argsort(order.loc[frame["deal"].to_numpy()].to_numpy(), kind="stable")
        out[name] = frame.iloc[at].reset_index(drop=True)
    return out
