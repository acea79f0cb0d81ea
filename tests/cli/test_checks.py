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


def test_an_output_directory_is_refused_when_a_file_is_in_the_way(tmp_path):
    from halfmoon.cli.checks import check_output_dir

    check_output_dir(str(tmp_path / "new" / "deeper"), "--out")  # made when the run starts
    check_output_dir(str(tmp_path), "--out")
    check_output_dir("s3://bucket/run", "--out")  # a URL: the store's to check
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="--out .*file: is a file, not a directory"):
        check_output_dir(str(tmp_path / "file"), "--out")
    with pytest.raises(UsageError, match="--work .*'.*file' is a file, not a directory"):
        check_output_dir(str(tmp_path / "file" / "sub"), "--work")


def test_an_output_directory_that_cannot_be_written_is_refused(tmp_path, monkeypatch):
    import os

    from halfmoon.cli.checks import check_output_dir

    # (the tests may run as root, whom permissions do not stop: access is asked, not tried)
    monkeypatch.setattr(os, "access", lambda path, mode: str(path) != str(tmp_path))
    with pytest.raises(UsageError, match="cannot write in .*permission denied"):
        check_output_dir(str(tmp_path / "sub"), "--out")
