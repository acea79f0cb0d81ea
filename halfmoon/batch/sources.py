"""The deals of a run: a range, a random sample, a codes file or numbers from a program."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

import numpy as np

from halfmoon.game.codes import DEAL_COUNT, MAX_NUMBER, parse_code
from halfmoon.game.errors import HalfMoonError

from .errors import BatchError

SHOWN_BAD_LINES = 5
QUOTED = 40  # characters at most of a line of a file quoted in a message


@dataclass(frozen=True)
class DealList:
    """The deal numbers of a run, in order and without repeats, and how they were named."""

    numbers: Sequence[int]
    # how they were named: {"kind": "range", "start", "stop"}, {"kind": "codes", "file"},
    # {"kind": "random", "count", "seed"} or {"kind": "numbers", "count"}
    source: dict
    duplicates: int = 0  # entries of the input naming a deal already listed (dropped)

    def __len__(self) -> int:
        return len(self.numbers)

    def digest(self) -> str:
        """The identity of the list: SHA-256 of a range's bounds, or of the deal numbers
        (int64, little-endian) of any other list.  It costs the same whatever the range."""
        if isinstance(self.numbers, range) and self.numbers.step == 1:
            bounds = f"range {self.numbers.start} {self.numbers.stop}".encode("ascii")
            return hashlib.sha256(bounds).hexdigest()
        return hashlib.sha256(np.asarray(self.numbers, dtype="<i8").tobytes()).hexdigest()

    def numbers_digest(self, block: int = 1 << 20) -> str:
        """SHA-256 of the deal numbers (int64, little-endian), a block at a time: how
        :meth:`digest` named every list before ranges were named by their bounds."""
        h = hashlib.sha256()
        for k in range(0, len(self.numbers), block):
            part = self.numbers[k : k + block]
            if isinstance(part, range):
                part = np.arange(part.start, part.stop, part.step, dtype="<i8")
            h.update(np.asarray(part, dtype="<i8").tobytes())
        return h.hexdigest()

    def sample(self, count: int) -> list[int]:
        """``count`` deals spread evenly over the list (all of them if it is shorter)."""
        n = len(self.numbers)
        if count >= n:
            return [int(x) for x in self.numbers]
        return [int(self.numbers[(2 * i + 1) * n // (2 * count)]) for i in range(count)]


def describe_source(source: dict) -> str:
    kind = source.get("kind")
    if kind == "range":
        return f"--range {source.get('start')}:{source.get('stop')}"
    if kind == "random":
        return f"--random {source.get('count')} --seed {source.get('seed')}"
    if kind == "codes":
        return f"--codes {source.get('file')}"
    if kind == "numbers":
        return f"{source.get('count')} deal numbers"
    if kind == "pooled":
        return f"{len(source.get('runs', []))} runs pooled"
    return str(source)


def population(source: dict, count: int) -> str:
    """What the deals of a run are, in words, from its manifest's source (a sentence's
    object: "2,000 deals drawn uniformly at random from all 8,031,810,176 deal codes (seed
    5)"); ``count`` deals of it, which may be fewer than it names (a run not finished)."""
    kind = source.get("kind")

    def n(total: int) -> str:
        if count != total:
            return f"{count:,} of the {total:,} deals"
        return f"{'the ' if kind in ('range', 'codes') else ''}{count:,} deal" + \
            ("s" if count != 1 else "")

    if kind == "random":
        return (f"{n(int(source.get('count', count)))} drawn uniformly at random from all "
                f"{DEAL_COUNT:,} deal codes (seed {source.get('seed')})")
    if kind == "range":
        start, stop = int(source.get("start", 0)), int(source.get("stop", 0))
        return (f"{n(stop - start)} numbered {start:,} to {stop - 1:,} (a range of deal "
                "numbers, not a random sample)")
    if kind == "codes":
        return f"{n(count)} listed in {Path(str(source.get('file'))).name} (a list of deal codes)"
    if kind == "numbers":
        return f"{n(int(source.get('count', count)))} given by number (a list, not a random sample)"
    if kind == "pooled":
        return _pooled_population(source, count)
    return f"{n(count)} (how they were chosen is not recorded)"


def _pooled_population(source: dict, count: int) -> str:
    """The deals of runs pooled, each deal once: how many, of which runs, and whether they
    are together a uniformly random sample (random runs only: given its size, every set of
    deals is as likely as another, whatever the overlap)."""
    runs = source.get("runs", [])
    parts = [population(r.get("source", {}), int((r.get("deals") or {}).get("count") or 0))
             for r in runs]
    shared = sum(int(r.get("shared", 0)) for r in runs)
    random = all(r.get("source", {}).get("kind") == "random" for r in runs)
    return (f"{count:,} deal{'s' if count != 1 else ''} pooled from {len(runs)} runs, each deal "
            f"counted once ({shared:,} held by more than one run): " + "; ".join(parts)
            + (" (together a uniformly random sample)" if random
               else " (together not a uniformly random sample)" if any(
                   r.get("source", {}).get("kind") == "random" for r in runs) else ""))


def deals_from_range(start: int, stop: int) -> DealList:
    """Deal numbers ``start`` to ``stop - 1``."""
    if not 0 <= start < stop <= DEAL_COUNT:
        raise BatchError(
            f"bad range {start}:{stop}: expected A:B with 0 <= A < B <= {DEAL_COUNT}"
            " (deals A to B-1)"
        )
    return DealList(range(start, stop), {"kind": "range", "start": start, "stop": stop})


