"""The report's tests share one small census's findings (deriving them takes a while)."""

from __future__ import annotations

import pytest

from halfmoon.report.findings_out import write_findings
from halfmoon.research.stats import make_sample


@pytest.fixture(scope="session")
def page(tmp_path_factory):
    """The findings page written from a census of 300 deals (its data in findings/ beside it)."""
    root = tmp_path_factory.mktemp("findings")
    make_sample(root / "census", range(1000, 1300), budget=5_000_000)
    return write_findings(root / "census", root / "docs", seed=3, workers=1, players_deals=120,
                          forgiveness_deals=5, recheck_share=0.02, progress=False, fair_deals=10,
                          fair_samples=2)
