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

from pathlib import Path
from typing import Sequence, Union

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


def pooled_rows(paths: Sequence[Union[str, Path]]) -> tuple[pd.DataFrame, list[dict]]:
    """The rows of the runs in ``paths``, each deal once (a settled verdict before an
    unresolved one, else the first run's row), and for each run: its path, deals, the deals
    it shares with a run before it, its budgets and solver versions.  :class:`HalfMoonError`
    for runs of different solver versions, a run named twice, or a deal won in one run and
    lost in another."""
    if len({str(p) for p in paths}) < len(paths):
        twice = next(str(p) for i, p in enumerate(paths) if str(p) in map(str, paths[:i]))
        raise HalfMoonError(f"{twice} is named twice: each run is pooled once")
    frames, runs = [], []
    for k, path in enumerate(paths):
        df = run_rows(path).assign(run=k)
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
