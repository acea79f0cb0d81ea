"""What made a derived figure: the package's version, the commit of its source and the
solver's version, recorded in every page, JSON object and data file the toolkit writes from a
run, so that a figure quoted in a paper can be traced to the code that computed it.

    provenance()        # {"package": "halfmoon", "version": "0.1.0", "commit": "3f2a…",
                        #  "changed": False, "solver_version": "15"}
    provenance_words(p) # 'halfmoon 0.1.0 (commit 3f2a1b9c0d1e), solver version 15'

The commit is the one the package's source was checked out at, where it lies in a git work
tree (``changed``: with changes not committed, so the commit alone does not name the code);
None where it does not (an installed wheel).  Asked once a process: the source does not
change under a running command.
"""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path
from typing import Optional

PACKAGE = "halfmoon"


def _git(root: Path, *args: str):
    try:
        out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True,
                             timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def checkout(root: Path, *paths: str) -> tuple[Optional[str], Optional[bool]]:
    """The commit of the git work tree at ``root`` and whether its tracked files (those under
    ``paths``, when given) differ from it; (None, None) outside a work tree."""
    commit = _git(root, "rev-parse", "HEAD")
    if not commit:
        return None, None
    changes = _git(root, "status", "--porcelain", "--untracked-files=no", "--", *paths)
    return commit, None if changes is None else bool(changes)


@functools.lru_cache(maxsize=1)
def _source() -> tuple:
    """The commit of the package's source and whether its files differ from it (None, None
    outside a git work tree)."""
    root = Path(__file__).resolve().parents[2]
    if not (root / PACKAGE).is_dir():
        return None, None
    # only the package's own files: a notebook or a doc being edited does not change a figure
    return checkout(root, PACKAGE, "solver")


def version() -> str:
    """The installed package's version (its metadata; the source's where not installed)."""
    from importlib.metadata import PackageNotFoundError
    from importlib.metadata import version as _version

    try:
        return _version(PACKAGE)
    except PackageNotFoundError:  # pragma: no cover - a source tree on sys.path only
        from halfmoon import __version__

        return __version__


def provenance() -> dict:
    """The package's name, version, commit (None outside a git work tree), whether its
    source differs from that commit, and the solver's version."""
    from solver import SOLVER_VERSION

    commit, changed = _source()
    return {"package": PACKAGE, "version": version(), "commit": commit, "changed": changed,
            "solver_version": str(SOLVER_VERSION)}


def provenance_words(p: dict) -> str:
    """A provenance (:func:`provenance`) in words, as a page or a file's header says it."""
    if p.get("commit"):
        commit = f"commit {p['commit'][:12]}" + (", with changes not committed"
                                                 if p.get("changed") else "")
    else:
        commit = "not from a git checkout: no commit known"
    return (f"{p.get('package', PACKAGE)} {p.get('version', '?')} ({commit}), solver version "
            f"{p.get('solver_version', '?')}")


METADATA_KEY = b"halfmoon.provenance"


def write_parquet(frame, path) -> None:
    """``frame`` (a pandas DataFrame) as the Parquet file ``path``, its index left out and
    :func:`provenance` in its schema's metadata (``halfmoon.provenance``, JSON): a data file
    says what made it wherever it is copied."""
    import json

    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[METADATA_KEY] = json.dumps(provenance()).encode()
    pq.write_table(table.replace_schema_metadata(meta), path)


def read_provenance(path) -> dict:
    """The provenance a Parquet file was written with (:func:`write_parquet`); {} for one
    written without it."""
    import json

    import pyarrow.parquet as pq

    meta = pq.read_schema(path).metadata or {}
    return json.loads(meta[METADATA_KEY]) if METADATA_KEY in meta else {}
