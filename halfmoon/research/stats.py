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
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Iterable, Iterator, Optional, Union

import numpy as np
import pandas as pd

# the file format's names; FEATURES also for the report and the notebooks (stats.FEATURES)
from halfmoon.batch.results import FEATURES as FEATURES
from halfmoon.batch.results import VERDICTS
from halfmoon.game.deal import Deal
from halfmoon.game.errors import HalfMoonError

Z95 = 1.96  # the 97.5 % quantile of the normal law, rounded as usual
QUANTILES = (0.5, 0.9, 0.99)
# the confidence of the intervals a z left out (None) gives: 0.95 unless a caller asks another
# for what it computes (:func:`at_confidence`: the findings, their page, charts and data)
_CONFIDENCE = [0.95]


@contextmanager
def at_confidence(confidence: float) -> Iterator[float]:
    """Within it, every interval whose z is left out is at ``confidence`` (a share in (0, 1),
    a ValueError outside); its z is given."""
    z = z_of(confidence)
    _CONFIDENCE.append(float(confidence))
    try:
        yield z
    finally:
        _CONFIDENCE.pop()


def current_confidence() -> float:
    """The confidence of the intervals now (0.95 outside :func:`at_confidence`)."""
    return _CONFIDENCE[-1]


def current_z(z: Optional[float] = None) -> float:
    """``z`` where given, else the z of :func:`current_confidence`."""
    return z_of(_CONFIDENCE[-1]) if z is None else z


def confidence_words(confidence: Optional[float] = None) -> str:
    """A confidence as a page says it: ``95 %``, ``99 %``, ``99.9 %`` (default: the current)."""
    c = current_confidence() if confidence is None else float(confidence)
    return f"{round(100 * c, 4):g} %"


# --- intervals ---------------------------------------------------------------------
def wilson_bounds(k, n, z: Optional[float] = None):
    """Vectorised Wilson score interval of ``k`` successes in ``n`` trials (arrays or numbers).

    Where ``n`` is 0 the interval is (0, 1).
    """
    z = current_z(z)
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        z2n = z * z / n
        denom = 1.0 + z2n
        centre = (p + z2n / 2.0) / denom
        half = z * np.sqrt(p * (1.0 - p) / n + z2n / (4.0 * n)) / denom
        low = np.where(n > 0, np.clip(centre - half, 0.0, 1.0), 0.0)
        high = np.where(n > 0, np.clip(centre + half, 0.0, 1.0), 1.0)
    # the bounds are exact at the ends of the range, whatever the rounding
    low = np.where(k <= 0, 0.0, low)
    high = np.where((k >= n) & (n > 0), 1.0, high)
    return low, high


def wilson_interval(k: int, n: int, z: Optional[float] = None) -> tuple[float, float]:
    """The Wilson score interval (low, high) of ``k`` successes in ``n`` trials.

    ``z`` = 1.96 gives the 95 % interval; left out, the current confidence's
    (:func:`at_confidence`).  (0, 1) when ``n`` is 0.
    """
    if n < 0 or k < 0 or k > n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return 0.0, 1.0
    # wilson_bounds' steps on one pair of numbers, in its order (the same floats), without
    # its arrays (a board's opinion asks for some dozens at each look)
    z = current_z(z)
    p = k / n
    z2n = z * z / n
    denom = 1.0 + z2n
    centre = (p + z2n / 2.0) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z2n / (4.0 * n)) / denom
    low = 0.0 if k <= 0 else min(max(centre - half, 0.0), 1.0)
    high = 1.0 if k >= n else min(max(centre + half, 0.0), 1.0)
    return float(low), float(high)


def paired_difference(a: np.ndarray, b: np.ndarray,
                      z: Optional[float] = None) -> tuple[float, float, float]:
    """The difference of two win rates over paired games (``a``, ``b``: 1 a win, 0 a loss, on
    the same deals), with Newcombe's interval for paired proportions (method 10, 1998): each
    rate's Wilson interval, joined with the correlation of the pairs.  Unlike the normal
    interval of the mean difference it stays within -1..1 and is not a single point when
    every pair agrees on few deals.  (mean, low, high); nan bounds on no pairs."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    if a.shape != b.shape:
        raise ValueError(f"paired results must be as many, got {a.size} and {b.size}")
    if not (np.isin(a, (0.0, 1.0)).all() and np.isin(b, (0.0, 1.0)).all()):
        raise ValueError("paired results must be wins (1) and losses (0)")
    n = a.size
    if n == 0:
        return float("nan"), float("nan"), float("nan")
    both = int(np.sum((a == 1) & (b == 1)))
    only_a = int(np.sum((a == 1) & (b == 0)))
    only_b = int(np.sum((a == 0) & (b == 1)))
    neither = n - both - only_a - only_b
    p1, p2 = (both + only_a) / n, (both + only_b) / n
    l1, u1 = wilson_interval(both + only_a, n, z)
    l2, u2 = wilson_interval(both + only_b, n, z)
    margins = (both + only_a) * (only_b + neither) * (both + only_b) * (only_a + neither)
    cross = both * neither - only_a * only_b
    # the correlation, shrunk toward 0 by n/2 when positive (Newcombe's correction)
    cross = cross - n / 2 if cross > n / 2 else (cross if cross < 0 else 0.0)
    phi = cross / np.sqrt(float(margins)) if margins > 0 else 0.0
    d = p1 - p2
    low = d - np.sqrt(max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2))
    high = d + np.sqrt(max(0.0, (p2 - l2) ** 2 - 2 * phi * (p2 - l2) * (u1 - p1) + (u1 - p1) ** 2))
    return float(d), float(max(-1.0, low)), float(min(1.0, high))


def win_interval(wins: int, losses: int, unresolved: int,
                 z: Optional[float] = None) -> tuple[float, float]:
    """Interval of the win rate: unresolved deals as losses for the low end, as wins for the
    high."""
    n = wins + losses + unresolved
    low = wilson_interval(wins, n, z)[0]
    high = wilson_interval(wins + unresolved, n, z)[1]
    return low, high


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


def z_of(confidence: float) -> float:
    """The z of a two-sided interval of ``confidence`` (0.95 -> 1.96, to the usual two
    decimals: :data:`Z95` itself, so that 95 % intervals are the ones every page gives);
    a ValueError outside (0, 1)."""
    from statistics import NormalDist

    if not 0 < confidence < 1:
        raise ValueError(f"a confidence is a share in (0, 1), got {confidence}")
    if round(confidence, 6) == 0.95:
        return Z95
    return NormalDist().inv_cdf(0.5 + confidence / 2)


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
