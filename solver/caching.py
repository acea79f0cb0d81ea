"""numba's on-disk cache, dropped when any solver source changes.

numba stamps a cached kernel with its own file's time and size only, so a kernel that
calls into another module (``pieces.quick_kernel`` into ``dfs``, ``grouping`` into
``counting``) would keep running its old compiled code after that module changed.  The
package's caches are therefore keyed by a hash of all its sources: when the hash in
``sources.sha256`` of the cache directory differs, every ``.nbi``/``.nbc`` file there is
removed before anything is compiled or loaded, and the new hash written.  The cache
directory is numba's for the package: ``__pycache__`` beside the sources, or the one numba
derives under ``NUMBA_CACHE_DIR`` when that is set (a cache shared by a cluster's workers).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

STAMP = "sources.sha256"


def sources_hash(package: Path) -> str:
    """The SHA-256 of the package's ``.py`` files, names and contents, in name order."""
    h = hashlib.sha256()
    for f in sorted(package.glob("*.py")):
        h.update(f.name.encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()


def numba_cache_dir(package: Path) -> Path:
    """Where numba keeps the compiled kernels of ``package``'s modules."""
    from numba.core import config
    from numba.core.caching import _CacheLocator

    if config.CACHE_DIR:
        return Path(config.CACHE_DIR) / _CacheLocator.get_suitable_cache_subpath(
            str(package / "__init__.py"))
    return package / "__pycache__"


def drop_stale_caches(package: Path) -> bool:
    """Remove the package's numba caches if its sources changed since they were made;
    True if they were removed.  Never raises: a cache that cannot be cleaned is left to
    numba, which recompiles what it cannot load."""
    cache = numba_cache_dir(package)
    digest = sources_hash(package)
    stamp = cache / STAMP
    try:
        if stamp.read_text().strip() == digest:
            return False
    except OSError:
        pass
    try:
        cache.mkdir(parents=True, exist_ok=True)
        for f in cache.iterdir():
            if f.suffix in (".nbi", ".nbc"):
                f.unlink(missing_ok=True)
        tmp = cache / f".{STAMP}.{os.getpid()}"
        tmp.write_text(digest + "\n")
        os.replace(tmp, stamp)
    except OSError:
        return False
    return True
