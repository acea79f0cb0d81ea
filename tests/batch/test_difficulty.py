"""The cheap predictor of a deal's difficulty: signals, levels, the model and its checks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from halfmoon.batch import difficulty as bd
from halfmoon.game.errors import HalfMoonError
from solver import SOLVER_VERSION, census_features, simple_games, solve, undo_game


def test_levels_follow_the_reference_chance():
    names = [bd.level_of(c) for c in (0.99, 0.5, 0.49, 0.2, 0.19, 0.05, 0.049, 0.0)]
    assert names == ["easy", "easy", "medium", "medium", "hard", "hard", "very hard",
                     "very hard"]
    assert bd.check_level("Very-Hard") == "very hard"
    with pytest.raises(HalfMoonError, match="unknown level 'hardest'"):
        bd.check_level("hardest")


def test_signals_are_the_simple_players_games_and_the_features():
    nums = [100, 101, 102, 5_000_000]
    x = bd.signals(nums)
    assert x.shape == (4, len(bd.SIGNALS))
    g = simple_games(nums, "lookahead")
    col = bd.SIGNALS.index("lookahead_won")
    assert np.array_equal(x[:, col], g.won.astype(float))
    assert np.array_equal(x[:, bd.SIGNALS.index("lookahead_cards_left")], g.cards_left)
    assert np.array_equal(x[:, -census_features(nums).shape[1]:], census_features(nums))
    u = undo_game(101, "greedy", max_moves=bd.UNDO_MOVES)
    moves = u.moves_made if u.won else 2 * bd.UNDO_MOVES
    assert x[1, bd.SIGNALS.index("undo_greedy_log_moves")] == pytest.approx(np.log(moves))
    assert np.array_equal(bd.signals([102])[0], x[2])  # a deal's signals are its own


def _model(tmp_path, **change):
    raw = {"made_from": {"train": "test"}, "solver_version": str(SOLVER_VERSION),
           "signals": list(bd.SIGNALS), "mean": [0.0] * len(bd.SIGNALS),
           "scale": [1.0] * len(bd.SIGNALS), "coef": [0.0] * len(bd.SIGNALS),
           "intercept": 0.0, "theta_ref": 0.0, "rmse": 0.5}
    raw.update(change)
    path = tmp_path / "model.json"
    path.write_text(json.dumps(raw))
    return path


def test_the_verdict_comes_first(tmp_path):
    coef = [0.0] * len(bd.SIGNALS)
    coef[0] = -2.0  # greedy's win makes a deal easier
    m = bd.read_model(_model(tmp_path, coef=coef))
    x = np.zeros((4, len(bd.SIGNALS)))
    x[1, 0] = 1.0
    est = bd.estimates(["loss", "win", "unresolved", "win"], x, m)
    assert est[0].level == bd.LOST and est[0].chance is None
    assert est[2].level == bd.UNKNOWN
    assert est[1].chance == pytest.approx(1 / (1 + np.exp(-2.0)))
    assert est[3].chance == pytest.approx(0.5)
    assert est[1].level == "easy" and est[3].level == "easy"
    for e in (est[1], est[3]):
        assert e.low < e.chance < e.high
    assert "cannot be won" == est[0].words()


def test_a_model_of_another_solver_version_is_refused(tmp_path):
    with pytest.raises(bd.DifficultyModelError, match="solver version 0"):
        bd.read_model(_model(tmp_path, solver_version="0"))
    with pytest.raises(bd.DifficultyModelError, match="other signals"):
        bd.read_model(_model(tmp_path, signals=["greedy_won"]))
    with pytest.raises(bd.DifficultyModelError, match="no difficulty model"):
        bd.read_model(tmp_path / "absent.json")


def test_the_shipped_model_says_what_it_was_made_from():
    m = bd.model()
    assert m.solver_version == str(SOLVER_VERSION)
    assert m.made_from["reference"] == "fair@16" and m.made_from["train_deals"] > 0
    assert "seed" in " ".join(m.made_from["train"])
    files = [*m.made_from["train"], *m.made_from["heldout"]]
    assert sorted(m.made_from["seeds"]) == sorted(files)  # each measure file's seed
    assert all(isinstance(s, int) and f"seed{s}" in f for f, s in m.made_from["seeds"].items())
    assert m.made_from["measured_under"] == [str(SOLVER_VERSION)]
    assert m.rmse > 0
    check = bd.model_check()
    assert [r["level"] for r in check["calibration"]] == list(bd.LEVEL_NAMES)
    assert sum(r["deals"] for r in check["calibration"]) == check["heldout_won"]


def test_a_runs_difficulty_file_is_written_once_and_kept(tmp_path):
    import pyarrow.parquet as pq

    from halfmoon.batch import deals_from_range, run_batch

    out = tmp_path / "run"
    run_batch(deals_from_range(50, 70), out, workers=1, progress=False)
    done = bd.write_run_difficulty(out)
    assert done["computed"] == 20 and sum(done["levels"].values()) == 20
    t = pq.read_table(out / bd.RUN_FILE).to_pandas()
    assert list(t["deal"]) == list(range(50, 70))
    verdicts = [solve(n).verdict for n in range(50, 70)]
    want = bd.estimate_numbers(list(range(50, 70)), verdicts)
    assert list(t["level"]) == [e.level for e in want]
    assert np.allclose(t[list(bd.SIGNALS)].to_numpy(), bd.signals(list(range(50, 70))))
    assert bd.run_levels(out) == done["levels"]
    assert (bd.LOST in done["levels"]) == ("loss" in verdicts)
    # a rerun keeps the deals already there; a file of another model is made again
    assert bd.write_run_difficulty(out)["computed"] == 0
    table = pq.read_table(out / bd.RUN_FILE)
    pq.write_table(table.replace_schema_metadata({"difficulty_model": "{}"}), out / bd.RUN_FILE)
    assert bd.write_run_difficulty(out)["computed"] == 20
    assert bd.run_levels(tmp_path) is None


def test_a_runs_difficulty_needs_a_local_directory(tmp_path):
    with pytest.raises(HalfMoonError, match="local results directory"):
        bd.write_run_difficulty(tmp_path / "absent")
