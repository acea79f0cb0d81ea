"""The counting stages of the findings, streamed from a census of any size.

One pass over the census's row groups (:class:`halfmoon.research.scan.Dataset`: a local
directory or an fsspec URL) counts everything the findings state about the census as a
whole — verdicts, the dead-on-arrival rate, the loss rate by feature, the deals by
positions searched, the hardest deals, the running win rate — and draws the samples the
other stages work on, in memory bounded by a row group, the samples and the losses (the
deadlock stage solves each loss, so it holds them anyway).

**The sample order.**  The census's deals are taken in the order of a keyed hash of their
numbers, :func:`sample_keys`: the SplitMix64 finaliser of ``deal + seed * GOLDEN``, a
bijection of 64-bit integers, so no two deals tie and the order is a uniformly random
permutation as far as any statistic here can tell.  "The first n deals" are the n deals of
smallest key: a sample of any size is kept in a bounded buffer as the rows stream past,
and is the same however the census's files are cut.

**The run's order.**  The win rate as the sample grows is counted in the run's own order
(:data:`.scan.RUN_ORDER`: its chunk files in order, each file's rows as stored), as the
report and the notebooks draw it: its points are the run's first n deals, at sizes spaced
evenly on a log scale.
"""

from __future__ import annotations

import functools
import math
import os
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Union

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from halfmoon.game.errors import HalfMoonError

from .stats import VERDICTS, wilson_bounds, wilson_interval

FEATURES = ("start_moves", "top_faces", "reserve_faces", "free_classes",
            "same_pile_copies", "max_pile_faces")
NODE_BINS = np.array([0, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000])
NODE_QUANTILES = (("median", 0.5), ("p99", 0.99), ("p99.9", 0.999), ("max", 1.0))
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
LOSS_COLUMNS = ["deal", "verdict", "nodes", *FEATURES]
_READ = ["deal", "verdict", "nodes", "seconds", "solver_version", "budget",
         "start_moves", "reserve_faces", "top_faces", "free_classes"]


class FindingsError(HalfMoonError):
    """A census cannot be used for findings."""


def sample_keys(deals: np.ndarray, seed: int) -> np.ndarray:
    """The keys of the sample order of ``seed``: distinct for distinct deal numbers."""
    with np.errstate(over="ignore"):
        x = np.asarray(deals, np.int64).view(np.uint64) + np.uint64(seed % (1 << 64)) * GOLDEN
        x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


def running_thresholds(n: int, points: int = 60) -> np.ndarray:
    """Sample sizes spaced evenly on a log scale from 30 (or 1) deals to all ``n``: the points
    of the running win rate (the run's first so many deals); the last (all deals) is left
    implicit."""
    if n < 2:
        return np.zeros(0, np.int64)
    sizes = np.unique(np.geomspace(min(30, n), n, points).astype(np.int64))
    return sizes[sizes < n]


class Smallest:
    """The ``k`` rows of smallest key seen so far, with their payload columns."""

    def __init__(self, k: int, names: tuple[str, ...]):
        self.k, self.names = int(k), names
        self.keys = np.zeros(0, np.uint64)
        self.cols = {n: np.zeros(0, np.int64) for n in names}
        self._parts: list = []
        self._held = 0

    def add(self, keys: np.ndarray, **cols: np.ndarray) -> None:
        if self.k <= 0 or not keys.size:
            return
        self._parts.append((keys, cols))
        self._held += keys.size
        if self._held > max(2 * self.k, 1 << 18):
            self._trim()

    def _trim(self) -> None:
        if not self._parts:
            return
        keys = np.concatenate([self.keys, *(k for k, _ in self._parts)])
        cols = {n: np.concatenate([self.cols[n], *(c[n] for _, c in self._parts)])
                for n in self.names}
        if keys.size > self.k:
            keep = np.argpartition(keys, self.k - 1)[: self.k]
            keys, cols = keys[keep], {n: c[keep] for n, c in cols.items()}
        self.keys, self.cols = keys, cols
        self._parts, self._held = [], keys.size

    def frame(self) -> pd.DataFrame:
        """The rows kept, in key order (the sample order)."""
        self._trim()
        order = np.argsort(self.keys, kind="stable")
        return pd.DataFrame({n: self.cols[n][order] for n in self.names})


