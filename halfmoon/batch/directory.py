"""A run's results directory: its lock, its manifest and its chunk files, each written whole
under a temporary name and renamed (:mod:`.store`), on a local disk or at an fsspec URL."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Callable, Iterable, Optional, Union

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .errors import BatchError
from .results import (
    CHUNK_RE,
    MANIFEST_NAME,
    ROW_GROUP_ROWS,
    SCHEMA,
    chunk_format,
    error_text,
    manifest_from_text,
    read_chunk,
    rows_to_table,
    write_options,
)
from .state import LOCK_NAME, lock_text
from .store import TMP_RE, location


def chunk_name(index: int) -> str:
    return f"part-{index:06d}.parquet"


def write_tables(f, tables: Iterable[pa.Table]) -> int:
    """Write tables of :data:`SCHEMA` to the open file ``f`` as one Parquet file; the number of
    rows written.  Tables are gathered into row groups of at least :data:`ROW_GROUP_ROWS` rows
    where there are so many (a column is then read in long runs), each sorted by deal (the
    deal numbers are delta-coded); a cluster worker streams its tables, so at most a row
    group is held at a time."""
    rows = 0
    group: list[pa.Table] = []
    with pq.ParquetWriter(f, SCHEMA, **write_options()) as writer:

        def flush():
            table = pa.concat_tables(group).unify_dictionaries().combine_chunks()
            writer.write_table(table.take(pc.sort_indices(table["deal"])),
                               row_group_size=max(1, len(table)))
            group.clear()

        for table in tables:
            group.append(table)
            rows += table.num_rows
            if sum(t.num_rows for t in group) >= ROW_GROUP_ROWS:
                flush()
        if group:
            flush()
        writer.add_key_value_metadata(SCHEMA.metadata)  # the format, without an arrow schema
    return rows


class Directory:
    """The run's output directory: lock (on a local disk), manifest, chunk files."""

    def __init__(self, path: Union[str, Path], log: Callable[[str], None],
                 lines: bool = True) -> None:
        self.where = location(path)
        self.lines = lines  # whether the chunks keep the winning lines
        self.path = self.where.path
        self.log = log
        self._lock_file = None

    def check(self) -> None:
        """Refuse an output that cannot hold a run (before anything is written)."""
        try:
            self.where.check()
        except BatchError:
            raise
        except Exception as exc:
            raise BatchError(f"cannot use --out {self.path}: {error_text(exc)}") from None

    def open(self) -> None:
        """Create the directory, take its lock, remove temporary files of a killed run."""
        self.check()
        try:
            self.where.make()
        except OSError as exc:
            raise BatchError(f"cannot create --out {self.path}: {error_text(exc)}") from None
        except Exception as exc:  # an object store's own errors
            raise BatchError(f"cannot write to --out {self.path}: {error_text(exc)}") from None
        self._lock()
        self.sweep()

    def sweep(self) -> None:
        """Remove the temporary files left by a killed run or a worker killed mid-write."""
        for name in self.where.names():
            if TMP_RE.match(name):
                self.where.delete(name)

    def sweep_quietly(self) -> None:
        """:meth:`sweep`, on the way out of a failed run: an error here would hide the run's."""
        try:
            self.sweep()
        except Exception:  # pragma: no cover - e.g. the directory was deleted under the run
            pass

    def guard(self) -> tuple:
        """What a worker writing a chunk checks first (:func:`.local.chunk_task`): this
        process's id, and the lock file and its inode where there is one."""
        if self._lock_file is None:  # an object store, or not POSIX
            return os.getpid(), None, None
        lock = self.where.absolute / LOCK_NAME
        return os.getpid(), str(lock), os.fstat(self._lock_file.fileno()).st_ino

    def _lock(self) -> None:
        # an object store has no locks: one run at a time is up to the user
        if not self.where.is_local:
            return
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock
            return
        f = open(self.where.absolute / LOCK_NAME, "a+")
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            raise BatchError(f"another batch run is writing into {self.path}") from None
        f.seek(0)
        f.truncate()
        f.write(lock_text())  # read by .state: who is writing the run
        f.flush()
        self._lock_file = f

    def close(self) -> None:
        if self._lock_file is not None:
            self._lock_file.close()
            self._lock_file = None

    def read_manifest(self) -> Optional[dict]:
        text = self.where.read_text(MANIFEST_NAME)
        return None if text is None else manifest_from_text(text, f"{self.path}/{MANIFEST_NAME}")

    def write_manifest(self, manifest: dict) -> None:
        data = (json.dumps(manifest, indent=2) + "\n").encode("utf-8")
        self._still_ours()
        try:
            self.where.write(MANIFEST_NAME, lambda f: f.write(data))
        except (BatchError, OSError):
            raise
        except Exception as exc:  # an object store's own errors
            raise BatchError(f"cannot write to --out {self.path}: {error_text(exc)}") from None

    def chunks(self) -> dict[int, str]:
        """The finished chunk files, name by chunk index."""
        out = {}
        for name in self.where.names():
            m = CHUNK_RE.match(name)
            if m:
                out[int(m.group(1))] = name
        return dict(sorted(out.items()))

    def chunk_name(self, index: int) -> str:
        return chunk_name(index)

    def has_chunk(self, index: int) -> bool:
        return self.where.exists(chunk_name(index))

    def read_chunk(self, name: str, columns=None) -> pa.Table:
        path, fs = self.where.file(name)
        return read_chunk(path, columns=columns, filesystem=fs)

    def remove(self, name: str) -> None:
        self.where.delete(name)

    def write_chunk(self, index: int, rows: Union[list, Iterable[pa.Table]]) -> None:
        """Write chunk ``index`` whole, from rows (dicts, as :func:`.results.result_row` makes
        them) or tables of :data:`SCHEMA`."""
        tables = rows
        if isinstance(rows, list) and (not rows or isinstance(rows[0], dict)):
            tables = [rows_to_table(rows, self.lines)]
        self._still_ours()
        self.where.write(chunk_name(index), lambda f: write_tables(f, tables))

    def chunk_format(self, name: str) -> int:
        """The results format of a chunk file, from its footer."""
        return chunk_format(*self.where.file(name))

    def _still_ours(self) -> None:
        """Refuse to write if the directory was deleted or replaced under the run."""
        if self._lock_file is None:  # an object store, or not POSIX
            return
        try:
            same = (os.stat(self.where.absolute / LOCK_NAME).st_ino
                    == os.fstat(self._lock_file.fileno()).st_ino)
        except OSError:
            same = False
        if not same:
            raise BatchError(f"{self.path} was deleted or replaced during the run")
