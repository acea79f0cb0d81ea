"""``halfmoon bench --suite advice``'s figures and words, from a player's records."""

from __future__ import annotations

import json

from halfmoon.bench import advice


def _records() -> list[dict]:
    rows = [{"deal": 7, "ply": k, "legal": 3, "seconds": 0.1 * (k + 1), "cpu": 0.2 * (k + 1),
             "stage": 384 if k % 2 else 64, "first": "P1+P8",
             "final": "P1+P8" if k else "P2+P8", "stopped": k == 3} for k in range(20)]
    return [{"deal": 7, "won": True, "moves_made": 48, "undos": 2, "dead_ends": 1,
             "positions": rows}]


def test_figures_count_the_times_the_changes_and_the_stages():
    f = advice.figures(_records())
    assert f["positions"] == 20 and f["won"] == 1 and f["undos"] == 2
    assert f["wall"]["p50"] == 1.1 and f["wall"]["p95"] == 2.0 and f["wall"]["max"] == 2.0
    assert f["cpu"]["max"] == 4.0
    assert f["differs"] == 1 and f["differs_share"] == 0.05
    assert 0 < f["differs_low"] < 0.05 < f["differs_high"]
    assert f["stages"] == {"64": 10, "384": 10} and f["stopped"] == 1
    assert advice.figures([])["positions"] == 0


def test_the_lines_give_each_side_and_the_machine(tmp_path):
    figures = advice.figures(_records())
    result = {"deals": [7], "seed": 65, "max_moves": 60, "think": 1.0,
              "target": advice.TARGET, "load_before": 1.5, "load_after": 2.0,
              "other_processes_cores": 0.3, "busy": False,
              "machine": {"cpu": "a cpu", "cores": 2, "usable_cores": 2, "python": "3.11",
                          "commit": "abcdef1234567890", "dirty": False},
              "this": {"figures": figures, "workers": 2, "records": []},
              "against": {"name": "HEAD~1", "commit": "0123456789abcdef",
                          "figures": figures, "workers": 1, "records": []}}
    lines = advice.advice_lines(result)
    assert lines[1].startswith("HEAD~1 (0123456789ab), 1 solver process(es): 20 positions")
    assert lines[2].startswith("this checkout (abcdef123456), 2 solver process(es)")
    assert "wall p50 1.10 s, p95 2.00 s, max 2.00 s" in lines[2]
    assert "differs from the final in 1 of 20 (5.0 %" in lines[2]
    assert "settled at 64: 10, 384: 10 layouts (1 stopped by a limit)" in lines[2]
    assert lines[-1].startswith("machine: a cpu, 2 cores (2 usable), Python 3.11; load 1.5 "
                                "before, 2.0 after")
    path = advice.write_advice(tmp_path / "out", result)
    assert json.loads(path.read_text())["this"]["workers"] == 2
    assert (tmp_path / "out" / "advice.txt").read_text().splitlines() == lines


def test_the_player_is_the_boards_script():
    assert advice.PLAYER.name == "advice_player.py" and advice.PLAYER.exists()
    assert advice.PLAYER.parent.name == "board"