@dataclass
class Census:
    """What one pass over a census gives (see the module's docstring)."""

    summary: dict
    features: pd.DataFrame
    difficulty: pd.DataFrame
    hardest: pd.DataFrame  # deal, verdict, nodes, seconds: the most positions searched
    win_rate: pd.DataFrame  # n, wins, win_rate, ci_low, ci_high
    losses: pd.DataFrame  # LOSS_COLUMNS, by deal
    players: pd.DataFrame  # deal, verdict: the first deals in the sample order
    winnable: pd.DataFrame  # deal: the first winnable deals in the sample order
    recheck: pd.DataFrame  # deal: the first deals in the order of seed + 1


def open_census(path: Union[str, Path], complete: bool = True):
    """The dataset of the census at ``path`` (a directory or an fsspec URL) and its manifest;
    :class:`FindingsError` if there is none, or (with ``complete``) if it has not finished."""
    from halfmoon.batch.results import MANIFEST_NAME, ResultsError, manifest_from_text
    from halfmoon.batch.store import location

    from .scan import open_dataset

    where = location(path)
    if where.is_local and not where.path.is_dir():
        raise FindingsError(f"no census at {str(path)!r}: not a directory")
    try:
        text = where.read_text(MANIFEST_NAME)
        manifest = None if text is None else manifest_from_text(text, where.label(MANIFEST_NAME))
    except ResultsError as exc:
        raise FindingsError(str(exc)) from None
    if manifest is None:
        raise FindingsError(f"{path}: not a results directory (no {MANIFEST_NAME})")
    expected = int(manifest.get("deals", {}).get("count", 0))
    if complete and manifest.get("status") != "complete":
        raise FindingsError(f"{path}: the census is not finished (its manifest says "
                            f"{manifest.get('status')!r} for {expected:,} deals); rerun its batch "
                            "command, which goes on where it stopped")
    try:
        ds = open_dataset(path)
    except HalfMoonError as exc:
        if complete:
            raise FindingsError(f"{path}: the census is not finished (0 of {expected:,} deals); "
                                "rerun its batch command, which goes on where it stopped") from None
        raise FindingsError(str(exc)) from None
    return ds, manifest


