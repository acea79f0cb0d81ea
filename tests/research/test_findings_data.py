"""The findings' data tables: the fair-play ladder against its top player, the players'
table, the data files' descriptions."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from halfmoon.research.findings_data import DATA_FILES, FAIR_FILES, VS_TOP, fair_ladder
from halfmoon.research.stats import paired_difference


def _games(won: dict) -> pd.DataFrame:
    """Fair-play games as the stage keeps them: a row a player and deal, the run's verdict."""
    n = len(next(iter(won.values())))
    rows = [{"deal": d, "player": p, "won": bool(w[d]), "seconds": 0.1, "evaluations": 0,
             "verdict": "win"} for p, w in won.items() for d in range(n)]
    return pd.DataFrame(rows)


def test_each_player_is_compared_with_the_top_fair_player_by_deal():
    won = {"greedy": [1, 0, 0, 0, 0, 0], "lookahead": [1, 1, 0, 0, 0, 0],
           "fair": [1, 1, 1, 1, 0, 0]}
    t = fair_ladder(_games(won)).set_index("player")
    assert list(t.index) == ["solver", "greedy", "lookahead", "fair"]
    assert t.loc["fair", ["vs_top", "vs_top_low", "vs_top_high"]].tolist() == [0.0, 0.0, 0.0]
    want = paired_difference(np.array(won["greedy"], float), np.array(won["fair"], float))
    assert t.loc["greedy", ["vs_top", "vs_top_low", "vs_top_high"]].tolist() == \
        pytest.approx(list(want))
    assert t.loc["greedy", "vs_top"] == pytest.approx(-0.5)
    # the solver (every card shown) is no fair player: never the top one
    assert t.loc["solver", "vs_top"] == pytest.approx(1 - 4 / 6)


def test_of_a_tie_the_first_is_the_top_and_the_other_not_told_apart():
    t = fair_ladder(_games({"rollout": [1, 0, 0, 0], "uct": [0, 1, 0, 0]})).set_index("player")
    assert t.loc["rollout", "vs_top"] == 0.0
    assert t.loc["uct", "vs_top"] == 0.0
    assert t.loc["uct", "vs_top_low"] < 0 < t.loc["uct", "vs_top_high"]


def test_the_data_files_are_described():
    assert "hardest.parquet" in DATA_FILES and "summary.json" in DATA_FILES
    assert VS_TOP in FAIR_FILES["fair-ladder.parquet"]
