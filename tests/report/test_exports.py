"""A page's tables as CSV and LaTeX, its charts as SVG and PDF: cell for cell what the page
shows, dated nowhere, and nothing left of an earlier drawing."""

from __future__ import annotations

import pandas as pd
import pytest

from halfmoon.game.errors import HalfMoonError
from halfmoon.report import charts
from halfmoon.report.exports import page_tables, parse_formats, save_figure, write_tables
from halfmoon.report.style import table_lines

PAGE = "\n".join(["# Title", "", "## 2. Why deals are lost", "", "Some words:", "",
                  *table_lines(("deadlock", "losses", "share"),
                               [("the faces alone", "12", "40.0 %"), ("a & b_c", "3", "")]),
                  "", "## 4b. Fair play", "", *table_lines(("player", "won"), [("fair", "5")]),
                  "", *table_lines(("player", "time"), [("greedy", "0.1 ms")]), ""])


def test_formats_are_checked_and_put_in_order():
    assert parse_formats("pdf,csv, LATEX") == ("csv", "latex", "pdf")
    assert parse_formats("") == () and parse_formats("md,png") == ()
    with pytest.raises(HalfMoonError, match="unknown format 'docx'"):
        parse_formats("csv,docx")


def test_each_table_of_the_page_is_read_back_cell_for_cell():
    tables = page_tables(PAGE)
    assert [(n, c) for n, c, _ in tables] == [("table-2-1", "2. Why deals are lost"),
                                              ("table-4b-1", "4b. Fair play"),
                                              ("table-4b-2", "4b. Fair play")]
    t = tables[0][2]
    assert list(t.columns) == ["deadlock", "losses", "share"]
    assert t.values.tolist() == [["the faces alone", "12", "40.0 %"], ["a & b_c", "3", ""]]


def test_csv_and_latex_tables_are_written_and_an_earlier_pages_removed(tmp_path):
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "table-9-1.csv").write_text("stale")
    paths = write_tables(PAGE, tmp_path / "t", ("csv", "latex"), "halfmoon 0.1.0", "page.md")
    assert sorted(p.name for p in (tmp_path / "t").iterdir()) == sorted(p.name for p in paths)
    assert len(paths) == 6
    back = pd.read_csv(tmp_path / "t" / "table-2-1.csv", dtype=str, keep_default_na=False)
    assert back.values.tolist() == [["the faces alone", "12", "40.0 %"], ["a & b_c", "3", ""]]
    tex = (tmp_path / "t" / "table-2-1.tex").read_text()
    assert tex.startswith("% table-2-1: 2. Why deals are lost, from page.md; made by halfmoon")
    for rule in ("\\toprule", "\\midrule", "\\bottomrule", "\\caption{2. Why deals are lost}",
                 "\\label{tab:table-2-1}"):
        assert rule in tex
    assert "40.0 \\%" in tex and "a \\& b\\_c" in tex  # escaped: it compiles
    assert write_tables(PAGE, tmp_path / "t", ()) == []
    assert not list((tmp_path / "t").glob("table-*"))  # none left of the earlier page


def test_vector_figures_beside_the_png_are_dated_nowhere(tmp_path):
    def draw():
        fig = charts.figure(3, 2)
        fig.add_subplot().plot([0, 1], [1, 0])
        return fig

    paths = save_figure(draw(), tmp_path / "a.png", ("svg", "pdf"), made_by="halfmoon X")
    assert [p.name for p in paths] == ["a.png", "a.svg", "a.pdf"]
    svg = (tmp_path / "a.svg").read_text()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "halfmoon X" in svg
    assert (tmp_path / "a.pdf").read_bytes().startswith(b"%PDF")
    first = (tmp_path / "a.svg").read_bytes(), (tmp_path / "a.pdf").read_bytes()
    save_figure(draw(), tmp_path / "a.png", ("svg", "pdf"), made_by="halfmoon X")
    assert first == ((tmp_path / "a.svg").read_bytes(), (tmp_path / "a.pdf").read_bytes())
    save_figure(draw(), tmp_path / "a.png", ())  # not asked for: an earlier one removed
    assert not (tmp_path / "a.svg").exists() and not (tmp_path / "a.pdf").exists()
