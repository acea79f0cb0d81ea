"""What the command line checks before any work: bad usage as one line, output files that
can be written."""

from __future__ import annotations

import os
from pathlib import Path

EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130


class UsageError(Exception):
    """A command used wrongly: printed as one line, exit status 2."""


def check_output_file(path: str, option: str) -> None:
    """Refuse an output file that cannot be written, before any work is done: a directory,
    a missing folder, a folder that cannot be written to."""
    target = Path(path)
    folder = target.parent
    if target.is_dir():
        raise UsageError(f"{option} {path}: is a directory, not a file")
    if not folder.is_dir():
        raise UsageError(f"{option} {path}: no such directory {str(folder)!r}")
    if not os.access(folder, os.W_OK) or (target.exists() and not os.access(target, os.W_OK)):
        raise UsageError(f"{option} {path}: cannot write there (permission denied)")


def check_output_dir(path: str, option: str) -> None:
    """Refuse an output directory that cannot be made or written, before any work is done:
    a file in its place or on its way, a folder that cannot be written to.  A URL
    (``s3://…``) is the store's to check."""
    if "://" in path:
        return
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise UsageError(f"{option} {path}: is a file, not a directory")
    existing = target
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise UsageError(f"{option} {path}: {str(existing)!r} is a file, not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise UsageError(f"{option} {path}: cannot write in {str(existing)!r} (permission denied)")


def add_quiet(p) -> None:
    """The ``--quiet`` option of a long command (batch, players, findings)."""
    p.add_argument("--quiet", action="store_true",
                   help="no progress (a bar on a terminal; else a line every 10 s or 5 %%,"
                   " whichever is later)")


def seed(text: str) -> int:
    """A seed option's value: a whole number, 0 or more (numpy's generators refuse a negative
    seed); argparse makes a bad one a usage error naming the option."""
    import argparse

    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"a seed is 0 or more, got {value}")
    return value
