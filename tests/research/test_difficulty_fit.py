"""The Rasch fit of the measure's games, the predictor fitted on it, its checks."""

from __future__ import annotations

import numpy as np
import pytest

from halfmoon.batch import difficulty as bd
from halfmoon.research import difficulty_fit as fit


def _games(theta, b, seed):
    rng = np.random.default_rng(seed)
    P = 1 / (1 + np.exp(-(theta[None, :] - b[:, None])))
    return rng.binomial(fit.GAMES.astype(int)[None, :].repeat(len(b), 0), P).astype(float)


def test_the_rasch_fit_finds_the_players_and_deals_it_was_made_from():
    theta = np.linspace(-3, 2, len(fit.PLAYERS))
    b = np.random.default_rng(1).normal(0, 2, 1500)
    res = fit.rasch_fit(_games(theta, b, 2))
    # abilities in their order, about their true gaps (the scale is fixed by the prior)
    assert fit.spearman(res["theta"], theta) == pytest.approx(1.0)
    gaps = np.diff(res["theta"]) / np.diff(theta)
    assert np.all((gaps > 0.6) & (gaps < 1.4))
    assert fit.spearman(res["b"], b) > 0.8
    assert 1.0 < res["s"] < 3.0
    assert np.all(res["se"] > 0)


def test_held_out_deals_are_ranked_with_the_abilities_held():
    theta = np.linspace(-3, 2, len(fit.PLAYERS))
    b = np.random.default_rng(3).normal(0, 2, 400)
    res = fit.rasch_fit(_games(theta, b, 4))
    bh, se = fit.deal_difficulty(_games(theta, b, 5), res["theta"], res["s"])
    assert fit.spearman(bh, b) > 0.8
    # a deal every player won is easier than one none won
    W = np.vstack([fit.GAMES, np.zeros_like(fit.GAMES)])
    two, _ = fit.deal_difficulty(W, res["theta"], res["s"])
    assert two[0] < two[1]


def test_spearman_with_ties_and_against_known_values():
    assert fit.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert fit.spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    # ties at their mean rank: Pearson's correlation of the ranks (1.5, 1.5, 3) and (1, 2, 3)
    assert fit.spearman([0, 0, 1], [1, 2, 3]) == pytest.approx(np.corrcoef([1.5, 1.5, 3],
                                                                           [1, 2, 3])[0, 1])


def test_the_predictor_recovers_a_linear_difficulty(tmp_path):
    rng = np.random.default_rng(6)
    X = rng.normal(size=(800, len(bd.SIGNALS))) * 3 + 5
    true = rng.normal(size=len(bd.SIGNALS))
    b = (X - 5) / 3 @ true + 0.5
    m = fit.fit_predictor(X, b, theta_ref=-1.0, made_from={"train": "synthetic"}, ridge=1e-6)
    assert np.allclose(m.difficulty(X), b, atol=1e-3)
    assert m.rmse < 1e-3
    path = tmp_path / "model.json"
    fit.write_model(m, path)
    back = bd.read_model(path)
    assert back.made_from == {"train": "synthetic"} and back.solver_version == m.solver_version
    assert np.allclose(back.difficulty(X), m.difficulty(X))


def test_the_calibration_counts_each_level():
    levels = ["easy", "easy", "hard", "very hard"]
    table = fit.calibration(levels, [0.8, 0.6, 0.1, 0.01], [6, 3, 1, 0], [0.9, 0.5, 0.1, 0.0], 6)
    easy = next(r for r in table if r["level"] == "easy")
    assert (easy["deals"], easy["won"], easy["games"]) == (2, 9, 12)
    assert easy["rate"] == pytest.approx(0.75) and easy["low"] < 0.75 < easy["high"]
    assert easy["predicted"] == pytest.approx(0.7)
    medium = next(r for r in table if r["level"] == "medium")
    assert medium["deals"] == 0
    assert "| medium | 0 |" in fit.calibration_markdown(table)
