"""A set's layout files for another solver."""

from __future__ import annotations

from halfmoon.bench.sets import export_set
from halfmoon.bench.suites import deal_set
from halfmoon.game.deal import Deal
from halfmoon.game.layouts import read_layout


def test_every_layout_file_reads_back_as_its_deal_and_names_its_verdict(tmp_path):
    n = export_set("hard", tmp_path)
    rows = deal_set("hard")
    assert n == len(rows) == len(list(tmp_path.glob("HM1-*.txt")))
    assert (tmp_path / "hard.csv").read_text().splitlines()[1].startswith("number,code")
    for r in rows[:20]:
        path = tmp_path / f"{r.code}.txt"
        assert read_layout(path).piles == Deal.from_number(r.number).piles
        assert f"# verdict: {r.verdict} " in path.read_text()


def test_an_exported_layout_keeps_its_deal_number_and_code(tmp_path):
    export_set("quick", tmp_path)
    for r in deal_set("quick")[:20]:
        deal = read_layout(tmp_path / f"{r.code}.txt")
        assert (deal.code, deal.number) == (r.code, r.number)


def test_the_sets_end_their_lines_in_lf():
    from halfmoon.bench.suites import SETS

    for path in SETS.glob("*.csv"):
        data = path.read_bytes()
        assert b"\r" not in data and data.endswith(b"\n"), path.name
