"""The Markdown report: its figures, its charts, its command."""

from __future__ import annotations

import re
import subprocess
import sys

import matplotlib.image
import pandas as pd
import pytest
from results_samples import make_rows, write_results

from halfmoon.cli.main import main
from halfmoon.report import markdown

VERDICTS = ["win"] * 17 + ["loss"] * 2 + ["unresolved"]


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    base = tmp_path_factory.mktemp("report")
    results = write_results(base / "results", make_rows(VERDICTS), chunk_rows=8)
    path = markdown.write_report(results, base / "out", seed=0)
    return path, path.read_text(encoding="utf-8")


def test_report_figures(written):
    _, text = written
    assert text.startswith("# Half Moon: results report")
    assert "20 deals" in text
    assert "**85.00 %** of the deals are won" in text
    assert "| 20 | 17 | 2 | 1 |" in text
    assert "unresolved deals" in text
    for player in ("solver", "greedy", "random"):
        assert re.search(rf"^\| {player} \| 20 \| \d+ \| ", text, re.M), player


def test_report_charts_exist_and_decode(written):
    path, text = written
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", text)
    assert images == ["win-rate.png", "nodes.png", "by-feature.png", "players.png"]
    for name in images:
        image = matplotlib.image.imread(path.parent / name)
        assert image.shape[0] > 200 and image.shape[1] > 300


def test_report_without_players(tmp_path):
    results = write_results(tmp_path / "results", make_rows(VERDICTS))
    path = markdown.write_report(results, tmp_path / "out", players=False)
    text = path.read_text(encoding="utf-8")
    assert "players.png" not in text and not (tmp_path / "out" / "players.png").exists()


def test_report_command(tmp_path, capsys):
    results = write_results(tmp_path / "results", make_rows(VERDICTS))
    assert main(["report", str(results), "--out", str(tmp_path / "r"), "--no-players"]) == 0
    assert "report written to" in capsys.readouterr().out
    assert (tmp_path / "r" / "report.md").is_file()


def test_report_module_entry_and_bad_directory(tmp_path, capsys):
    assert markdown.main([str(tmp_path / "missing"), "--out", str(tmp_path / "r")]) == 2
    assert capsys.readouterr().err.startswith("halfmoon: error: no results")
    assert main(["report", str(tmp_path / "missing")]) == 2
    assert not (tmp_path / "r").exists()


def test_python_dash_m_halfmoon_report(tmp_path):
    results = write_results(tmp_path / "results", make_rows(VERDICTS))
    proc = subprocess.run([sys.executable, "-m", "halfmoon.report", str(results), "--out",
                           str(tmp_path / "r"), "--no-players"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "r" / "report.md").is_file()


def test_report_help(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["report", "--help"])
    assert exc.value.code == 0 and "usage: halfmoon report" in capsys.readouterr().out


def test_the_charts_of_an_unfinished_run_say_so_as_the_page_does(tmp_path):
    import json

    from halfmoon.report import charts

    results = write_results(tmp_path / "results", make_rows(VERDICTS), chunk_rows=8)
    assert markdown.chart_note(results, 20) == ""  # no manifest: nothing planned to say
    (results / "_manifest.json").write_text(json.dumps({"deals": {"count": 100},
                                                        "status": "running"}))
    note = markdown.chart_note(results, 20)
    assert note == ("20 of 100 planned deals — the run is not finished (rerun the batch to go "
                    "on).")
    fig = charts.figure()
    charts.plot_nodes_histogram(fig.add_subplot(), pd.DataFrame(make_rows(VERDICTS)))
    markdown._save(fig, tmp_path / "nodes.png", note)
    (said,) = [t for t in fig.texts if t.get_gid() == "chart-note"]
    assert " ".join(said.get_text().split()) == note
    r = fig.canvas.get_renderer()
    assert not said.get_window_extent(r).overlaps(fig.axes[0].get_window_extent(r))
    assert fig.get_size_inches()[1] > 3.6  # room added over the chart, not taken from it


def test_the_report_for_a_paper_tables_as_csv_and_latex_charts_as_svg_and_pdf(written,
                                                                              tmp_path):
    import pandas as pd

    results = written[0].parent.parent / "results"
    path = markdown.write_report(results, tmp_path / "out", players=False,
                                 formats=("csv", "latex", "svg", "pdf"))
    out = path.parent
    for chart in ("win-rate", "nodes", "by-feature"):
        assert (out / f"{chart}.svg").exists() and (out / f"{chart}.pdf").exists()
    tables = sorted(p.name for p in (out / "tables").iterdir())
    assert "table-2-1.csv" in tables and "table-2-1.tex" in tables
    counts = pd.read_csv(out / "tables" / "table-2-1.csv", dtype=str)
    text = path.read_text()
    assert list(counts.columns) == ["deals", "wins", "losses", "unresolved"]
    assert f"| {' | '.join(counts.iloc[0])} |" in text  # the page's own row, cell for cell
    assert "Made by halfmoon " in text and "solver version" in text
    assert "tables as CSV and LaTeX (booktabs) are in `tables/`" in text
    # CSV alone: the page says CSV alone, no LaTeX it did not write
    text = markdown.write_report(results, tmp_path / "csv", players=False,
                                 formats=("csv",)).read_text()
    assert "tables as CSV are in `tables/`" in text and "LaTeX" not in text
    assert not list((tmp_path / "csv" / "tables").glob("*.tex"))
