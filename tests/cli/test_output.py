"""The commands' JSON for programs: the schema number first, times to the microsecond."""

from __future__ import annotations

import json

from halfmoon.cli.output import SCHEMA, json_line, rounded_times


def test_the_schema_number_comes_first_and_a_key_of_the_object_is_kept():
    line = json_line({"code": "HM1-N-AAAAAAD", "verdict": "win"})
    assert list(json.loads(line)) == ["schema", "code", "verdict"]
    assert json.loads(line)["schema"] == SCHEMA and isinstance(SCHEMA, int) and SCHEMA >= 1
    assert "\n" not in line and "♥" in json_line({"text": "10♥ P8"})  # one line, the glyphs


def test_times_are_rounded_to_the_microsecond_and_nothing_else():
    obj = {"seconds": 0.0008052499999848806, "setup_seconds": 2.7331324,
           "seconds_per_game": 0.02441234, "nodes": 659.9000000000009,
           "legal_moves": [{"seconds": 0.009177081000018461, "win_rate": 0.9733333333333334}],
           "stats": {"seconds": {"mean": 0.0014222266666666667, "max": 2}},
           "why": None, "budget": 20000}
    assert rounded_times(obj) == {
        "seconds": 0.000805, "setup_seconds": 2.733132, "seconds_per_game": 0.024412,
        "nodes": 659.9000000000009,
        "legal_moves": [{"seconds": 0.009177, "win_rate": 0.9733333333333334}],
        "stats": {"seconds": {"mean": 0.001422, "max": 2}}, "why": None, "budget": 20000}
