"""A page's tables and charts in the formats a paper takes: each Markdown table of a page as
CSV and as a LaTeX (booktabs) table, each chart as SVG and PDF beside its PNG.

    formats = parse_formats("csv,latex,svg,pdf")
    save_figure(fig, out / "win-rate.png", formats, dpi=90)   # and win-rate.svg, win-rate.pdf
    write_tables(page_text, out / "tables", formats, made_by)  # table-1-1.csv, table-1-1.tex …

The tables are read back from the page's own Markdown, so that a CSV or LaTeX table holds
exactly what the page shows, cell for cell; each is named by its section's number and its
place in it (``table-4b-1``: the first table of section 4b), and its LaTeX caption is the
section's title.  The vector figures are drawn from the same Figure as the PNG, with no date
in them, so that a figure made again from the same data is the same file.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Iterable, Sequence, Union

import pandas as pd
from matplotlib import rc_context

from halfmoon.game.errors import HalfMoonError

TABLE_FORMATS = ("csv", "latex")
FIGURE_FORMATS = ("svg", "pdf")
FORMATS = TABLE_FORMATS + FIGURE_FORMATS


def parse_formats(text: Union[str, Sequence[str], None]) -> tuple[str, ...]:
    """The formats of ``--formats`` (``"csv,latex,svg,pdf"``, any of them, in any order);
    :class:`HalfMoonError` naming one not known.  Markdown and PNG are always written."""
    if not text:
        return ()
    names = [t.strip().lower() for t in (text.split(",") if isinstance(text, str) else text)]
    bad = [n for n in names if n not in FORMATS + ("md", "png")]
    if bad:
        raise HalfMoonError(f"--formats: unknown format {bad[0]!r}; known: "
                            f"{', '.join(FORMATS)} (md and png are always written)")
    return tuple(n for n in FORMATS if n in names)


def tables_words(formats: Iterable[str]) -> str:
    """The table formats written, in words ("CSV", "LaTeX (booktabs)", or both), "" for
    none: a page says only what was written."""
    names = {"csv": "CSV", "latex": "LaTeX (booktabs)"}
    return " and ".join(names[f] for f in TABLE_FORMATS if f in formats)


def save_figure(fig, png: Union[str, Path], formats: Iterable[str] = (), dpi=None,
                made_by: str = "") -> list[Path]:
    """``fig`` as the PNG ``png`` and, for each of ``formats`` that is a figure's, the same
    figure beside it (``.svg``, ``.pdf``), dated nowhere; ``made_by`` is written into each
    file's metadata.  A vector file of a format not asked for is removed (an earlier drawing's
    would not be this figure).  The paths written."""
    png = Path(png)
    out = [png]
    fig.savefig(png, dpi=dpi, metadata={"Software": made_by} if made_by else None)
    for fmt in FIGURE_FORMATS:
        path = png.with_suffix(f".{fmt}")
        if fmt not in formats:  # one of an earlier drawing would no longer be this figure
            path.unlink(missing_ok=True)
            continue
        meta = {"svg": {"Date": None, "Creator": made_by or None},
                "pdf": {"CreationDate": None, "ModDate": None, "Creator": made_by or None}}[fmt]
        with rc_context({"svg.hashsalt": "halfmoon"}):  # the SVG's ids the same each time
            fig.savefig(path, format=fmt, metadata=meta)
        out.append(path)
    return out


_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_NUMBER = re.compile(r"^(\d+[a-z]?)\.\s")


def page_tables(text: str) -> list[tuple[str, str, pd.DataFrame]]:
    """The Markdown tables of a page, in order: ``(name, caption, table)``, the name
    ``table-S-K`` (the K-th table of section S, S the number its heading starts with, else
    the heading's place on the page), the caption its section's title, every cell a string
    as the page writes it."""
    out = []
    lines = text.splitlines()
    section, title, k, headings = "0", "", 0, 0
    i = 0
    while i < len(lines):
        h = _HEADING.match(lines[i])
        if h:
            headings += 1
            title = h.group(1).strip()
            m = _NUMBER.match(title)
            section, k = (m.group(1) if m else str(headings)), 0
        if (lines[i].startswith("|") and i + 1 < len(lines)
                and re.fullmatch(r"\|(-+\|)+", lines[i + 1].strip())):
            header = _cells(lines[i])
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
            k += 1
            width = len(header)
            rows = [(r + [""] * width)[:width] for r in rows]
            out.append((f"table-{section}-{k}", title,
                        pd.DataFrame(rows, columns=_unique(header))))
            continue
        i += 1
    return out


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split(" | ")]


def _unique(names: list[str]) -> list[str]:
    """Column names made distinct (a table's first header may be empty)."""
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n} ({seen[n]})")
    return out


def latex_table(table: pd.DataFrame, caption: str, label: str) -> str:
    """A table as LaTeX (``booktabs`` rules: ``\\toprule``, ``\\midrule``, ``\\bottomrule``),
    every cell escaped, the first column left-aligned, the others right."""
    plain = caption.replace("`", "").replace("*", "")
    return table.to_latex(index=False, escape=True, caption=plain, label=label,
                          column_format="l" + "r" * (len(table.columns) - 1), position="htbp")


def write_tables(page_text: str, out_dir: Union[str, Path], formats: Iterable[str],
                 made_by: str = "", page_name: str = "") -> list[Path]:
    """Each table of the page (:func:`page_tables`) into ``out_dir`` as CSV (``.csv``) and
    LaTeX (``.tex``, with a comment naming the page and ``made_by``), as ``formats`` ask;
    the paths written (none where no table format is asked for).  The tables of an earlier
    page there are removed first, so that none is left of a page that no longer has it."""
    formats = [f for f in formats if f in TABLE_FORMATS]
    out = Path(out_dir)
    for old in (out.glob("table-*.csv") if out.is_dir() else []):  # of an earlier page:
        old.unlink()                                               # never left stale
    for old in (out.glob("table-*.tex") if out.is_dir() else []):
        old.unlink()
    if not formats:
        return []
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, caption, table in page_tables(page_text):
        if "csv" in formats:
            table.to_csv(out / f"{name}.csv", index=False)
            paths.append(out / f"{name}.csv")
        if "latex" in formats:
            head = (f"% {name}: {caption}" + (f", from {page_name}" if page_name else "")
                    + (f"; made by {made_by}" if made_by else "")
                    + "\n% needs \\usepackage{booktabs}\n")
            (out / f"{name}.tex").write_text(
                head + latex_table(table, caption, f"tab:{name}"), encoding="utf-8")
            paths.append(out / f"{name}.tex")
    return paths
