"""Several runs as one: a run made on several machines or days, its statistics pooled.

    rows, runs = pooled_rows(["run-a", "run-b"])   # each deal once
    summary = pooled_summary(["run-a", "run-b"])   # stats.summarize of them, and what was pooled

Each deal counts once, however many runs hold it: a deal one run left unresolved and another
settled takes the settled verdict; one run's win and another's loss of the same deal is an
error (a solver at fault), never averaged.  Runs of different solver versions are refused:
their verdicts may not mean the same.  Runs of different budgets are pooled, and the summary
lists the budgets (a run's unresolved deals depend on its budget).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable, Sequence, Union

import pandas as pd

from halfmoon.game.errors import HalfMoonError

from .stats import Z95

COLUMNS = ["deal", "verdict", "nodes", "seconds", "budget", "solver_version"]


def run_rows(path: Union[str, Path]) -> pd.DataFrame:
    """The rows of one run (local or at a URL), :data:`COLUMNS` only, read a row group at a
    time."""
    from halfmoon.batch.results import stored_columns, to_rows

    from .scan import open_dataset

    ds = open_dataset(path)
    parts = [to_rows(g, ds.format, COLUMNS).to_pandas()
             for g in ds.row_groups(stored_columns(ds.format, COLUMNS))]
    if not parts:
        raise HalfMoonError(f"no results in {str(path)!r}: it holds no finished chunk file")
    return pd.concat(parts, ignore_index=True)


def pooled_rows(paths: Sequence[Union[str, Path]],
                read: Callable = run_rows) -> tuple[pd.DataFrame, list[dict]]:
    """The rows of the runs in ``paths``, each deal once (a settled verdict before an
    unresolved one, else the first run's row), and for each run: its path, deals, the deals
    it shares with a run before it, its budgets and solver versions.  :class:`HalfMoonError`
    for runs of different solver versions, a run named twice, or a deal won in one run and
    lost in another.  ``read`` reads a run's rows (:func:`run_rows`)."""
    if len({str(p) for p in paths}) < len(paths):
        twice = next(str(p) for i, p in enumerate(paths) if str(p) in map(str, paths[:i]))
        raise HalfMoonError(f"{twice} is named twice: each run is pooled once")
    frames, runs = [], []
    for k, path in enumerate(paths):
        df = read(path).assign(run=k)
        frames.append(df)
        runs.append({"results": str(path), "deals": len(df),
                     "budgets": sorted(int(b) for b in df["budget"].unique()),
                     "solver_versions": sorted(str(v) for v in df["solver_version"].unique())})
    versions = {v for r in runs for v in r["solver_versions"]}
    if len(versions) > 1:
        said = "; ".join(f"{r['results']}: {', '.join(r['solver_versions'])}" for r in runs)
        raise HalfMoonError(f"runs of different solver versions ({said}): their verdicts may "
                            "not mean the same, so they are not pooled; solve them again with "
                            "one version")
    rows = pd.concat(frames, ignore_index=True)
    settled = rows["verdict"].isin(["win", "loss"])
    both = rows[settled].groupby("deal")["verdict"].nunique()
    if (both > 1).any():
        deal = int(both[both > 1].index[0])
        where = rows.loc[(rows["deal"] == deal) & settled, ["run", "verdict"]]
        said = ", ".join(f"{runs[r]['results']}: {v}" for r, v in zip(where["run"],
                                                                        where["verdict"]))
        raise HalfMoonError(f"deal {deal} is won in one run and lost in another ({said}): "
                            "check it with 'halfmoon solve --engine cpsat'")
    seen: set = set()
    for k, df in enumerate(frames):
        deals = set(df["deal"].tolist())
        runs[k]["shared"] = len(deals & seen)
        seen |= deals
    # settled rows first, then by run: the first row of each deal is the one kept
    order = rows.assign(_unsettled=~settled).sort_values(["_unsettled", "run"], kind="stable")
    kept = order.drop_duplicates("deal").sort_values(["run"], kind="stable")
    return kept.drop(columns=["_unsettled"]).reset_index(drop=True), runs


def pooled_summary(paths: Sequence[Union[str, Path]], z: float = Z95) -> dict:
    """:func:`.stats.summarize` of the runs in ``paths`` pooled (:func:`pooled_rows`), with
    ``pooled``: the runs, the deals counted once that more than one held, and the unresolved
    rows another run settled."""
    from .stats import summarize

    rows, runs = pooled_rows(paths)
    total = sum(r["deals"] for r in runs)
    s = summarize(rows, z)
    s["pooled"] = {"runs": runs, "rows": total, "deals_counted_once": total - len(rows)}
    return s


# --- several runs as one run: the census the findings of pooled runs are derived from ---
POOLED_DIR = "_pooled"  # in the findings' --out: the pooled run (a results directory)


def _stored_rows(path: Union[str, Path]) -> pd.DataFrame:
    """The rows of one run with their winning lines as results files store them (packed,
    :func:`~halfmoon.batch.results.encode_line`), a row group at a time."""
    from halfmoon.batch.results import encode_line, stored_columns, to_rows

    from .scan import open_dataset

    ds = open_dataset(path)
    parts = []
    for g in ds.row_groups(stored_columns(ds.format, COLUMNS + ["line"])):
        df = to_rows(g, ds.format, COLUMNS).to_pandas()
        lines = g.column("line").to_pylist()
        df["line"] = lines if ds.format == 2 else [encode_line(t) for t in lines]
        parts.append(df)
    return pd.concat(parts, ignore_index=True)


def pooled_run(paths: Sequence[Union[str, Path]]) -> tuple[pd.DataFrame, dict]:
    """The finished runs in ``paths`` as one run: its rows (each deal once, as
    :func:`pooled_rows` keeps them, with their packed lines) and the manifest of a results
    directory holding them, whose source (``{"kind": "pooled", "runs": [...]}``) names each
    run by what it was made of (its source, deals, budget and start), not where it lies.
    :class:`HalfMoonError` for a run not finished, or runs of different budgets (a page
    states one budget; ``halfmoon stats`` pools them)."""
    import hashlib

    from halfmoon.batch.results import MAX_MICROSECONDS
    from halfmoon.batch.state import run_state

    manifests = []
    for path in paths:
        st = run_state(path)
        if st.manifest is None:
            raise HalfMoonError(f"{path}: not a results directory (no manifest)")
        if not st.finished:
            raise HalfMoonError(f"{path}: the run is not finished; findings pool finished runs "
                                "(rerun its batch command, which goes on where it stopped)")
        manifests.append(st.manifest)
    rows, runs = pooled_rows(paths, _stored_rows)
    budgets = {b for r in runs for b in r["budgets"]}
    if len(budgets) > 1:
        said = "; ".join(f"{r['results']}: {', '.join(f'{b:,}' for b in r['budgets'])}"
                         for r in runs)
        raise HalfMoonError(f"runs of different budgets ({said}): findings state one budget, so "
                            "they are not pooled ('halfmoon stats' pools them)")
    rows = rows.drop(columns=["run"]).sort_values("deal", kind="stable").reset_index(drop=True)
    numbers = rows["deal"].to_numpy(dtype="<i8")
    # the times as results files store them (whole microseconds, up to their bound)
    micros = (rows["seconds"].to_numpy() * 1e6).round().clip(0, MAX_MICROSECONDS)
    rows["microseconds"] = micros.astype("uint32")
    content = hashlib.sha256(numbers.tobytes() + micros.astype("<i8").tobytes()
                             + rows["nodes"].to_numpy(dtype="<i8").tobytes()
                             + "".join(v[0] for v in rows["verdict"]).encode())
    keep = ("source", "deals", "budget", "created", "lines", "chunk_size", "read_from")
    made = [{k: m[k] for k in keep if k in m} for m in manifests]
    counts = rows["verdict"].value_counts()
    manifest = {
        "format": 2,
        "lines": "all" if all(m.get("lines", "all") == "all" for m in manifests) else "none",
        "solver_version": runs[0]["solver_versions"][0],
        "budget": int(budgets.pop()),
        "deals": {"count": len(rows), "sha256": hashlib.sha256(numbers.tobytes()).hexdigest()},
        "source": {"kind": "pooled", "runs": [{**m, "shared": r["shared"]}
                                              for m, r in zip(made, runs)]},
        "rows_sha256": content.hexdigest(),
        "read_from": [str(p) for p in paths],
        "created": max(str(m.get("created", "")) for m in manifests),
        "status": "complete",
        "counts": {v: int(counts.get(v, 0)) for v in ("win", "loss", "unresolved")},
    }
    return rows, manifest


def write_pooled(rows: pd.DataFrame, manifest: dict, folder: Union[str, Path]) -> bool:
    """The pooled run of :func:`pooled_run` written as a results directory at ``folder``
    (its chunk file, then its manifest, each whole); False, writing nothing, where ``folder``
    already holds these rows.  A cut write leaves the old manifest, whose rows differ: the
    next call writes again."""
    import pyarrow as pa

    from halfmoon.batch.directory import chunk_name, write_tables
    from halfmoon.batch.results import (
        CHUNK_RE,
        MANIFEST_NAME,
        SCHEMA,
        load_manifest,
    )
    from halfmoon.batch.store import location

    folder = Path(folder)
    try:
        old = load_manifest(folder) if (folder / MANIFEST_NAME).is_file() else None
    except HalfMoonError:  # an unreadable manifest: written again
        old = None
    if old is not None and all(old.get(k) == manifest.get(k)
                               for k in ("source", "deals", "rows_sha256", "budget")):
        return False
    where = location(folder)
    where.make()
    cols = {"deal": rows["deal"].to_numpy(dtype="int64"), "verdict": rows["verdict"].tolist(),
            "nodes": rows["nodes"].to_numpy(dtype="uint32"),
            "microseconds": rows["microseconds"].to_numpy(),
            "line": rows["line"].tolist() if manifest["lines"] == "all" else [None] * len(rows),
            "solver_version": rows["solver_version"].astype(str).tolist(),
            "budget": rows["budget"].to_numpy(dtype="uint32")}
    arrays = [pa.array(cols[f.name], f.type.value_type).dictionary_encode().cast(f.type)
              if pa.types.is_dictionary(f.type) else pa.array(cols[f.name], f.type)
              for f in SCHEMA]
    table = pa.Table.from_arrays(arrays, schema=SCHEMA)
    name = chunk_name(0)
    where.write(name, lambda f: write_tables(f, [table]))
    for other in where.names():
        if CHUNK_RE.match(other) and other != name:
            where.delete(other)
    text = json.dumps(manifest, indent=2) + "\n"
    where.write(MANIFEST_NAME, lambda f: f.write(text.encode("utf-8")))
    return True
