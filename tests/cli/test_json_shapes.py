"""The JSON shapes written down in docs/usage.md ("JSON for programs"): each example's
command is run, and every key the example shows is in the real output, at the same place."""

from __future__ import annotations

import json
import shlex

import pytest
from cli_helpers import ROOT, run

USAGE = ROOT / "docs" / "usage.md"


def examples() -> list[tuple[str, object]]:
    """(command, documented JSON) of each ``$ halfmoon …`` block of the section."""
    text = USAGE.read_text(encoding="utf-8")
    section = text.split("## JSON for programs", 1)[1].split("\n## ", 1)[0]
    out, block = [], None
    for line in section.splitlines() + [""]:
        if line.startswith("    "):
            if line.startswith("    $ halfmoon "):
                block = [line[len("    $ halfmoon "):], []]
                out.append(block)
            elif block is not None:
                block[1].append(line[4:])
        else:
            block = None
    return [(command, json.loads("\n".join(body))) for command, body in out]


def keys_missing(documented, real, where="") -> list[str]:
    """The documented keys not in ``real`` (in dicts, and in the first item of lists)."""
    if isinstance(documented, dict):
        if not isinstance(real, dict):
            return [where or "the top"]
        missing = []
        for key, value in documented.items():
            if key not in real:
                missing.append(f"{where}.{key}")
            else:
                missing += keys_missing(value, real[key], f"{where}.{key}")
        return missing
    if isinstance(documented, list) and documented and isinstance(documented[0], (dict, list)):
        if not isinstance(real, list) or not real:
            return [f"{where}[0]"]
        return keys_missing(documented[0], real[0], f"{where}[0]")
    return []


EXAMPLES = examples()


def test_the_section_shows_every_json_command():
    commands = {shlex.split(c)[0] for c, _ in EXAMPLES}
    assert {"solve", "analyse", "players"} <= commands
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize("command, documented", EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_every_documented_key_is_in_the_real_output(capsys, command, documented):
    status, out, err = run(capsys, *shlex.split(command))
    assert status == 0, err
    real = json.loads(out.splitlines()[0])
    assert keys_missing(documented, real) == []
    # and nothing undocumented at the top: a new key is written down too
    assert set(real) == set(documented)


def test_the_check_sees_a_key_that_is_not_there():
    assert keys_missing({"a": 1, "b": [{"c": 2}]}, {"a": 1, "b": [{"d": 2}]}) == [".b[0].c"]
    assert keys_missing({"a": {"b": 1}}, {"a": None}) == [".a"]