def count_census(path: Union[str, Path], *, seed: int = 2026, players_deals: int = 100_000,
                 forgiveness_deals: int = 10_000, recheck_share: float = 0.01, hardest: int = 20,
                 points: int = 60, dataset=None, manifest: Optional[dict] = None,
                 partial: bool = False) -> Census:
    """One pass over the census at ``path``: its counts and its samples (``partial``: of the
    deals a run not finished holds so far, else an error if it is not finished)."""
    from halfmoon.batch.results import stored_columns, to_rows
    from solver import DEAL_FEATURES, LAYOUT_FEATURES

    from .scan import _keys, _quantile, _Selector

    if dataset is None:
        dataset, manifest = open_census(path, complete=not partial)
    ds = dataset
    planned = int((manifest or {}).get("deals", {}).get("count", 0))
    expected = dataset_rows(ds) if partial else planned
    thresholds = running_thresholds(expected, points)
    recheck_k = int(round(recheck_share * expected))
    players = Smallest(players_deals, ("deal", "verdict"))
    winnable = Smallest(forgiveness_deals, ("deal",))
    recheck = Smallest(recheck_k, ("deal",))
    top = _Top(hardest)
    verdicts = np.zeros(len(VERDICTS), np.int64)
    run_all = np.zeros(thresholds.size + 1, np.int64)
    run_won = np.zeros(thresholds.size + 1, np.int64)
    decades = np.zeros((len(NODE_BINS) - 1, len(VERDICTS)), np.int64)
    feat_all = {f: np.zeros(0, np.int64) for f in FEATURES}
    feat_lost = {f: np.zeros(0, np.int64) for f in FEATURES}
    losses, versions, budget, seconds, micros, doa, zero = [], Counter(), 0, 0.0, 0, 0, 0
    seen = 0  # rows counted so far, in the run's order
    sel = _Selector({"nodes": 0 if ds.format == 1 else 32})
    columns = stored_columns(ds.format, _READ)
    at = [[*DEAL_FEATURES, *LAYOUT_FEATURES].index(f) for f in FEATURES]  # deal_features' columns
    for raw in ds.row_groups(columns):
        t = to_rows(raw, 2, _READ[:6]) if ds.format == 2 else raw
        deals = t["deal"].to_numpy()
        feats = deal_features(deals)
        if ds.format == 1:  # as stored
            for i, f in enumerate(DEAL_FEATURES):
                feats[:, i] = t[f].to_numpy()
        code = _verdict_codes(t["verdict"])
        nodes = t["nodes"].to_numpy()
        verdicts += np.bincount(code, minlength=len(VERDICTS))
        doa += int((feats[:, DEAL_FEATURES.index("start_moves")] == 0).sum())
        zero += int((nodes == 0).sum())
        if ds.format == 2:  # whole microseconds, summed exactly
            micros += int(np.sum(raw["microseconds"].to_numpy(), dtype=np.uint64))
        else:
            seconds += float(np.sum(t["seconds"].to_numpy(), dtype=np.float64))
        for d in pc.value_counts(t["solver_version"]).to_pylist():
            versions[str(d["values"])] += int(d["counts"])
        budget = max(budget, int(pc.max(t["budget"]).as_py()))
        sel.first("nodes", _keys(nodes), 0)
        lost = code == 1
        for f, col in zip(FEATURES, at):
            v = feats[:, col]
            feat_all[f] = _add_counts(feat_all[f], np.bincount(v))
            feat_lost[f] = _add_counts(feat_lost[f], np.bincount(v[lost]))
        idx = np.searchsorted(NODE_BINS, nodes, side="right") - 1
        ok = idx < decades.shape[0]
        np.add.at(decades, (idx[ok], code[ok]), 1)
        keys = sample_keys(deals, seed)
        # each deal's place in the run's order: how many of the samples are too small to hold it
        slot = np.searchsorted(thresholds, seen + np.arange(deals.size), side="right")
        seen += deals.size
        won = code == 0
        run_all += np.bincount(slot, minlength=run_all.size)
        run_won += np.bincount(slot[won], minlength=run_won.size)
        players.add(keys, deal=deals, verdict=code)
        winnable.add(keys[won], deal=deals[won])
        recheck.add(sample_keys(deals, seed + 1), deal=deals)
        top.add(deals, code, nodes, t["seconds"].to_numpy())
        if lost.any():  # kept narrow: a census's losses are many
            losses.append((deals[lost], nodes[lost].astype(np.int64),
                           feats[lost][:, at].astype(np.int16)))
    n = int(verdicts.sum())
    if manifest is not None and n != expected and not partial:
        raise FindingsError(f"{ds.label()}: the census is not finished ({n:,} of {expected:,} "
                            "deals); rerun its batch command, which goes on where it stopped")
    if verdicts[3:].any():
        raise FindingsError(f"{ds.label()}: unknown verdicts in results")
    c = dict(zip(VERDICTS, map(int, verdicts)))
    ranks = {min(int(np.floor(np.float64(n - 1) * np.float64(q))) + d, n - 1)
             for _, q in NODE_QUANTILES for d in (0, 1)} if n else set()
    if n:
        sel.want({"nodes": ranks})
    while sel.pending():
        sel.plan()
        for g in ds.row_groups(["nodes"]):
            sel.scan("nodes", _keys(g["nodes"].to_numpy()))
        sel.settle()
    stat = {r: float(k) for r, k in sel.cols["nodes"].found.items()}
    low, high = wilson_interval(c["win"], n) if not c["unresolved"] and n else (math.nan, math.nan)
    dlow, dhigh = wilson_interval(doa, n)
    summary = {
        "deals": n, "wins": c["win"], "losses": c["loss"], "unresolved": c["unresolved"],
        "win_rate": c["win"] / n if n else math.nan, "win_low": low, "win_high": high,
        "dead_on_arrival": doa, "doa_rate": doa / n if n else math.nan,
        "doa_low": dlow, "doa_high": dhigh,
        "solver_versions": sorted(versions), "budget": budget,
        "version_rows": {v: int(k) for v, k in sorted(versions.items())},
        "planned": planned, "partial": n < planned, "zero_positions": zero,
        "win_rate_order": "run",  # the running win rate's order (older findings: the sample's)
        "seconds": seconds if ds.format == 1 else micros / 1e6,
        "nodes": {k: _quantile(stat, n, q) if n else math.nan for k, q in NODE_QUANTILES},
    }
    sizes, wins = np.cumsum(run_all), np.cumsum(run_won)
    keep = sizes > 0
    sizes, wins = sizes[keep], wins[keep]
    sizes, first = np.unique(sizes, return_index=True)
    wins = wins[first]
    rlow, rhigh = wilson_bounds(wins, sizes)
    ldeal = np.concatenate([x[0] for x in losses]) if losses else np.zeros(0, np.int64)
    order = np.argsort(ldeal, kind="stable")
    lnodes = np.concatenate([x[1] for x in losses])[order] if losses else np.zeros(0, np.int64)
    lfeat = (np.concatenate([x[2] for x in losses])[order] if losses
             else np.zeros((0, len(FEATURES)), np.int16))
    lf = pd.DataFrame({"deal": ldeal[order], "verdict": "loss", "nodes": lnodes,
                       **{f: lfeat[:, i].astype(np.int16 if f == "start_moves" else np.int8)
                          for i, f in enumerate(FEATURES)}})
    del losses, lfeat
    pf = players.frame()
    pf["verdict"] = np.array(VERDICTS, object)[pf["verdict"].to_numpy()]
    return Census(
        summary=summary, features=_feature_table(feat_all, feat_lost),
        difficulty=pd.DataFrame({"nodes_from": NODE_BINS[:-1], "nodes_below": NODE_BINS[1:],
                                 "wins": decades[:, 0], "losses": decades[:, 1],
                                 "unresolved": decades[:, 2]}),
        hardest=top.frame(),
        win_rate=pd.DataFrame({"n": sizes, "wins": wins, "win_rate": wins / sizes,
                               "ci_low": rlow, "ci_high": rhigh}),
        losses=lf, players=pf, winnable=winnable.frame(), recheck=recheck.frame())


