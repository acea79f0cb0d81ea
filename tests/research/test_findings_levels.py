"""The findings' levels stage: the players' sample given its levels, and its tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from halfmoon.batch.difficulty import LOST, SIGNALS, estimate_numbers, signals
from halfmoon.research import findings_levels as fl
from solver import solve


def _rows(numbers):
    return pd.DataFrame({"deal": numbers, "verdict": [solve(n).verdict for n in numbers]})


def test_a_piece_gives_each_deal_its_estimate_and_signals():
    rows = _rows([55, 100, 101, 102])
    out = fl.levels_piece(rows, fl.model_id())["levels"]
    want = estimate_numbers([55, 100, 101, 102], list(rows["verdict"]))
    assert list(out["level"]) == [e.level for e in want]
    assert out.loc[0, "level"] == LOST and np.isnan(out.loc[0, "chance"])
    x = signals([55, 100, 101, 102])
    for name in fl.KEPT:
        assert np.array_equal(out[name].to_numpy(), x[:, SIGNALS.index(name)])
    assert "solver_version" in fl.model_id()


def _made_up():
    return pd.DataFrame({
        "deal": [5, 3, 9, 1, 7, 2], "verdict": ["win"] * 5 + ["loss"],
        "level": ["easy", "easy", "very hard", "very hard", "very hard", LOST],
        "chance": [0.9, 0.7, 0.01, 0.02, 0.03, np.nan], "low": [0.8, 0.5, 0, 0, 0, np.nan],
        "high": [0.95, 0.9, 0.05, 0.1, 0.1, np.nan],
        **{k: [1.0, 1.0, 0.0, 0.0, 0.0, 0.0] if k.endswith("_won") else [4.0, 6.0, 1.0, 2.0,
                                                                           3.0, 0.0]
           for k in fl.KEPT}})


def test_the_shares_traits_and_examples_count_by_hand():
    lv = _made_up()
    sh = fl.level_shares(lv).set_index("level")
    assert list(sh.index) == ["easy", "very hard", LOST]
    assert sh.loc["very hard", "deals"] == 3 and sh.loc["very hard", "share"] == pytest.approx(0.5)
    assert sh.loc["easy", "chance"] == pytest.approx(0.8)
    assert sh.loc["easy", "ci_low"] < 1 / 3 < sh.loc["easy", "ci_high"]
    tr = fl.level_traits(lv).set_index(["level", "signal"])
    assert tr.loc[("easy", "start_moves"), "mean"] == pytest.approx(5.0)
    assert tr.loc[("very hard", "greedy_won"), "mean"] == 0.0
    # undo-greedy's moves: kept as logarithms, given back as moves (their mean)
    assert tr.loc[("easy", "undo_greedy_log_moves"), "mean"] == pytest.approx(
        (np.exp(4) + np.exp(6)) / 2)
    ex = fl.examples(lv, each=1)
    assert list(ex["deal"]) == [3, 1, 2]
    assert ex["code"].str.startswith("HM1-N-").all()


def test_saved_levels_are_sorted_by_deal(tmp_path):
    fl.save_levels(_made_up(), tmp_path)
    back = pd.read_parquet(tmp_path / fl.LEVELS_FILE)
    assert list(back["deal"]) == [1, 2, 3, 5, 7, 9]
