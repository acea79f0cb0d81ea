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
    monkeypatch.setenv("HALFMOON_FIRST_MOVE_BUDGET", "2000")
    figures, text = run_notebook(name, tmp_path, monkeypatch)
    assert figures >= EXPECTED_FIGURES[name]
    assert not (tmp_path / "must-not-be-made").exists()  # it read the dataset it was given
    assert "40 deals from" in text


def run_notebook(name, tmp_path, monkeypatch) -> tuple[int, str]:
    """Execute a notebook headless in ``tmp_path``: (figures drawn, text printed); no error."""
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    figures = len([o for o in outputs if "image/png" in o.get("data", {})])
    return figures, "".join(o.get("text", "") for o in outputs if o.output_type == "stream")


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
    monkeypatch.setenv("HALFMOON_FINDINGS", str(findings_data))
    figures, text = run_notebook(name, tmp_path, monkeypatch)
    assert figures >= FINDINGS_FIGURES[name]
    assert "300 deals from halfmoon batch --range 2000:2300" in text
