"""numba's on-disk cache, dropped when any solver source changes.

numba stamps a cached kernel with its own file's time and size only, so a kernel that
calls into another module (the batch's first turn into the depth-first search, the
grouping model into the counting clauses) would keep running its old compiled code after
that module changed.  The package's caches are therefore keyed by a hash of all its
sources, in every subpackage: when the hash in ``sources.sha256`` of the top cache
directory differs, every ``.nbi``/``.nbc`` file of every folder's cache is removed before
anything is compiled or loaded, and the new hash written.  A folder's cache is numba's:
``__pycache__`` beside its sources, or the one numba derives under ``NUMBA_CACHE_DIR``
when that is set (a cache shared by a cluster's workers).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

STAMP = "sources.sha256"


def _source_dirs(package: Path) -> list[Path]:
    """The package's folder and its subpackages' (those holding ``.py`` files), sorted."""
    return sorted({f.parent for f in package.rglob("*.py") if "__pycache__" not in f.parts}
                  | {package})


def sources_hash(package: Path) -> str:
    """The SHA-256 of the ``.py`` files of the package and all its subpackages: their
    paths relative to it and their contents, in path order."""
    h = hashlib.sha256()
    files = sorted(f for f in package.rglob("*.py") if "__pycache__" not in f.parts)
    for f in files:
        h.update(f.relative_to(package).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def numba_cache_dir(folder: Path) -> Path:
    """Where numba keeps the compiled kernels of the modules in ``folder``."""
    from numba.core import config
    from numba.core.caching import _CacheLocator

    if config.CACHE_DIR:
        return Path(config.CACHE_DIR) / _CacheLocator.get_suitable_cache_subpath(
            str(folder / "__init__.py"))
    return folder / "__pycache__"


def drop_stale_caches(package: Path) -> bool:
    """Remove the numba caches of the package and its subpackages if its sources changed
    since they were made; True if they were removed.  Never raises: a cache that cannot
    be cleaned is left to numba, which recompiles what it cannot load."""
    top = numba_cache_dir(package)
    digest = sources_hash(package)
    stamp = top / STAMP
    try:
        if stamp.read_text().strip() == digest:
            return False
    except OSError:
        pass
    try:
        for folder in _source_dirs(package):
            cache = numba_cache_dir(folder)
            if not cache.is_dir():
                continue
            for f in cache.iterdir():
                if f.suffix in (".nbi", ".nbc"):
                    f.unlink(missing_ok=True)
        top.mkdir(parents=True, exist_ok=True)
        tmp = top / f".{STAMP}.{os.getpid()}"
        tmp.write_text(digest + "\n")
        os.replace(tmp, stamp)
    except OSError:
        return False
    return True