def dataset_rows(ds) -> int:
    """The rows of a dataset's finished chunk files, from their footers."""
    from halfmoon.batch.results import open_chunk

    total = 0
    for name in ds.names:
        f, _ = open_chunk(*ds.where.file(name))
        with f:
            total += f.metadata.num_rows
    return total


def deal_features(deals: np.ndarray) -> np.ndarray:
    """The start's and the layout's features of deal numbers (int64, a column per name of
    :data:`solver.DEAL_FEATURES` then :data:`solver.LAYOUT_FEATURES`), on every core: by the
    solver's compiled kernel when its cache already holds it, else in plain numpy (the same
    numbers: counting a census never waits for a compiler)."""
    from solver import census_features, is_ready

    nums = np.ascontiguousarray(deals, np.int64)
    count = census_features if is_ready("features") else _features
    if nums.size < 4096 or _THREADS == 1:
        return count(nums)
    cut = np.linspace(0, nums.size, _THREADS + 1).astype(np.intp)
    parts = _pool().map(lambda i: count(nums[cut[i]:cut[i + 1]]), range(_THREADS))
    return np.concatenate(list(parts))


def _features(nums: np.ndarray) -> np.ndarray:
    from halfmoon.batch import deal_arrays
    from solver import DEAL_FEATURES, LAYOUT_FEATURES

    decks = deal_arrays.shuffled_decks(nums)
    start = deal_arrays.start_features(nums, decks)
    layout = deal_arrays.layout_features(nums, decks)
    columns = [start[:, deal_arrays.START_FEATURES.index(f)] for f in DEAL_FEATURES]
    columns += [layout[:, deal_arrays.LAYOUT_FEATURES.index(f)] for f in LAYOUT_FEATURES]
    return np.stack(columns, axis=1) if nums.size else np.zeros((0, len(columns)), np.int64)


