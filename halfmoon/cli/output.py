"""What the commands print for programs: one JSON object, with the schema number and its
times rounded.

Every JSON object a command prints starts with ``"schema": SCHEMA``.  The number promises
the shape: it is raised when a key changes meaning or goes away, not when a key is added
(a program reading the keys it knows keeps working).  Times (a key ``seconds``, ``…_seconds``
or ``seconds_…``, and every figure under it) are rounded to the microsecond.
"""

from __future__ import annotations

import json

# raised when a key of any command's JSON changes meaning or goes away (docs/usage.md)
SCHEMA = 1
TIME_DIGITS = 6  # times to the microsecond


def is_time_key(key: str) -> bool:
    """Whether a JSON key holds a time in seconds (or figures of times: ``seconds`` of
    ``stats --json`` holds the mean, the percentiles ...)."""
    return key == "seconds" or key.endswith("_seconds") or key.startswith("seconds_")


def rounded_times(value, in_time: bool = False):
    """``value`` (dicts, lists, numbers) with every float under a time key rounded to the
    microsecond; the rest as it was."""
    if isinstance(value, dict):
        return {k: rounded_times(v, in_time or (isinstance(k, str) and is_time_key(k)))
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [rounded_times(v, in_time) for v in value]
    if in_time and isinstance(value, float):
        return round(value, TIME_DIGITS)
    return value


def json_line(obj: dict) -> str:
    """One command's JSON object as the line it prints: ``schema`` first, times rounded."""
    return json.dumps({"schema": SCHEMA, **rounded_times(obj)}, ensure_ascii=False)