def parse_range(text: str) -> DealList:
    """``"A:B"``: deal numbers A to B−1."""
    parts = text.strip().split(":")
    if len(parts) != 2 or not all(p.strip().isascii() and p.strip().isdigit() for p in parts):
        raise BatchError(f"bad range {text!r}: expected A:B with whole numbers, e.g. 0:2000")
    return deals_from_range(int(parts[0]), int(parts[1]))


def deals_from_random(count: int, seed: int) -> DealList:
    """``count`` distinct deal numbers drawn uniformly, reproducibly from ``seed``."""
    from halfmoon.game.codes import random_numbers

    if not 1 <= count <= DEAL_COUNT:
        raise BatchError(f"bad --random {count}: expected 1 to {DEAL_COUNT} deals")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise BatchError(f"bad seed {seed!r}: expected a whole number, 0 or more")
    return DealList(random_numbers(count, seed), {"kind": "random", "count": count, "seed": seed})


def deals_from_numbers(numbers: Iterable[int], source: Optional[dict] = None) -> DealList:
    """Deal numbers given by a program: checked, and kept once each, at their first place."""
    numbers = list(numbers)
    unique = list(dict.fromkeys(numbers))
    for n in unique:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 0 <= n <= MAX_NUMBER:
            raise BatchError(f"bad deal number {n!r}: expected a whole number 0..{MAX_NUMBER}")
    unique = [int(n) for n in unique]
    if source is None:
        source = {"kind": "numbers", "count": len(unique)}
    return DealList(unique, source, duplicates=len(numbers) - len(unique))


def deals_from_codes(path: Union[str, Path]) -> DealList:
    """The deals of a codes file: one code or deal number per line.

    Text after ``#`` and blank lines are ignored.  If any line is malformed, raise
    :class:`BatchError` naming the first bad lines with their numbers (nothing is run); a
    file that is not text (a byte that is not UTF-8, a NUL byte: an image, UTF-16) is one
    line saying so.  A deal listed twice is kept once, at its first place.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except IsADirectoryError:
        raise BatchError(f"codes file {str(path)!r} is a directory") from None
    except OSError as exc:
        raise BatchError(f"cannot read codes file {str(path)!r}: {exc.strerror or exc}") from None
    text = _text(data, path)
    numbers: list[int] = []
    bad: list[str] = []
    nbad = 0
    for lineno, raw in enumerate(text.split("\n"), start=1):
        entry = raw.split("#", 1)[0].strip()
        if not entry:
            continue
        try:
            numbers.append(_parse_entry(entry))
        except HalfMoonError as exc:
            nbad += 1
            if len(bad) < SHOWN_BAD_LINES:
                bad.append(f"  line {lineno}: {exc}")
    if nbad:
        more = f"\n  ... and {nbad - len(bad)} more" if nbad > len(bad) else ""
        plural = "s" if nbad > 1 else ""
        raise BatchError(
            f"{path}: {nbad} malformed line{plural}, nothing was run:\n" + "\n".join(bad) + more
        )
    if not numbers:
        raise BatchError(f"{path}: no deal codes or numbers in the file")
    return deals_from_numbers(numbers, {"kind": "codes", "file": str(path.resolve())})


def quote(text: str, limit: int = QUOTED) -> str:
    """``text`` (a line of a file) quoted for a message: its :func:`repr`, so no control
    character or line break, and of a long one its start only, with its length."""
    if len(repr(text)) <= limit:
        return repr(text)
    n = limit
    while n > 0 and len(repr(text[:n])) > limit:
        n -= 1
    return f"{text[:n]!r}... ({len(text):,} characters)"


def _text(data: bytes, path: Path) -> str:
    """The text of the codes file ``path`` (its bytes ``data``: UTF-8, a byte-order mark
    first allowed), or :class:`BatchError` in one line if it is not text."""
    start = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    nul = data.find(b"\0")
    try:
        text = data[start:].decode("utf-8")
    except UnicodeDecodeError as exc:
        at = start + exc.start
        if not 0 <= nul < at:  # whichever comes first
            bad = data[at]
            kind = (", UTF-16 by its first bytes: save it as UTF-8"
                    if data[:2] in (b"\xff\xfe", b"\xfe\xff") else "")
            raise _not_text(path, f"a byte 0x{bad:02x} at offset {at} that is not UTF-8{kind}")
    else:
        if nul < 0:
            return text
    raise _not_text(path, f"a NUL byte at offset {nul}")


def _not_text(path: Path, why: str) -> BatchError:
    return BatchError(f"codes file {str(path)!r} is not text ({why}): expected one deal code or"
                      " number a line")


def _parse_entry(text: str) -> int:
    if text.isascii() and text.isdigit():
        digits = text.lstrip("0") or "0"
        if len(digits) > len(str(MAX_NUMBER)) or int(digits) > MAX_NUMBER:
            shown = digits if len(digits) <= QUOTED else quote(digits)
            raise BatchError(f"deal number {shown} is outside 0..{MAX_NUMBER}")
        return int(digits)
    if not text.upper().startswith("HM"):
        raise BatchError(f"{quote(text)} is neither a deal code nor a deal number")
    if len(repr(text)) > QUOTED:  # longer than any code: its start only
        raise BatchError(f"{quote(text)} is not a deal code (expected one like HM1-N-AAAAAAB)")
    return parse_code(text)[1]