_THREADS = max(1, os.cpu_count() or 1)


@functools.lru_cache(maxsize=1)
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(_THREADS)


def _verdict_codes(column) -> np.ndarray:
    """0, 1, 2 for win, loss, unresolved; 3 for anything else."""
    col = column.cast(pa.string()) if pa.types.is_dictionary(column.type) else column
    out = np.full(len(col), 3, np.int64)
    for i, v in enumerate(VERDICTS):
        out[pc.equal(col, v).to_numpy(zero_copy_only=False)] = i
    return out


def _add_counts(acc: np.ndarray, counts: np.ndarray) -> np.ndarray:
    if counts.size > acc.size:
        acc = np.concatenate([acc, np.zeros(counts.size - acc.size, np.int64)])
    acc[: counts.size] += counts
    return acc


def _feature_table(all_: dict, lost: dict) -> pd.DataFrame:
    """The loss rate for each value of each feature, with Wilson intervals (at the current
    confidence, :func:`.stats.at_confidence`)."""
    rows = []
    for f in FEATURES:
        deals = all_[f]
        losses = _add_counts(np.zeros(deals.size, np.int64), lost[f])
        values = np.flatnonzero(deals)
        low, high = wilson_bounds(losses[values], deals[values])
        for v, lo, hi in zip(values, low, high):
            rows.append((f, int(v), int(deals[v]), int(losses[v]), losses[v] / deals[v], lo, hi))
    return pd.DataFrame(rows, columns=["feature", "value", "deals", "losses", "loss_rate",
                                       "ci_low", "ci_high"])


class _Top:
    """The ``n`` rows with the most positions searched (ties: the smaller deal number)."""

    def __init__(self, n: int):
        self.n = n
        self.rows = np.zeros((0, 3), np.int64)  # deal, verdict code, nodes
        self.seconds = np.zeros(0, np.float64)

    def add(self, deals, codes, nodes, seconds) -> None:
        if self.n <= 0:
            return
        if nodes.size > self.n:  # the row group's own top first
            cut = np.partition(nodes, nodes.size - self.n)[nodes.size - self.n]
            pick = nodes >= cut
            deals, codes, nodes, seconds = deals[pick], codes[pick], nodes[pick], seconds[pick]
        rows = np.concatenate([self.rows, np.stack([deals, codes, nodes.astype(np.int64)], 1)])
        secs = np.concatenate([self.seconds, seconds.astype(np.float64)])
        order = np.lexsort((rows[:, 0], -rows[:, 2]))[: self.n]
        self.rows, self.seconds = rows[order], secs[order]

    def frame(self) -> pd.DataFrame:
        return pd.DataFrame({"deal": self.rows[:, 0],
                             "verdict": np.array(VERDICTS, object)[self.rows[:, 1]],
                             "nodes": self.rows[:, 2], "seconds": self.seconds})
