"""The command as a whole: ``python -m halfmoon``, usage errors, ``--help``."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from cli_helpers import ROOT, assert_one_line_error

from halfmoon import Deal
from halfmoon.cli.main import main


def test_python_dash_m_halfmoon():
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "halfmoon", "show", "0"],
        capture_output=True, text=True, encoding="utf-8", cwd=ROOT, env=env, timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.splitlines()[0] == "HM1-N-AAAAAAA"
    assert result.stdout == str(Deal("HM1-N-AAAAAAA"))


def test_python_dash_m_halfmoon_error():
    result = subprocess.run(
        [sys.executable, "-m", "halfmoon", "show", "HM1-N-AAAAAA"],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("halfmoon: error:")


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["show", "0", "--bogus"], "--bogus"),
        (["show", "0", "--format", "xml"], "xml"),
        (["frobnicate"], "frobnicate"),
        ([], "required"),
        (["show"], "required"),
    ],
)
def test_usage_errors(capsys, argv, fragment):
    assert_one_line_error(capsys, argv, fragment, "--help")


def test_help_exits_zero(capsys):
    with pytest.raises(SystemExit) as info:
        main(["show", "--help"])
    assert info.value.code == 0
    assert "--format" in capsys.readouterr().out


@pytest.mark.parametrize("command", ["solve 1 2 3 | head -1", "solve 1 2 3 --json | head -c 10",
                                     "show 1 | head -1"])
def test_a_reader_that_leaves_early_ends_the_command_quietly(command):
    """Piped into ``head``: no "Broken pipe" error, no traceback, exit status 0."""
    import shlex

    python = shlex.quote(sys.executable)
    script = f"{python} -m halfmoon {command}; echo \"status ${{PIPESTATUS[0]}}\" >&2"
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True,
                            encoding="utf-8", cwd=ROOT, timeout=120,
                            env=dict(os.environ, PYTHONIOENCODING="utf-8"))
    assert result.stderr.strip().splitlines()[-1] == "status 0", result.stderr
    assert "rror" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    assert result.stdout.startswith("HM1-N-AAAAAAB") or result.stdout.startswith("{")


HEAVY = ("solver", "numba", "pandas", "pyarrow", "halfmoon.batch", "halfmoon.research",
         "halfmoon.board")

IMPORTED = """
import importlib, sys
main = importlib.import_module("halfmoon.cli.main").main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(" ".join(m for m in {heavy!r} if m in sys.modules))
"""


@pytest.mark.parametrize("argv, imported", [
    (["--help"], ""),
    (["show", "0"], ""),
    (["batch", "--help"], "pyarrow halfmoon.batch"),  # --sample's default: from the batch
])
def test_a_command_imports_what_it_uses_alone(argv, imported):
    """Only the command run builds its arguments: ``halfmoon --help`` or ``show`` does not
    load the solver, pandas or Arrow, which the other commands' help texts name."""
    result = subprocess.run([sys.executable, "-c", IMPORTED.format(heavy=HEAVY), *argv],
                            capture_output=True, text=True, encoding="utf-8", cwd=ROOT,
                            env=dict(os.environ, PYTHONIOENCODING="utf-8"), timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].split() == [m for m in HEAVY if m in imported.split()]


def test_every_command_is_listed_and_its_own_help_is_whole(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    listed = capsys.readouterr().out
    from halfmoon.cli.main import SUBCOMMANDS

    for name, _, _ in SUBCOMMANDS:
        assert name in listed
        with pytest.raises(SystemExit) as info:
            main([name, "--help"])
        assert info.value.code == 0
        assert "options:" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["batch", "--help"])
    assert "(default: 5,000)" in capsys.readouterr().out


def test_version_names_the_package_and_the_solver(capsys):
    import halfmoon
    from solver import SOLVER_VERSION

    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"halfmoon {halfmoon.__version__} (solver version " \
                                      f"{SOLVER_VERSION})\n"


def test_the_package_version_is_the_installed_one():
    """``__version__`` is the version pyproject.toml gives the installed package."""
    from importlib.metadata import version

    import halfmoon

    assert halfmoon.__version__ == version("halfmoon")
