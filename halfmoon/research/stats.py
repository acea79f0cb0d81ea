"""Statistics of a results dataset: win rates with Wilson intervals, difficulty.

A results dataset is what ``halfmoon batch`` writes (schema in :mod:`halfmoon.batch.results`):
one row per deal with its verdict (``win``, ``loss`` or ``unresolved`` when the
solver's budget ran out), the positions searched (``nodes``), the time, and a few
features of the starting position.

Unresolved deals are neither wins nor losses, so the interval of the win rate is
taken wide enough for both: its lower end is the Wilson bound with every unresolved
deal counted as a loss, its upper end the Wilson bound with every one counted as a
win.  With no unresolved deal it is the plain 95 % Wilson interval.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable, Optional, Union

import numpy as np
import pandas as pd

# the file format's names; FEATURES also for the report and the notebooks (stats.FEATURES)
from halfmoon.batch.results import FEATURES as FEATURES
from halfmoon.batch.results import VERDICTS
from halfmoon.game.deal import Deal
from halfmoon.game.errors import HalfMoonError

from .intervals import Z95 as Z95
from .intervals import at_confidence as at_confidence
from .intervals import confidence_words as confidence_words
from .intervals import current_confidence as current_confidence
from .intervals import current_z as current_z
from .intervals import paired_difference as paired_difference
from .intervals import wilson_bounds as wilson_bounds
from .intervals import wilson_interval as wilson_interval
from .intervals import win_interval as win_interval
from .intervals import z_of as z_of

QUANTILES = (0.5, 0.9, 0.99)
# --- loading -----------------------------------------------------------------------
def load(path: Union[str, Path]) -> pd.DataFrame:
    """The results dataset in ``path``; :class:`HalfMoonError` if there is none there."""
    from halfmoon.batch.results import load_results

    p = Path(path)
    if not p.exists():
        raise HalfMoonError(f"no results at {str(path)!r}: no such directory")
    df = load_results(p)
    if df.empty:
        raise HalfMoonError(f"no results in {str(path)!r}: it holds no finished chunk file")
    return df


def make_sample(
    path: Union[str, Path], numbers: Iterable[int] = range(100), budget: int = 100_000
) -> Path:
    """Solve deal ``numbers`` into a results directory ``path`` with the batch library
    (in this process, no progress bar): a small dataset for notebooks and tests."""
    from halfmoon.batch import DealList, deals_from_range, run_batch

    if isinstance(numbers, range) and numbers.step == 1 and len(numbers):
        deals = deals_from_range(numbers.start, numbers.stop)
    else:
        nums = [int(n) for n in numbers]
        deals = DealList(nums, {"kind": "numbers", "count": len(nums)})
    run_batch(deals, path, budget=budget, workers=1, progress=False)
    return Path(path)


def load_or_make(
    path: Union[str, Path], numbers: Iterable[int] = range(100), budget: int = 100_000
) -> pd.DataFrame:
    """The results in ``path``; if there are none yet, a small sample is made there first."""
    p = Path(path)
    try:
        return load(p)
    except HalfMoonError:
        make_sample(p, numbers, budget)
        return load(p)


# --- summaries ---------------------------------------------------------------------
def verdict_counts(df: pd.DataFrame) -> dict[str, int]:
    counts = df["verdict"].value_counts()
    unknown = set(counts.index) - set(VERDICTS)
    if unknown:
        raise HalfMoonError(f"unknown verdicts in results: {', '.join(sorted(map(str, unknown)))}")
    return {v: int(counts.get(v, 0)) for v in VERDICTS}


def _quantiles(series: pd.Series) -> dict[str, float]:
    if series.empty:
        return {"mean": math.nan, **{f"p{round(q * 100)}": math.nan for q in QUANTILES},
                "max": math.nan}
    out = {"mean": float(series.mean())}
    for q in QUANTILES:
        out[f"p{round(q * 100)}"] = float(series.quantile(q))
    out["max"] = float(series.max())
    return out


def summarize(df: pd.DataFrame, z: Optional[float] = None) -> dict:
    """The summary of a results dataset, as plain Python values (ready for JSON).

    ``win_rate`` is wins / deals; ``win_rate_resolved`` is wins / (wins + losses);
    ``ci_low`` / ``ci_high`` bound the win rate with unresolved deals counted as
    losses / as wins.  ``seconds`` and ``nodes`` hold the mean, quantiles and maximum
    (``seconds`` also the total).
    """
    seconds = _quantiles(df["seconds"])
    seconds["total"] = float(df["seconds"].sum())
    return summary_of(
        verdict_counts(df), seconds, _quantiles(df["nodes"].astype(float)),
        df["budget"].unique() if "budget" in df else [],
        df["solver_version"].unique() if "solver_version" in df else [], z)


def summary_of(counts: dict, seconds: dict, nodes: dict, budgets, versions,
               z: Optional[float] = None) -> dict:
    """The summary's dict (see :func:`summarize`) from its parts: the verdict counts, the
    times' and positions' figures, the budgets and solver versions seen."""
    c, z = counts, current_z(z)
    deals = c["win"] + c["loss"] + c["unresolved"]
    low, high = win_interval(c["win"], c["loss"], c["unresolved"], z)
    resolved = c["win"] + c["loss"]
    return {
        "deals": deals,
        "wins": c["win"],
        "losses": c["loss"],
        "unresolved": c["unresolved"],
        "win_rate": c["win"] / deals if deals else math.nan,
        "win_rate_resolved": c["win"] / resolved if resolved else math.nan,
        "ci_low": low,
        "ci_high": high,
        "confidence": round(math.erf(z / math.sqrt(2)), 4),
        "seconds": seconds,
        "nodes": nodes,
        "budgets": sorted(int(b) for b in budgets),
        "solver_versions": sorted(str(v) for v in versions),
    }


def format_summary(summary: dict, source: Optional[str] = None) -> str:
    """The plain-text summary printed by ``halfmoon stats``."""
    s = summary
    n = s["deals"]

    def pct(x: float) -> str:
        return "  n/a" if x != x else f"{100 * x:6.2f} %"

    lines = []
    if source:
        fmt = f" (results format {s['format']})" if s.get("format") else ""
        lines.append(f"results     {source}{fmt}")
    run = s.get("run") or {}
    if run.get("source"):
        lines.append(f"deals of    {run['source']}")
    # an unfinished or live run says so before any figure
    lines += [f"NOTE        {note}" for note in run.get("notes", [])]
    if s.get("pooled"):
        lines += pooled_lines(s)
    if s.get("solver_versions"):
        budgets = ", ".join(f"{b:,}" for b in s["budgets"])
        lines.append(f"solver      version {', '.join(s['solver_versions'])}, "
                     f"budget {budgets} positions")
    lines += [
        f"deals       {n:>9,}",
        f"wins        {s['wins']:>9,}   {pct(s['wins'] / n if n else math.nan)}",
        f"losses      {s['losses']:>9,}   {pct(s['losses'] / n if n else math.nan)}",
        f"unresolved  {s['unresolved']:>9,}   {pct(s['unresolved'] / n if n else math.nan)}",
        f"win rate    {pct(s['win_rate'])}   {100 * s.get('confidence', 0.95):g} % interval "
        f"{pct(s['ci_low']).strip()} – "
        f"{pct(s['ci_high']).strip()}"
        + ("  (unresolved as losses – as wins)" if s["unresolved"] else "  (Wilson)"),
    ]
    sec, nod = s["seconds"], s["nodes"]
    lines.append("time a deal " + "  ".join(f"{k} {duration(sec[k])}" for k in ("p50", "p90", "p99",
                                                                                 "max"))
                 + f"  (all deals {duration(sec['total'])})")
    lines.append("positions   " + "  ".join(f"{k} {nod[k]:,.0f}" if nod[k] == nod[k] else f"{k} n/a"
                                          for k in ("p50", "p90", "p99", "max")))
    if s.get("provenance"):
        from .provenance import provenance_words

        lines.append(f"made by     {provenance_words(s['provenance'])}")
    return "\n".join(lines) + "\n"


def duration(seconds: Optional[float]) -> str:
    """A time in a person's units: milliseconds below a second, to three significant digits
    with their trailing zeros (``0.0340 ms`` beside ``0.0349 ms``), else seconds with
    thousands separators; ``'n/a'`` for None or NaN."""
    if seconds is None or seconds != seconds:
        return "n/a"
    ms = 1000 * seconds
    if ms < 999.5:  # below what rounds to 1,000 ms
        if ms == 0:
            return "0 ms"
        return f"{ms:#.3g}".rstrip(".") + " ms" if ms >= 0.001 else "< 0.001 ms"
    return f"{seconds:,.1f} s" if seconds < 1000 else f"{seconds:,.0f} s"


def win_rate_by(df: pd.DataFrame, by: Union[str, pd.Series],
                z: Optional[float] = None) -> pd.DataFrame:
    """Win rate and its interval for each value of a feature (a column name or a Series).

    One row per value, sorted: ``deals, wins, losses, unresolved, win_rate, ci_low,
    ci_high`` (unresolved deals handled as in :func:`summarize`).
    """
    key = df[by] if isinstance(by, str) else by
    counts = pd.crosstab(key, df["verdict"]).reindex(columns=list(VERDICTS), fill_value=0)
    out = pd.DataFrame(
        {
            "deals": counts.sum(axis=1),
            "wins": counts["win"],
            "losses": counts["loss"],
            "unresolved": counts["unresolved"],
        }
    )
    out["win_rate"] = out["wins"] / out["deals"]
    out["ci_low"] = wilson_bounds(out["wins"], out["deals"], z)[0]
    out["ci_high"] = wilson_bounds(out["wins"] + out["unresolved"], out["deals"], z)[1]
    out.columns.name = None
    return out.sort_index()


def running_win_rate(df: pd.DataFrame, z: Optional[float] = None) -> pd.DataFrame:
    """The win rate and its interval as the sample grows, deals taken in the order of ``df``.

    Columns: ``n, wins, unresolved, win_rate, ci_low, ci_high``.
    """
    win = (df["verdict"] == "win").to_numpy().astype(np.int64)
    unr = (df["verdict"] == "unresolved").to_numpy().astype(np.int64)
    n = np.arange(1, len(df) + 1)
    wins = np.cumsum(win)
    unresolved = np.cumsum(unr)
    return pd.DataFrame(
        {
            "n": n,
            "wins": wins,
            "unresolved": unresolved,
            "win_rate": wins / n,
            "ci_low": wilson_bounds(wins, n, z)[0],
            "ci_high": wilson_bounds(wins + unresolved, n, z)[1],
        }
    )


# --- difficulty --------------------------------------------------------------------
def nodes_by(df: pd.DataFrame, by: Union[str, pd.Series]) -> pd.DataFrame:
    """Positions searched for each value of a feature: count, median, 90th percentile, max."""
    key = df[by] if isinstance(by, str) else by
    g = df["nodes"].groupby(key)
    return pd.DataFrame(
        {"deals": g.size(), "median": g.median(), "p90": g.quantile(0.9), "max": g.max()}
    )


def hardest(df: pd.DataFrame, n: int = 10) -> pd.DataFrame:
    """The ``n`` deals that took the most positions to settle (or to give up on)."""
    cols = [c for c in ("deal", "code", "verdict", "nodes", "seconds") if c in df]
    return df.nlargest(n, "nodes")[cols].reset_index(drop=True)


@dataclass(frozen=True)
class FirstMoves:
    """How many legal first moves keep a deal winnable."""

    moves: int
    winnable: int
    losing: int
    unresolved: int
    verdict: str  # of the deal itself


def first_move_winnability(deal: Union[Deal, str, int], budget: int = 100_000,
                           verdict: Optional[str] = None) -> FirstMoves:
    """Solve the position after each legal first move (``budget`` positions each).

    A deal where few first moves keep it winnable is hard to start well; one where
    every move does is forgiving.  Moves whose solve ran out of budget are counted
    in ``unresolved``.  ``verdict``: the deal's own, where a run settled it (its budget
    larger than ``budget``): kept as the deal's verdict, never "unresolved"; of a deal proved
    lost every first move loses (a move from a lost position leads to a lost one), so none
    is solved again.
    """
    from halfmoon.game.engine import Game
    from halfmoon.game.inputs import as_deal

    from .analysis import analyse

    if verdict == "loss":
        n = len(list(Game(as_deal(deal)).legal_moves))
        return FirstMoves(moves=n, winnable=0, losing=n, unresolved=0, verdict="loss")
    a = analyse(deal, budget=budget)
    verdicts = [m.verdict for m in a.moves]
    return FirstMoves(
        moves=len(verdicts),
        winnable=verdicts.count("win"),
        losing=verdicts.count("loss"),
        unresolved=verdicts.count("unresolved"),
        verdict=a.verdict if verdict in (None, "unresolved") else verdict,
    )


def first_move_table(numbers: Iterable[int], budget: int = 100_000,
                     verdicts: Optional[dict] = None) -> pd.DataFrame:
    """:func:`first_move_winnability` for several deal numbers, one row each; ``verdicts``:
    each deal's verdict in the run (deal number -> verdict), kept as the row's.  The share of
    the first moves that keep the win is known only where every move was settled
    (``winnable_share``, NaN where some were not); ``winnable_low`` and ``winnable_high``
    bound it, the unresolved moves counted as losing, then as winning (of a won deal, one
    move at least keeps the win)."""
    rows = []
    for n in numbers:
        f = first_move_winnability(int(n), budget, (verdicts or {}).get(int(n)))
        rows.append({"deal": int(n), **asdict(f)})
    df = pd.DataFrame(rows, columns=["deal", "moves", "winnable", "losing", "unresolved",
                                     "verdict"])
    moves = df["moves"].where(df["moves"] > 0)
    won = (df["verdict"] == "win") & (df["moves"] > 0)
    df["winnable_low"] = df["winnable"].where(~won, df["winnable"].clip(lower=1)) / moves
    df["winnable_high"] = (df["winnable"] + df["unresolved"]) / moves
    df["winnable_share"] = df["winnable_low"].where(df["unresolved"] == 0)
    return df


def pooled_lines(s: dict) -> list[str]:
    """The pooled runs in words, for ``halfmoon stats`` of several runs."""
    p = s["pooled"]
    lines = [f"pooled      {len(p['runs'])} runs, {p['rows']:,} rows: each deal counted once "
             f"({p['deals_counted_once']:,} held by more than one run)"]
    for r in p["runs"]:
        shared = f", {r['shared']:,} of them in a run before" if r["shared"] else ""
        lines.append(f"  run       {r['results']}: {r['deals']:,} deals{shared}, budget "
                     f"{', '.join(f'{b:,}' for b in r['budgets'])}")
    return lines
