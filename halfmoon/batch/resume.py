"""What a results directory already holds, checked before a run writes into it: the
manifest (the run's identity: a rerun of the same run resumes, any other is refused) and
the chunk files (each one read back in part: a sound one is counted and kept, a bad one
reported and removed, so that its deals are solved again)."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timezone
from typing import Optional

import numpy as np
import pyarrow.compute as pc

from .directory import Directory
from .errors import BatchError
from .plan import Plan
from .results import FORMAT_VERSION, MANIFEST_NAME, VERDICTS, ResultsError
from .sources import DealList, describe_source

# chunk files checked at once on resume (reading them waits on the disk or the store)
SCAN_THREADS = 8
LEGACY_DIGEST_LIMIT = 10**8  # ranges up to this long may resume a run named by its numbers' digest


def identity(plan: Plan, budget: int, solver_version: str, lines: str = "all") -> dict:
    """What makes a run this run: a rerun with the same identity resumes it."""
    return {
        "format": FORMAT_VERSION,
        "lines": lines,
        "solver_version": solver_version,
        "budget": budget,
        "chunk_size": plan.chunk_size,
        "deals": {"count": len(plan.deals), "sha256": plan.deals.digest()},
    }


def read_manifest(directory: Directory) -> Optional[dict]:
    """The directory's manifest, None if it has none; one line if it is unreadable."""
    try:
        return directory.read_manifest()
    except ResultsError as exc:
        raise BatchError(f"{exc}; is {directory.path} a results directory?") from None


def check_manifest(directory: Directory, stored: Optional[dict], identity: dict,
                   deals: DealList) -> dict:
    """The directory's manifest if it is this run's, a new one if it has none; refuse another
    run's."""
    if stored is None:
        if directory.chunks():
            raise BatchError(
                f"{directory.path} holds chunk files but no {MANIFEST_NAME}: choose another --out"
            )
        manifest = dict(identity, source=deals.source, created=now(), status="running")
        directory.write_manifest(manifest)
        return manifest
    if compare(directory, stored, identity, deals):  # named by the numbers' digest, as before
        stored["deals"] = identity["deals"]
        directory.write_manifest(stored)
    return stored


def compare(directory: Directory, stored: dict, identity: dict, deals: DealList) -> bool:
    """Refuse another run's manifest; True if it is this run's but names a range by the
    digest of its numbers."""
    if stored.get("format", 1) != identity["format"]:
        raise BatchError(
            f"{directory.path} holds results of format {stored.get('format', 1)}, written by"
            f" another version of halfmoon; this one writes format {identity['format']} and does"
            " not mix two in one dataset: choose another --out (the old results still read)")
    differs = [key for key in identity if stored.get(key) != identity[key]]
    legacy = differs == ["deals"] and _legacy_digest_matches(stored.get("deals"), deals)
    if differs and not legacy:
        names = {"deals": "deals", "budget": "budget", "chunk_size": "chunk size",
                 "solver_version": "solver version", "format": "results format",
                 "lines": "--lines"}
        other = (f"{describe_source(stored.get('source', {}))} --budget {stored.get('budget')}"
                 f" --chunk-size {stored.get('chunk_size')} --lines {stored.get('lines')},"
                 f" solver version {stored.get('solver_version')}")
        raise BatchError(
            f"{directory.path} holds another run's results ({other}); this run differs in "
            f"{', '.join(names[k] for k in differs)}: choose another --out, or delete"
            f" {directory.path}"
        )
    return legacy


def _legacy_digest_matches(stored_deals, deals: DealList) -> bool:
    return (isinstance(deals.numbers, range) and isinstance(stored_deals, dict)
            and stored_deals.get("count") == len(deals) <= LEGACY_DIGEST_LIMIT
            and stored_deals.get("sha256") == deals.numbers_digest())


def scan_chunks(directory: Directory, plan: Plan, budget: int,
                 solver_version: str) -> dict[int, Counter]:
    """Verdict counts of the sound chunk files by index; a bad one is reported and removed.
    Files are read a few at a time (only four small columns of each): a census has
    thousands."""

    def check(item):
        index, name = item
        try:
            return index, name, _check_chunk(directory, plan, index, name, budget, solver_version)
        except ResultsError as exc:
            return index, name, exc

    done = {}
    with ThreadPoolExecutor(SCAN_THREADS) as pool:
        for index, name, counts in pool.map(check, directory.chunks().items()):
            if isinstance(counts, ResultsError):
                directory.log(f"{counts}; its deals will be solved again")
                directory.remove(name)
            else:
                done[index] = counts
    return done


def _check_chunk(directory, plan, index, name, budget, solver_version) -> Counter:
    label = directory.where.label(name)
    if index >= plan.nchunks:
        raise ResultsError(f"{label}: not a chunk of this run")
    version = directory.chunk_format(name)
    if version != FORMAT_VERSION:
        raise BatchError(f"{label} is a file of results format {version}, this run writes format"
                         f" {FORMAT_VERSION}: a dataset holds one format; choose another --out")
    table = directory.read_chunk(name, columns=["deal", "verdict", "budget", "solver_version"])
    if not np.array_equal(np.sort(table.column("deal").to_numpy()),
                          np.sort(_array(plan.chunk(index)))):
        raise ResultsError(f"{label}: does not hold the deals of chunk {index} of this run")
    if (not _all_equal(table, "budget", budget)
            or not _all_equal(table, "solver_version", solver_version)):
        raise ResultsError(f"{label}: written with another budget or solver version")
    counts = Counter({d["values"]: d["counts"]
                      for d in pc.value_counts(table.column("verdict")).to_pylist()})
    if set(counts) - set(VERDICTS):
        raise ResultsError(f"{label}: unknown verdicts {sorted(set(counts) - set(VERDICTS))}")
    return counts


def _array(numbers) -> np.ndarray:
    if isinstance(numbers, range):
        return np.arange(numbers.start, numbers.stop, numbers.step, dtype=np.int64)
    return np.asarray(numbers, dtype=np.int64)


def _all_equal(table, column: str, value) -> bool:
    col = table.column(column)
    return len(col) == 0 or bool(pc.all(pc.equal(col, value)).as_py())


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
