"""CITATION.cff: the fields the Citation File Format requires, and the version of the
package it cites (a release that forgot it would have a paper cite the wrong one)."""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _top_level(text: str) -> dict[str, str]:
    """The file's top-level ``key: value`` pairs (a value on following lines: empty)."""
    return {m[1]: m[2].strip().strip('"') for m in
            re.finditer(r"^([a-z][a-z-]*):[ \t]*(.*)$", text, re.M)}


def test_the_citation_file_has_what_the_format_requires_and_cites_this_version():
    text = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    fields = _top_level(text)
    assert fields["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors", "version", "type", "license"):
        assert key in fields, key
    assert re.search(r"^authors:\n  - name: \S", text, re.M)  # at least one author
    assert fields["version"] == version("halfmoon")
    assert fields["license"] in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
