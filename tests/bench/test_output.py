"""What a benchmark writes: the JSON, the tables, every deal's row, the charts."""

from __future__ import annotations

import json

import pandas as pd
from bench_helpers import fake_result
from bench_helpers import rows as make_rows

from halfmoon.bench.lanes import Row
from halfmoon.bench.output import FILES, markdown, write


def test_it_writes_every_file_and_the_json_reads_back(tmp_path):
    rows = {"random": make_rows([0.001, 0.002, 0.05])}
    paths = write(tmp_path / "out", fake_result(), rows)
    assert sorted(p.name for p in paths) == sorted(FILES)
    back = json.loads((tmp_path / "out" / "bench.json").read_text())
    assert back["parts"]["random"]["deals"] == 3
    df = pd.read_parquet(tmp_path / "out" / "deals.parquet")
    assert list(df.number) == [0, 1, 2] and set(df.version) == {"this"}
    for png in ("cactus.png", "times.png"):
        assert (tmp_path / "out" / png).read_bytes()[:4] == b"\x89PNG"


def test_the_table_says_the_machine_and_marks_a_busy_run():
    quiet = markdown(fake_result())
    assert "Busy machine" not in quiet and "a cpu, 2 cores" in quiet
    assert "| random | 3 | 3 | 0 | 0 |" in quiet
    busy = markdown(fake_result(busy=True))
    assert busy.index("Busy machine") < busy.index("Command:")
    assert "used 3.0 cores in the second before" in busy


def test_both_sides_of_a_comparison_are_kept_apart(tmp_path):
    result = fake_result()
    result["against"] = {"revision": "v1", "commit": "b" * 40, "solver_version": "14"}
    from halfmoon.bench.figures import part_figures, ratio

    a, b = make_rows([0.002, 0.004]), make_rows([0.001, 0.002])
    result["parts"] = {"random": {"about": "x", "base": part_figures(a, 1, 1),
                                  "this": part_figures(b, 1, 1),
                                  "speedup": ratio([r.whole for r in a], [r.whole for r in b]),
                                  "verdicts_differ": []}}
    write(tmp_path, result, {"random": {"base": a, "this": b}})
    df = pd.read_parquet(tmp_path / "deals.parquet")
    assert sorted(set(df.version)) == ["base", "this"]
    assert "| random | 2 |" in (tmp_path / "bench.md").read_text()
    assert "2.000x (faster)" in (tmp_path / "bench.md").read_text() or \
        "(not told apart)" in (tmp_path / "bench.md").read_text()
    assert isinstance(Row(1, "win", 1, 0.1, 0.1, None), Row)
