"""Every notebook runs headless on a small results dataset and draws its figures."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from results_samples import make_rows, write_results

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
# notebook -> figures it must draw (image/png outputs)
EXPECTED_FIGURES = {"win-rate.ipynb": 3, "difficulty.ipynb": 6, "strategies.ipynb": 4}
# notebooks of the findings data (docs/findings/), run on data derived from a small census
FINDINGS_FIGURES = {"findings.ipynb": 9}  # with the fair-play stage's two


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """A small dataset in the results format, with every verdict (making one with the
    batch library is tested in test_stats)."""
    verdicts = (["win"] * 8 + ["loss", "win"]) * 4
    verdicts[-1] = verdicts[-12] = "unresolved"
    return write_results(tmp_path_factory.mktemp("nb") / "results",
                         make_rows(verdicts, budget=20_000), 16)


def test_every_notebook_is_listed_and_clean():
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == \
        sorted({**EXPECTED_FIGURES, **FINDINGS_FIGURES})
    for name in {**EXPECTED_FIGURES, **FINDINGS_FIGURES}:
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        nbformat.validate(nb)
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert all(not c.outputs and c.execution_count is None for c in code), f"{name} has outputs"
        assert any("parameters" in c.metadata.get("tags", []) for c in code), \
            f"{name}: no parameters cell"


@pytest.mark.parametrize("name", sorted(EXPECTED_FIGURES))
def test_notebook_runs_and_draws(name, results, tmp_path, monkeypatch):
    monkeypatch.setenv("HALFMOON_RESULTS", str(results))
    monkeypatch.setenv("HALFMOON_SAMPLE_DIR", str(tmp_path / "must-not-be-made"))
    monkeypatch.setenv("HALFMOON_FIRST_MOVE_DEALS", "2")
    monkeypatch.setenv("HALFMOON_FIRST_MOVE_BUDGET", "50")  # too few to settle every move
    figures, text = run_notebook(name, tmp_path, monkeypatch)
    assert figures >= EXPECTED_FIGURES[name]
    assert not (tmp_path / "must-not-be-made").exists()  # it read the dataset it was given
    assert f"40 deals from {results}, in the run's order" in text
    # every cell that draws from the run says so
    assert text.count(f"drawn from 40 deals from {results}") >= EXPECTED_FIGURES[name] - 1


def test_the_tables_are_in_percent_and_unresolved_moves_are_not_losing(results, tmp_path,
                                                                        monkeypatch):
    monkeypatch.setenv("HALFMOON_RESULTS", str(results))
    monkeypatch.setenv("HALFMOON_FIRST_MOVE_DEALS", "2")
    monkeypatch.setenv("HALFMOON_FIRST_MOVE_BUDGET", "50")
    _, _, tables = run_notebook("difficulty.ipynb", tmp_path, monkeypatch, tables=True)
    assert "win_rate (%)" in tables
    assert "keeping the win (%)" in tables and "unresolved)" in tables  # a range, not 0 %


def run_notebook(name, tmp_path, monkeypatch, path=None, tables=False):
    """Execute a notebook headless in ``path`` (default ``tmp_path``): (figures drawn, text
    printed), and with ``tables`` the plain text of the tables it shows; no error."""
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path or tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    figures = len([o for o in outputs if "image/png" in o.get("data", {})])
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    if tables:
        return figures, text, "".join(o.get("data", {}).get("text/plain", "") for o in outputs
                                      if "image/png" not in o.get("data", {}))
    return figures, text


@pytest.fixture(scope="module")
def findings_data(tmp_path_factory):
    from halfmoon.research.findings import derive, save_data
    from halfmoon.research.stats import make_sample

    root = tmp_path_factory.mktemp("findings")
    make_sample(root / "census", range(2000, 2300), budget=5_000_000)
    derived = derive(root / "census", seed=1, workers=1, players_deals=100, forgiveness_deals=4,
                     recheck_share=0.01, progress=False, fair_deals=8, fair_samples=2)
    return save_data(derived, root / "data")


@pytest.mark.parametrize("name", sorted(FINDINGS_FIGURES))
def test_findings_notebook_draws_the_page_charts(name, findings_data, tmp_path, monkeypatch):
    census = findings_data.parent / "census"
    monkeypatch.setenv("HALFMOON_RESULTS", str(census))
    monkeypatch.setenv("HALFMOON_FINDINGS", str(findings_data))
    figures, text, tables = run_notebook(name, tmp_path, monkeypatch, tables=True)
    assert figures >= FINDINGS_FIGURES[name]
    assert f"findings in {findings_data}: 300 deals of halfmoon batch --range 2000:2300" in text
    assert "NOT of" not in text and "docs/findings" not in text
    for name_ in ("win-rate.parquet", "losses.parquet", "players.parquet", "hardest.parquet"):
        assert f"drawn from {findings_data / name_}" in text
    assert "win_rate (%)" in tables and "vs_greedy (points)" in tables and "share (%)" in tables


def test_the_findings_notebook_runs_all_on_a_run_without_findings(findings_data, tmp_path,
                                                                   monkeypatch):
    """A run whose findings are not in its _findings/findings (a checkout after ``make run``):
    "Run All" goes on with the shipped census's, said NOT of the run first, and each cell
    names the shipped files it draws (it stopped with an error)."""
    census = findings_data.parent / "census"
    monkeypatch.setenv("HALFMOON_RESULTS", str(census))
    monkeypatch.delenv("HALFMOON_FINDINGS", raising=False)
    figures, text = run_notebook("findings.ipynb", tmp_path, monkeypatch, path=NOTEBOOKS)
    assert figures >= FINDINGS_FIGURES["findings.ipynb"]
    assert text.startswith(f"NOT of your run: {census} has no findings in "
                           f"{census / '_findings' / 'findings'} ('halfmoon findings {census}' "
                           "writes them there")
    drawn = [line for line in text.splitlines() if line.startswith("drawn from ")]
    assert drawn and all(line.startswith("drawn from ../docs/findings/") for line in drawn)


def test_the_shipped_census_is_drawn_when_asked_for_by_name(findings_data, tmp_path,
                                                             monkeypatch):
    monkeypatch.setenv("HALFMOON_RESULTS", str(findings_data.parent / "census"))
    monkeypatch.setenv("HALFMOON_FINDINGS", "census")
    figures, text = run_notebook("findings.ipynb", tmp_path, monkeypatch, path=NOTEBOOKS)
    assert figures >= FINDINGS_FIGURES["findings.ipynb"]
    assert ("the shipped census's findings (../docs/findings: 1,000,000 deals of halfmoon batch "
            "--random 1000000 --seed 2026") in text
    assert f"not of {findings_data.parent / 'census'}" in text
