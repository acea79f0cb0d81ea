"""What the command line checks before any work."""

from __future__ import annotations

import pytest

from halfmoon.cli.checks import UsageError, check_output_file


def test_a_file_in_a_writable_folder_passes(tmp_path):
    check_output_file(str(tmp_path / "new.png"), "--png")
    (tmp_path / "old.png").write_bytes(b"x")
    check_output_file(str(tmp_path / "old.png"), "--png")  # overwritten: allowed


def test_a_directory_is_refused_naming_the_option(tmp_path):
    with pytest.raises(UsageError, match="--out .*is a directory"):
        check_output_file(str(tmp_path), "--out")


def test_a_missing_folder_is_named(tmp_path):
    with pytest.raises(UsageError, match="no such directory .*missing"):
        check_output_file(str(tmp_path / "missing" / "x.png"), "--png")
