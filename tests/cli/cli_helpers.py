"""What the command-line tests share: running ``main`` and checking a one-line error."""

from __future__ import annotations

from pathlib import Path

from spec_vectors import SPEC_VECTORS

from halfmoon.cli.main import main

ROOT = Path(__file__).resolve().parents[2]


# The layout vector of deal 1 in the deal-code spec, with its code as the first line.
DEAL1_LAYOUT = "# HM1-N-AAAAAAB\n" + SPEC_VECTORS["HM1-N-AAAAAAB"]


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def assert_one_line_error(capsys, argv, *fragments):
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("halfmoon: error:")
    for fragment in fragments:
        assert fragment in lines[0]
    return lines[0]
