"""Where a run's files live, and how a file gets there whole.

A location is a local directory (a shared filesystem mounted on every worker is one too) or
an fsspec URL (``s3://…``, ``gs://…``, ``memory://`` in tests; ``file://`` is a local
directory).  Every file is written under a temporary name (``.<name>.<token>.tmp``) and
renamed once it is complete, so a file with its final name is always whole; on a local
disk the data and the directory are fsynced first.  A location is small and can be pickled:
a cluster worker gets one with its task and writes its own chunk file there.
"""

from __future__ import annotations

import os
import re
import secrets
from pathlib import Path
from typing import Callable, Optional, Union

from .errors import BatchError
from .results import MANIFEST_NAME, error_text

TMP_SUFFIX = ".tmp"
TMP_RE = re.compile(r"^\.(part-\d+\.parquet|" + re.escape(MANIFEST_NAME) + r")\.[0-9a-f-]+\.tmp$")
_URL_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def location(out: Union[str, Path]) -> Union["LocalDir", "UrlDir"]:
    """The location named by ``--out``: a local path, ``file://PATH`` or another fsspec URL."""
    if isinstance(out, Path):
        return LocalDir(out)
    text = str(out)
    if text.startswith("file://"):
        return LocalDir(Path(text[len("file://"):]))
    if _URL_RE.match(text):
        return UrlDir(text)
    return LocalDir(Path(text))


def temp_name(name: str) -> str:
    """A temporary name for ``name``, unique to this process and call."""
    return f".{name}.{os.getpid()}-{secrets.token_hex(4)}{TMP_SUFFIX}"


class LocalDir:
    """A directory on a local or shared filesystem."""

    is_local = True

    def __init__(self, path: Path) -> None:
        self.path = path  # as the user named it, for messages
        self.absolute = Path(os.path.abspath(path))  # what a worker elsewhere needs

    def __reduce__(self):
        return LocalDir, (self.absolute,)

    def __str__(self) -> str:
        return str(self.path)

    def label(self, name: str) -> str:
        """How a file of the directory is named in messages."""
        return str(self.path / name)

    def check(self) -> None:
        if self.path.exists() and not self.path.is_dir():
            raise BatchError(f"--out {str(self.path)!r} is not a directory")

    def make(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)

    def names(self) -> list[str]:
        """Names of the files in the directory (none if it does not exist)."""
        try:
            return [e.name for e in os.scandir(self.absolute) if e.is_file()]
        except FileNotFoundError:
            return []

    def exists(self, name: str) -> bool:
        return (self.absolute / name).is_file()

    def file(self, name: str) -> tuple[str, None]:
        """(path, filesystem) of a file, as pyarrow reads it."""
        return str(self.path / name), None

    def read_text(self, name: str) -> Optional[str]:
        try:
            return (self.absolute / name).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    def delete(self, name: str) -> None:
        (self.absolute / name).unlink(missing_ok=True)

    def write(self, name: str, write: Callable) -> None:
        """Write ``name`` whole: ``write(f)`` fills a temporary file, which is fsynced and
        renamed."""
        final = self.absolute / name
        tmp = self.absolute / temp_name(name)
        try:
            with open(tmp, "xb") as f:
                write(f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, final)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        _fsync_dir(self.absolute)


class UrlDir:
    """A folder of an fsspec filesystem (an object store's prefix, ``memory://`` …)."""

    is_local = False

    def __init__(self, url: str) -> None:
        self.url = url.rstrip("/")
        self.path = self.url  # for messages
        self._fs = None
        self._root = None

    def __reduce__(self):
        return UrlDir, (self.url,)

    def __str__(self) -> str:
        return self.url

    @property
    def fs(self):
        if self._fs is None:
            self._fs, self._root = open_url(self.url)
        return self._fs

    def _full(self, name: str) -> str:
        self.fs
        return f"{self._root}/{name}"

    def label(self, name: str) -> str:
        return f"{self.url}/{name}"

    def check(self) -> None:
        if self.fs.isfile(self._root):
            raise BatchError(f"--out {self.url!r} is a file, not a folder")

    def make(self) -> None:
        self.fs.makedirs(self._root, exist_ok=True)

    def names(self) -> list[str]:
        fs = self.fs
        try:
            entries = fs.ls(self._root, detail=True)
        except FileNotFoundError:
            return []
        return [e["name"].rstrip("/").rsplit("/", 1)[-1] for e in entries
                if e.get("type") == "file"]

    def exists(self, name: str) -> bool:
        return self.fs.isfile(self._full(name))

    def file(self, name: str):
        return self._full(name), self.fs

    def read_text(self, name: str) -> Optional[str]:
        try:
            return self.fs.cat_file(self._full(name)).decode("utf-8")
        except FileNotFoundError:
            return None

    def delete(self, name: str) -> None:
        try:
            self.fs.rm_file(self._full(name))
        except FileNotFoundError:
            pass

    def write(self, name: str, write: Callable) -> None:
        """Write ``name`` whole: ``write(f)`` fills a temporary file, then it is renamed."""
        fs = self.fs
        tmp = self._full(temp_name(name))
        try:
            with fs.open(tmp, "wb") as f:
                write(f)
            fs.mv(tmp, self._full(name))
        except BaseException:
            try:
                fs.rm_file(tmp)
            except Exception:  # already gone, or the store is unreachable: a rerun sweeps it
                pass
            raise


def open_url(url: str):
    """(fsspec filesystem, root path) of a URL; :class:`BatchError` if it cannot be used,
    naming the URL (not an option: commands read and write URLs under several)."""
    try:
        from fsspec.core import url_to_fs
    except ImportError:
        raise BatchError(f"{url} needs fsspec: pip install 'halfmoon[cluster]'") from None
    try:
        fs, root = url_to_fs(url)
    except ImportError as exc:  # the protocol's package is missing, e.g. s3fs
        raise BatchError(f"cannot use {url}: {error_text(exc)}") from None
    except ValueError as exc:
        raise BatchError(f"cannot use {url}: {error_text(exc)}") from None
    return fs, root.rstrip("/")


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
