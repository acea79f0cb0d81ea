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


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """A small dataset in the results format, with every verdict (making one with the
    batch library is tested in test_stats)."""
    verdicts = (["win"] * 8 + ["loss", "win"]) * 4
    verdicts[-1] = verdicts[-12] = "unresolved"
    return write_results(tmp_path_factory.mktemp("nb") / "results", make_rows(verdicts, budget=20_000), 16)


def test_every_notebook_is_listed_and_clean():
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == sorted(EXPECTED_FIGURES)
    for name in EXPECTED_FIGURES:
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        nbformat.validate(nb)
        code = [c for c in nb.cells if c.cell_type == "code"]
        assert all(not c.outputs and c.execution_count is None for c in code), f"{name} has outputs"
        assert any("parameters" in c.metadata.get("tags", []) for c in code), f"{name}: no parameters cell"


@pytest.mark.parametrize("name", sorted(EXPECTED_FIGURES))
def test_notebook_runs_and_draws(name, results, tmp_path, monkeypatch):
    monkeypatch.setenv("HALFMOON_RESULTS", str(results))
    monkeypatch.setenv("HALFMOON_SAMPLE_DIR", str(tmp_path / "must-not-be-made"))
    monkeypatch.setenv("HALFMOON_FIRST_MOVE_DEALS", "2")
    monkeypatch.setenv("HALFMOON_FIRST_MOVE_BUDGET", "2000")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    figures = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(figures) >= EXPECTED_FIGURES[name]
    assert not (tmp_path / "must-not-be-made").exists()  # it read the dataset it was given
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "40 deals from" in text
