"""The findings' counting stages, streamed: the same figures as pandas on the whole census,
on both formats, however the files are cut, locally and from an fsspec URL; the sample
order a bijection; the samples the smallest keys."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from results_samples import make_rows, write_results

from halfmoon.batch.results import load_results
from halfmoon.research.census import (
    FEATURES,
    NODE_BINS,
    FindingsError,
    count_census,
    open_census,
    running_thresholds,
    sample_keys,
)
from halfmoon.research.scan import run_order
from halfmoon.research.stats import wilson_interval
from solver.mirror.generator import LAYOUT_FEATURES, layout_features


def _census(path, n=3000, fmt=2, chunk=700, seed=1, status="complete", start=10_000):
    rng = np.random.default_rng(seed)
    rows = make_rows(rng.choice(["win", "loss", "unresolved"], n, p=[0.8, 0.18, 0.02]).tolist(),
                     start=start, budget=10**7)
    for r, e in zip(rows, rng.normal(6, 3, n)):
        r["nodes"] = int(min(np.exp(e), 10**7 - 1)) + 1 if r["verdict"] != "unresolved" else 10**7
        r["seconds"] = round(float(r["nodes"]) * 1e-6, 6)
    rng.shuffle(rows)  # a random census's files are not in deal order
    write_results(path, rows, chunk_rows=chunk, fmt=fmt)
    (path / "_manifest.json").write_text(json.dumps({"deals": {"count": n}, "status": status}))
    return path


def _reference(path) -> pd.DataFrame:
    df = load_results(path)
    out = np.zeros((len(df), len(LAYOUT_FEATURES)), np.int64)
    layout_features(df["deal"].to_numpy(), out)
    return df.assign(**{f: out[:, i] for i, f in enumerate(LAYOUT_FEATURES)})


@pytest.mark.parametrize("fmt", [1, 2])
def test_the_counts_are_pandas_own(tmp_path, fmt):
    path = _census(tmp_path / "c", fmt=fmt)
    df = _reference(path)
    c = count_census(path, seed=3, players_deals=100, forgiveness_deals=50, recheck_share=0.01,
                     hardest=15)
    s = c.summary
    n, wins = len(df), int((df["verdict"] == "win").sum())
    assert (s["deals"], s["wins"], s["losses"], s["unresolved"]) == (
        n, wins, int((df["verdict"] == "loss").sum()), int((df["verdict"] == "unresolved").sum()))
    assert math.isnan(s["win_low"])  # unresolved deals: no plain interval
    doa = int((df["start_moves"] == 0).sum())
    assert s["dead_on_arrival"] == doa
    assert (s["doa_low"], s["doa_high"]) == pytest.approx(wilson_interval(doa, n))
    assert s["seconds"] == pytest.approx(df["seconds"].sum(), rel=1e-12)
    assert s["budget"] == 10**7 and s["solver_versions"] == ["1"]
    for key, q in (("median", 0.5), ("p99", 0.99), ("p99.9", 0.999), ("max", 1.0)):
        assert s["nodes"][key] == df["nodes"].quantile(q), key
    # the loss rate by feature: a groupby with Wilson intervals
    lost = df["verdict"] == "loss"
    for f in FEATURES:
        sub = c.features[c.features["feature"] == f].set_index("value")
        g = lost.groupby(df[f])
        assert sub["deals"].to_dict() == g.size().to_dict(), f
        assert sub["losses"].to_dict() == g.sum().to_dict(), f
        for v, row in sub.iterrows():
            assert (row["ci_low"], row["ci_high"]) == pytest.approx(
                wilson_interval(row["losses"], row["deals"]))
    # the deals by positions searched
    idx = np.searchsorted(NODE_BINS, df["nodes"], side="right") - 1
    for i, row in c.difficulty.iterrows():
        for col, v in (("wins", "win"), ("losses", "loss"), ("unresolved", "unresolved")):
            assert row[col] == int(((idx == i) & (df["verdict"] == v)).sum())
    # the hardest: pandas' nlargest on the census sorted by deal
    want = df.nlargest(15, "nodes")[["deal", "verdict", "nodes", "seconds"]].reset_index(drop=True)
    pd.testing.assert_frame_equal(c.hardest, want, check_dtype=False)
    # every loss, with its features, by deal
    want = df[lost][["deal", "verdict", "nodes", *FEATURES]].reset_index(drop=True)
    pd.testing.assert_frame_equal(c.losses, want, check_dtype=False)


def test_the_sample_order_is_a_bijection_and_the_samples_its_smallest_keys(tmp_path):
    assert np.unique(sample_keys(np.arange(2_000_000), 7)).size == 2_000_000
    assert not np.array_equal(sample_keys(np.arange(10), 7), sample_keys(np.arange(10), 8))
    path = _census(tmp_path / "c")
    df = _reference(path)
    c = count_census(path, seed=11, players_deals=200, forgiveness_deals=70, recheck_share=0.02)
    order = df.iloc[np.argsort(sample_keys(df["deal"].to_numpy(), 11))]
    assert c.players["deal"].tolist() == order["deal"].iloc[:200].tolist()
    assert c.players["verdict"].tolist() == order["verdict"].iloc[:200].tolist()
    assert (c.winnable["deal"].tolist()
            == order[order["verdict"] == "win"]["deal"].iloc[:70].tolist())
    again = df.iloc[np.argsort(sample_keys(df["deal"].to_numpy(), 12))]
    assert c.recheck["deal"].tolist() == again["deal"].iloc[:60].tolist()
    # the same census cut into other files (and the other format): the same samples (the
    # running win rate follows the run's order, which is its files')
    other = count_census(_census(tmp_path / "d", fmt=1, chunk=123), seed=11, players_deals=200,
                         forgiveness_deals=70, recheck_share=0.02)
    for name in ("players", "winnable", "recheck"):
        pd.testing.assert_frame_equal(getattr(c, name), getattr(other, name))


def test_the_running_win_rate_counts_nested_samples(tmp_path):
    path = _census(tmp_path / "c", n=5000)
    df = _reference(path)
    c = count_census(path, seed=4, players_deals=1, forgiveness_deals=1, points=30)
    r = c.win_rate
    assert r["n"].is_monotonic_increasing and r["n"].is_unique and r["n"].iloc[-1] == 5000
    assert r["n"].iloc[0] == 30 and 20 <= len(r) <= 30
    # the first n in the run's order: its files in order, each file's rows as stored
    order = pd.concat([pq.read_table(f, columns=["deal"]).to_pandas()
                       for f in sorted(path.glob("part-*.parquet"))])["deal"].to_numpy()
    assert (run_order(path) == order).all() and not (np.diff(order) > 0).all()
    won = df.set_index("deal").loc[order, "verdict"].to_numpy() == "win"
    assert r["wins"].tolist() == [int(won[:k].sum()) for k in r["n"]]
    assert (r["ci_low"] <= r["win_rate"]).all() and (r["win_rate"] <= r["ci_high"]).all()
    assert running_thresholds(1).size == 0


def test_a_census_at_a_url_counts_as_the_local_one(tmp_path):
    import fsspec

    path = _census(tmp_path / "c", n=1500, chunk=400)
    fs = fsspec.filesystem("memory")
    for f in path.iterdir():
        fs.pipe(f"/census-test/{f.name}", f.read_bytes())
    try:
        a = count_census(path, seed=2, players_deals=30, forgiveness_deals=10)
        b = count_census("memory://census-test", seed=2, players_deals=30, forgiveness_deals=10)
    finally:
        fs.rm("/census-test", recursive=True)
    assert a.summary == b.summary
    for name in ("features", "difficulty", "hardest", "win_rate", "losses", "players", "winnable",
                 "recheck"):
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name))


def test_an_unfinished_or_missing_census_is_refused(tmp_path):
    with pytest.raises(FindingsError, match="no census"):
        open_census(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FindingsError, match="not a results directory"):
        open_census(tmp_path / "empty")
    with pytest.raises(FindingsError, match="not finished .*'running' for 3,000 deals"):
        open_census(_census(tmp_path / "r", status="running"))
    short = _census(tmp_path / "s", n=1000)
    (short / "_manifest.json").write_text(json.dumps({"deals": {"count": 1200},
                                                      "status": "complete"}))
    with pytest.raises(FindingsError, match=r"not finished \(1,000 of 1,200 deals\)"):
        count_census(short)
    none = tmp_path / "n"
    none.mkdir()
    (none / "_manifest.json").write_text(json.dumps({"deals": {"count": 400},
                                                     "status": "complete"}))
    with pytest.raises(FindingsError, match=r"not finished \(0 of 400 deals\)"):
        open_census(none)


def test_the_features_are_the_same_compiled_or_in_plain_numpy(monkeypatch):
    """Without the compiled kernel in the cache the census counts in numpy: the same numbers
    (threads included: over 4,096 deals they share the work)."""
    import numpy as np

    import solver
    from halfmoon.research.census import deal_features

    deals = np.random.default_rng(7).integers(0, 26**7, 5000)
    compiled = deal_features(deals)
    monkeypatch.setattr(solver, "is_ready", lambda group: False)
    plain = deal_features(deals)
    assert plain.dtype == compiled.dtype and np.array_equal(plain, compiled)
    assert deal_features(deals[:3]).tolist() == compiled[:3].tolist()
