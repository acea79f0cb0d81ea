"""The findings page and its charts, from data derived here from a small census."""

from __future__ import annotations

import re

import pytest

from halfmoon.game.errors import HalfMoonError
from halfmoon.report.findings import load_data, main, write_page
from halfmoon.research.findings import DATA_FILES


def test_the_page_has_every_finding_and_its_charts(page):
    text = page.read_text(encoding="utf-8")
    for heading in ("How often Half Moon can be won", "Why deals are lost", "How forgiving",
                    "not thinking ahead", "sees only the app's cards", "Difficulty",
                    "Checked by other means", "## Data"):
        assert heading in text, heading
    assert "300 deals" in text and "**0 unresolved**" in text
    assert "halfmoon batch --range 1000:1300 --out" in text
    assert "```\nP1:" in text  # the deadlock examples, as layouts
    links = re.findall(r"\]\((findings/[^)]+)\)", text)
    # one chart per finding, the win rate, the fair ladder, its curve, its fatal moves
    assert len(links) == 10
    for link in links:
        f = page.parent / link
        assert f.exists(), link
        assert f.stat().st_size < 200_000, link
    assert all(f"`{name}`" in text for name in DATA_FILES)
    for player in ("random", "greedy", "lookahead", "lookahead3", "solver"):
        assert f"| {player} |" in text
    for player in ("rollout", "rollout-lookahead", "uct", "fair", "every card shown (solver)"):
        assert f"| {player} | 10 |" in text, player
    assert "median cards left at the fatal move" in text and "(findings/fair-fatal.png)" in text


def test_findings_made_before_the_fair_stage_still_draw(page, tmp_path):
    import shutil

    data = tmp_path / "findings"
    shutil.copytree(page.parent / "findings", data)
    for name in ("fair-ladder.parquet", "fair-curve.parquet", "fair-fatal.parquet"):
        (data / name).unlink()
    text = write_page(data, tmp_path / "findings.md").read_text(encoding="utf-8")
    assert "Not in these findings yet" in text and "fair-ladder.png" not in text


def test_the_page_can_be_redrawn_from_its_data_alone(page, tmp_path):
    data = page.parent / "findings"
    again = write_page(data, tmp_path / "findings.md")
    text = again.read_text(encoding="utf-8")
    assert "How often Half Moon can be won" in text
    # the images are linked where they are, relative to the new page
    for link in re.findall(r"\]\(([^)]+\.png)\)", text):
        assert (tmp_path / link).exists() or (data / link.split("/")[-1]).exists()


def test_missing_data_names_what_is_missing(tmp_path, capsys):
    with pytest.raises(HalfMoonError, match="summary.json"):
        load_data(tmp_path)
    assert main(["--data", str(tmp_path), "--page", str(tmp_path / "p.md")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no findings data" in err[0]


def test_the_hardest_table_says_what_its_positions_count_and_where_they_gather():
    """9 of a run's 20 hardest had 62,603–62,742 positions: turns of the portfolio, and the
    page said nothing of it."""
    import pandas as pd

    from halfmoon.report.findings import _hardest_words, clusters

    nodes = [62_603, 62_650, 62_742, 30_500, 30_600, 95_000, 200_000]
    assert clusters(nodes) == [(30_500, 2), (62_603, 3)]
    hd = pd.DataFrame({"nodes": nodes, "settled_by": ["grouping"] * 5 + ["quick", "urgency"]})
    text = _hardest_words(hd)
    assert "a count is the cost to this solver, not a difficulty of the deal in itself" in text
    assert "Here 5 of the 7 deals were settled by the grouping search." in text
    assert ("5 of their counts gather within 0.5 % of another's (2 near 30,500, 3 near 62,603 "
            "positions)") in text
    assert "gather" not in _hardest_words(hd.assign(nodes=[10, 20, 40, 80, 160, 320, 640]))
