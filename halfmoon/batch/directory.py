"""A run's results directory: its lock, its manifest and its chunk files, each written whole
under a temporary name and renamed."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Callable

import pyarrow.parquet as pq

from .errors import BatchError
from .results import MANIFEST_NAME, rows_to_table

LOCK_NAME = ".lock"
TMP_SUFFIX = ".tmp"  # temporary files: ".<final name>.<pid>.tmp"
_TMP_RE = re.compile(r"^\.(part-\d+\.parquet|" + re.escape(MANIFEST_NAME) + r")\.\d+\.tmp$")


class Directory:
    """The run's output directory: lock, manifest, chunk files."""

    def __init__(self, path: Path, log: Callable[[str], None]) -> None:
        self.path = path
        self.log = log
        self._lock_file = None

    def open(self) -> None:
        if self.path.exists() and not self.path.is_dir():
            raise BatchError(f"--out {str(self.path)!r} is not a directory")
        self.path.mkdir(parents=True, exist_ok=True)
        self._lock()
        for entry in self.path.iterdir():  # left by a run killed while writing
            if _TMP_RE.match(entry.name):
                entry.unlink()

    def _lock(self) -> None:
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock
            return
        f = open(self.path / LOCK_NAME, "a+")
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            raise BatchError(f"another batch run is writing into {self.path}") from None
        self._lock_file = f

    def close(self) -> None:
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    def write_manifest(self, manifest: dict) -> None:
        data = (json.dumps(manifest, indent=2) + "\n").encode("utf-8")
        self._write_atomic(MANIFEST_NAME, lambda f: f.write(data))

    def chunk_name(self, index: int) -> str:
        return f"part-{index:06d}.parquet"

    def write_chunk(self, index: int, rows: list[dict]) -> None:
        table = rows_to_table(rows)
        self._write_atomic(self.chunk_name(index), lambda f: pq.write_table(table, f, compression="zstd"))

    def _still_ours(self) -> None:
        """Refuse to write if the directory was deleted or replaced under the run."""
        if self._lock_file is None:  # pragma: no cover - not POSIX
            return
        try:
            same = os.stat(self.path / LOCK_NAME).st_ino == os.fstat(self._lock_file.fileno()).st_ino
        except OSError:
            same = False
        if not same:
            raise BatchError(f"{self.path} was deleted or replaced during the run")

    def _write_atomic(self, name: str, write: Callable) -> None:
        self._still_ours()
        final = self.path / name
        tmp = self.path / f".{name}.{os.getpid()}{TMP_SUFFIX}"
        try:
            with open(tmp, "wb") as f:
                write(f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, final)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _fsync_dir(self.path)


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # pragma: no cover - e.g. Windows
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover - some file systems refuse
        pass
    finally:
        os.close(fd)
