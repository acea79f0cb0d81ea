"""The JSON written down in docs/usage.md ("JSON for programs"): each example's commands are
run, and the documented object is the real output, key for key and value for value (times
aside), so the page cannot go stale when the solver or a shape changes."""

from __future__ import annotations

import json
import shlex

import pytest
from cli_helpers import ROOT, run

from halfmoon.cli.output import SCHEMA, is_time_key

USAGE = ROOT / "docs" / "usage.md"
PROMPT = "    $ halfmoon "
SOURCE_KEYS = ("commit", "changed")  # of provenance: the checkout's, not the example's


def examples() -> list[tuple[list[str], object]]:
    """(commands, documented JSON) of each ``$ halfmoon …`` block of the section: a block
    may run commands before the one whose output it shows (a batch before its stats)."""
    text = USAGE.read_text(encoding="utf-8")
    section = text.split("## JSON for programs", 1)[1].split("\n## ", 1)[0]
    out, block = [], None
    for line in section.splitlines() + [""]:
        if line.startswith(PROMPT) and (block is None or not block[1]):
            if block is None:
                block = [[], []]
                out.append(block)
            block[0].append(line[len(PROMPT):])
        elif line.startswith("    ") and block is not None:
            block[1].append(line[4:])
        else:
            block = None
    return [(commands, json.loads("\n".join(body))) for commands, body in out]


def _decimals(x: float) -> int:
    text = repr(x)
    return len(text.split(".", 1)[1]) if "." in text and "e" not in text else 17


def differences(documented, real, where="") -> list[str]:
    """Where ``real`` is not what ``documented`` shows: a key missing or a value not the
    same (a list may be cut to its first items; a float written with fewer digits is the
    real one rounded to them; a time is a number, whatever its value)."""
    here = where or "the top"
    if isinstance(documented, dict):
        if not isinstance(real, dict):
            return [here]
        out = []
        for key, value in documented.items():
            if key not in real:
                out.append(f"{where}.{key} (missing)")
            elif is_time_key(key):
                out += _times_differ(value, real[key], f"{where}.{key}")
            elif key in SOURCE_KEYS and where.endswith(".provenance"):
                # the commit the source is at, and whether it has changes: of the checkout
                if not (real[key] is None or type(real[key]) is type(value)):
                    out.append(f"{where}.{key}: {real[key]!r}")
            else:
                out += differences(value, real[key], f"{where}.{key}")
        return out
    if isinstance(documented, list):
        if not isinstance(real, list) or len(real) < len(documented):
            return [here]
        return [d for k, item in enumerate(documented)
                for d in differences(item, real[k], f"{where}[{k}]")]
    if isinstance(documented, float) and isinstance(real, float):
        return [] if round(real, _decimals(documented)) == documented else [f"{here}: {real!r}"]
    if documented != real or type(documented) is not type(real):
        return [f"{here}: {real!r}"]
    return []


def _times_differ(documented, real, where: str) -> list[str]:
    if isinstance(documented, dict):
        if not isinstance(real, dict) or set(real) != set(documented):
            return [where]
        return [d for k in documented for d in _times_differ(documented[k], real[k],
                                                             f"{where}.{k}")]
    numbers = (int, float)
    same_kind = (isinstance(documented, numbers) and isinstance(real, numbers)) or \
        (documented is None and real is None)
    return [] if same_kind else [f"{where}: {real!r}"]


EXAMPLES = examples()


def test_the_section_shows_every_json_command():
    commands = {shlex.split(c[-1])[0] for c, _ in EXAMPLES}
    assert commands == {"show", "solve", "analyse", "players", "stats"}
    assert all(len(c) == 1 for c, _ in EXAMPLES if not c[-1].startswith("stats"))


@pytest.mark.parametrize("commands, documented", EXAMPLES, ids=[c[-1] for c, _ in EXAMPLES])
def test_the_documented_json_is_the_real_output(capsys, tmp_path, monkeypatch,
                                                 commands, documented):
    monkeypatch.chdir(tmp_path)  # where a batch of the example writes
    for command in commands:
        status, out, err = run(capsys, *shlex.split(command))
        assert status == 0, err
    real = json.loads(out.splitlines()[0])
    assert real["schema"] == SCHEMA and list(real)[0] == "schema"
    assert differences(documented, real) == []
    # and nothing undocumented at the top: a new key is written down too
    assert set(real) == set(documented)


def test_the_check_sees_a_key_or_a_value_that_is_not_there():
    assert differences({"a": 1, "b": [{"c": 2}]}, {"a": 1, "b": [{"d": 2}]}) == [
        ".b[0].c (missing)"]
    assert differences({"a": {"b": 1}}, {"a": None}) == [".a"]
    assert differences({"nodes": 326, "v": "14"}, {"nodes": 359, "v": "15"}) == [
        ".nodes: 359", ".v: '15'"]
    assert differences({"x": [1, 2]}, {"x": [1, 2, 3]}) == []  # a list cut to its first items
    assert differences({"x": [1, 2]}, {"x": [1]}) == [".x"]
    assert differences({"p": 0.4899}, {"p": 0.48990002040399916}) == []
    assert differences({"p": 0.49}, {"p": 0.48990002040399916}) == []
    assert differences({"p": 0.4898}, {"p": 0.48990002040399916}) == [".p: 0.48990002040399916"]
    assert differences({"n": 1}, {"n": True}) == [".n: True"]
    # times: any number, but a number
    assert differences({"seconds": 0.001861, "why": {"seconds": 0.06}},
                       {"seconds": 0.5, "why": {"seconds": 1.0}}) == []
    assert differences({"seconds": {"mean": 0.1, "p50": 0.2}},
                       {"seconds": {"mean": 0.3}}) == [".seconds"]
    assert differences({"setup_seconds": 2.7}, {"setup_seconds": None}) == [
        ".setup_seconds: None"]
