"""The findings page's fair-play section, from hand-made data."""

from __future__ import annotations

import pandas as pd

from halfmoon.report.fairplay import fair_section


def _ladder():
    rows = [("solver", 10, 9), ("greedy", 10, 2), ("lookahead", 10, 3), ("fair", 10, 4)]
    return pd.DataFrame([{"player": p, "deals": n, "won": w, "win_rate": w / n, "ci_low": 0.0, "ci_high": 1.0,
                          "vs_lookahead": (w - 3) / n, "vs_lookahead_low": -0.5, "vs_lookahead_high": 0.5,
                          "seconds_per_game": 0.25} for p, n, w in rows])


def test_the_section_tables_every_player_and_links_its_charts():
    curve = pd.DataFrame({"player": ["fair@16", "fair"], "samples": [16, 256], "win_rate": [0.3, 0.4],
                          "ci_low": [0.1, 0.2], "ci_high": [0.6, 0.7], "seconds_per_game": [0.05, 0.5]})
    text = "\n".join(fair_section({"fair-ladder": _ladder(), "fair-curve": curve}, lambda f, alt: f"![{alt}]({f})"))
    assert "On 10 deals of the census" in text
    assert "| every card shown (solver) | 10 | 9 | 90.00 % |" in text
    assert "| fair | 10 | 4 | 40.00 % | 0.00 % – 100.00 % | +10.00 (-50.00 to +50.00) | 0.250 |" in text
    assert "(fair-ladder.png)" in text and "(fair-curve.png)" in text and "16: 0.05 s, 256: 0.50 s" in text


def test_without_fair_data_the_section_says_so():
    text = "\n".join(fair_section({}, lambda f, alt: f))
    assert "Not in these findings yet" in text
