"""Section 4c of the findings page: the levels, the calibration, the traits, the examples."""

from __future__ import annotations

import numpy as np
import pandas as pd

from halfmoon.batch.difficulty import LOST, model_check
from halfmoon.report.findings_levels import levels_lines
from halfmoon.research.findings_levels import KEPT, save_levels


def _levels(n_easy=40, n_hard=40):
    rng = np.random.default_rng(1)
    rows = {"deal": np.arange(n_easy + n_hard + 1),
            "verdict": ["win"] * (n_easy + n_hard) + ["loss"],
            "level": ["easy"] * n_easy + ["very hard"] * n_hard + [LOST],
            "chance": [0.8] * n_easy + [0.01] * n_hard + [np.nan],
            "low": [0.6] * n_easy + [0.0] * n_hard + [np.nan],
            "high": [0.9] * n_easy + [0.04] * n_hard + [np.nan]}
    for k in KEPT:
        rows[k] = np.r_[rng.normal(10, 1, n_easy), rng.normal(10, 1, n_hard), 0.0]
    rows["greedy_won"] = np.r_[np.ones(n_easy), np.zeros(n_hard), 0.0]
    return pd.DataFrame(rows)


def _lines(tmp_path, levels):
    save_levels(levels, tmp_path)
    return "\n".join(levels_lines(tmp_path, lambda name, alt: "", lambda name: name))


def test_the_section_gives_each_level_and_deals_to_play(tmp_path):
    text = _lines(tmp_path, _levels())
    assert "## 4c. How hard a deal is for a person" in text
    assert "| easy | 40 | 49.4 % |" in text and f"| {LOST} | 1 | 1.2 % |" in text
    assert "`HM1-N-AAAAAAA`" in text  # deal 0: the smallest easy one
    # greedy's wins are apart between the levels; the made-up noise is not
    assert "greedy wins it (share): 1.00 against 0.00" in text
    assert "Not told apart: " in text and "legal moves at the start" in text.split(
        "Not told apart: ")[1]
    check = model_check()  # the package's model carries its check on held-out deals
    assert "The measured win rate by level" in text
    assert f"{check['spearman_rating']:.2f}" in text
    assert f"{check['heldout_won']:,} held-out deals" in text


def test_no_levels_no_section(tmp_path):
    assert levels_lines(tmp_path, None, None) == []


def test_every_interval_of_the_section_is_at_the_pages_confidence(tmp_path):
    from halfmoon.research.stats import at_confidence

    with at_confidence(0.99):
        text = _lines(tmp_path, _levels())
    assert "99 % interval" in text and "95 % interval" not in text
    assert "2.58 standard errors" in text
